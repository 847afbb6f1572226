//! Files this crate does not open itself (any location other than a local path), read and
//! written through the caller's [`FileAccess`]: in the JVM, the table's Iceberg `FileIO`, so every
//! scheme Iceberg Java reaches (`s3://`, `gs://`, `abfs://`, `hdfs://`, ...) works with its own
//! credentials and settings. iceberg-rust's readers and writers see it as a `Storage`; its
//! Parquet reader merges nearby ranges of a row group into one request.

use std::fmt::Debug;
use std::ops::Range;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use iceberg::io::{
    FileIO, FileIOBuilder, FileMetadata, FileRead, FileWrite, InputFile, LocalFsStorage,
    OutputFile, Storage, StorageConfig, StorageFactory,
};
use iceberg::{Error, ErrorKind};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Byte ranges of one open file.
pub trait RangeRead: Send + Sync + 'static {
    /// `length` bytes from `start`; an error names the file.
    fn read(&self, start: u64, length: usize) -> Result<Bytes, String>;
}

/// One file being written, from its start.
pub trait FileSink: Send + 'static {
    /// Appends `bytes`.
    fn write(&mut self, bytes: &[u8]) -> Result<(), String>;
    /// Completes the file; it exists (whole) once this returns.
    fn close(&mut self) -> Result<(), String>;
}

/// The files of a table, by their locations as the table's metadata writes them.
pub trait FileAccess: Send + Sync + Debug + 'static {
    /// The file at `path`, for range reads.
    fn open(&self, path: &str) -> Result<Box<dyn RangeRead>, String>;
    /// The length of the file at `path`, in bytes.
    fn length(&self, path: &str) -> Result<u64, String>;
    /// Whether a file is at `path`.
    fn exists(&self, path: &str) -> Result<bool, String>;
    /// A new file at `path` (an existing one is replaced).
    fn create(&self, path: &str) -> Result<Box<dyn FileSink>, String>;
    /// Deletes the file at `path`.
    fn delete(&self, path: &str) -> Result<(), String>;
}

/// Whether this crate opens `location` itself: a plain path or a `file:` URI.
pub(crate) fn is_local(location: &str) -> bool {
    match (location.find(':'), location.find('/')) {
        (Some(colon), slash) if slash.is_none_or(|s| colon < s) => {
            location[..colon].eq_ignore_ascii_case("file")
        }
        _ => true,
    }
}

/// The `FileIO` of iceberg-rust's readers and writers: local files opened here, and, when
/// `remote` is given, every other location through it.
pub(crate) fn file_io(remote: Option<Arc<dyn FileAccess>>) -> FileIO {
    match remote {
        None => FileIO::new_with_fs(),
        Some(access) => FileIOBuilder::new(Arc::new(CallerStorageFactory {
            storage: CallerStorage {
                local: LocalFsStorage::new(),
                access,
            },
        }))
        .build(),
    }
}

fn failed(path: &str, reason: String) -> Error {
    Error::new(ErrorKind::Unexpected, format!("{path}: {reason}"))
}

/// A `Storage` of local files and, for every other location, a [`FileAccess`]. It lives in one
/// process: it is never serialized (iceberg-rust asks storages to be, for plans it ships
/// elsewhere, which this crate does not do).
#[derive(Clone, Debug)]
struct CallerStorage {
    local: LocalFsStorage,
    access: Arc<dyn FileAccess>,
}

#[derive(Clone, Debug)]
struct CallerStorageFactory {
    storage: CallerStorage,
}

const NOT_SHIPPED: &str = "a storage of the caller's files stays in its process";

macro_rules! not_serialized {
    ($type:ty) => {
        impl Serialize for $type {
            fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom(NOT_SHIPPED))
            }
        }

        impl<'de> Deserialize<'de> for $type {
            fn deserialize<D: Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
                Err(serde::de::Error::custom(NOT_SHIPPED))
            }
        }
    };
}

