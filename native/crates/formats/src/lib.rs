//! Decoders and encoders between message bytes and Arrow record batches, with the options and
//! semantics of Flink's formats of the same names.
//!
//! Everything here is I/O-free and knows nothing of JNI or Flink's Java classes: a decoder is fed
//! one message at a time and flushed to a `RecordBatch`, so the same decoder serves Kafka, Fluss
//! and files, and tests need no broker.
//!
//! ```
//! use std::sync::Arc;
//! use arrow::datatypes::{DataType, Field, Schema};
//! use streamfusion_formats::json::JsonDecoder;
//! use streamfusion_formats::options::FormatOptions;
//!
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("id", DataType::Int64, true),
//!     Field::new("name", DataType::Utf8, true),
//! ]));
//! let mut decoder = JsonDecoder::try_new(schema, &FormatOptions::default()).unwrap();
//! decoder.decode(br#"{"id": 1, "name": "a", "unread": [1, 2]}"#).unwrap();
//! decoder.decode(br#"{"id": "2"}"#).unwrap();
//! let batch = decoder.flush().unwrap();
//! assert_eq!(batch.num_rows(), 2);
//! ```

pub mod avro;
mod base64_text;
pub mod builder;
pub mod csv;
pub mod decimal;
pub mod decoder;
pub mod encoder;
pub mod error;
pub mod java_utf8;
pub mod javatext;
pub mod json;
pub mod messages;
pub mod options;
pub mod protobuf;
pub mod raw;
pub mod registry;
pub mod temporal;

pub use decoder::Decoder;
pub use encoder::Encoder;
pub use error::{FormatError, Result};
pub use messages::{DecodedMessages, decode_messages};
pub use registry::{
    MessageSchema, create_decoder, create_decoder_with, create_encoder, create_encoder_with,
};
