//! Corrupt files end in an error naming the file, never in an abort: lengths read from a file are
//! checked against the file before anything of that size is allocated.
//!
//! The test binary runs under an allocator that refuses any single allocation above
//! [`ALLOCATION_LIMIT`] (2 GiB and a little), as a memory-limited task manager would; a refused
//! allocation aborts the process, so a length trusted from a file fails the run rather than
//! passing unseen.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use bytes::Bytes;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader, ParquetMetaDataWriter};
use parquet::file::properties::WriterProperties;
use streamfusion_parquet::{
    ColumnPredicate, FileBytes, Op, RowGroupReader, Value, file_schema_in, row_groups_matching_in,
};

/// Just past every size a page header may claim (an `i32`): below what a corrupt 64-bit length,
/// or a list count times its elements' size, asks.
const ALLOCATION_LIMIT: usize = (1 << 31) + (1 << 26);

struct Limited;

// SAFETY: delegates to the system allocator, refusing (null) only requests above the limit.
unsafe impl GlobalAlloc for Limited {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > ALLOCATION_LIMIT {
            return std::ptr::null_mut();
        }
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > ALLOCATION_LIMIT {
            return std::ptr::null_mut();
        }
        // SAFETY: `ptr` came from `System.alloc` with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Limited = Limited;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The crate's directory as cargo runs the test, not as it was built: a target directory shared
/// by several checkouts may run a binary another one built.
fn crate_dir() -> std::path::PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(
        || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        std::path::PathBuf::from,
    )
}

/// A small file of even ids with a bloom filter on each column.
fn file_with_bloom_filters() -> Result<Bytes, Box<dyn std::error::Error>> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("name", DataType::Utf8, true),
    ]));
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values((0..1000).map(|i| i * 2)));
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..1000).map(|i| format!("name-{i}")),
    ));
    let batch = RecordBatch::try_new(schema.clone(), vec![ids, names])?;
    let properties = WriterProperties::builder()
        .set_bloom_filter_enabled(true)
        .build();
    common::parquet_bytes(&batch, properties)
}

/// `file` with its footer written again after `change` edits the metadata.
fn with_footer(
    file: &Bytes,
    change: impl FnOnce(ParquetMetaData) -> parquet::errors::Result<ParquetMetaData>,
) -> Result<Bytes, Box<dyn std::error::Error>> {
    let metadata = ParquetMetaDataReader::new().parse_and_finish(file)?;
    let tail = file.len() - 8;
    let footer_length = u32::from_le_bytes(file[tail..tail + 4].try_into()?) as usize;
    let mut out = file[..tail - footer_length].to_vec();
    ParquetMetaDataWriter::new(&mut out, &change(metadata)?).finish()?;
    Ok(Bytes::from(out))
}

/// `metadata` with every column chunk's bloom filter length set to `length`.
fn bloom_filter_lengths(
    metadata: ParquetMetaData,
    length: i32,
) -> parquet::errors::Result<ParquetMetaData> {
    let mut builder = metadata.into_builder();
    let mut groups = Vec::new();
    for group in builder.take_row_groups() {
        let columns = group
            .columns()
            .iter()
            .map(|column| {
                column
                    .clone()
                    .into_builder()
                    .set_bloom_filter_length(Some(length))
                    .build()
            })
            .collect::<parquet::errors::Result<Vec<_>>>()?;
        groups.push(group.into_builder().set_column_metadata(columns).build()?);
    }
    Ok(builder.set_row_groups(groups).build())
}

/// `id = 501`: within the statistics' bounds, absent from the bloom filter.
fn equality_on_id() -> Vec<ColumnPredicate> {
    vec![ColumnPredicate {
        column: "id".to_string(),
        op: Op::Eq,
        value: Some(Value::Int(501)),
    }]
}

