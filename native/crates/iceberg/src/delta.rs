//! Changelogs written to a table with equality fields, with the semantics of iceberg-flink's delta
//! writers: inserted rows go to data files; a deleted row this writer inserted since its files
//! were last closed becomes a position delete of that row (an equality delete could not remove
//! it: equality deletes apply only to data files of earlier commits), and any other deleted row
//! becomes an equality delete of its key. Upserting, every inserted row first deletes its key, and
//! `UPDATE_BEFORE` rows are ignored.
//!
//! Position deletes are kept in memory (twelve bytes a row) until the files are closed, then
//! written sorted by file and position, one file per partition, as the Iceberg spec asks.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray, UInt32Array};
use arrow::compute::{cast, take, take_record_batch};
use arrow::datatypes::SchemaRef as ArrowSchemaRef;
use arrow::row::{RowConverter, SortField};
use iceberg::arrow::{arrow_schema_to_schema, schema_to_arrow_schema};
use iceberg::spec::{
    DataContentType, DataFile, NestedField, PartitionKey, PrimitiveType, Schema, Type,
};
use iceberg::writer::base_writer::equality_delete_writer::{
    EqualityDeleteFileWriter, EqualityDeleteFileWriterBuilder, EqualityDeleteWriterConfig,
};
use iceberg::writer::file_writer::location_generator::DefaultFileNameGenerator;
use iceberg::writer::{IcebergWriter, IcebergWriterBuilder};
use iceberg::{Error, ErrorKind, Result};

use crate::parquet_files::ParquetFiles;
use crate::runtime::runtime;
use crate::writer::{
    DELETE, FileSettings, INSERT, IcebergWriteError, PartitionLocations, RollingBuilder,
    UPDATE_AFTER, UPDATE_BEFORE,
};

/// The field id of a position delete file's `file_path` column (Iceberg's reserved id).
pub(crate) const DELETE_FILE_PATH_ID: i32 = 2147483546;
/// The field id of a position delete file's `pos` column.
const DELETE_FILE_POS_ID: i32 = 2147483545;

type EqualityWriter =
    EqualityDeleteFileWriter<ParquetFiles, PartitionLocations, DefaultFileNameGenerator>;
type EqualityBuilder =
    EqualityDeleteFileWriterBuilder<ParquetFiles, PartitionLocations, DefaultFileNameGenerator>;

/// How a writer turns changelog rows into deletes.
pub(crate) struct Deltas {
    upsert: bool,
    /// The equality fields' column indices in the table's batches.
    key_columns: Vec<usize>,
    /// Encodes the equality fields' values of a row as comparable bytes.
    keys: RowConverter,
    equality: EqualityBuilder,
    positions: RollingBuilder,
    position_arrow: ArrowSchemaRef,
}

/// The deletes of one partition since its files were last closed.
pub(crate) struct PartitionDeletes {
    equality: EqualityWriter,
    /// Where each key's row inserted since the last close is: an index into `files` and the row's
    /// position in that file.
    inserted: HashMap<Box<[u8]>, (u32, u64)>,
    /// The data files rows were inserted into.
    files: Vec<String>,
    /// Rows deleted by position: an index into `files` and the position.
    deleted: Vec<(u32, u64)>,
}