not_serialized!(CallerStorage);
not_serialized!(CallerStorageFactory);

#[typetag::serde]
impl StorageFactory for CallerStorageFactory {
    fn build(&self, _config: &StorageConfig) -> iceberg::Result<Arc<dyn Storage>> {
        Ok(Arc::new(self.storage.clone()))
    }
}

struct Ranges {
    path: String,
    file: Box<dyn RangeRead>,
}

#[async_trait]
impl FileRead for Ranges {
    async fn read(&self, range: Range<u64>) -> iceberg::Result<Bytes> {
        let length = usize::try_from(range.end.saturating_sub(range.start))
            .map_err(|e| failed(&self.path, e.to_string()))?;
        self.file
            .read(range.start, length)
            .map_err(|e| failed(&self.path, e))
    }
}

struct Sink {
    path: String,
    file: Box<dyn FileSink>,
}

#[async_trait]
impl FileWrite for Sink {
    async fn write(&mut self, bytes: Bytes) -> iceberg::Result<()> {
        self.file.write(&bytes).map_err(|e| failed(&self.path, e))
    }

    async fn close(&mut self) -> iceberg::Result<()> {
        self.file.close().map_err(|e| failed(&self.path, e))
    }
}

#[async_trait]
#[typetag::serde]
impl Storage for CallerStorage {
    async fn exists(&self, path: &str) -> iceberg::Result<bool> {
        if is_local(path) {
            return self.local.exists(path).await;
        }
        self.access.exists(path).map_err(|e| failed(path, e))
    }

    async fn metadata(&self, path: &str) -> iceberg::Result<FileMetadata> {
        if is_local(path) {
            return self.local.metadata(path).await;
        }
        let size = self.access.length(path).map_err(|e| failed(path, e))?;
        Ok(FileMetadata { size })
    }

    async fn read(&self, path: &str) -> iceberg::Result<Bytes> {
        if is_local(path) {
            return self.local.read(path).await;
        }
        let size = self.access.length(path).map_err(|e| failed(path, e))?;
        let length = usize::try_from(size).map_err(|e| failed(path, e.to_string()))?;
        let file = self.access.open(path).map_err(|e| failed(path, e))?;
        file.read(0, length).map_err(|e| failed(path, e))
    }

    async fn reader(&self, path: &str) -> iceberg::Result<Box<dyn FileRead>> {
        if is_local(path) {
            return self.local.reader(path).await;
        }
        let file = self.access.open(path).map_err(|e| failed(path, e))?;
        Ok(Box::new(Ranges {
            path: path.to_string(),
            file,
        }))
    }

    async fn write(&self, path: &str, bytes: Bytes) -> iceberg::Result<()> {
        if is_local(path) {
            return self.local.write(path, bytes).await;
        }
        let mut file = self.writer(path).await?;
        file.write(bytes).await?;
        file.close().await
    }

    async fn writer(&self, path: &str) -> iceberg::Result<Box<dyn FileWrite>> {
        if is_local(path) {
            return self.local.writer(path).await;
        }
        let file = self.access.create(path).map_err(|e| failed(path, e))?;
        Ok(Box::new(Sink {
            path: path.to_string(),
            file,
        }))
    }

    async fn delete(&self, path: &str) -> iceberg::Result<()> {
        if is_local(path) {
            return self.local.delete(path).await;
        }
        self.access.delete(path).map_err(|e| failed(path, e))
    }

    async fn delete_prefix(&self, path: &str) -> iceberg::Result<()> {
        if is_local(path) {
            return self.local.delete_prefix(path).await;
        }
        Err(failed(
            path,
            "deleting by prefix is left to Iceberg Java".to_string(),
        ))
    }

    async fn delete_stream(&self, mut paths: BoxStream<'static, String>) -> iceberg::Result<()> {
        while let Some(path) = paths.next().await {
            self.delete(&path).await?;
        }
        Ok(())
    }

