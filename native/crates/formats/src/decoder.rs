//! The face every format's decoder shows: fed one message at a time, flushed to a batch.

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::error::{FormatError, Result};

/// A push decoder from messages to rows of a fixed schema.
pub trait Decoder: Send + std::fmt::Debug {
    /// Decodes one message (`None` for a null message, such as a Kafka tombstone) into zero or
    /// more rows. On error no part of the message is kept; the error's position is the
    /// message's index since the last flush.
    fn decode(&mut self, message: Option<&[u8]>) -> Result<()>;

    /// The rows decoded since the last flush, as one batch.
    fn flush(&mut self) -> Result<RecordBatch>;

    /// How many rows the next flush returns: with it a caller tells which rows each message
    /// gave (none when it was skipped).
    fn pending_rows(&self) -> usize;

    /// Messages skipped under the format's ignore-parse-errors option, since creation.
    fn skipped(&self) -> usize;

    fn schema(&self) -> &SchemaRef;

    /// Hands the decoder the writer schema (a registry's text) of a schema id; only formats
    /// whose messages name their writer schema accept it.
    fn add_writer_schema(&mut self, id: u32, _schema: &str) -> Result<()> {
        Err(FormatError::config(format!(
            "this format does not take writer schemas (schema id {id})"
        )))
    }
}