impl Deltas {
    /// Deletes by the top-level fields `equality_ids` of `schema`.
    pub(crate) fn new(
        schema: &Arc<Schema>,
        equality_ids: &[i32],
        upsert: bool,
        files: &FileSettings,
    ) -> std::result::Result<Self, IcebergWriteError> {
        let config = |what: &str, e: &dyn std::fmt::Display| {
            IcebergWriteError::Config(format!("{what}: {e}"))
        };
        let arrow = schema_to_arrow_schema(schema).map_err(|e| config("schema", &e))?;
        let columns = schema.as_struct().fields();
        let key_columns = equality_ids
            .iter()
            .map(|id| {
                columns.iter().position(|f| f.id == *id).ok_or_else(|| {
                    IcebergWriteError::Config(format!(
                        "equality field {id} is not a top-level column of the table"
                    ))
                })
            })
            .collect::<std::result::Result<Vec<usize>, _>>()?;
        let keys = RowConverter::new(
            key_columns
                .iter()
                .map(|&c| SortField::new(arrow.field(c).data_type().clone()))
                .collect(),
        )
        .map_err(|e| config("equality fields", &e))?;
        let equality_config =
            EqualityDeleteWriterConfig::new(equality_ids.to_vec(), Arc::clone(schema))
                .map_err(|e| config("equality fields", &e))?;
        let equality_schema = arrow_schema_to_schema(equality_config.projected_arrow_schema_ref())
            .map_err(|e| config("equality fields", &e))?;
        let equality = EqualityDeleteFileWriterBuilder::new(
            files.rolling(Arc::new(equality_schema), Some("eq-deletes")),
            equality_config,
        );
        let position_schema = Schema::builder()
            .with_fields(vec![
                NestedField::required(
                    DELETE_FILE_PATH_ID,
                    "file_path",
                    Type::Primitive(PrimitiveType::String),
                )
                .into(),
                NestedField::required(
                    DELETE_FILE_POS_ID,
                    "pos",
                    Type::Primitive(PrimitiveType::Long),
                )
                .into(),
            ])
            .build()
            .map_err(|e| config("position deletes", &e))?;
        let position_arrow = Arc::new(
            schema_to_arrow_schema(&position_schema).map_err(|e| config("position deletes", &e))?,
        );
        Ok(Deltas {
            upsert,
            key_columns,
            keys,
            equality,
            positions: files.rolling(Arc::new(position_schema), Some("pos-deletes")),
            position_arrow,
        })
    }

    /// The deletes of a partition, none yet.
    pub(crate) fn open(&self, key: Option<PartitionKey>) -> Result<PartitionDeletes> {
        let runtime = runtime().map_err(|e| Error::new(ErrorKind::Unexpected, e.to_string()))?;
        Ok(PartitionDeletes {
            equality: runtime.block_on(self.equality.build(key))?,
            inserted: HashMap::new(),
            files: Vec::new(),
            deleted: Vec::new(),
        })
    }

    /// Applies the changelog rows `rows` of `batch` (kinds in `kinds`, by row of `batch`) of one
    /// partition. Its inserted rows were just written, in order, to the data file `written` names
    /// from the position it gives on.
    pub(crate) fn apply(
        &self,
        deletes: &mut PartitionDeletes,
        batch: &RecordBatch,
        rows: &[u32],
        kinds: &[u8],
        written: Option<(String, u64)>,
    ) -> Result<()> {
        let (file, mut position) = match written {
            Some((path, first)) => {
                if deletes.files.last() != Some(&path) {
                    deletes.files.push(path);
                }
                let file = u32::try_from(deletes.files.len() - 1)
                    .map_err(|e| Error::new(ErrorKind::Unexpected, e.to_string()))?;
                (file, first)
            }
            None => (0, 0),
        };
        let indices = UInt32Array::from(rows.to_vec());
        let key_values = self
            .key_columns
            .iter()
            .map(|&c| take(batch.column(c), &indices, None))
            .collect::<std::result::Result<Vec<ArrayRef>, _>>()
            .map_err(arrow_error)?;
        let keys = self
            .keys
            .convert_columns(&key_values)
            .map_err(arrow_error)?;
        let mut by_equality = Vec::new();
        for (i, &row) in rows.iter().enumerate() {
            let key = keys.row(i);
            let key = key.as_ref();
            let mut delete = |deletes: &mut PartitionDeletes| match deletes.inserted.remove(key) {
                Some(at) => deletes.deleted.push(at),
                None => by_equality.push(row),
            };
            match kinds.get(row as usize).copied() {
                Some(INSERT | UPDATE_AFTER) => {
                    if self.upsert {
                        delete(deletes);
                    }
                    if let Some(previous) = deletes.inserted.insert(key.into(), (file, position)) {
                        deletes.deleted.push(previous);
                    }
                    position += 1;
                }
                Some(UPDATE_BEFORE) => {
                    if !self.upsert {
                        delete(deletes);
                    }
                }
                Some(DELETE) => delete(deletes),
                other => {
                    return Err(Error::new(
                        ErrorKind::DataInvalid,
                        format!("row {row} has the row kind {other:?}, not a changelog kind"),
                    ));
                }
            }
        }
        if !by_equality.is_empty() {
            let runtime =
                runtime().map_err(|e| Error::new(ErrorKind::Unexpected, e.to_string()))?;
            let deleted =
                take_record_batch(batch, &UInt32Array::from(by_equality)).map_err(arrow_error)?;
            runtime.block_on(deletes.equality.write(deleted))?;
        }
        Ok(())
    }

