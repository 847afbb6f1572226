//! The face every format's encoder shows: a batch of rows in, one message per row out.

use arrow::array::{BinaryArray, RecordBatch};
use arrow::datatypes::SchemaRef;

use crate::decoder::MessageSchema;
use crate::error::{FormatError, Result};
use crate::json::JsonEncoder;
use crate::options::FormatOptions;

/// The messages of one batch as they are written: bytes appended, one offset per message.
#[derive(Debug)]
pub struct MessageColumn {
    bytes: Vec<u8>,
    offsets: Vec<i32>,
}

impl MessageColumn {
    pub fn with_capacity(rows: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Self {
            bytes: Vec::with_capacity(rows * 64),
            offsets,
        }
    }

    /// Where the current message's bytes go.
    pub fn bytes(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// Ends the current message.
    pub fn end_message(&mut self) -> Result<()> {
        let end = i32::try_from(self.bytes.len()).map_err(|_| {
            FormatError::config("the encoded batch exceeds 2 GiB; lower the batch size")
        })?;
        self.offsets.push(end);
        Ok(())
    }

    /// The messages, NULL where `nulls` says (a format that writes no message for a NULL).
    pub fn finish(self, nulls: Option<arrow::buffer::NullBuffer>) -> Result<BinaryArray> {
        Ok(arrow::array::GenericByteArray::<
            arrow::datatypes::BinaryType,
        >::try_new(
            arrow::buffer::OffsetBuffer::new(arrow::buffer::ScalarBuffer::from(self.offsets)),
            self.bytes.into(),
            nulls,
        )?)
    }
}

/// An encoder from rows of a fixed schema to messages.
pub trait Encoder: Send + std::fmt::Debug {
    /// One message per row, in order; a NULL message where the format writes none (a raw NULL).
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray>;

    fn schema(&self) -> &SchemaRef;

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
    create_encoder_with(format, schema, options, MessageSchema::default())
}

/// [`create_encoder`] for formats whose message schema comes from outside the options.
pub fn create_encoder_with(
    format: &str,
    schema: SchemaRef,
    options: &FormatOptions,
    message_schema: MessageSchema<'_>,
) -> Result<Box<dyn Encoder>> {
    match format {
        "protobuf" => {
            let (descriptors, message) = message_schema.protobuf()?;
            Ok(Box::new(crate::protobuf::ProtobufEncoder::try_new(
                schema,
                descriptors,
                message,
                options,
            )?))
        }
        "json" => Ok(Box::new(JsonEncoder::try_new(schema, options)?)),
        "raw" => Ok(Box::new(crate::raw::RawEncoder::try_new(schema, options)?)),
        "avro-confluent" => Ok(Box::new(
            crate::avro_confluent::AvroConfluentEncoder::try_new(schema, options)?,
        )),
        "avro" => Ok(Box::new(crate::avro::AvroEncoder::try_new(
            schema, options,
        )?)),
        "csv" => Ok(Box::new(crate::csv::CsvEncoder::try_new(schema, options)?)),
        other => Err(FormatError::config(format!(
            "StreamFusion has no native encoder for format '{other}'"
        ))),
    }
}
