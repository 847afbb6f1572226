//! Reading row groups of a local Parquet file into batches of a target schema.

use std::fs::File;
use std::io::Read;
use std::sync::Arc;

use arrow::array::timezone::Tz;
use arrow::array::{
    Array, ArrayRef, AsArray, Int64Array, ListArray, MapArray, RecordBatch, RecordBatchOptions,
    StructArray, make_array, new_null_array,
};
use arrow::buffer::NullBuffer;
use arrow::compute::{CastOptions, cast_with_options};
use arrow::datatypes::{DataType, Int64Type, SchemaRef, TimeUnit};
use arrow::error::ArrowError;
use bytes::Bytes;
use chrono::{DateTime, Offset, TimeZone};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use parquet::basic::{Compression, Type as PhysicalType};
use parquet::file::metadata::{ColumnChunkMetaData, PageIndexPolicy, ParquetMetaData};
use parquet::file::reader::{ChunkReader, Length};

use crate::chunks::ChunkCache;
use crate::prune::{ColumnPredicate, bloom_may_match, may_match, page_selection};

/// A file that cannot be read as asked, naming the file (and the column, where one is at fault).
#[derive(Debug, thiserror::Error)]
pub enum ParquetFileError {
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("{path}: column '{column}': {reason}")]
    Column {
        path: String,
        column: String,
        reason: String,
    },
}

fn file_error(path: &str, reason: impl std::fmt::Display) -> ParquetFileError {
    ParquetFileError::File {
        path: path.to_string(),
        reason: reason.to_string(),
    }
}

/// The bytes of a file: a local file read directly, or ranges read by a caller's reader (a file
/// system the caller knows).
#[derive(Debug)]
pub enum FileBytes<R> {
    Local(File),
    Ranges(R),
}

impl<R> FileBytes<R> {
    /// The local file at `path`.
    pub fn local(path: &str) -> Result<Self, ParquetFileError> {
        File::open(path)
            .map(FileBytes::Local)
            .map_err(|e| file_error(path, format!("cannot open: {e}")))
    }
}

impl<R: Clone> FileBytes<R> {
    /// Another handle on the same bytes.
    pub fn try_clone(&self) -> std::io::Result<Self> {
        Ok(match self {
            FileBytes::Local(file) => FileBytes::Local(file.try_clone()?),
            FileBytes::Ranges(ranges) => FileBytes::Ranges(ranges.clone()),
        })
    }
}

impl<R: ChunkReader> FileBytes<R> {
    /// These bytes, read through a [`ChunkCache`] when they are read through a caller's reader;
    /// a local file is read as it is.
    fn caching(self) -> FileBytes<ChunkCache<R>> {
        match self {
            FileBytes::Local(file) => FileBytes::Local(file),
            FileBytes::Ranges(ranges) => FileBytes::Ranges(ChunkCache::new(ranges)),
        }
    }
}

impl<R: ChunkReader> Length for FileBytes<R> {
    fn len(&self) -> u64 {
        match self {
            FileBytes::Local(file) => file.len(),
            FileBytes::Ranges(ranges) => ranges.len(),
        }
    }
}

impl<R: ChunkReader> ChunkReader for FileBytes<R>
where
    R::T: 'static,
{
    type T = Box<dyn Read>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(match self {
            FileBytes::Local(file) => Box::new(file.get_read(start)?),
            FileBytes::Ranges(ranges) => Box::new(ranges.get_read(start)?),
        })
    }

    /// The range, once checked to lie within the file: lengths come from the file's metadata,
    /// and a corrupt one must be an error, never an allocation of that size.
    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        let file_length = self.len();
        let within = u64::try_from(length)
            .ok()
            .and_then(|length| start.checked_add(length))
            .is_some_and(|end| end <= file_length);
        if !within {
            return Err(parquet::errors::ParquetError::EOF(format!(
                "the metadata points at {length} bytes from offset {start}, past the end of \
                 the file ({file_length} bytes)"
            )));
        }
        match self {
            FileBytes::Local(file) => file.get_bytes(start, length),
            FileBytes::Ranges(ranges) => ranges.get_bytes(start, length),
        }
    }
}

#[cfg(test)]
fn open(
    path: &str,
) -> Result<ParquetRecordBatchReaderBuilder<FileBytes<ChunkCache<Bytes>>>, ParquetFileError> {
    open_with(path, FileBytes::<Bytes>::local(path)?, reader_options())
}

/// How every file is read: by its Parquet schema alone, as Flink's reader reads it. The Arrow
/// schema some writers embed (`ARROW:schema`: pyarrow, pandas, arrow-rs) is not applied; its
/// hints (dictionary columns, large types, time zones) would only make columns Flink reads
/// differ, and a malformed one would fail a file Flink reads.
fn reader_options() -> ArrowReaderOptions {
    ArrowReaderOptions::new().with_skip_arrow_metadata(true)
}

/// A builder over the file's bytes, its footer checked; read through a caller's reader, the
/// footer is fetched once.
fn open_with<R: ChunkReader + 'static>(
    path: &str,
    bytes: FileBytes<R>,
    options: ArrowReaderOptions,
) -> Result<ParquetRecordBatchReaderBuilder<FileBytes<ChunkCache<R>>>, ParquetFileError>
where
    R::T: 'static,
{
    let length = bytes.len();
    let bytes = checked(path, bytes, false)?;
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(bytes, options)
        .map_err(|e| file_error(path, format!("not a readable Parquet file: {e}")))?;
    check_column_chunks(path, builder.metadata(), length)?;
    Ok(builder)
}

/// The footer's length a file's last 8 bytes give, if they end in Parquet's magic.
pub(crate) fn footer_length(tail: &[u8]) -> Option<u64> {
    match (tail.get(..4), tail.get(4..8)) {
        (Some(length), Some(b"PAR1")) => <[u8; 4]>::try_from(length)
            .ok()
            .map(|b| u64::from(u32::from_le_bytes(b))),
        _ => None,
    }
}

/// The file's bytes, through a [`ChunkCache`] holding the footer when they are read through a
/// caller's reader, with the footer checked (and with `page_index` the column and offset
/// indexes, see [`check_thrift`]).
fn checked<R: ChunkReader>(
    path: &str,
    bytes: FileBytes<R>,
    page_index: bool,
) -> Result<FileBytes<ChunkCache<R>>, ParquetFileError>
where
    R::T: 'static,
{
    let bytes = bytes.caching();
    if let FileBytes::Ranges(cache) = &bytes {
        cache.hold_footer().map_err(|e| file_error(path, e))?;
    }
    check_thrift(path, &bytes, page_index)?;
    Ok(bytes)
}

/// Checks the Thrift structures parquet-rs decodes next: the footer, and with `page_index` the
/// column and offset indexes it points at (see [`crate::thrift`]). A file that is not Parquet, too
/// short, or encrypted is left to parquet-rs, which names what is wrong.
fn check_thrift<R: ChunkReader>(
    path: &str,
    bytes: &FileBytes<R>,
    page_index: bool,
) -> Result<(), ParquetFileError>
where
    R::T: 'static,
{
    let corrupt = |what: &str, reason: String| {
        file_error(
            path,
            format!("not a readable Parquet file: {what} is corrupt: {reason}"),
        )
    };
    let length = bytes.len();
    if length < 12 {
        return Ok(());
    }
    let tail = bytes
        .get_bytes(length - 8, 8)
        .map_err(|e| file_error(path, e))?;
    let Some(footer_length) = footer_length(&tail) else {
        return Ok(());
    };
    if footer_length + 8 > length {
        return Ok(());
    }
    let footer = bytes
        .get_bytes(length - 8 - footer_length, footer_length as usize)
        .map_err(|e| file_error(path, e))?;
    crate::thrift::check_struct(&footer, &crate::thrift::FILE_META_DATA)
        .map_err(|e| corrupt("the footer", e))?;
    if !page_index {
        return Ok(());
    }
    let metadata = parquet::file::metadata::ParquetMetaDataReader::decode_metadata(&footer)
        .map_err(|e| file_error(path, format!("not a readable Parquet file: {e}")))?;
    for group in metadata.row_groups() {
        for column in group.columns() {
            for (what, schema, offset, length) in [
                (
                    "a column index",
                    &crate::thrift::COLUMN_INDEX,
                    column.column_index_offset(),
                    column.column_index_length(),
                ),
                (
                    "an offset index",
                    &crate::thrift::OFFSET_INDEX,
                    column.offset_index_offset(),
                    column.offset_index_length(),
                ),
            ] {
                let (Some(offset), Some(length)) = (offset, length) else {
                    continue;
                };
                let (Ok(offset), Ok(length)) = (u64::try_from(offset), usize::try_from(length))
                else {
                    return Err(corrupt(what, "a negative position or length".to_string()));
                };
                let index = bytes
                    .get_bytes(offset, length)
                    .map_err(|e| file_error(path, e))?;
                crate::thrift::check_struct(&index, schema).map_err(|e| corrupt(what, e))?;
            }
        }
    }
    Ok(())
}