    /// Closes the delete files of the partition `key`: its equality deletes and its position
    /// deletes, sorted by file and position.
    pub(crate) fn close(
        &self,
        mut deletes: PartitionDeletes,
        key: Option<PartitionKey>,
    ) -> Result<Vec<DataFile>> {
        let runtime = runtime().map_err(|e| Error::new(ErrorKind::Unexpected, e.to_string()))?;
        let mut files = runtime.block_on(deletes.equality.close())?;
        if deletes.deleted.is_empty() {
            return Ok(files);
        }
        let paths = &deletes.files;
        deletes.deleted.sort_unstable_by(|a, b| {
            paths[a.0 as usize]
                .cmp(&paths[b.0 as usize])
                .then(a.1.cmp(&b.1))
        });
        let file_paths: ArrayRef = Arc::new(StringArray::from_iter_values(
            deletes
                .deleted
                .iter()
                .map(|(f, _)| paths[*f as usize].as_str()),
        ));
        let positions = deletes
            .deleted
            .iter()
            .map(|(_, p)| i64::try_from(*p))
            .collect::<std::result::Result<Vec<i64>, _>>()
            .map_err(|e| Error::new(ErrorKind::DataInvalid, e.to_string()))?;
        let fields = self.position_arrow.fields();
        let batch = RecordBatch::try_new(
            Arc::clone(&self.position_arrow),
            vec![
                cast(&file_paths, fields[0].data_type()).map_err(arrow_error)?,
                Arc::new(Int64Array::from(positions)),
            ],
        )
        .map_err(arrow_error)?;
        let mut writer = self.positions.build();
        runtime.block_on(writer.write(&key, &batch))?;
        for mut builder in runtime.block_on(writer.close())? {
            builder.content(DataContentType::PositionDeletes);
            if let Some(key) = key.as_ref() {
                builder.partition(key.data().clone());
                builder.partition_spec_id(key.spec().spec_id());
            }
            files.push(builder.build().map_err(|e| {
                Error::new(ErrorKind::DataInvalid, format!("position delete file: {e}"))
            })?);
        }
        Ok(files)
    }
}

fn arrow_error(e: arrow::error::ArrowError) -> Error {
    Error::new(ErrorKind::DataInvalid, e.to_string())
}

#[cfg(test)]
mod tests {
    use arrow::array::{Array, AsArray, Int32Array, StringArray as Strings};
    use arrow::datatypes::Int64Type;
    use arrow::datatypes::{DataType, Field, Schema as ArrowSchema};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use serde_json::{Value, json};

    use super::*;
    use crate::writer::DataFilesWriter;

    fn description(dir: &std::path::Path, upsert: bool) -> String {
        json!({
            "schema": {"type": "struct", "schema-id": 0, "fields": [
                {"id": 1, "name": "k", "required": true, "type": "int"},
                {"id": 2, "name": "v", "required": false, "type": "string"}]},
            "spec": {"spec-id": 0, "fields": []},
            "data-location": dir.to_string_lossy(),
            "file-prefix": "test",
            "target-file-size": 1 << 30,
            "compression": "zstd",
            "equality-ids": [1],
            "upsert": upsert,
        })
        .to_string()
    }

