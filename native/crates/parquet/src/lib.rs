//! Parquet files of StreamFusion, over parquet-rs.
//!
//! [`RowGroupReader`] reads some row groups of one local file into Arrow batches of a target
//! schema (the table's columns, as the bridge maps Flink types to Arrow): only the columns the
//! target names are decoded, matched by name; a column the file lacks reads as NULLs; a column
//! whose file type converts to the target type is converted, and one that does not fails naming
//! the file and the column.
//!
//! [`ParquetFileWriter`] encodes Arrow batches into a Parquet file whose bytes the caller drains
//! into its own output stream, with writer settings under the names Flink's `parquet` format uses.

mod chunks;
mod dictionary;
mod encode;
mod prune;
mod reader;
mod thrift;
mod writer;

pub use dictionary::{FirstRows, dictionaries_that_pay, first_pages_held};
pub use encode::ENCODER_THREADS;
pub use prune::{ColumnPredicate, Op, Value};
pub use reader::{
    FileBytes, ParquetFileError, RowGroupReader, conform_column, file_schema_in,
    row_groups_matching, row_groups_matching_in,
};
pub use writer::{ParquetFileWriter, WriteError, WriterOptionError, WriterSettings, owned};
