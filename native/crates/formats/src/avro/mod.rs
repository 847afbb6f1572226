//! Flink's `avro` format: Avro binary datums (no container, no header) of the schema Flink
//! derives from the table (`AvroSchemaConverter`): nullable types are `["null", T]` unions,
//! TINYINT and SMALLINT are `int`, DECIMAL is `bytes` (big-endian two's complement, minimal
//! length), DATE `int` days, TIME(p <= 3) `int` milliseconds, MAP and MULTISET (string keys) Avro
//! maps, ROW a record. With the default `avro.timestamp_mapping.legacy = true`, TIMESTAMP(p <= 3)
//! is `timestamp-millis` and TIMESTAMP_LTZ is not supported; with `false`, TIMESTAMP is
//! `local-timestamp-millis`/`-micros` and TIMESTAMP_LTZ `timestamp-millis`/`-micros`.
//!
//! The datum is walked straight into Arrow columns; encoding writes the bytes Flink writes
//! (one block per array or map, as Avro's Java encoder does). Like Flink, timestamps are epoch
//! milliseconds whatever the declared unit (Flink writes `toEpochMilli()` into `-micros` types and
//! reads the long back as milliseconds). Map entries keep their order (Flink's writer goes through
//! a `HashMap`, so its byte order of map entries differs; the values read back equal).
//!
//! Files: [`table`] derives the Avro schema Flink derives from a table, [`reader`] reads binary
//! primitives as Avro Java's decoder does, [`schema`] parses writer schemas, [`resolve`] reads a
//! writer's datum into a table's columns, [`decode`] and [`encode`] are the format's decoder and
//! encoder, [`confluent`] is `avro-confluent` (Confluent's framing and registry schemas), [`file`]
//! reads object container files and single-object encoding.

pub mod confluent;
mod decode;
mod encode;
pub mod file;
mod reader;
mod resolve;
pub mod schema;
mod table;

pub use decode::AvroDecoder;
pub use encode::AvroEncoder;
pub use table::{AVRO_OPTION_KEYS, derived_schema_json};