    fn batch(keys: &[i32], values: &[&str]) -> RecordBatch {
        let schema = ArrowSchema::new(vec![
            Field::new("k", DataType::Int32, false),
            Field::new("v", DataType::Utf8, true),
        ]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(Int32Array::from(keys.to_vec())),
                Arc::new(Strings::from(values.to_vec())),
            ],
        )
        .expect("a batch of the test schema")
    }

    fn read(path: &str) -> RecordBatch {
        let file = std::fs::File::open(path).expect("a written file");
        let mut reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .and_then(|b| b.build())
            .expect("a Parquet file");
        reader.next().expect("a batch").expect("a readable batch")
    }

    fn files_of(json: &str, content: &str) -> Vec<Value> {
        let files: Vec<Value> = serde_json::from_str(json).expect("JSON of written files");
        files
            .into_iter()
            .filter(|f| f["content"] == content)
            .collect()
    }

    #[test]
    fn upserts_delete_rows_written_since_the_last_close_by_position_and_older_rows_by_key() {
        let dir = std::env::temp_dir().join(format!("streamfusion-delta-{}", std::process::id()));
        let mut writer = DataFilesWriter::open(&description(&dir, true), None)
            .expect("a writer of the description");
        writer
            .write_changes(
                &batch(&[1, 2, 1, 2], &["a", "b", "c", "b"]),
                &[INSERT, INSERT, UPDATE_AFTER, DELETE],
            )
            .expect("changes written");
        let json = writer.finish().expect("files closed");

        let data = files_of(&json, "data");
        assert_eq!(data.len(), 1);
        let data_path = data[0]["path"].as_str().expect("a path");
        let rows = read(data_path);
        assert_eq!(
            rows.num_rows(),
            3,
            "inserted rows, deleted or not, are written"
        );

        let positional = files_of(&json, "position-deletes");
        assert_eq!(positional.len(), 1);
        let deleted = read(positional[0]["path"].as_str().expect("a path"));
        let paths = cast(deleted.column(0), &DataType::Utf8).expect("paths");
        let paths = paths.as_string::<i32>();
        assert!(paths.iter().all(|p| p == Some(data_path)));
        let positions = deleted.column(1).as_primitive::<Int64Type>();
        assert_eq!(
            positions.values().to_vec(),
            vec![0, 1],
            "(1, a) replaced, (2, b) deleted"
        );
        assert!(
            positional[0]["lower-bounds"]
                .get(DELETE_FILE_PATH_ID.to_string())
                .is_none(),
            "no path bounds"
        );

        let equality = files_of(&json, "equality-deletes");
        assert_eq!(equality.len(), 1);
        assert_eq!(equality[0]["equality-ids"], json!([1]));
        let keys = read(equality[0]["path"].as_str().expect("a path"));
        assert_eq!(keys.num_columns(), 1, "only the equality fields");
        let keys = keys.column(0).as_primitive::<arrow::datatypes::Int32Type>();
        assert_eq!(
            keys.values().to_vec(),
            vec![1, 2],
            "each upserted key deleted from earlier commits once"
        );

        // After the close, the keys' rows are in earlier commits: deleted by key.
        writer
            .write_changes(&batch(&[1], &["d"]), &[DELETE])
            .expect("changes written");
        let json = writer.finish().expect("files closed");
        assert!(files_of(&json, "data").is_empty());
        assert!(files_of(&json, "position-deletes").is_empty());
        assert_eq!(files_of(&json, "equality-deletes").len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn changelogs_without_upsert_ignore_nothing_and_insert_without_deleting() {
        let dir =
            std::env::temp_dir().join(format!("streamfusion-delta-cl-{}", std::process::id()));
        let mut writer = DataFilesWriter::open(&description(&dir, false), None)
            .expect("a writer of the description");
        writer
            .write_changes(
                &batch(&[1, 1, 1, 3], &["a", "a", "b", "x"]),
                &[INSERT, UPDATE_BEFORE, UPDATE_AFTER, UPDATE_BEFORE],
            )
            .expect("changes written");
        let json = writer.finish().expect("files closed");
        let positional = files_of(&json, "position-deletes");
        assert_eq!(positional.len(), 1);
        let deleted = read(positional[0]["path"].as_str().expect("a path"));
        assert_eq!(
            deleted
                .column(1)
                .as_primitive::<Int64Type>()
                .values()
                .to_vec(),
            vec![0]
        );
        let equality = files_of(&json, "equality-deletes");
        assert_eq!(
            equality.len(),
            1,
            "the retraction of a row of an earlier commit"
        );
        let keys = read(equality[0]["path"].as_str().expect("a path"));
        assert_eq!(keys.column(0).len(), 1);
        assert!(
            writer.write_changes(&batch(&[1], &["a"]), &[7]).is_err(),
            "an unknown row kind is refused"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
