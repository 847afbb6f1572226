//! Reading row groups of a local Parquet file into batches of a target schema.

use std::fs::File;
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions, new_null_array};
use arrow::compute::{CastOptions, cast_with_options};
use arrow::datatypes::{DataType, SchemaRef};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};

use crate::prune::{ColumnPredicate, may_match};

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

fn open(path: &str) -> Result<ParquetRecordBatchReaderBuilder<File>, ParquetFileError> {
    let file = File::open(path).map_err(|e| file_error(path, format!("cannot open: {e}")))?;
    ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| file_error(path, format!("not a readable Parquet file: {e}")))
}

/// The rows of each row group, or -1 for a row group whose statistics prove that no row satisfies
/// every predicate.
pub fn row_groups_matching(
    path: &str,
    predicates: &[ColumnPredicate],
) -> Result<Vec<i64>, ParquetFileError> {
    let builder = open(path)?;
    Ok(builder
        .metadata()
        .row_groups()
        .iter()
        .map(|group| {
            if may_match(group, predicates) {
                group.num_rows()
            } else {
                -1
            }
        })
        .collect())
}

/// Reads row groups of one file as batches of a target schema.
pub struct RowGroupReader {
    path: String,
    reader: ParquetRecordBatchReader,
    target: SchemaRef,
    /// Per target column: its index in the batches read, or `None` when the file lacks it.
    sources: Vec<Option<usize>>,
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
    /// `batch_size` rows at a time.
    pub fn open(
        path: &str,
        row_groups: &[usize],
        target: SchemaRef,
        batch_size: usize,
    ) -> Result<Self, ParquetFileError> {
        let builder = open(path)?;
        let available = builder.metadata().num_row_groups();
        if let Some(group) = row_groups.iter().find(|g| **g >= available) {
            return Err(file_error(
                path,
                format!("has {available} row groups, not a row group {group}"),
            ));
        }
        let file_schema = builder.schema().clone();
        let mut roots: Vec<usize> = target
            .fields()
            .iter()
            .filter_map(|field| file_schema.index_of(field.name()).ok())
            .collect();
        roots.sort_unstable();
        roots.dedup();
        // The batches read hold the selected root columns in file order.
        let sources = target
            .fields()
            .iter()
            .map(|field| {
                let index = file_schema.index_of(field.name()).ok()?;
                roots.iter().position(|root| *root == index)
            })
            .collect();
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
        let reader = builder
            .with_projection(mask)
            .with_row_groups(row_groups.to_vec())
            .with_batch_size(batch_size.max(1))
            .build()
            .map_err(|e| file_error(path, e))?;
        Ok(Self {
            path: path.to_string(),
            reader,
            target,
            sources,
        })
    }

    /// The next batch, or `None` after the last.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, ParquetFileError> {
        match self.reader.next() {
            None => Ok(None),
            Some(Err(e)) => Err(file_error(&self.path, e)),
            Some(Ok(batch)) => self.convert(&batch).map(Some),
        }
    }

    /// The batch as the target schema: columns in target order, converted to the target types,
    /// NULLs for columns the file lacks.
    fn convert(&self, batch: &RecordBatch) -> Result<RecordBatch, ParquetFileError> {
        let rows = batch.num_rows();
        let options = CastOptions {
            safe: false,
            ..CastOptions::default()
        };
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
                Some(index) => {
                    let column = batch.column(*index);
                    if column.data_type() == field.data_type() {
                        Arc::clone(column)
                    } else if !converts(column.data_type(), field.data_type()) {
                        return Err(self.column_error(
                            field.name(),
                            format!(
                                "the file's {} does not read as the table's {}",
                                column.data_type(),
                                field.data_type()
                            ),
                        ));
                    } else {
                        cast_with_options(column, field.data_type(), &options).map_err(|e| {
                            self.column_error(
                                field.name(),
                                format!(
                                    "the file's {} does not read as the table's {}: {e}",
                                    column.data_type(),
                                    field.data_type()
                                ),
                            )
                        })?
                    }
                }
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

/// Whether a file's column type reads as a table's column type: the conversions Flink's own
/// Parquet reader makes (a narrower integer column from INT32, text and bytes from any byte array,
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
        (T::Int32, T::Int8 | T::Int16) | (T::Int8 | T::Int16, T::Int32) => true,
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

    fn testdata(name: &str) -> String {
        format!(
            "{}/../../../../shared/testdata/parquet-testing/data/{name}",
            env!("CARGO_MANIFEST_DIR")
        )
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
        let mut reader = RowGroupReader::open(&path, &[0], target, 1024)?;
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
    fn errors_name_the_file_and_the_column() {
        let missing =
            RowGroupReader::open("/no/such/file.parquet", &[0], Arc::new(Schema::empty()), 8);
        assert!(
            matches!(missing, Err(ParquetFileError::File { ref path, .. }) if path == "/no/such/file.parquet")
        );

        let path = testdata("alltypes_plain.parquet");
        let target = Arc::new(Schema::new(vec![Field::new("id", DataType::Int32, false)]));
        let beyond = RowGroupReader::open(&path, &[3], target, 8);
        assert!(matches!(beyond, Err(ParquetFileError::File { .. })));

        let target = Arc::new(Schema::new(vec![Field::new(
            "date_string_col",
            DataType::Date32,
            true,
        )]));
        let result = RowGroupReader::open(&path, &[0], target, 8).and_then(|mut r| r.next_batch());
        assert!(
            matches!(result, Err(ParquetFileError::Column { ref column, .. }) if column == "date_string_col"),
            "{result:?}"
        );
    }

    /// Reads every column of every row group, with the file's own Arrow types as the target.
    fn read_all(path: &str) -> Result<usize, ParquetFileError> {
        let target = open(path)?.schema().clone();
        let groups: Vec<usize> = (0..row_groups_matching(path, &[])?.len()).collect();
        let mut reader = RowGroupReader::open(path, &groups, target, 1024)?;
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
