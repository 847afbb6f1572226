//! Iceberg data files of StreamFusion, over iceberg-rust.
//!
//! Iceberg Java plans a scan (catalog, snapshots, manifests, which deletes apply to which data
//! file); each planned file task reaches this crate as a [`TaskDescription`] (JSON) and
//! [`TaskReader`] reads it into Arrow batches of a target schema with iceberg-rust: columns chosen
//! by field id (so renamed, reordered, added and dropped columns read as the table's current
//! schema says), promoted types widened, and position and equality deletes applied (equality
//! deletes by a set of the deleted keys, [`equality`]).
//!
//! [`DataFilesWriter`] writes Arrow batches of a table's columns as Parquet data files with the
//! table's field ids, one open file per partition, rolled at a target size, and describes each
//! file written (metrics, bounds, partition values) for Iceberg Java to commit.
//!
//! Local files are opened here; files elsewhere are read and written through the caller's
//! [`FileAccess`] (the table's Iceberg `FileIO`, in the JVM).

mod delta;
mod equality;
mod footer;
mod parquet_files;
mod predicate;
mod reader;
mod runtime;
mod storage;
mod task;
mod writer;

pub use reader::{IcebergReadError, TaskReader};
pub use storage::{FileAccess, FileSink, RangeRead};
pub use task::{DeleteDescription, TaskDescription};
pub use writer::{
    DELETE, DataFilesWriter, INSERT, IcebergWriteError, PartitionValues, UPDATE_AFTER,
    UPDATE_BEFORE, WriterDescription,
};
