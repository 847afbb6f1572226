//! Flink's `json` format: [`JsonDecoder`] (simd-json's tape walked straight into Arrow columns),
//! [`JsonEncoder`] (rows to the bytes Flink writes) and their options.
//!
//! Decoding follows Flink 2.2's default JSON deserializer (the JsonParser-based one) value by
//! value; messages that deserializer reads some other way are errors, listed on [`JsonDecoder`].

mod decoder;
mod encoder;
mod options;

pub use decoder::JsonDecoder;
pub(crate) use decoder::write_json_string;
pub use encoder::JsonEncoder;
pub use options::{JsonDecodeOptions, JsonEncodeOptions, MapNullKeyMode};