#[test]
fn a_bloom_filter_length_past_the_end_of_the_file_is_an_error() -> TestResult {
    let file = file_with_bloom_filters()?;
    // The untouched file: the bloom filter rules the row group out.
    assert_eq!(
        row_groups_matching_in(
            "good.parquet",
            FileBytes::Ranges(file.clone()),
            &equality_on_id()
        )?,
        vec![-1]
    );
    let corrupt = with_footer(&file, |metadata| bloom_filter_lengths(metadata, i32::MAX))?;
    // Read as ranges (a file system's) and as a local file.
    let local = std::env::temp_dir().join(format!(
        "streamfusion-corrupt-bloom-{}.parquet",
        std::process::id()
    ));
    std::fs::write(&local, &corrupt)?;
    let local_path = local.display().to_string();
    let errors = [
        row_groups_matching_in(
            "corrupt.parquet",
            FileBytes::Ranges(corrupt),
            &equality_on_id(),
        ),
        streamfusion_parquet::row_groups_matching(&local_path, &equality_on_id()),
    ]
    .map(|result| result.err().map(|e| e.to_string()).unwrap_or_default());
    std::fs::remove_file(&local)?;
    for (error, name) in errors.iter().zip(["corrupt.parquet", local_path.as_str()]) {
        assert!(
            error.starts_with(&format!("{name}: ")) && error.contains("past the end of the file"),
            "{error}"
        );
    }
    Ok(())
}

/// The checks of a file's structures refuse no file of parquet-testing that parquet-rs itself
/// reads: its schema, its row groups, the first page of every column chunk, and with a predicate
/// its column and offset indexes.
#[test]
fn every_file_parquet_rs_reads_passes_the_checks() -> TestResult {
    let data = crate_dir().join("../../../../shared/testdata/parquet-testing/data");
    let mut read = 0;
    for entry in std::fs::read_dir(data)? {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != "parquet") {
            continue;
        }
        let file = Bytes::from(std::fs::read(&path)?);
        // What parquet-rs reads on its own, as the reader opened files before the checks.
        if ParquetRecordBatchReaderBuilder::try_new_with_options(
            file.clone(),
            ArrowReaderOptions::new().with_skip_arrow_metadata(true),
        )
        .is_err()
        {
            continue;
        }
        read += 1;
        let name = path.display().to_string();
        let (target, row_groups) = file_schema_in(&name, FileBytes::Ranges(file.clone()))?;
        row_groups_matching_in(&name, FileBytes::Ranges(file.clone()), &[])?;
        let groups: Vec<usize> = (0..row_groups).collect();
        // Every column: the reader checks the first page header of each chunk.
        RowGroupReader::open_in(
            &name,
            FileBytes::Ranges(file.clone()),
            &groups,
            target.clone(),
            &[],
            1024,
            &[],
            None,
        )?;
        // A predicate has the reader check and load the column and offset indexes.
        let predicates = [ColumnPredicate {
            column: target.field(0).name().clone(),
            op: Op::IsNotNull,
            value: None,
        }];
        RowGroupReader::open_in(
            &name,
            FileBytes::Ranges(file),
            &groups,
            target.clone(),
            &[],
            1024,
            &predicates,
            None,
        )?;
    }
    assert!(read > 50, "only {read} files read");
    Ok(())
}

