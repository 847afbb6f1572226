//! One planned file task read into Arrow batches of a target schema.

use std::collections::HashSet;
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Schema as ArrowSchema, SchemaRef};
use arrow::error::ArrowError;
use futures::StreamExt;
use futures::stream;
use iceberg::arrow::ArrowReaderBuilder;
use iceberg::scan::ArrowRecordBatchStream;
use iceberg::spec::Schema;

use crate::equality::EqualityDeletes;
use crate::footer::{columns_not_as_typed, needs_check};
use crate::predicate::filter_ids;
use crate::runtime::{error_chain, runtime};
use crate::storage::{FileAccess, file_io};
use crate::task::TaskDescription;

/// Why a task could not be read; the message names the data file.
#[derive(Debug, thiserror::Error)]
pub enum IcebergReadError {
    /// The task description is not one this crate reads.
    #[error("invalid Iceberg task: {0}")]
    Task(String),
    /// The task's files could not be read (missing, truncated, corrupt, of another schema).
    #[error("cannot read Iceberg data file {path}: {reason}")]
    Read { path: String, reason: String },
    /// The target schema does not match the task's projection.
    #[error("Iceberg data file {path}: {reason}")]
    Schema { path: String, reason: String },
    /// The runtime that drives reads could not start.
    #[error("the Iceberg read runtime cannot start: {0}")]
    Runtime(String),
}

/// Reads one task's rows: the columns of the target schema (by the task's projected field ids,
/// in order), deletes applied, converted to the target's Arrow types.
pub struct TaskReader {
    path: String,
    target: SchemaRef,
    /// The task projects no column (a row count): one column is read for its row count only.
    counts_only: bool,
    /// Equality deletes, applied here (columns they need are read after the target's).
    equality: EqualityDeletes,
    batches: ArrowRecordBatchStream,
}

impl std::fmt::Debug for TaskReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskReader")
            .field("path", &self.path)
            .finish()
    }
}

impl TaskReader {
    /// A reader of `task` into batches of `target` (one field per projected id), of at most
    /// `batch_size` rows. Its files (data and deletes) are opened here when `remote` is `None`
    /// (each a `file:` URI or a plain path), and read through `remote` otherwise.
    pub fn open(
        task: &TaskDescription,
        target: SchemaRef,
        batch_size: usize,
        remote: Option<Arc<dyn FileAccess>>,
    ) -> Result<Self, IcebergReadError> {
        let path = task.path.clone();
        if target.fields().len() != task.projected_ids.len() {
            return Err(IcebergReadError::Schema {
                path,
                reason: format!(
                    "{} columns requested for {} projected field ids",
                    target.fields().len(),
                    task.projected_ids.len()
                ),
            });
        }
        let schema = task.table_schema()?;
        let counts_only = task.projected_ids.is_empty();
        let projected = if counts_only {
            vec![counting_field(&schema).ok_or_else(|| {
                IcebergReadError::Task("the table schema has no column".to_string())
            })?]
        } else {
            task.projected_ids.clone()
        };
        let schema = Arc::new(schema);
        let runtime = runtime()?;
        let file_io = file_io(remote);
        let mut projected = projected;
        let equality = EqualityDeletes::load(
            runtime,
            &schema,
            &task.equality_deletes(),
            &mut projected,
            task.case_sensitive,
            &file_io,
        )?;
        let filtered = task.filter.as_ref().map(filter_ids).unwrap_or_default();
        let not_as_typed = if needs_check(&schema, &projected, &filtered) {
            runtime
                .block_on(columns_not_as_typed(
                    &file_io,
                    &task.path,
                    task.file_size,
                    &schema,
                    &projected,
                    &filtered,
                ))
                .map_err(|e| read_error(&path, &e))?
        } else {
            HashSet::new()
        };
        let mut scan_task = task.to_scan_task(schema, projected, &not_as_typed)?;
        // Position deletes are iceberg-rust's to apply; equality deletes are applied here.
        scan_task
            .deletes
            .retain(|d| d.file_type != iceberg::spec::DataContentType::EqualityDeletes);
        let reader = ArrowReaderBuilder::new(file_io, iceberg::Runtime::new(runtime))
            .with_batch_size(batch_size.max(1))
            .with_data_file_concurrency_limit(1)
            .build();
        let tasks = Box::pin(stream::iter([Ok(scan_task)]));
        let batches = reader
            .read(tasks)
            .map_err(|e| read_error(&path, &e))?
            .stream();
        Ok(TaskReader {
            path,
            target,
            counts_only,
            equality,
            batches,
        })
    }

