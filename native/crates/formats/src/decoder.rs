//! The face every format's decoder shows: fed one message at a time, flushed to a batch.

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::error::{FormatError, Result};
use crate::json::JsonDecoder;
use crate::options::FormatOptions;

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

impl Decoder for JsonDecoder {
    fn decode(&mut self, message: Option<&[u8]>) -> Result<()> {
        // Flink's JSON format produces no row for a null message.
        JsonDecoder::decode(self, message.unwrap_or_default())
    }

    fn flush(&mut self) -> Result<RecordBatch> {
        JsonDecoder::flush(self)
    }

    fn pending_rows(&self) -> usize {
        JsonDecoder::rows(self)
    }

    fn skipped(&self) -> usize {
        JsonDecoder::skipped(self)
    }

    fn schema(&self) -> &SchemaRef {
        JsonDecoder::schema(self)
    }
}

/// What a format needs beyond its options to know its messages: for `protobuf`, the message's
/// `FileDescriptorSet` and full name (taken from the compiled message class).
#[derive(Debug, Clone, Copy, Default)]
pub struct MessageSchema<'a> {
    pub descriptors: Option<&'a [u8]>,
    pub message: Option<&'a str>,
}

impl<'a> MessageSchema<'a> {
    /// The descriptors and message name the protobuf format needs.
    pub(crate) fn protobuf(&self) -> Result<(&'a [u8], &'a str)> {
        match (self.descriptors, self.message) {
            (Some(descriptors), Some(message)) => Ok((descriptors, message)),
            _ => Err(FormatError::config(
                "the protobuf format needs the message's descriptors ('protobuf.message-class-name')",
            )),
        }
    }
}

/// The decoder of the format Flink calls `format` (`json`, ...) for messages of the table's
/// `physical` columns, producing the `produced` ones (the columns the query reads).
pub fn create_decoder(
    format: &str,
    physical: SchemaRef,
    produced: SchemaRef,
    options: &FormatOptions,
) -> Result<Box<dyn Decoder>> {
    create_decoder_with(
        format,
        physical,
        produced,
        options,
        MessageSchema::default(),
    )
}

/// [`create_decoder`] for formats whose message schema comes from outside the options.
pub fn create_decoder_with(
    format: &str,
    physical: SchemaRef,
    produced: SchemaRef,
    options: &FormatOptions,
    schema: MessageSchema<'_>,
) -> Result<Box<dyn Decoder>> {
    match format {
        "protobuf" => {
            let (descriptors, message) = schema.protobuf()?;
            Ok(Box::new(crate::protobuf::ProtobufDecoder::try_new(
                produced,
                descriptors,
                message,
                options,
            )?))
        }
        "json" => Ok(Box::new(JsonDecoder::try_new_projected(
            physical, produced, options,
        )?)),
        "raw" => Ok(Box::new(crate::raw::RawDecoder::try_new(
            produced, options,
        )?)),
        "csv" => Ok(Box::new(crate::csv::CsvDecoder::try_new(
            physical, produced, options,
        )?)),
        "avro" => Ok(Box::new(crate::avro::AvroDecoder::try_new(
            physical, produced, options,
        )?)),
        "avro-confluent" => Ok(Box::new(
            crate::avro_confluent::AvroConfluentDecoder::try_new(physical, produced, options)?,
        )),
        other => Err(FormatError::config(format!(
            "StreamFusion has no native decoder for format '{other}'"
        ))),
    }
}