/// Every readable file of parquet-testing, its footer mutated a byte at a time (every seventh byte
/// set to values that turn varint lengths and offsets wild), read with and without predicates:
/// each read ends, in rows or an error naming the file; none panics.
/// The cargo-fuzz target `parquet_footer` searches further.
#[test]
fn mutated_footers_end_in_rows_or_errors() -> TestResult {
    let data = crate_dir().join("../../../../shared/testdata/parquet-testing/data");
    let mut files: Vec<_> = std::fs::read_dir(data)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "parquet"))
        // Its one value unpacks to 2 GiB: reading it whole is the file's test, not this one's.
        .filter(|path| !path.ends_with("large_string_map.brotli.parquet"))
        .collect();
    files.sort();
    let (mut reads, mut errors, mut panics) = (0usize, 0usize, 0usize);
    for path in files {
        let file = Bytes::from(std::fs::read(&path)?);
        // Only files whose schema parquet-rs reads, small enough to mutate in full.
        let name = path.display().to_string();
        let Ok((target, row_groups)) = file_schema_in(&name, FileBytes::Ranges(file.clone()))
        else {
            continue;
        };
        if file.len() > 64 * 1024 {
            continue;
        }
        let groups: Vec<usize> = (0..row_groups).collect();
        let first = target.field(0).name().clone();
        let predicates = vec![ColumnPredicate {
            column: first,
            op: Op::IsNotNull,
            value: None,
        }];
        let tail = file.len() - 8;
        let footer_length = u32::from_le_bytes(file[tail..tail + 4].try_into()?) as usize;
        let footer = tail.saturating_sub(footer_length)..file.len();
        for position in footer.step_by(7) {
            for byte in [0x7fu8, 0xff] {
                let mut mutated = file.to_vec();
                mutated[position] = byte;
                let mutated = Bytes::from(mutated);
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    read_all(&name, &mutated, &groups, target.clone(), &predicates)
                }));
                reads += 1;
                match outcome {
                    Ok(Ok(())) => {}
                    Ok(Err(error)) => {
                        errors += 1;
                        assert!(
                            error.starts_with(&name),
                            "an error that does not name the file: {error}"
                        );
                    }
                    Err(_) => panics += 1,
                }
            }
        }
    }
    assert!(reads > 5_000, "only {reads} mutated reads");
    assert!(errors > 0);
    assert_eq!(panics, 0, "{panics} of {reads} mutated reads panicked");
    Ok(())
}

/// Plans the file's row groups, then reads them all without and with `predicates`: each step
/// runs whatever the one before ended in (as a reader does with every split); the first error, if
/// any, is returned.
fn read_all(
    name: &str,
    file: &Bytes,
    groups: &[usize],
    target: arrow::datatypes::SchemaRef,
    predicates: &[ColumnPredicate],
) -> Result<(), String> {
    let mut first_error = row_groups_matching_in(name, FileBytes::Ranges(file.clone()), predicates)
        .err()
        .map(|e| e.to_string());
    for predicates in [&[][..], predicates] {
        let read = RowGroupReader::open_in(
            name,
            FileBytes::Ranges(file.clone()),
            groups,
            target.clone(),
            &[],
            1024,
            predicates,
            None,
        )
        .map_err(|e| e.to_string())
        .and_then(|mut reader| {
            // Every batch read is valid Arrow: Java reads its buffers without further checks.
            while let Some(batch) = reader.next_batch().map_err(|e| e.to_string())? {
                for (column, array) in batch.columns().iter().enumerate() {
                    if let Err(e) = array.to_data().validate_full() {
                        panic!("{name}: column {column} read as invalid Arrow: {e}");
                    }
                }
            }
            Ok(())
        });
        if let Err(e) = read {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Inputs the fuzzer found (`tests/corrupt`), each read as the fuzz target reads it: each ends in
/// rows or an error, without a panic.
#[test]
fn inputs_the_fuzzer_found_end_in_rows_or_errors() -> TestResult {
    let dir = crate_dir().join("tests/corrupt");
    let mut found = 0;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.display().to_string();
        let file = Bytes::from(std::fs::read(&path)?);
        let schema = catch_unwind(AssertUnwindSafe(|| {
            file_schema_in(&name, FileBytes::Ranges(file.clone()))
        }));
        let Ok(schema) = schema else {
            panic!("{name} panicked reading its schema");
        };
        found += 1;
        let (target, row_groups) = match schema {
            Ok(schema) => schema,
            Err(e) => {
                // A footer that cannot be read is an error naming the file.
                assert!(e.to_string().contains(&name), "{e}");
                continue;
            }
        };
        let groups: Vec<usize> = (0..row_groups).collect();
        let predicates = vec![ColumnPredicate {
            column: target.field(0).name().clone(),
            op: Op::IsNotNull,
            value: None,
        }];
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            read_all(&name, &file, &groups, target.clone(), &predicates)
        }));
        assert!(outcome.is_ok(), "{name} panicked");
    }
    assert!(found > 0);
    Ok(())
}