    /// The next batch (never empty), or `None` after the last.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, IcebergReadError> {
        let runtime = runtime()?;
        loop {
            let Some(batch) = runtime.block_on(self.batches.next()) else {
                return Ok(None);
            };
            let batch = batch.map_err(|e| read_error(&self.path, &e))?;
            let batch = expand_run_ends(batch).map_err(|e| IcebergReadError::Read {
                path: self.path.clone(),
                reason: format!("expanding partition constants: {e}"),
            })?;
            let batch = self
                .equality
                .apply(batch)
                .map_err(|reason| IcebergReadError::Read {
                    path: self.path.clone(),
                    reason: format!("applying equality deletes: {reason}"),
                })?;
            if batch.num_rows() == 0 {
                continue;
            }
            return self.conform(&batch).map(Some);
        }
    }

    /// `batch` as the target schema: column `i` converted to field `i`'s type.
    fn conform(&self, batch: &RecordBatch) -> Result<RecordBatch, IcebergReadError> {
        let schema_error = |reason: String| IcebergReadError::Schema {
            path: self.path.clone(),
            reason,
        };
        if self.counts_only {
            let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
            return RecordBatch::try_new_with_options(Arc::clone(&self.target), vec![], &options)
                .map_err(|e| schema_error(e.to_string()));
        }
        if batch.num_columns() < self.target.fields().len() {
            return Err(schema_error(format!(
                "{} columns read for {} requested",
                batch.num_columns(),
                self.target.fields().len()
            )));
        }
        // Columns past the target's were read for equality deletes only.
        let columns = batch
            .columns()
            .iter()
            .zip(self.target.fields())
            .map(|(column, field)| {
                streamfusion_parquet::conform_column(column, field.data_type())
                    .map_err(|e| schema_error(format!("column '{}': {e}", field.name())))
            })
            .collect::<Result<Vec<ArrayRef>, _>>()?;
        RecordBatch::try_new(Arc::clone(&self.target), columns)
            .map_err(|e| schema_error(e.to_string()))
    }
}

/// `batch` with its run-end encoded columns (the partition constants iceberg-rust adds for
/// identity fields) expanded into plain arrays of their values' type, which the equality deletes
/// and the bridge take.
fn expand_run_ends(batch: RecordBatch) -> Result<RecordBatch, ArrowError> {
    let schema = batch.schema();
    if !schema
        .fields()
        .iter()
        .any(|f| matches!(f.data_type(), DataType::RunEndEncoded(..)))
    {
        return Ok(batch);
    }
    let mut fields = Vec::with_capacity(schema.fields().len());
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        if let DataType::RunEndEncoded(_, values) = field.data_type() {
            columns.push(cast(column, values.data_type())?);
            fields.push(Arc::new(
                field
                    .as_ref()
                    .clone()
                    .with_data_type(values.data_type().clone()),
            ));
        } else {
            columns.push(Arc::clone(column));
            fields.push(Arc::clone(field));
        }
    }
    let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(
        Arc::new(ArrowSchema::new_with_metadata(
            fields,
            schema.metadata().clone(),
        )),
        columns,
        &options,
    )
}

/// The field read when a task projects no column: the first top-level primitive column (cheapest
/// to decode), else the first column.
fn counting_field(schema: &Schema) -> Option<i32> {
    let fields = schema.as_struct().fields();
    fields
        .iter()
        .find(|f| f.field_type.is_primitive())
        .or_else(|| fields.first())
        .map(|f| f.id)
}