    fn new_input(&self, path: &str) -> iceberg::Result<InputFile> {
        Ok(InputFile::new(Arc::new(self.clone()), path.to_string()))
    }

    fn new_output(&self, path: &str) -> iceberg::Result<OutputFile> {
        Ok(OutputFile::new(Arc::new(self.clone()), path.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;

    use arrow::array::{Array, Int64Array, RecordBatch};
    use arrow::datatypes::{DataType, Field, Schema as ArrowSchema};
    use serde_json::{Value, json};

    use super::*;
    use crate::{DataFilesWriter, TaskDescription, TaskReader};

    /// Files in a map, as a caller's file system.
    #[derive(Debug, Default)]
    struct MapFiles {
        files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    }

    struct MapRead(Vec<u8>);

    struct MapWrite {
        path: String,
        bytes: Vec<u8>,
        files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    }

    impl RangeRead for MapRead {
        fn read(&self, start: u64, length: usize) -> Result<Bytes, String> {
            let start = usize::try_from(start).map_err(|e| e.to_string())?;
            self.0
                .get(start..start + length)
                .map(Bytes::copy_from_slice)
                .ok_or_else(|| "past the end".to_string())
        }
    }

    impl FileSink for MapWrite {
        fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
            self.bytes.extend_from_slice(bytes);
            Ok(())
        }

        fn close(&mut self) -> Result<(), String> {
            let mut files = self.files.lock().map_err(|e| e.to_string())?;
            files.insert(self.path.clone(), std::mem::take(&mut self.bytes));
            Ok(())
        }
    }

    impl MapFiles {
        fn get(&self, path: &str) -> Result<Vec<u8>, String> {
            let files = self.files.lock().map_err(|e| e.to_string())?;
            files
                .get(path)
                .cloned()
                .ok_or_else(|| format!("no file {path}"))
        }
    }

    impl FileAccess for MapFiles {
        fn open(&self, path: &str) -> Result<Box<dyn RangeRead>, String> {
            Ok(Box::new(MapRead(self.get(path)?)))
        }

        fn length(&self, path: &str) -> Result<u64, String> {
            Ok(self.get(path)?.len() as u64)
        }

        fn exists(&self, path: &str) -> Result<bool, String> {
            Ok(self.get(path).is_ok())
        }

        fn create(&self, path: &str) -> Result<Box<dyn FileSink>, String> {
            Ok(Box::new(MapWrite {
                path: path.to_string(),
                bytes: Vec::new(),
                files: Arc::clone(&self.files),
            }))
        }

        fn delete(&self, path: &str) -> Result<(), String> {
            let mut files = self.files.lock().map_err(|e| e.to_string())?;
            files
                .remove(path)
                .map(|_| ())
                .ok_or_else(|| format!("no file {path}"))
        }
    }

    const SCHEMA: &str = r#"{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":true,"type":"long"}]}"#;

    /// Writes ids `0..rows` under `location` through `remote`; the written file's description.
    fn write(location: &str, remote: &Arc<MapFiles>, rows: i64) -> Value {
        let description = json!({
            "schema": serde_json::from_str::<Value>(SCHEMA).unwrap_or_default(),
            "spec": {"spec-id": 0, "fields": []},
            "data-location": location,
            "file-prefix": "t",
            "target-file-size": 1 << 30,
            "compression": "zstd",
            "equality-ids": [],
            "upsert": false,
        });
        let remote: Arc<dyn FileAccess> = remote.clone();
        let mut writer = DataFilesWriter::open(&description.to_string(), Some(remote))
            .expect("a writer of the description");
        let schema = ArrowSchema::new(vec![Field::new("id", DataType::Int64, false)]);
        let batch = RecordBatch::try_new(
            Arc::new(schema),
            vec![Arc::new(Int64Array::from_iter_values(0..rows))],
        )
        .expect("a batch");
        writer.write(&batch).expect("written");
        let files: Vec<Value> =
            serde_json::from_str(&writer.finish().expect("closed")).expect("file descriptions");
        assert_eq!(files.len(), 1);
        files[0].clone()
    }

    fn read(file: &Value, remote: &Arc<MapFiles>) -> Vec<i64> {
        read_filtered(file, remote, Value::Null)
    }

    fn read_filtered(file: &Value, remote: &Arc<MapFiles>, filter: Value) -> Vec<i64> {
        let task = json!({
            "path": file["path"], "file-size": file["file-size"], "start": 0,
            "length": file["file-size"], "schema": serde_json::from_str::<Value>(SCHEMA).unwrap_or_default(),
            "projected-ids": [1], "case-sensitive": true, "filter": filter,
        });
        let task = TaskDescription::parse(&task.to_string()).expect("a task");
        let target = Arc::new(ArrowSchema::new(vec![Field::new(
            "id",
            DataType::Int64,
            false,
        )]));
        let remote: Arc<dyn FileAccess> = remote.clone();
        let mut reader = TaskReader::open(&task, target, 1000, Some(remote)).expect("a reader");
        let mut ids = Vec::new();
        while let Some(batch) = reader.next_batch().expect("a batch") {
            let column = batch
                .column(0)
                .as_any()
                .downcast_ref::<Int64Array>()
                .expect("ids");
            assert_eq!(column.null_count(), 0);
            ids.extend(column.values().iter().copied());
        }
        ids
    }

    #[test]
    fn files_elsewhere_are_written_and_read_through_the_callers_access() {
        let remote = Arc::new(MapFiles::default());
        let file = write("mem://warehouse/t/data", &remote, 2500);
        let path = file["path"].as_str().expect("a path").to_string();
        assert!(path.starts_with("mem://warehouse/t/data/"), "{path}");
        assert_eq!(
            remote.length(&path),
            Ok(file["file-size"].as_u64().unwrap_or(0))
        );
        assert_eq!(read(&file, &remote), (0..2500).collect::<Vec<_>>());
    }

    #[test]
    fn a_tasks_filter_drops_rows_in_the_reader() {
        let remote = Arc::new(MapFiles::default());
        let file = write("mem://warehouse/f/data", &remote, 2500);
        let filter = json!({"or": [
            {"id": 1, "op": "gt-eq", "value": 2490},
            {"and": [{"id": 1, "op": "lt", "value": 3}, {"not": {"id": 1, "op": "eq", "value": 1}}]},
        ]});
        let mut expected = vec![0, 2];
        expected.extend(2490..2500);
        assert_eq!(read_filtered(&file, &remote, filter), expected);
        // Nothing it cannot evaluate exactly narrows the rows.
        let unknown = json!({"or": [{"op": "unknown"}, {"id": 1, "op": "eq", "value": 7}]});
        assert_eq!(read_filtered(&file, &remote, unknown).len(), 2500);
    }

    #[test]
    fn local_files_are_opened_here_even_with_an_access() {
        let dir = std::env::temp_dir().join(format!("streamfusion-storage-{}", std::process::id()));
        let remote = Arc::new(MapFiles::default());
        let file = write(&dir.to_string_lossy(), &remote, 10);
        let path = file["path"].as_str().expect("a path");
        assert!(std::path::Path::new(path).exists(), "{path}");
        assert!(remote.files.lock().map(|f| f.is_empty()).unwrap_or(false));
        assert_eq!(read(&file, &remote), (0..10).collect::<Vec<_>>());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn local_locations_are_plain_paths_and_file_uris() {
        for local in [
            "/t/a.parquet",
            "file:/t/a",
            "file:///t/a",
            "FILE:/t",
            "dir/x",
        ] {
            assert!(is_local(local), "{local}");
        }
        for remote in [
            "s3://b/t/a",
            "memory://w/a",
            "hdfs://nn:8020/t",
            "gs:/b",
            "a:b/c",
        ] {
            assert!(!is_local(remote), "{remote}");
        }
    }
}