/// Checks the dictionary page, if any, that each column chunk of `leaves` in `row_groups` of a
/// local file begins with (see [`check_first_page`]), reading the first page header alone.
fn check_dictionary_pages(
    path: &str,
    file: &File,
    metadata: &ParquetMetaData,
    row_groups: &[usize],
    leaves: &[usize],
) -> Result<(), ParquetFileError> {
    for &group in row_groups {
        for &leaf in leaves {
            let column = metadata.row_group(group).column(leaf);
            let (start, length) = column.byte_range();
            // A page header with its statistics fits in 1 KiB but for long strings; try more then.
            let mut window = length.min(1024);
            loop {
                let head = file
                    .get_bytes(start, window as usize)
                    .map_err(|e| file_error(path, e))?;
                match check_first_page(&head, column, group, window == length) {
                    Ok(()) => break,
                    Err(Some(reason)) => return Err(file_error(path, reason)),
                    Err(None) => window = length.min(window * 64),
                }
            }
        }
    }
    Ok(())
}

/// Checks the dictionary page, if any, a column chunk begins with (`head`, the chunk's first
/// bytes, `whole` when they are all of it): parquet-rs reserves room for as many values as its
/// header claims, and each value takes at least a few bits of the page (of its compressed bytes
/// when the chunk is not compressed), so a claim the page cannot hold fails here. `Err(None)`
/// asks for more of the chunk.
pub(crate) fn check_first_page(
    head: &[u8],
    column: &ColumnChunkMetaData,
    row_group: usize,
    whole: bool,
) -> Result<(), Option<String>> {
    let corrupt = |reason: String| {
        Some(format!(
            "not a readable Parquet file: column '{}' of row group {row_group}: {reason}",
            column.column_path()
        ))
    };
    let page = match crate::thrift::dictionary_page(head) {
        Ok(page) => page,
        Err(Some(reason)) => {
            return Err(corrupt(format!(
                "its first page header is corrupt: {reason}"
            )));
        }
        Err(None) if whole => {
            return Err(corrupt("its first page header runs past the chunk".into()));
        }
        Err(None) => return Err(None),
    };
    let Some(page) = page else {
        return Ok(());
    };
    let descriptor = column.column_descr();
    // The fewest bits a value takes in the page, and the bytes parquet-rs keeps per value.
    let (value_bits, kept): (i64, i64) = match descriptor.physical_type() {
        PhysicalType::BOOLEAN => (1, 1),
        PhysicalType::INT32 | PhysicalType::FLOAT => (32, 4),
        PhysicalType::INT64 | PhysicalType::DOUBLE => (64, 8),
        PhysicalType::INT96 => (96, 12),
        PhysicalType::BYTE_ARRAY => (32, 32),
        PhysicalType::FIXED_LEN_BYTE_ARRAY => (8 * i64::from(descriptor.type_length().max(1)), 32),
    };
    let room = if column.compression() == Compression::UNCOMPRESSED {
        page.uncompressed_size.min(page.compressed_size)
    } else {
        page.uncompressed_size
    };
    let fits = page.values >= 0
        && room >= 0
        && page
            .values
            .checked_mul(value_bits)
            .is_some_and(|bits| bits <= room.saturating_mul(8));
    if !fits {
        return Err(corrupt(format!(
            "a dictionary page claims {} values, more than its {room} bytes hold",
            page.values
        )));
    }
    // A compressed page may hold many more values than bytes: no dictionary is allowed more
    // than 2 GiB of values in memory, the bound of a page.
    if page.values.saturating_mul(kept) > i64::from(i32::MAX) {
        return Err(corrupt(format!(
            "a dictionary page of {} values, more than 2 GiB in memory",
            page.values
        )));
    }
    Ok(())
}

/// Whether the offset index (if loaded) fits the footer: one per column chunk, each page within
/// its chunk and after the one before, rows in order from the row group's first.
fn offset_index_consistent(metadata: &ParquetMetaData) -> bool {
    let Some(index) = metadata.offset_index() else {
        return true;
    };
    if index.len() != metadata.num_row_groups() {
        return false;
    }
    metadata
        .row_groups()
        .iter()
        .zip(index)
        .all(|(group, columns)| {
            columns.len() == group.num_columns()
                && group.columns().iter().zip(columns).all(|(column, pages)| {
                    let (start, length) = column.byte_range();
                    let Some(end) = start.checked_add(length) else {
                        return false;
                    };
                    let mut previous: Option<(u64, i64)> = None;
                    pages.page_locations().iter().all(|page| {
                        let (Ok(offset), Ok(size)) = (
                            u64::try_from(page.offset),
                            u64::try_from(page.compressed_page_size),
                        ) else {
                            return false;
                        };
                        let fits = offset >= start
                            && offset
                                .checked_add(size)
                                .is_some_and(|page_end| page_end <= end)
                            && page.first_row_index >= 0
                            && page.first_row_index < group.num_rows().max(1)
                            && match previous {
                                None => page.first_row_index == 0,
                                Some((previous_offset, previous_row)) => {
                                    offset > previous_offset && page.first_row_index > previous_row
                                }
                            };
                        previous = Some((offset, page.first_row_index));
                        fits
                    })
                })
        })
}

/// Checks, at every level of nesting, that fields that are not nullable hold no NULLs where their
/// parent holds a value.
fn nulls_where_allowed(data: &arrow::array::ArrayData) -> Result<(), arrow::error::ArrowError> {
    data.validate_nulls()?;
    data.child_data().iter().try_for_each(nulls_where_allowed)
}

/// Whether a type nests a field (a list element, a map key or value, a row field) that is not
/// nullable.
fn has_required_nested(data_type: &DataType) -> bool {
    match data_type {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => !f.is_nullable() || has_required_nested(f.data_type()),
        DataType::Struct(fields) => fields
            .iter()
            .any(|f| !f.is_nullable() || has_required_nested(f.data_type())),
        _ => false,
    }
}

