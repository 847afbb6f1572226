//! The face every format's encoder shows: a batch of rows in, one message per row out.

use arrow::array::{BinaryArray, RecordBatch};
use arrow::datatypes::SchemaRef;

use crate::error::{FormatError, Result};

/// An encoder from rows of a fixed schema to messages.
pub trait Encoder: Send + std::fmt::Debug {
    /// One message per row, in order; a NULL message where the format writes none (a raw NULL).
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray>;

    fn schema(&self) -> &SchemaRef;

    /// Whether a text value whose bytes are not UTF-8 is written as Java reads it, as Flink's
    /// formats write `StringData.toString()`. Flink's `raw` in UTF-8 writes the value's bytes as
    /// they are, which Arrow text cannot hold: there such a value is refused instead.
    fn reads_invalid_text_as_java(&self) -> bool {
        true
    }

    /// The writer schema a registry must know before messages can name it (avro-confluent).
    fn writer_schema(&self) -> Option<&str> {
        None
    }

    /// The id a registry gave [`Encoder::writer_schema`].
    fn set_schema_id(&mut self, id: u32) -> Result<()> {
        Err(FormatError::config(format!(
            "this format does not name a writer schema (schema id {id})"
        )))
    }
}
