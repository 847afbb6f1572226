//! The face every format's encoder shows: a batch of rows in, one message per row out.

use arrow::array::{BinaryArray, RecordBatch};
use arrow::datatypes::SchemaRef;

use crate::error::{FormatError, Result};
use crate::json::JsonEncoder;
use crate::options::FormatOptions;

/// An encoder from rows of a fixed schema to messages.
pub trait Encoder: Send + std::fmt::Debug {
    /// One message per row, in order; a NULL message where the format writes none (a raw NULL).
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray>;

    fn schema(&self) -> &SchemaRef;
}

impl Encoder for JsonEncoder {
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray> {
        JsonEncoder::encode(self, batch)
    }

    fn schema(&self) -> &SchemaRef {
        JsonEncoder::schema(self)
    }
}

/// The encoder of the format Flink calls `format`, for rows of `schema`.
pub fn create_encoder(
    format: &str,
    schema: SchemaRef,
    options: &FormatOptions,
) -> Result<Box<dyn Encoder>> {
    match format {
        "json" => Ok(Box::new(JsonEncoder::try_new(schema, options)?)),
        "raw" => Ok(Box::new(crate::raw::RawEncoder::try_new(schema, options)?)),
        "avro" => Ok(Box::new(crate::avro::AvroEncoder::try_new(
            schema, options,
        )?)),
        "csv" => Ok(Box::new(crate::csv::CsvEncoder::try_new(schema, options)?)),
        other => Err(FormatError::config(format!(
            "StreamFusion has no native encoder for format '{other}'"
        ))),
    }
}