fn read_error(path: &str, e: &iceberg::Error) -> IcebergReadError {
    IcebergReadError::Read {
        path: path.to_string(),
        reason: error_chain(e),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use arrow::array::{AsArray, Int32Array, Int64Array, TimestampNanosecondArray};
    use arrow::datatypes::{Field, Int64Type, TimeUnit};
    use parquet::arrow::ArrowWriter;
    use serde_json::{Value, json};

    use super::*;

    /// A Parquet file of `columns`, each with its field id, and its path and size.
    fn parquet_file(name: &str, columns: Vec<(i32, &str, ArrayRef)>) -> (String, u64) {
        let fields: Vec<Field> = columns
            .iter()
            .map(|(id, name, values)| {
                Field::new(*name, values.data_type().clone(), true).with_metadata(HashMap::from([
                    ("PARQUET:field_id".to_string(), id.to_string()),
                ]))
            })
            .collect();
        let batch = RecordBatch::try_new(
            Arc::new(ArrowSchema::new(fields)),
            columns.into_iter().map(|(_, _, values)| values).collect(),
        )
        .unwrap_or_else(|e| panic!("a batch: {e}"));
        let path = std::env::temp_dir().join(format!(
            "streamfusion-footer-{}-{name}.parquet",
            std::process::id()
        ));
        let file = std::fs::File::create(&path).unwrap_or_else(|e| panic!("a file: {e}"));
        let mut writer = ArrowWriter::try_new(file, batch.schema(), None)
            .unwrap_or_else(|e| panic!("a writer: {e}"));
        writer
            .write(&batch)
            .unwrap_or_else(|e| panic!("a write: {e}"));
        writer.close().unwrap_or_else(|e| panic!("a close: {e}"));
        let size = std::fs::metadata(&path)
            .unwrap_or_else(|e| panic!("the file's size: {e}"))
            .len();
        (path.to_string_lossy().to_string(), size)
    }

    /// The rows of column 0 the task over `path` reads with `filter`, in `target`'s type.
    fn read(path: &str, size: u64, schema: Value, filter: Value, target: DataType) -> Vec<i64> {
        let description = TaskDescription::parse(
            &json!({
                "path": path, "file-size": size, "start": 0, "length": size,
                "schema": schema, "projected-ids": [1], "filter": filter, "case-sensitive": true,
            })
            .to_string(),
        )
        .unwrap_or_else(|e| panic!("a task: {e}"));
        let target = Arc::new(ArrowSchema::new(vec![Field::new("c", target, true)]));
        let mut reader = TaskReader::open(&description, target, 1024, None)
            .unwrap_or_else(|e| panic!("a reader: {e}"));
        let mut values = Vec::new();
        while let Some(batch) = reader
            .next_batch()
            .unwrap_or_else(|e| panic!("a batch: {e}"))
        {
            let column =
                cast(batch.column(0), &DataType::Int64).unwrap_or_else(|e| panic!("as longs: {e}"));
            values.extend(column.as_primitive::<Int64Type>().iter().flatten());
        }
        values
    }

    /// A file holding an `int` column of a table whose column is now `long` (the schemas no
    /// longer recording the promotion): a filter value past the `int` range keeps every row.
    #[test]
    fn a_filter_on_a_column_the_file_holds_narrower_keeps_every_matching_row() {
        let (path, size) = parquet_file(
            "narrower",
            vec![(1, "id", Arc::new(Int32Array::from(vec![1, -5, 7])))],
        );
        let schema = json!({"type": "struct", "schema-id": 0, "fields": [
            {"id": 1, "name": "id", "required": false, "type": "long"}]});
        let below = json!({"id": 1, "op": "lt", "value": 3_000_000_000_i64});
        let mut rows = read(&path, size, schema.clone(), below, DataType::Int64);
        rows.sort_unstable();
        assert_eq!(rows, vec![-5, 1, 7]);
        let other = json!({"id": 1, "op": "not-eq", "value": 3_000_000_000_i64});
        assert_eq!(read(&path, size, schema, other, DataType::Int64).len(), 3);
        let _ = std::fs::remove_file(&path);
    }

    /// A negated filter keeps the rows it matches: the row group (ids 0 to 9) holds rows that
    /// are not below 5, so it is not skipped.
    #[test]
    fn a_negated_filter_keeps_the_rows_it_matches() {
        let (path, size) = parquet_file(
            "negated",
            vec![(1, "id", Arc::new(Int64Array::from_iter_values(0..10)))],
        );
        let schema = json!({"type": "struct", "schema-id": 0, "fields": [
            {"id": 1, "name": "id", "required": false, "type": "long"}]});
        let not_below = json!({"not": {"id": 1, "op": "lt", "value": 5}});
        let mut rows = read(&path, size, schema.clone(), not_below, DataType::Int64);
        rows.sort_unstable();
        assert_eq!(rows, vec![5, 6, 7, 8, 9]);
        let not_between = json!({"not": {"and": [
            {"id": 1, "op": "gt-eq", "value": 2}, {"id": 1, "op": "lt-eq", "value": 7}]}});
        let mut rows = read(&path, size, schema, not_between, DataType::Int64);
        rows.sort_unstable();
        assert_eq!(rows, vec![0, 1, 8, 9]);
        let _ = std::fs::remove_file(&path);
    }

    /// A file holding nanosecond timestamps in a `timestamp` column (written by another engine
    /// and added to the table), which iceberg-rust would read as microseconds: the read fails
    /// naming the column.
    #[test]
    fn nanosecond_timestamps_of_a_microsecond_column_fail_the_read() {
        let (path, size) = parquet_file(
            "nanos",
            vec![(
                1,
                "ts",
                Arc::new(TimestampNanosecondArray::from(vec![1_000_000_000_i64])),
            )],
        );
        let description = TaskDescription::parse(
            &json!({
                "path": path, "file-size": size, "start": 0, "length": size,
                "schema": {"type": "struct", "schema-id": 0, "fields": [
                    {"id": 1, "name": "ts", "required": false, "type": "timestamp"}]},
                "projected-ids": [1], "case-sensitive": true,
            })
            .to_string(),
        )
        .unwrap_or_else(|e| panic!("a task: {e}"));
        let target = Arc::new(ArrowSchema::new(vec![Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            true,
        )]));
        let error = TaskReader::open(&description, target, 1024, None)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("column ts") && error.contains(&path),
            "{error}"
        );
        let _ = std::fs::remove_file(&path);
    }
}