/// Checks that every column chunk the footer lists lies within the file, as parquet-rs assumes
/// (a negative offset or length from a corrupt footer panics there).
fn check_column_chunks(
    path: &str,
    metadata: &ParquetMetaData,
    file_length: u64,
) -> Result<(), ParquetFileError> {
    for (index, group) in metadata.row_groups().iter().enumerate() {
        for column in group.columns() {
            let start = column
                .dictionary_page_offset()
                .unwrap_or(column.data_page_offset());
            let end = u64::try_from(start)
                .ok()
                .zip(u64::try_from(column.compressed_size()).ok())
                .and_then(|(start, length)| start.checked_add(length));
            if end.is_none_or(|end| end > file_length) {
                return Err(file_error(
                    path,
                    format!(
                        "not a readable Parquet file: the footer places column '{}' of row group \
                         {index} at {} bytes from offset {start}, outside the file ({file_length} \
                         bytes)",
                        column.column_path(),
                        column.compressed_size()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The rows of each row group of a local file, or -1 for a row group whose statistics or bloom
/// filters prove that no row satisfies every predicate.
pub fn row_groups_matching(
    path: &str,
    predicates: &[ColumnPredicate],
) -> Result<Vec<i64>, ParquetFileError> {
    row_groups_matching_in(path, FileBytes::<Bytes>::local(path)?, predicates)
}

/// [`row_groups_matching`] over the file's `bytes`; `path` names it in errors.
pub fn row_groups_matching_in<R: ChunkReader + 'static>(
    path: &str,
    bytes: FileBytes<R>,
    predicates: &[ColumnPredicate],
) -> Result<Vec<i64>, ParquetFileError>
where
    R::T: 'static,
{
    let builder = open_with(path, bytes, reader_options())?;
    let mut rows = Vec::with_capacity(builder.metadata().num_row_groups());
    for (index, group) in builder.metadata().row_groups().iter().enumerate() {
        let bloom = |column: usize| builder.get_row_group_column_bloom_filter(index, column);
        let kept = may_match(group, predicates)
            && bloom_may_match(group, predicates, bloom).map_err(|e| file_error(path, e))?;
        rows.push(if kept { group.num_rows() } else { -1 });
    }
    Ok(rows)
}

/// The columns of the file in `bytes` as the reader maps its Parquet schema to Arrow, and its
/// number of row groups; `path` names it in errors. The footer is checked as for every read.
pub fn file_schema_in<R: ChunkReader + 'static>(
    path: &str,
    bytes: FileBytes<R>,
) -> Result<(SchemaRef, usize), ParquetFileError>
where
    R::T: 'static,
{
    let builder = open_with(path, bytes, reader_options())?;
    Ok((
        builder.schema().clone(),
        builder.metadata().num_row_groups(),
    ))
}

/// Reads row groups of one file as batches of a target schema.
pub struct RowGroupReader {
    path: String,
    reader: ParquetRecordBatchReader,
    target: SchemaRef,
    /// Per target column: the index of its top-level column in the batches read and the path to
    /// it within that column (empty for a top-level column), or `None` when the file lacks it.
    sources: Vec<Option<(usize, Vec<String>)>>,
    /// Per leaf read (in the order the batches hold them): whether the file stores it as
    /// timestamps Flink reads as wall-clock time of a zone (INT96, or INT64 with a timestamp
    /// annotation).
    zoned: Vec<bool>,
    /// A reader in milliseconds of the INT96 leaves read in microseconds or nanoseconds (with
    /// their top-level columns), and per leaf it reads where it is among the leaves read and
    /// whether it is one to compare: whether a value wrapped.
    checker: Option<(ParquetRecordBatchReader, Vec<(usize, bool)>)>,
    /// What the cache of a file read through ranges holds; `None` for a local file.
    held: Option<crate::chunks::HeldBytes>,
    /// Rows of the row groups the page index ruled out (not read).
    skipped_rows: u64,
    /// Rows the footer counts in the row groups read, less those the page index ruled out.
    expected_rows: u64,
    /// Rows returned so far.
    returned_rows: u64,
    batch_size: usize,
    /// The zone the `zoned` leaves read as wall-clock time of, or `None` for UTC.
    timestamp_zone: Option<Tz>,
}

impl std::fmt::Debug for RowGroupReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowGroupReader")
            .field("path", &self.path)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl RowGroupReader {
    /// A reader of `row_groups` of the file at `path`, decoding only the target's columns,
    /// `batch_size` rows at a time, skipping the pages whose page-index bounds prove that none of
    /// their rows satisfies every predicate. Timestamps stored as INT96, or as INT64 with a
    /// timestamp annotation, read as UTC wall-clock time, or, given `timestamp_zone` (a zone id such
    /// as `Europe/Berlin` or `+08:00`), as the wall-clock time of that zone, as Flink reads both
    /// with `parquet.utc-timezone` true or false.
    pub fn open(
        path: &str,
        row_groups: &[usize],
        target: SchemaRef,
        batch_size: usize,
        predicates: &[ColumnPredicate],
        timestamp_zone: Option<&str>,
    ) -> Result<Self, ParquetFileError> {
        Self::open_in(
            path,
            FileBytes::<Bytes>::local(path)?,
            row_groups,
            target,
            &[],
            batch_size,
            predicates,
            timestamp_zone,
        )
    }

    /// [`RowGroupReader::open`] over the file's `bytes`; `path` names it in errors. Each target
    /// column is the file's column at its path in `columns` (names from a top-level column down
    /// through nested fields; only those fields are decoded), or, when `columns` is empty, the
    /// top-level column of its own name.
    #[allow(clippy::too_many_arguments)]
    pub fn open_in<R: ChunkReader + Clone + 'static>(
        path: &str,
        bytes: FileBytes<R>,
        row_groups: &[usize],
        target: SchemaRef,
        columns: &[Vec<String>],
        batch_size: usize,
        predicates: &[ColumnPredicate],
        timestamp_zone: Option<&str>,
    ) -> Result<Self, ParquetFileError>
    where
        R::T: 'static,
    {
        let options = reader_options().with_page_index_policy(if predicates.is_empty() {
            PageIndexPolicy::Skip
        } else {
            PageIndexPolicy::Optional
        });
        let bytes = checked(path, bytes, !predicates.is_empty())?;
        let mut loaded = ArrowReaderMetadata::load(&bytes, options.clone())
            .map_err(|e| file_error(path, format!("not a readable Parquet file: {e}")))?;
        check_column_chunks(path, loaded.metadata(), bytes.len())?;
        let mut options = options;
        if !offset_index_consistent(loaded.metadata()) {
            // A corrupt offset index prunes nothing: the file reads as without one (as
            // parquet-java reads it), instead of parquet-rs trusting its page locations.
            options = options.with_page_index_policy(PageIndexPolicy::Skip);
            loaded = ArrowReaderMetadata::load(&bytes, options.clone())
                .map_err(|e| file_error(path, format!("not a readable Parquet file: {e}")))?;
        }
        let columns: Vec<Vec<String>> = if columns.is_empty() {
            target
                .fields()
                .iter()
                .map(|f| vec![f.name().clone()])
                .collect()
        } else {
            columns.to_vec()
        };
        if columns.len() != target.fields().len() || columns.iter().any(Vec::is_empty) {
            return Err(file_error(path, "a column path for every column to read"));
        }
        // A nested field by the file's own spelling of its name, as Flink finds it.
        let columns: Vec<Vec<String>> = columns
            .iter()
            .map(|column| spelled_as_in(loaded.schema(), column))
            .collect();
        let leaves = loaded.parquet_schema().columns();
        let available = loaded.metadata().num_row_groups();
        if let Some(group) = row_groups.iter().find(|g| **g >= available) {
            return Err(file_error(
                path,
                format!("has {available} row groups, not a row group {group}"),
            ));
        }
        let file_schema = loaded.schema().clone();
        // The leaves under every path asked for; the batches read hold their top-level columns
        // in file order, with only the selected fields inside.
        let selected: Vec<usize> = leaves
            .iter()
            .enumerate()
            .filter(|(_, leaf)| columns.iter().any(|c| leaf.path().parts().starts_with(c)))
            .map(|(i, _)| i)
            .collect();
        let held = match &bytes {
            FileBytes::Local(file) => {
                check_dictionary_pages(path, file, loaded.metadata(), row_groups, &selected)?;
                None
            }
            // Checked as each chunk is fetched, whole.
            FileBytes::Ranges(cache) => {
                cache
                    .hold_chunks(loaded.metadata(), row_groups, &selected)
                    .map_err(|e| file_error(path, e))?;
                Some(cache.held_bytes())
            }
        };
        let zoned: Vec<bool> = selected
            .iter()
            .map(|leaf| zoned_timestamps(&leaves[*leaf]))
            .collect();
        let int96_units = int96_units(leaves, &selected, &columns, &target);
        // The zone matters, and is parsed, only for files with such timestamps to read.
        let timestamp_zone = match timestamp_zone {
            _ if !zoned.contains(&true) => None,
            None | Some("UTC" | "Z" | "GMT" | "Etc/UTC") => None,
            Some(zone) => Some(
                zone.parse::<Tz>()
                    .map_err(|e| file_error(path, format!("time zone '{zone}': {e}")))?,
            ),
        };
        let mut roots: Vec<usize> = selected
            .iter()
            .filter_map(|leaf| file_schema.index_of(&leaves[*leaf].path().parts()[0]).ok())
            .collect();
        roots.sort_unstable();
        roots.dedup();
        let sources = columns
            .iter()
            .map(|column| {
                let root = file_schema.index_of(&column[0]).ok()?;
                let position = roots.iter().position(|r| *r == root)?;
                Some((position, column[1..].to_vec()))
            })
            .collect();
        let selection = page_selection(loaded.metadata(), row_groups, predicates);
        let total: u64 = row_groups
            .iter()
            .map(|g| u64::try_from(loaded.metadata().row_group(*g).num_rows()).unwrap_or(0))
            .sum();
        let skipped_rows = selection.as_ref().map_or(0, |s| {
            total.saturating_sub(u64::try_from(s.row_count()).unwrap_or(0))
        });
        // INT96 timestamps read in microseconds or nanoseconds wrap outside about ±290,000 years
        // or 1677-2262: a second reader of those leaves in milliseconds (which hold every INT96
        // date) tells where they did.
        let mut checked: Vec<usize> = int96_units
            .iter()
            .filter(|(_, unit)| matches!(unit, TimeUnit::Microsecond | TimeUnit::Nanosecond))
            .map(|(leaf, _)| *leaf)
            .collect();
        checked.sort_unstable();
        let checker = if checked.is_empty() {
            None
        } else {
            let millis: std::collections::HashMap<usize, TimeUnit> = checked
                .iter()
                .map(|leaf| (*leaf, TimeUnit::Millisecond))
                .collect();
            let metadata = hinted(path, &loaded, &options, &millis)?;
            // The checked leaves' whole top-level columns as read (parquet-rs reads no part of a
            // map alone); only the INT96 leaves among them are compared.
            let root_of = |leaf: usize| leaves[leaf].path().parts()[0].clone();
            let checked_roots: Vec<String> = checked.iter().map(|l| root_of(*l)).collect();
            let read_too: Vec<usize> = selected
                .iter()
                .copied()
                .filter(|l| checked_roots.contains(&root_of(*l)))
                .collect();
            let mask = ProjectionMask::leaves(loaded.parquet_schema(), read_too.iter().copied());
            let positions = read_too
                .iter()
                .map(|leaf| {
                    let position = selected
                        .iter()
                        .position(|s| s == leaf)
                        .unwrap_or(usize::MAX);
                    (position, checked.contains(leaf))
                })
                .collect();
            let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(
                bytes.try_clone().map_err(|e| file_error(path, e))?,
                metadata,
            );
            let builder = match &selection {
                Some(selection) => builder.with_row_selection(selection.clone()),
                None => builder,
            };
            let reader = builder
                .with_projection(mask)
                .with_row_groups(row_groups.to_vec())
                .with_batch_size(batch_size.max(1))
                .build()
                .map_err(|e| file_error(path, e))?;
            Some((reader, positions))
        };
        let metadata = if int96_units.is_empty() {
            loaded.clone()
        } else {
            hinted(path, &loaded, &options, &int96_units)?
        };
        let mask = ProjectionMask::leaves(loaded.parquet_schema(), selected);
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(bytes, metadata);
        let builder = match selection {
            Some(selection) => builder.with_row_selection(selection),
            None => builder,
        };
        let reader = builder
            .with_projection(mask)
            .with_row_groups(row_groups.to_vec())
            .with_batch_size(batch_size.max(1))
            .build()
            .map_err(|e| file_error(path, e))?;
        Ok(Self {
            path: path.to_string(),
            reader,
            checker,
            held,
            target,
            sources,
            zoned,
            skipped_rows,
            expected_rows: total.saturating_sub(skipped_rows),
            returned_rows: 0,
            batch_size,
            timestamp_zone,
        })
    }

    /// Bytes of the file this reader holds: the footer and the column chunks being read of a file
    /// read through ranges, 0 for a local file (whose pages are read one at a time).
    pub fn held_bytes(&self) -> u64 {
        self.held
            .as_ref()
            .map_or(0, crate::chunks::HeldBytes::bytes)
    }

    /// Rows of the row groups read that the page index ruled out.
    pub fn skipped_rows(&self) -> u64 {
        self.skipped_rows
    }

    /// The next batch, or `None` after the last. Fails, rather than return fewer rows than the
    /// footer counts, when parquet-rs reads a file's layout short.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, ParquetFileError> {
        match self.reader.next() {
            None if self.returned_rows != self.expected_rows => Err(file_error(
                &self.path,
                format!(
                    "read {} of the {} rows the footer counts: parquet-rs does not read this \
                     file's layout (legacy repeated fields?) in full",
                    self.returned_rows, self.expected_rows
                ),
            )),
            None => Ok(None),
            Some(Err(e)) if e.to_string().contains("index overflow") => Err(file_error(
                &self.path,
                format!(
                    "a column holds more than 2 GiB of text or bytes within {} rows, more than one \
                     Arrow batch can hold: {e}",
                    self.batch_size
                ),
            )),
            Some(Err(e)) => Err(file_error(&self.path, e)),
            Some(Ok(batch)) => {
                self.returned_rows += u64::try_from(batch.num_rows()).unwrap_or(0);
                self.check_wide_int96(&batch)?;
                let batch = self.zoned_wall_clock(batch)?;
                self.convert(&batch).map(Some)
            }
        }
    }

    /// Fails when an INT96 value of the batch read in microseconds or nanoseconds wrapped: its
    /// millisecond reading (the checker's) is not the same instant.
    fn check_wide_int96(&mut self, batch: &RecordBatch) -> Result<(), ParquetFileError> {
        let path = self.path.clone();
        let Some((checker, positions)) = &mut self.checker else {
            return Ok(());
        };
        let millis = match checker.next() {
            Some(Ok(millis)) if millis.num_rows() == batch.num_rows() => millis,
            _ => {
                return Err(file_error(
                    &path,
                    "the INT96 timestamps read twice came in different batches",
                ));
            }
        };
        let mut read = Vec::new();
        for column in batch.columns() {
            leaves_of(column, &mut read);
        }
        let mut checks = Vec::new();
        for column in millis.columns() {
            leaves_of(column, &mut checks);
        }
        for ((position, compared), check) in positions.iter().zip(&checks) {
            let Some(leaf) = read.get(*position).filter(|_| *compared) else {
                continue;
            };
            let DataType::Timestamp(unit, _) = leaf.data_type() else {
                continue;
            };
            let per_milli: i64 = if *unit == TimeUnit::Nanosecond {
                1_000_000
            } else {
                1_000
            };
            let values = cast_with_options(leaf, &DataType::Int64, &strict())
                .map_err(|e| file_error(&path, e))?;
            let check = cast_with_options(check, &DataType::Int64, &strict())
                .map_err(|e| file_error(&path, e))?;
            let values = values.as_primitive::<Int64Type>();
            let check = check.as_primitive::<Int64Type>();
            if (0..values.len()).any(|i| {
                values.is_valid(i) && values.value(i).div_euclid(per_milli) != check.value(i)
            }) {
                let (range, precision) = if *unit == TimeUnit::Nanosecond {
                    ("1677-09-21 to 2262-04-11", "TIMESTAMP(7) to TIMESTAMP(9)")
                } else {
                    ("years -290,307 to 294,246", "TIMESTAMP(4) to TIMESTAMP(6)")
                };
                return Err(file_error(
                    &path,
                    format!(
                        "an INT96 timestamp lies outside the range a {precision} column holds \
                         ({range})"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The batch with its `zoned` timestamps, at any depth, as wall-clock time of the zone.
    fn zoned_wall_clock(&self, batch: RecordBatch) -> Result<RecordBatch, ParquetFileError> {
        let Some(zone) = &self.timestamp_zone else {
            return Ok(batch);
        };
        let mut leaf = 0;
        let mut columns = Vec::with_capacity(batch.num_columns());
        for column in batch.columns() {
            let shifted = map_leaves(column, &mut leaf, &mut |k, array| {
                if self.zoned.get(k).copied().unwrap_or(false) {
                    wall_clock(array, zone)
                } else {
                    Ok(Arc::clone(array))
                }
            })
            .map_err(|e| file_error(&self.path, e))?;
            columns.push(shifted);
        }
        RecordBatch::try_new(batch.schema(), columns).map_err(|e| file_error(&self.path, e))
    }

    /// The batch as the target schema: columns in target order, converted to the target types,
    /// NULLs for columns the file lacks.
    fn convert(&self, batch: &RecordBatch) -> Result<RecordBatch, ParquetFileError> {
        let rows = batch.num_rows();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.target.fields().len());
        for (field, source) in self.target.fields().iter().zip(&self.sources) {
            let column = match source {
                None if field.is_nullable() => new_null_array(field.data_type(), rows),
                None => {
                    return Err(self.column_error(
                        field.name(),
                        "the file has no such column, and the table's column is NOT NULL",
                    ));
                }
                Some((index, nested)) => match descend(batch.column(*index), nested) {
                    Some(column) => {
                        let column = conform(&column, field.data_type())
                            .map_err(|reason| self.column_error(field.name(), reason))?;
                        // Nested fields the table declares NOT NULL hold no NULLs: a corrupt file's
                        // definition levels could put them there.
                        if has_required_nested(field.data_type()) {
                            nulls_where_allowed(&column.to_data()).map_err(|e| {
                                self.column_error(
                                    field.name(),
                                    format!("NULLs where the table's type allows none (a corrupt file?): {e}"),
                                )
                            })?;
                        }
                        column
                    }
                    None => new_null_array(field.data_type(), rows),
                },
            };
            columns.push(column);
        }
        RecordBatch::try_new_with_options(
            Arc::clone(&self.target),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|e| file_error(&self.path, e))
    }

    fn column_error(&self, column: &str, reason: impl std::fmt::Display) -> ParquetFileError {
        ParquetFileError::Column {
            path: self.path.clone(),
            column: column.to_string(),
            reason: reason.to_string(),
        }
    }
}

/// The field at `path` within a column of nested rows, NULL where a row on the way is NULL;
/// `None` when the column has no such field.
fn descend(column: &ArrayRef, path: &[String]) -> Option<ArrayRef> {
    let mut current = Arc::clone(column);
    for name in path {
        let row = current.as_struct_opt()?;
        let child = child_named(row, name)?;
        let nulls = NullBuffer::union(row.nulls(), child.nulls());
        let data = child.to_data().into_builder().nulls(nulls).build().ok()?;
        current = make_array(data);
    }
    Some(current)
}

/// A struct's field of the name `name`, or else, as Flink's Parquet reader falls back
/// (`ParquetSplitReaderUtil.lookupColumnByName`), the first whose name equals it ignoring case.
fn child_named<'a>(row: &'a StructArray, name: &str) -> Option<&'a ArrayRef> {
    row.column_by_name(name).or_else(|| {
        let at = row
            .fields()
            .iter()
            .position(|f| equals_ignoring_case(f.name(), name))?;
        row.columns().get(at)
    })
}

/// Java's `String.equalsIgnoreCase`: the same length, each character equal, or equal upper
/// or lower cased.
fn equals_ignoring_case(a: &str, b: &str) -> bool {
    a.chars().count() == b.chars().count()
        && a.chars().zip(b.chars()).all(|(x, y)| {
            x == y || x.to_uppercase().eq(y.to_uppercase()) || x.to_lowercase().eq(y.to_lowercase())
        })
}

/// `column` (a top-level column's name, then the names of fields nested in it) with each nested
/// name spelled as the file's schema spells the field it finds (exactly, else ignoring case);
/// the top-level name as it is, as Flink matches top-level columns by their exact name.
fn spelled_as_in(schema: &arrow::datatypes::Schema, column: &[String]) -> Vec<String> {
    let mut spelled = column.to_vec();
    let Ok(top) = schema.field_with_name(&column[0]) else {
        return spelled;
    };
    let mut current = top.data_type();
    for name in spelled.iter_mut().skip(1) {
        let DataType::Struct(fields) = current else {
            break;
        };
        let found = fields
            .iter()
            .find(|f| f.name() == name)
            .or_else(|| fields.iter().find(|f| equals_ignoring_case(f.name(), name)));
        let Some(field) = found else {
            break;
        };
        name.clone_from(field.name());
        current = field.data_type();
    }
    spelled
}

/// A column read from the file as the table's type: the same values, nested columns rebuilt with
/// the table's field names (a struct's fields matched by name, NULLs for fields the file lacks),
/// scalars converted where [`converts`] allows.
pub fn conform_column(column: &ArrayRef, target: &DataType) -> Result<ArrayRef, String> {
    conform(column, target)
}

/// Whether a column of `data_type` holds a TIME finer than milliseconds, at any depth.
fn holds_fine_time(data_type: &DataType) -> bool {
    match data_type {
        DataType::Time64(_) => true,
        DataType::List(field) | DataType::LargeList(field) | DataType::Map(field, _) => {
            holds_fine_time(field.data_type())
        }
        DataType::Struct(fields) => fields.iter().any(|f| holds_fine_time(f.data_type())),
        _ => false,
    }
}

/// `column` (times of day in `unit`) floored to whole milliseconds, as Flink's columnar TIME
/// reads them.
fn whole_milliseconds(column: &ArrayRef, unit: TimeUnit) -> ArrayRef {
    fn floored<T: arrow::datatypes::ArrowPrimitiveType<Native = i64>>(
        column: &ArrayRef,
        per_milli: i64,
    ) -> ArrayRef {
        Arc::new(
            column
                .as_primitive::<T>()
                .unary::<_, T>(|v| v - v.rem_euclid(per_milli)),
        )
    }
    match unit {
        TimeUnit::Microsecond => floored::<arrow::datatypes::Time64MicrosecondType>(column, 1_000),
        TimeUnit::Nanosecond => {
            floored::<arrow::datatypes::Time64NanosecondType>(column, 1_000_000)
        }
        TimeUnit::Second | TimeUnit::Millisecond => Arc::clone(column),
    }
}

fn conform(column: &ArrayRef, target: &DataType) -> Result<ArrayRef, String> {
    if column.data_type() == target && !holds_fine_time(target) {
        return Ok(Arc::clone(column));
    }
    let mismatch = || {
        format!(
            "the file's {} does not read as the table's {target}",
            column.data_type()
        )
    };
    match (column.data_type(), target) {
        // A column of NULLs only (as Arrow writers store an empty list's element type).
        (DataType::Null, _) => Ok(new_null_array(target, column.len())),
        (DataType::LargeList(file_element), DataType::List(_)) => {
            let narrowed = DataType::List(Arc::clone(file_element));
            let list =
                cast_with_options(column, &narrowed, &strict()).map_err(|e| e.to_string())?;
            conform(&list, target)
        }
        (DataType::List(_), DataType::List(element)) => {
            let list = column.as_list::<i32>();
            let values = conform(list.values(), element.data_type())?;
            let rebuilt = ListArray::try_new(
                Arc::clone(element),
                list.offsets().clone(),
                values,
                list.nulls().cloned(),
            )
            .map_err(|e| e.to_string())?;
            Ok(Arc::new(rebuilt))
        }
        (DataType::Struct(_), DataType::Struct(targets)) => {
            let row = column.as_struct();
            let children = targets
                .iter()
                .map(|field| match child_named(row, field.name()) {
                    Some(child) => conform(child, field.data_type())
                        .map_err(|e| format!("field '{}': {e}", field.name())),
                    None if field.is_nullable() => Ok(new_null_array(field.data_type(), row.len())),
                    None => Err(format!(
                        "the file has no field '{}', and the table's field is NOT NULL",
                        field.name()
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let rebuilt = StructArray::try_new(targets.clone(), children, row.nulls().cloned())
                .map_err(|e| e.to_string())?;
            Ok(Arc::new(rebuilt))
        }
        (DataType::Map(_, _), DataType::Map(entries, sorted)) => {
            let map = column.as_map();
            let DataType::Struct(pair) = entries.data_type() else {
                return Err(mismatch());
            };
            if pair.len() != 2 {
                return Err(mismatch());
            }
            let keys = conform(map.keys(), pair[0].data_type())?;
            let values = conform(map.values(), pair[1].data_type())?;
            let entries_array = StructArray::try_new(pair.clone(), vec![keys, values], None)
                .map_err(|e| e.to_string())?;
            let rebuilt = MapArray::try_new(
                Arc::clone(entries),
                map.offsets().clone(),
                entries_array,
                map.nulls().cloned(),
                *sorted,
            )
            .map_err(|e| e.to_string())?;
            Ok(Arc::new(rebuilt))
        }
        // Flink's reader narrows an INT32 into a TINYINT or SMALLINT as Java's cast narrows it,
        // keeping the low bits (an annotated INT(8) or INT(16) reads so in parquet-rs too).
        (DataType::Int32, DataType::Int8) => Ok(Arc::new(
            column
                .as_primitive::<arrow::datatypes::Int32Type>()
                .unary::<_, arrow::datatypes::Int8Type>(|v| v as i8),
        )),
        (DataType::Int32, DataType::Int16) => Ok(Arc::new(
            column
                .as_primitive::<arrow::datatypes::Int32Type>()
                .unary::<_, arrow::datatypes::Int16Type>(|v| v as i16),
        )),
        // An INT(16) column read into a TINYINT: the low bits of its INT32 values, which
        // parquet-rs's 16 bits hold.
        (DataType::Int16, DataType::Int8) => Ok(Arc::new(
            column
                .as_primitive::<arrow::datatypes::Int16Type>()
                .unary::<_, arrow::datatypes::Int8Type>(|v| v as i8),
        )),
        // A Flink TIME holds whole milliseconds at every precision, and Flink's readers drop
        // finer digits. They are dropped here, where values enter, so that nothing reading the
        // batch past the reader (a sink copying it in bulk, the native calc) sees digits that
        // Flink's rows of the same file never hold.
        (file, DataType::Time64(unit)) if file == target || converts(file, target) => {
            let column = if file == target {
                Arc::clone(column)
            } else {
                cast_with_options(column, target, &strict())
                    .map_err(|e| format!("{}: {e}", mismatch()))?
            };
            Ok(whole_milliseconds(&column, *unit))
        }
        // A coarser unit than the file's: floored, as Flink's readers (and Iceberg's) divide
        // with Math.floorDiv, where Arrow's cast would round toward 1970 (a pre-1970 instant
        // then lands a unit late, at midnight on the next day for 1969-12-31 23:59:59.9995).
        (DataType::Timestamp(from, _), DataType::Timestamp(to, _))
            if units_per_second(*from) > units_per_second(*to) =>
        {
            let per = units_per_second(*from) / units_per_second(*to);
            map_timestamps_into(column, target, |v, _| Some(v.div_euclid(per)))
                .map_err(|e| format!("{}: {e}", mismatch()))
        }
        (file, table) if converts(file, table) => {
            cast_with_options(column, table, &strict()).map_err(|e| format!("{}: {e}", mismatch()))
        }
        // Unsigned integers read as Flink reads them: the stored bits (INT32 or INT64) as the
        // signed integer of the column's width (values past the signed range turn negative).
        (
            DataType::UInt8 | DataType::UInt16 | DataType::UInt32,
            DataType::Int8 | DataType::Int16 | DataType::Int32,
        )
        | (DataType::UInt64, DataType::Int64) => {
            reinterpret_unsigned(column, target).map_err(|e| format!("{}: {e}", mismatch()))
        }
        _ => Err(mismatch()),
    }
}

/// How many of `unit` make a second.
fn units_per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

/// [`map_leaves`] of a list of `O` offsets whose elements are `element`.
fn map_list_leaves<O: arrow::array::OffsetSizeTrait>(
    array: &ArrayRef,
    element: &arrow::datatypes::FieldRef,
    leaf: &mut usize,
    f: &mut dyn FnMut(usize, &ArrayRef) -> Result<ArrayRef, String>,
) -> Result<ArrayRef, String> {
    let list = array.as_list::<O>();
    let values = map_leaves(list.values(), leaf, f)?;
    let element = element
        .as_ref()
        .clone()
        .with_data_type(values.data_type().clone());
    Ok(Arc::new(
        arrow::array::GenericListArray::<O>::try_new(
            Arc::new(element),
            list.offsets().clone(),
            values,
            list.nulls().cloned(),
        )
        .map_err(|e| e.to_string())?,
    ))
}

/// The array with every leaf array (in depth-first order, counted from `leaf`) replaced by `f`
/// of its index and itself; structs, lists and maps are rebuilt around the new leaves.
pub(crate) fn map_leaves(
    array: &ArrayRef,
    leaf: &mut usize,
    f: &mut dyn FnMut(usize, &ArrayRef) -> Result<ArrayRef, String>,
) -> Result<ArrayRef, String> {
    match array.data_type() {
        DataType::Struct(fields) => {
            let row = array.as_struct();
            let children = row
                .columns()
                .iter()
                .map(|child| map_leaves(child, leaf, f))
                .collect::<Result<Vec<_>, _>>()?;
            // A leaf may come back of another type (a timestamp in another unit).
            let fields: arrow::datatypes::Fields = fields
                .iter()
                .zip(&children)
                .map(|(field, child)| {
                    field
                        .as_ref()
                        .clone()
                        .with_data_type(child.data_type().clone())
                })
                .collect();
            Ok(Arc::new(
                StructArray::try_new(fields, children, row.nulls().cloned())
                    .map_err(|e| e.to_string())?,
            ))
        }
        DataType::List(element) => map_list_leaves::<i32>(array, element, leaf, f),
        DataType::LargeList(element) => map_list_leaves::<i64>(array, element, leaf, f),
        DataType::Map(entries, sorted) => {
            let map = array.as_map();
            let entries_array: ArrayRef = Arc::new(map.entries().clone());
            let mapped = map_leaves(&entries_array, leaf, f)?;
            Ok(Arc::new(
                MapArray::try_new(
                    Arc::new(
                        entries
                            .as_ref()
                            .clone()
                            .with_data_type(mapped.data_type().clone()),
                    ),
                    map.offsets().clone(),
                    mapped.as_struct().clone(),
                    map.nulls().cloned(),
                    *sorted,
                )
                .map_err(|e| e.to_string())?,
            ))
        }
        _ => {
            let index = *leaf;
            *leaf += 1;
            f(index, array)
        }
    }
}

/// Whether Flink reads the leaf's values as timestamps of the reading JVM's zone under
/// `parquet.utc-timezone` = `false`: INT96, and INT64 with a timestamp annotation (its
/// `isAdjustedToUTC` aside, as Flink's reader takes no notice of it).
fn zoned_timestamps(leaf: &parquet::schema::types::ColumnDescPtr) -> bool {
    match leaf.physical_type() {
        PhysicalType::INT96 => true,
        PhysicalType::INT64 => {
            matches!(
                leaf.logical_type_ref(),
                Some(parquet::basic::LogicalType::Timestamp { .. })
            ) || matches!(
                leaf.converted_type(),
                parquet::basic::ConvertedType::TIMESTAMP_MILLIS
                    | parquet::basic::ConvertedType::TIMESTAMP_MICROS
            )
        }
        _ => false,
    }
}

/// Per INT96 leaf read, the unit it is read in: a top-level column's own (the column's
/// precision); for a nested field, nanoseconds where the column holds any, else microseconds.
/// (parquet-rs reads INT96 in nanoseconds by default, which wrap outside 1677-2262.)
fn int96_units(
    leaves: &[parquet::schema::types::ColumnDescPtr],
    selected: &[usize],
    columns: &[Vec<String>],
    target: &SchemaRef,
) -> std::collections::HashMap<usize, TimeUnit> {
    let mut units = std::collections::HashMap::new();
    for &leaf in selected {
        if leaves[leaf].physical_type() != PhysicalType::INT96 {
            continue;
        }
        let parts = leaves[leaf].path().parts();
        let mut unit = TimeUnit::Microsecond;
        for (i, column) in columns.iter().enumerate() {
            if !parts.starts_with(column) {
                continue;
            }
            match target.field(i).data_type() {
                DataType::Timestamp(own, _) if parts.len() == 1 => unit = *own,
                other if holds_nanos(other) => unit = TimeUnit::Nanosecond,
                _ => {}
            }
        }
        units.insert(leaf, unit);
    }
    units
}

/// The leaf arrays of an array, depth first.
fn leaves_of(array: &ArrayRef, out: &mut Vec<ArrayRef>) {
    match array.data_type() {
        DataType::Struct(_) => array
            .as_struct()
            .columns()
            .iter()
            .for_each(|c| leaves_of(c, out)),
        DataType::List(_) => leaves_of(array.as_list::<i32>().values(), out),
        DataType::LargeList(_) => leaves_of(array.as_list::<i64>().values(), out),
        DataType::Map(_, _) => {
            let entries: ArrayRef = Arc::new(array.as_map().entries().clone());
            leaves_of(&entries, out);
        }
        _ => out.push(Arc::clone(array)),
    }
}

/// Whether a type holds a nanosecond timestamp at any depth.
fn holds_nanos(data_type: &DataType) -> bool {
    match data_type {
        DataType::Timestamp(TimeUnit::Nanosecond, _) => true,
        DataType::Struct(fields) => fields.iter().any(|f| holds_nanos(f.data_type())),
        DataType::List(f) | DataType::LargeList(f) | DataType::Map(f, _) => {
            holds_nanos(f.data_type())
        }
        _ => false,
    }
}

/// The reader metadata with INT96 leaves read in the given units (a schema hint parquet-rs
/// applies while decoding, so no value passes through nanoseconds).
fn hinted(
    path: &str,
    loaded: &ArrowReaderMetadata,
    options: &ArrowReaderOptions,
    units: &std::collections::HashMap<usize, TimeUnit>,
) -> Result<ArrowReaderMetadata, ParquetFileError> {
    let mut leaf = 0;
    let fields: Vec<arrow::datatypes::FieldRef> = loaded
        .schema()
        .fields()
        .iter()
        .map(|f| Arc::new(hint_field(f, &mut leaf, units)))
        .collect();
    let schema = Arc::new(arrow::datatypes::Schema::new_with_metadata(
        fields,
        loaded.schema().metadata().clone(),
    ));
    ArrowReaderMetadata::try_new(
        Arc::clone(loaded.metadata()),
        options.clone().with_schema(schema),
    )
    .map_err(|e| file_error(path, e))
}

fn hint_field(
    field: &arrow::datatypes::Field,
    leaf: &mut usize,
    units: &std::collections::HashMap<usize, TimeUnit>,
) -> arrow::datatypes::Field {
    let data_type = match field.data_type() {
        DataType::Struct(children) => DataType::Struct(
            children
                .iter()
                .map(|c| Arc::new(hint_field(c, leaf, units)))
                .collect(),
        ),
        DataType::List(element) => DataType::List(Arc::new(hint_field(element, leaf, units))),
        DataType::LargeList(element) => {
            DataType::LargeList(Arc::new(hint_field(element, leaf, units)))
        }
        DataType::Map(entries, sorted) => {
            DataType::Map(Arc::new(hint_field(entries, leaf, units)), *sorted)
        }
        other => {
            let index = *leaf;
            *leaf += 1;
            match (other, units.get(&index)) {
                (DataType::Timestamp(_, zone), Some(unit)) => {
                    DataType::Timestamp(*unit, zone.clone())
                }
                _ => other.clone(),
            }
        }
    };
    field.clone().with_data_type(data_type)
}

/// An unsigned integer column as a signed one: each value's low bits, two's complement.
fn reinterpret_unsigned(column: &ArrayRef, target: &DataType) -> Result<ArrayRef, String> {
    use arrow::datatypes::{
        Int8Type, Int16Type, Int32Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
    };
    let wide: Int64Array = match column.data_type() {
        DataType::UInt8 => column.as_primitive::<UInt8Type>().unary(i64::from),
        DataType::UInt16 => column.as_primitive::<UInt16Type>().unary(i64::from),
        DataType::UInt32 => column.as_primitive::<UInt32Type>().unary(i64::from),
        DataType::UInt64 => column.as_primitive::<UInt64Type>().unary(|v| v as i64),
        other => return Err(format!("{other} is not unsigned")),
    };
    Ok(match target {
        DataType::Int8 => Arc::new(wide.unary::<_, Int8Type>(|v| v as i8)),
        DataType::Int16 => Arc::new(wide.unary::<_, Int16Type>(|v| v as i16)),
        DataType::Int32 => Arc::new(wide.unary::<_, Int32Type>(|v| v as i32)),
        _ => Arc::new(wide),
    })
}

/// Timestamps (UTC wall-clock time) as the wall-clock time of `zone` at the same instants.
fn wall_clock(column: &ArrayRef, zone: &Tz) -> Result<ArrayRef, String> {
    map_timestamps(column, |v, per_second| {
        v.checked_add(i64::from(zone_offset(zone, v.div_euclid(per_second))) * per_second)
    })
}

/// Timestamps (wall-clock time of `zone`) as the instants they name there, in UTC wall-clock
/// time, as Flink's Parquet writer turns them into epoch values under `parquet.utc-timezone` =
/// `false` (`java.sql.Timestamp.valueOf(..).getTime()`): a time a zone skips (moving its clocks
/// forward) is read with the offset before the move, a time it repeats (moving them back) as its
/// later instant.
pub(crate) fn instants_of_wall_clock(column: &ArrayRef, zone: &Tz) -> Result<ArrayRef, String> {
    const DAY: i64 = 86_400;
    map_timestamps(column, |v, per_second| {
        let local = v.div_euclid(per_second);
        // The offsets around the time: one before any move of the clocks near it, one after.
        let before = i64::from(zone_offset(zone, local.saturating_sub(DAY)));
        let after = i64::from(zone_offset(zone, local.saturating_add(DAY)));
        let names =
            |offset: i64| i64::from(zone_offset(zone, local.saturating_sub(offset))) == offset;
        let offset = match (names(before), names(after)) {
            // Repeated: the later instant, of the smaller offset.
            (true, true) => before.min(after),
            (false, true) => after,
            // Skipped: the offset before the move.
            (true, false) | (false, false) => before,
        };
        v.checked_sub(offset * per_second)
    })
}

/// A timestamp column with each value through `shift` (given the value and its unit's count per
/// second; `None` where the result would overflow, an error); other columns as they are.
fn map_timestamps(
    column: &ArrayRef,
    shift: impl Fn(i64, i64) -> Option<i64>,
) -> Result<ArrayRef, String> {
    map_timestamps_into(column, column.data_type(), shift)
}

/// [`map_timestamps`], the values shifted taken as timestamps of `target`'s unit and zone (the
/// values themselves are only reinterpreted).
fn map_timestamps_into(
    column: &ArrayRef,
    target: &DataType,
    shift: impl Fn(i64, i64) -> Option<i64>,
) -> Result<ArrayRef, String> {
    let DataType::Timestamp(unit, _) = column.data_type() else {
        return Ok(Arc::clone(column));
    };
    let per_second = units_per_second(*unit);
    let values =
        cast_with_options(column, &DataType::Int64, &strict()).map_err(|e| e.to_string())?;
    let shifted: Int64Array = values
        .as_primitive::<Int64Type>()
        .try_unary(|v| {
            shift(v, per_second)
                .ok_or_else(|| ArrowError::ComputeError(format!("timestamp {v} out of range")))
        })
        .map_err(|e| e.to_string())?;
    let shifted: ArrayRef = Arc::new(shifted);
    cast_with_options(&shifted, target, &strict()).map_err(|e| e.to_string())
}

/// The offset (seconds) of `zone` at the instant `seconds` after the epoch. Past 2037 a zone's
/// last rules hold for ever, as in Java: the offset is read at the same UTC date and time of a
/// year before 2038 with the same calendar (leap or not, starting on the same weekday).
fn zone_offset(zone: &Tz, seconds: i64) -> i32 {
    use chrono::Datelike;
    const KNOWN_UNTIL: i64 = 2_145_916_800; // 2038-01-01T00:00:00Z
    let clamped = seconds.clamp(
        DateTime::<chrono::Utc>::MIN_UTC.timestamp(),
        DateTime::<chrono::Utc>::MAX_UTC.timestamp(),
    );
    let Some(instant) = DateTime::from_timestamp(clamped, 0) else {
        return 0;
    };
    let mut utc = instant.naive_utc();
    if clamped >= KNOWN_UNTIL {
        let year = utc.year();
        let leap = |y: i32| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let jan1 = |y: i32| chrono::NaiveDate::from_ymd_opt(y, 1, 1).map(|d| d.weekday());
        if let Some(same) = (2010..2038).find(|y| leap(*y) == leap(year) && jan1(*y) == jan1(year))
            && let Some(shifted) = utc.with_year(same)
        {
            utc = shifted;
        }
    }
    zone.offset_from_utc_datetime(&utc).fix().local_minus_utc()
}

/// Casts that fail on values they cannot convert instead of reading them as NULL.
fn strict() -> CastOptions<'static> {
    CastOptions {
        safe: false,
        ..CastOptions::default()
    }
}

/// Whether a file's column type reads as a table's column type: the conversions Flink's own
/// Parquet reader makes (integers of any width from INT32, text and bytes from any byte array,
/// a decimal, timestamp or time of any width or unit), and nothing that reinterprets values.
fn converts(file: &DataType, table: &DataType) -> bool {
    use DataType as T;
    let bytes = |t: &DataType| {
        matches!(
            t,
            T::Utf8 | T::LargeUtf8 | T::Utf8View | T::Binary | T::LargeBinary | T::BinaryView
        ) || matches!(t, T::FixedSizeBinary(_))
    };
    match (file, table) {
        // Flink's reader picks its column reader by the table's type and reads the INT32 values of
        // an integer column whatever its width annotation (INT(8), INT(16), plain). (DATE as INT,
        // which it reads too, is left out: the Iceberg connector shares these rules, and
        // iceberg-flink refuses it.)
        (T::Int32 | T::Int16, T::Int8)
        | (T::Int32 | T::Int8, T::Int16)
        | (T::Int8 | T::Int16, T::Int32) => true,
        (f, T::Utf8 | T::Binary) if bytes(f) => true,
        (
            T::Decimal32(..) | T::Decimal64(..) | T::Decimal128(..) | T::Decimal256(..),
            T::Decimal128(..),
        ) => true,
        (T::Timestamp(..), T::Timestamp(..)) => true,
        (T::Time32(_) | T::Time64(_), T::Time32(_) | T::Time64(_)) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, Int32Array, StringArray};
    use arrow::datatypes::{Field, Schema};

    /// An INT32 column read into a TINYINT or SMALLINT keeps its low bits, as Flink's reader
    /// narrows it with Java's cast.
    #[test]
    fn narrow_integers_keep_their_low_bits() -> Result<(), String> {
        let ints: ArrayRef = Arc::new(Int32Array::from(vec![
            Some(1),
            Some(200),
            None,
            Some(-40_000),
        ]));
        let tiny = conform_column(&ints, &DataType::Int8)?;
        let tiny = tiny.as_primitive::<arrow::datatypes::Int8Type>();
        assert_eq!(tiny.value(0), 1);
        assert_eq!(tiny.value(1), -56);
        assert!(tiny.is_null(2));
        assert_eq!(tiny.value(3), (-40_000i32) as i8);
        let small = conform_column(&ints, &DataType::Int16)?;
        assert_eq!(
            small.as_primitive::<arrow::datatypes::Int16Type>().value(3),
            25_536
        );
        Ok(())
    }

    /// A timestamp read at a coarser unit than the file's is floored, as Flink's and Iceberg's
    /// readers floor it: before 1970 too, and at the far end of the range; the zone stays.
    #[test]
    fn coarser_timestamps_are_floored() -> Result<(), String> {
        use arrow::array::TimestampMicrosecondArray;
        use arrow::datatypes::{TimestampMillisecondType, TimestampSecondType};
        let micros: ArrayRef = Arc::new(
            TimestampMicrosecondArray::from(vec![
                Some(-500),
                Some(-1),
                None,
                Some(0),
                Some(1_500),
                Some(i64::MIN),
            ])
            .with_timezone("+00:00"),
        );
        let target = DataType::Timestamp(TimeUnit::Millisecond, Some("+00:00".into()));
        let millis = conform_column(&micros, &target)?;
        assert_eq!(millis.data_type(), &target);
        let millis = millis.as_primitive::<TimestampMillisecondType>();
        assert_eq!(millis.value(0), -1);
        assert_eq!(millis.value(1), -1);
        assert!(millis.is_null(2));
        assert_eq!(millis.value(3), 0);
        assert_eq!(millis.value(4), 1);
        assert_eq!(millis.value(5), i64::MIN.div_euclid(1_000));
        let naive: ArrayRef = Arc::new(TimestampMicrosecondArray::from(vec![-1_500_001]));
        let seconds = conform_column(&naive, &DataType::Timestamp(TimeUnit::Second, None))?;
        assert_eq!(seconds.as_primitive::<TimestampSecondType>().value(0), -2);

        // Nested in a list, as at the top level.
        let micros = DataType::Timestamp(TimeUnit::Microsecond, None);
        let element = Arc::new(Field::new("element", micros, true));
        let list: ArrayRef = Arc::new(
            ListArray::try_new(
                element,
                arrow::buffer::OffsetBuffer::from_lengths([2]),
                Arc::new(TimestampMicrosecondArray::from(vec![-500, 1_500])),
                None,
            )
            .map_err(|e| e.to_string())?,
        );
        let millis = DataType::Timestamp(TimeUnit::Millisecond, None);
        let target = DataType::List(Arc::new(Field::new("element", millis, true)));
        let read = conform_column(&list, &target)?;
        let values = read.as_list::<i32>().values().clone();
        let values = values.as_primitive::<TimestampMillisecondType>();
        assert_eq!(values.values().to_vec(), vec![-1, 1]);
        Ok(())
    }

    /// INT32 integers read whatever their width annotation says, as Flink's reader reads them
    /// into the table's type: INT(8) into SMALLINT, INT(16) into TINYINT (low bits); a DATE is no
    /// INT.
    #[test]
    fn int32_columns_read_into_any_integer_type_of_the_table() -> Result<(), String> {
        use arrow::array::{Date32Array, Int8Array, Int16Array};
        use arrow::datatypes::{Int8Type, Int16Type};
        let bytes: ArrayRef = Arc::new(Int8Array::from(vec![Some(-5), None, Some(127)]));
        let small = conform_column(&bytes, &DataType::Int16)?;
        assert_eq!(small.as_primitive::<Int16Type>().value(0), -5);
        assert!(small.is_null(1));
        let shorts: ArrayRef = Arc::new(Int16Array::from(vec![300, -129]));
        let tiny = conform_column(&shorts, &DataType::Int8)?;
        assert_eq!(tiny.as_primitive::<Int8Type>().value(0), 44);
        assert_eq!(tiny.as_primitive::<Int8Type>().value(1), 127);
        let days: ArrayRef = Arc::new(Date32Array::from(vec![19_723, -1]));
        assert!(conform_column(&days, &DataType::Int32).is_err());
        Ok(())
    }

    /// A TIME holds whole milliseconds in Flink at every precision: finer digits read from a
    /// file are dropped (floored, as Flink's columnar reader floors them), nested ones too,
    /// whether or not the file's type is the table's.
    #[test]
    fn times_keep_whole_milliseconds() -> Result<(), String> {
        use arrow::array::{Time64MicrosecondArray, Time64NanosecondArray};
        use arrow::datatypes::{Time64MicrosecondType, Time64NanosecondType};
        let micros: ArrayRef = Arc::new(Time64MicrosecondArray::from(vec![
            Some(1_500),
            None,
            Some(86_399_999_999),
            Some(2_000),
        ]));
        let read = conform_column(&micros, &DataType::Time64(TimeUnit::Microsecond))?;
        let read = read.as_primitive::<Time64MicrosecondType>();
        assert_eq!(read.value(0), 1_000);
        assert!(read.is_null(1));
        assert_eq!(read.value(2), 86_399_999_000);
        assert_eq!(read.value(3), 2_000);

        let nanos = conform_column(&micros, &DataType::Time64(TimeUnit::Nanosecond))?;
        assert_eq!(
            nanos.as_primitive::<Time64NanosecondType>().value(0),
            1_000_000
        );
        let nanos: ArrayRef = Arc::new(Time64NanosecondArray::from(vec![1_999_999]));
        let read = conform_column(&nanos, &DataType::Time64(TimeUnit::Microsecond))?;
        assert_eq!(read.as_primitive::<Time64MicrosecondType>().value(0), 1_000);

        let field = Arc::new(Field::new(
            "t",
            DataType::Time64(TimeUnit::Microsecond),
            true,
        ));
        let nested: ArrayRef = Arc::new(StructArray::new(
            vec![Arc::clone(&field)].into(),
            vec![micros],
            None,
        ));
        let read = conform_column(&nested, nested.data_type())?;
        let t = read
            .as_struct()
            .column(0)
            .as_primitive::<Time64MicrosecondType>();
        assert_eq!(t.value(0), 1_000);
        assert_eq!(t.value(2), 86_399_999_000);
        Ok(())
    }

    /// Under the crate's directory as cargo runs the test, not as it was built: a target
    /// directory shared by several checkouts may run a binary another one built.
    fn testdata(name: &str) -> String {
        let dir = std::env::var("CARGO_MANIFEST_DIR")
            .unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
        format!("{dir}/../../../../shared/testdata/parquet-testing/data/{name}")
    }

    #[test]
    fn reads_projected_columns_by_name_with_nulls_for_missing_ones() -> Result<(), ParquetFileError>
    {
        let path = testdata("alltypes_plain.parquet");
        let rows = row_groups_matching(&path, &[])?;
        assert_eq!(rows, vec![8]);
        let target = Arc::new(Schema::new(vec![
            Field::new("string_col", DataType::Utf8, true),
            Field::new("id", DataType::Int32, true),
            Field::new("not_in_file", DataType::Int64, true),
        ]));
        let mut reader = RowGroupReader::open(&path, &[0], target, 1024, &[], None)?;
        let batch = reader
            .next_batch()?
            .ok_or_else(|| file_error(&path, "no batch"))?;
        assert_eq!(batch.num_rows(), 8);
        let ids = batch.column(1).as_any().downcast_ref::<Int32Array>();
        assert_eq!(ids.map(|a| a.value(0)), Some(4));
        // alltypes_plain stores string_col as plain BYTE_ARRAY: it reads as the table's STRING.
        let strings = batch.column(0).as_any().downcast_ref::<StringArray>();
        assert_eq!(strings.map(|a| a.value(1)), Some("1"));
        assert_eq!(batch.column(2).null_count(), 8);
        assert!(reader.next_batch()?.is_none());
        Ok(())
    }

    #[test]
    fn int96_timestamps_read_as_wall_clock_time_of_a_zone() -> Result<(), ParquetFileError> {
        let path = testdata("int96_from_spark.parquet");
        let target = Arc::new(Schema::new(vec![Field::new(
            "a",
            DataType::Timestamp(TimeUnit::Millisecond, None),
            true,
        )]));
        let read = |zone: Option<&str>| -> Result<Vec<Option<i64>>, ParquetFileError> {
            let mut reader =
                RowGroupReader::open(&path, &[0], Arc::clone(&target), 1024, &[], zone)?;
            let batch = reader
                .next_batch()?
                .ok_or_else(|| file_error(&path, "no batch"))?;
            let values = cast_with_options(batch.column(0), &DataType::Int64, &strict())
                .map_err(|e| file_error(&path, e))?;
            Ok(values.as_primitive::<Int64Type>().iter().collect())
        };
        let utc = read(None)?;
        assert!(utc.iter().any(Option::is_some));
        assert_eq!(read(Some("UTC"))?, utc);
        let hour = 3_600_000;
        let plus_eight: Vec<Option<i64>> = utc.iter().map(|v| v.map(|v| v + 8 * hour)).collect();
        assert_eq!(read(Some("+08:00"))?, plus_eight);
        // Shanghai keeps +08:00 all year now; the file's earliest values fall before 1901, when
        // local mean time (+08:05:43) applied, so only the later values compare.
        let recent = |values: Vec<Option<i64>>| -> Vec<Option<i64>> {
            values
                .into_iter()
                .filter(|v| v.is_some_and(|v| v > 0))
                .collect()
        };
        assert_eq!(recent(read(Some("Asia/Shanghai"))?), recent(plus_eight));
        assert!(matches!(
            RowGroupReader::open(&path, &[0], target, 8, &[], Some("Mars/Olympus")),
            Err(ParquetFileError::File { .. })
        ));
        // The zone is read only for files with INT96 timestamps.
        let plain = testdata("alltypes_plain.parquet");
        let ids = Arc::new(Schema::new(vec![Field::new("id", DataType::Int32, true)]));
        assert!(RowGroupReader::open(&plain, &[0], ids, 8, &[], Some("Mars/Olympus")).is_ok());
        Ok(())
    }

    #[test]
    fn int96_timestamps_keep_their_dates_or_fail_naming_the_column() -> Result<(), ParquetFileError>
    {
        // The file's values span hundreds of thousands of years: milliseconds hold them all;
        // microsecond and nanosecond columns fail rather than read wrapped values.
        let path = testdata("int96_from_spark.parquet");
        let read = |unit: TimeUnit| -> Result<Vec<Option<i64>>, ParquetFileError> {
            let target = Arc::new(Schema::new(vec![Field::new(
                "a",
                DataType::Timestamp(unit, None),
                true,
            )]));
            let mut reader = RowGroupReader::open(&path, &[0], target, 1024, &[], None)?;
            let batch = reader
                .next_batch()?
                .ok_or_else(|| file_error(&path, "no batch"))?;
            let values = cast_with_options(batch.column(0), &DataType::Int64, &strict())
                .map_err(|e| file_error(&path, e))?;
            Ok(values.as_primitive::<Int64Type>().iter().collect())
        };
        let millis = read(TimeUnit::Millisecond)?;
        // 2024-01-01 20:34:56.123, ..., 9999-12-31 03:00:00, ..., a date 294,000 years ago.
        assert_eq!(millis[0], Some(1_704_141_296_123));
        assert_eq!(millis[2], Some(253_402_225_200_000));
        assert_eq!(millis[5], Some(-9_357_363_680_509_551));
        for unit in [TimeUnit::Microsecond, TimeUnit::Nanosecond] {
            let wrapped = read(unit);
            assert!(
                matches!(&wrapped, Err(ParquetFileError::File { reason, .. }) if reason.contains("outside the range")),
                "{wrapped:?}"
            );
        }
        Ok(())
    }

    #[test]
    fn a_file_parquet_rs_reads_short_fails_instead_of_losing_rows() -> Result<(), ParquetFileError>
    {
        // A legacy repeated group outside a LIST: parquet-rs 58 returns no rows for it.
        let path = testdata("repeated_no_annotation.parquet");
        let target = open(&path)?.schema().clone();
        let mut reader = RowGroupReader::open(&path, &[0], target, 4096, &[], None)?;
        let mut outcome = reader.next_batch();
        while let Ok(Some(_)) = outcome {
            outcome = reader.next_batch();
        }
        let error = outcome.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains("repeated_no_annotation.parquet"), "{error}");
        assert!(error.contains("of the 6 rows the footer counts"), "{error}");
        Ok(())
    }

    #[test]
    fn a_column_too_large_for_one_batch_fails_clearly() -> Result<(), ParquetFileError> {
        // Two maps whose keys decode to more than 2 GiB together.
        let path = testdata("large_string_map.brotli.parquet");
        let target = open(&path)?.schema().clone();
        let mut reader = RowGroupReader::open(&path, &[0], target, 4096, &[], None)?;
        let error = reader
            .next_batch()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("large_string_map.brotli.parquet"), "{error}");
        assert!(error.contains("more than 2 GiB"), "{error}");
        Ok(())
    }

    #[test]
    fn errors_name_the_file_and_the_column() {
        let missing = RowGroupReader::open(
            "/no/such/file.parquet",
            &[0],
            Arc::new(Schema::empty()),
            8,
            &[],
            None,
        );
        assert!(
            matches!(missing, Err(ParquetFileError::File { ref path, .. }) if path == "/no/such/file.parquet")
        );

        let path = testdata("alltypes_plain.parquet");
        let target = Arc::new(Schema::new(vec![Field::new("id", DataType::Int32, false)]));
        let beyond = RowGroupReader::open(&path, &[3], target, 8, &[], None);
        assert!(matches!(beyond, Err(ParquetFileError::File { .. })));

        let target = Arc::new(Schema::new(vec![Field::new(
            "date_string_col",
            DataType::Date32,
            true,
        )]));
        let result = RowGroupReader::open(&path, &[0], target, 8, &[], None)
            .and_then(|mut r| r.next_batch());
        assert!(
            matches!(result, Err(ParquetFileError::Column { ref column, .. }) if column == "date_string_col"),
            "{result:?}"
        );
    }

    /// Reads every column of every row group, with the file's own Arrow types as the target.
    fn read_all(path: &str) -> Result<usize, ParquetFileError> {
        let target = open(path)?.schema().clone();
        let groups: Vec<usize> = (0..row_groups_matching(path, &[])?.len()).collect();
        let mut reader = RowGroupReader::open(path, &groups, target, 1024, &[], None)?;
        let mut rows = 0;
        while let Some(batch) = reader.next_batch()? {
            rows += batch.num_rows();
        }
        Ok(rows)
    }

    fn files(dir: &str) -> Vec<String> {
        let mut files: Vec<String> = std::fs::read_dir(testdata(dir))
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.path().to_string_lossy().into_owned())
                    .filter(|p| p.ends_with(".parquet"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    }

    #[test]
    fn corrupt_files_fail_with_an_error_never_a_panic() {
        let files = files("../bad_data");
        assert!(!files.is_empty(), "no bad_data files found");
        for path in files {
            let outcome = std::panic::catch_unwind(|| read_all(&path));
            assert!(outcome.is_ok(), "{path}: panicked");
        }
    }

    #[test]
    fn the_test_corpus_reads_without_panics() {
        let files = files("");
        assert!(files.len() > 30, "parquet-testing data not found");
        let mut read = 0;
        for path in &files {
            let outcome = std::panic::catch_unwind(|| read_all(path));
            assert!(outcome.is_ok(), "{path}: panicked");
            if matches!(outcome, Ok(Ok(_))) {
                read += 1;
            }
        }
        // Encrypted files and a few unusual encodings are refused with errors; most files read.
        assert!(
            read * 10 >= files.len() * 7,
            "only {read} of {} files read",
            files.len()
        );
    }
}
