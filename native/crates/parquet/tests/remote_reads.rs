//! Bytes a read asks of a remote file system (a reader like the JNI one over Flink's file
//! systems: ranges by request, sequential reads 1 MiB at a time), against the file's size.

mod common;

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow::array::{ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use bytes::Bytes;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{ChunkReader, Length};
use streamfusion_parquet::{FileBytes, RowGroupReader, file_schema_in, row_groups_matching_in};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// As the JNI reader's sequential reads ask.
const READ_AHEAD: usize = 1 << 20;

/// A file's bytes, counting those asked for.
#[derive(Clone)]
struct Remote {
    file: Bytes,
    requested: Arc<AtomicU64>,
}

impl Remote {
    fn fetch(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.requested.fetch_add(length as u64, Ordering::Relaxed);
        let start = usize::try_from(start)
            .map_err(|e| parquet::errors::ParquetError::External(e.into()))?;
        Ok(self.file.slice(start..start + length))
    }
}

impl Length for Remote {
    fn len(&self) -> u64 {
        self.file.len() as u64
    }
}

struct Sequential {
    remote: Remote,
    position: u64,
    buffered: Bytes,
}

impl Read for Sequential {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.buffered.is_empty() {
            let left = self.remote.len().saturating_sub(self.position) as usize;
            let want = left.min(READ_AHEAD);
            if want == 0 {
                return Ok(0);
            }
            self.buffered = self
                .remote
                .fetch(self.position, want)
                .map_err(std::io::Error::other)?;
            self.position += want as u64;
        }
        let n = out.len().min(self.buffered.len());
        out[..n].copy_from_slice(&self.buffered.split_to(n));
        Ok(n)
    }
}

impl ChunkReader for Remote {
    type T = Sequential;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Sequential> {
        Ok(Sequential {
            remote: self.clone(),
            position: start,
            buffered: Bytes::new(),
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.fetch(start, length)
    }
}

/// `rows` rows of five columns in row groups of 20,000 rows and small pages (about 4 KiB), some
/// dictionary-encoded.
fn file(rows: i64) -> Result<Bytes, Box<dyn std::error::Error>> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("price", DataType::Float64, true),
        Field::new("quantity", DataType::Int32, true),
        Field::new("note", DataType::Utf8, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(0..rows)),
        Arc::new(StringArray::from_iter_values(
            (0..rows).map(|i| format!("name-{}", i * 7919 % 100_003)),
        )),
        Arc::new(Float64Array::from_iter_values(
            (0..rows).map(|i| (i % 977) as f64 * 1.25),
        )),
        Arc::new(Int32Array::from_iter_values(
            (0..rows).map(|i| (i % 13) as i32),
        )),
        Arc::new(StringArray::from_iter_values(
            (0..rows).map(|i| format!("note {}", i % 40)),
        )),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns)?;
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(20_000))
        .set_data_page_size_limit(4096)
        .build();
    common::parquet_bytes(&batch, properties)
}

/// What reading a file through ranges took.
struct Scan {
    /// Bytes asked of the file.
    requested: u64,
    rows: usize,
    /// The most bytes of the file the reader held between batches.
    most_held: u64,
}

/// Reads `columns` (all when empty) of every row group.
fn read(file: &Bytes, columns: &[&str]) -> Result<Scan, Box<dyn std::error::Error>> {
    let remote = Remote {
        file: file.clone(),
        requested: Arc::new(AtomicU64::new(0)),
    };
    let (schema, row_groups) = file_schema_in("remote", FileBytes::Ranges(remote.clone()))?;
    let target = if columns.is_empty() {
        schema
    } else {
        Arc::new(
            schema.project(
                &columns
                    .iter()
                    .map(|c| schema.index_of(c))
                    .collect::<Result<Vec<_>, _>>()?,
            )?,
        )
    };
    // Counted from the read itself: what opening the file for planning asked is not.
    remote.requested.store(0, Ordering::Relaxed);
    let groups: Vec<usize> = (0..row_groups).collect();
    let mut reader = RowGroupReader::open_in(
        "remote",
        FileBytes::Ranges(remote.clone()),
        &groups,
        target,
        &[],
        4096,
        &[],
        None,
    )?;
    let mut rows = 0;
    let mut most_held = 0;
    while let Some(batch) = reader.next_batch()? {
        rows += batch.num_rows();
        most_held = most_held.max(reader.held_bytes());
    }
    Ok(Scan {
        requested: remote.requested.load(Ordering::Relaxed),
        rows,
        most_held,
    })
}

#[test]
fn a_full_scan_asks_for_little_more_than_the_file() -> TestResult {
    let file = file(60_000)?;
    let Scan {
        requested, rows, ..
    } = read(&file, &[])?;
    assert_eq!(rows, 60_000);
    let ratio = requested as f64 / file.len() as f64;
    assert!(
        ratio <= 1.1,
        "asked for {requested} bytes of a {} byte file ({ratio:.2}x)",
        file.len()
    );
    Ok(())
}

#[test]
fn a_projection_asks_for_little_more_than_its_columns() -> TestResult {
    // Large enough that the footer, read while opening, is a small part of one column.
    let file = file(300_000)?;
    let metadata = parquet::file::metadata::ParquetMetaDataReader::new().parse_and_finish(&file)?;
    let footer = u64::from(u32::from_le_bytes(
        file[file.len() - 8..file.len() - 4].try_into()?,
    )) + 8;
    let chunks: u64 = metadata
        .row_groups()
        .iter()
        .map(|group| group.column(3).byte_range().1)
        .sum();
    let Scan {
        requested, rows, ..
    } = read(&file, &["quantity"])?;
    assert_eq!(rows, 300_000);
    let needed = chunks + footer;
    assert!(
        requested as f64 <= 1.1 * needed as f64,
        "asked for {requested} bytes to read {needed}"
    );
    Ok(())
}

/// A reader holds the footer and the column chunks of the row group it reads, not the file.
#[test]
fn a_reader_holds_one_row_group_at_a_time() -> TestResult {
    let file = file(100_000)?;
    let metadata = parquet::file::metadata::ParquetMetaDataReader::new().parse_and_finish(&file)?;
    let footer = u64::from(u32::from_le_bytes(
        file[file.len() - 8..file.len() - 4].try_into()?,
    )) + 8;
    let largest_group = metadata
        .row_groups()
        .iter()
        .map(|group| {
            group
                .columns()
                .iter()
                .map(|c| c.byte_range().1)
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0);
    assert!(metadata.num_row_groups() >= 5);
    let Scan { most_held, .. } = read(&file, &[])?;
    assert!(
        most_held > footer && most_held <= footer + largest_group,
        "held {most_held} bytes; the footer is {footer}, the largest row group {largest_group} \
         of a {} byte file",
        file.len()
    );
    Ok(())
}

#[test]
fn planning_asks_for_the_footer_once() -> TestResult {
    let file = file(60_000)?;
    let remote = Remote {
        file: file.clone(),
        requested: Arc::new(AtomicU64::new(0)),
    };
    let rows = row_groups_matching_in("remote", FileBytes::Ranges(remote.clone()), &[])?;
    assert_eq!(rows, vec![20_000; 3]);
    // The length and magic, then the footer with them.
    let footer = u64::from(u32::from_le_bytes(
        file[file.len() - 8..file.len() - 4].try_into()?,
    )) + 8;
    assert_eq!(remote.requested.load(Ordering::Relaxed), 8 + footer);
    Ok(())
}
