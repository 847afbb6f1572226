//! Equality deletes applied by hashing: the deleted keys of a task's equality delete files are
//! read once into a set, and each batch of the data file keeps the rows whose key is not in it.
//!
//! iceberg-rust 0.10.1 applies equality deletes as one predicate term per deleted row, evaluated
//! for every row read: a scan slows in proportion to the number of deleted rows. A set makes each
//! row one lookup, as Iceberg Java's reader does.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, RecordBatch};
use arrow::compute::filter_record_batch;
use arrow::row::{RowConverter, SortField};
use futures::{StreamExt, stream};
use iceberg::arrow::ArrowReaderBuilder;
use iceberg::io::FileIO;
use iceberg::scan::FileScanTask;
use iceberg::spec::{DataFileFormat, Schema};

use crate::reader::IcebergReadError;
use crate::runtime::error_chain;

/// The keys deleted for one set of equality field ids, and where those fields are in a batch.
struct DeletedKeys {
    /// Columns of the batches read (projected ids first, then the extra ids) holding the key.
    columns: Vec<usize>,
    converter: RowConverter,
    /// The deleted keys in the converter's row format.
    keys: HashSet<Box<[u8]>>,
}

/// The equality deletes of one task.
pub(crate) struct EqualityDeletes {
    sets: Vec<DeletedKeys>,
}

impl std::fmt::Debug for EqualityDeletes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EqualityDeletes")
            .field("sets", &self.sets.len())
            .finish()
    }
}

impl EqualityDeletes {
    /// Reads the delete files (path, size, equality ids) into key sets. `read_ids` are the field
    /// ids the data file is read with; equality ids it lacks are appended to it (and read).
    pub(crate) fn load(
        runtime: &tokio::runtime::Runtime,
        schema: &Arc<Schema>,
        files: &[(String, u64, Vec<i32>)],
        read_ids: &mut Vec<i32>,
        case_sensitive: bool,
        file_io: &FileIO,
    ) -> Result<Self, IcebergReadError> {
        let mut by_ids: HashMap<Vec<i32>, Vec<(String, u64)>> = HashMap::new();
        for (path, size, ids) in files {
            by_ids
                .entry(ids.clone())
                .or_default()
                .push((path.clone(), *size));
        }
        let mut sets = Vec::with_capacity(by_ids.len());
        for (ids, files) in by_ids {
            let columns = ids
                .iter()
                .map(|id| match read_ids.iter().position(|r| r == id) {
                    Some(at) => at,
                    None => {
                        read_ids.push(*id);
                        read_ids.len() - 1
                    }
                })
                .collect::<Vec<_>>();
            let mut converter = None;
            let mut keys = HashSet::new();
            for (path, size) in files {
                let batches =
                    read_file(runtime, file_io, schema, &path, size, &ids, case_sensitive)?;
                for batch in batches {
                    let converter = match &mut converter {
                        Some(c) => c,
                        None => converter.insert(
                            RowConverter::new(
                                batch
                                    .schema()
                                    .fields()
                                    .iter()
                                    .map(|f| SortField::new(f.data_type().clone()))
                                    .collect(),
                            )
                            .map_err(|e| delete_error(&path, &e.to_string()))?,
                        ),
                    };
                    let rows = converter
                        .convert_columns(batch.columns())
                        .map_err(|e| delete_error(&path, &e.to_string()))?;
                    keys.extend(rows.iter().map(|row| Box::<[u8]>::from(row.as_ref())));
                }
            }
            if let Some(converter) = converter {
                sets.push(DeletedKeys {
                    columns,
                    converter,
                    keys,
                });
            }
        }
        Ok(EqualityDeletes { sets })
    }

    /// `batch` without the rows whose key a delete file holds.
    pub(crate) fn apply(&self, batch: RecordBatch) -> Result<RecordBatch, String> {
        if self.sets.is_empty() || batch.num_rows() == 0 {
            return Ok(batch);
        }
        let mut keep = vec![true; batch.num_rows()];
        for set in &self.sets {
            if set.keys.is_empty() {
                continue;
            }
            let key: Vec<ArrayRef> = set
                .columns
                .iter()
                .map(|&c| Arc::clone(batch.column(c)))
                .collect();
            let rows = set
                .converter
                .convert_columns(&key)
                .map_err(|e| e.to_string())?;
            for (i, row) in rows.iter().enumerate() {
                if keep[i] && set.keys.contains(row.as_ref()) {
                    keep[i] = false;
                }
            }
        }
        if keep.iter().all(|k| *k) {
            return Ok(batch);
        }
        filter_record_batch(&batch, &BooleanArray::from(keep)).map_err(|e| e.to_string())
    }
}

/// The rows of an equality delete file: its equality columns, read by field id as the table's
/// schema types them.
fn read_file(
    runtime: &tokio::runtime::Runtime,
    file_io: &FileIO,
    schema: &Arc<Schema>,
    path: &str,
    size: u64,
    ids: &[i32],
    case_sensitive: bool,
) -> Result<Vec<RecordBatch>, IcebergReadError> {
    let task = FileScanTask {
        file_size_in_bytes: size,
        start: 0,
        length: 0,
        record_count: None,
        data_file_path: path.to_string(),
        data_file_format: DataFileFormat::Parquet,
        schema: Arc::clone(schema),
        project_field_ids: ids.to_vec(),
        predicate: None,
        deletes: vec![],
        partition: None,
        partition_spec: None,
        name_mapping: None,
        case_sensitive,
    };
    let reader = ArrowReaderBuilder::new(file_io.clone(), iceberg::Runtime::new(runtime))
        .with_data_file_concurrency_limit(1)
        .build();
    let mut batches = reader
        .read(Box::pin(stream::iter([Ok(task)])))
        .map_err(|e| delete_error(path, &error_chain(&e)))?
        .stream();
    let mut out = Vec::new();
    while let Some(batch) = runtime.block_on(batches.next()) {
        out.push(batch.map_err(|e| delete_error(path, &error_chain(&e)))?);
    }
    Ok(out)
}

fn delete_error(path: &str, reason: &str) -> IcebergReadError {
    IcebergReadError::Read {
        path: path.to_string(),
        reason: format!("equality delete file: {reason}"),
    }
}
