//! Decoders and encoders built by the names Flink gives formats (`json`, `csv`, `raw`, `avro`,
//! `avro-confluent`, `protobuf`).

use arrow::datatypes::SchemaRef;

use crate::avro::confluent::{AvroConfluentDecoder, AvroConfluentEncoder};
use crate::avro::{AvroDecoder, AvroEncoder};
use crate::csv::{CsvDecoder, CsvEncoder};
use crate::decoder::Decoder;
use crate::encoder::Encoder;
use crate::error::{FormatError, Result};
use crate::json::{JsonDecoder, JsonEncoder};
use crate::options::FormatOptions;
use crate::protobuf::{ProtobufDecoder, ProtobufEncoder};
use crate::raw::{RawDecoder, RawEncoder};

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
            Ok(Box::new(ProtobufDecoder::try_new(
                produced,
                descriptors,
                message,
                options,
            )?))
        }
        "json" => Ok(Box::new(JsonDecoder::try_new_projected(
            physical, produced, options,
        )?)),
        "raw" => Ok(Box::new(RawDecoder::try_new(produced, options)?)),
        "csv" => Ok(Box::new(CsvDecoder::try_new(physical, produced, options)?)),
        "avro" => Ok(Box::new(AvroDecoder::try_new(physical, produced, options)?)),
        "avro-confluent" => Ok(Box::new(AvroConfluentDecoder::try_new(
            physical, produced, options,
        )?)),
        other => Err(FormatError::config(format!(
            "StreamFusion has no native decoder for format '{other}'"
        ))),
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
            Ok(Box::new(ProtobufEncoder::try_new(
                schema,
                descriptors,
                message,
                options,
            )?))
        }
        "json" => Ok(Box::new(JsonEncoder::try_new(schema, options)?)),
        "raw" => Ok(Box::new(RawEncoder::try_new(schema, options)?)),
        "avro-confluent" => Ok(Box::new(AvroConfluentEncoder::try_new(schema, options)?)),
        "avro" => Ok(Box::new(AvroEncoder::try_new(schema, options)?)),
        "csv" => Ok(Box::new(CsvEncoder::try_new(schema, options)?)),
        other => Err(FormatError::config(format!(
            "StreamFusion has no native encoder for format '{other}'"
        ))),
    }
}
