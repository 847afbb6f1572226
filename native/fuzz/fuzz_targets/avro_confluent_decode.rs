//! Arbitrary datums through the avro-confluent decoder: the first input byte picks the schema id
//! in the Confluent header (0: unknown, 1: the schema Flink derives from the table, 2: a smaller
//! writer schema that needs resolution), the rest is the datum. An error or rows, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamfusion_formats::options::FormatOptions;
use streamfusion_formats::{create_decoder, create_encoder};

mod common;

/// A writer schema with one of the table's fields, an extra one and a different order.
const SMALLER: &str = r#"{"type": "record", "name": "w", "fields": [
    {"name": "extra", "type": ["null", "string"], "default": null},
    {"name": "i", "type": "int"}]}"#;

fuzz_target!(|data: &[u8]| {
    let Some((&first, datum)) = data.split_first() else {
        return;
    };
    let schema = common::schema(true, false);
    let options = FormatOptions::new(
        "avro-confluent",
        [("url".to_string(), "http://registry.invalid".to_string())],
    );
    let derived = create_encoder("avro-confluent", schema.clone(), &options)
        .expect("the fuzz table derives an Avro schema");
    let Ok(mut decoder) = create_decoder("avro-confluent", schema.clone(), schema, &options) else {
        return;
    };
    decoder
        .add_writer_schema(1, derived.writer_schema().expect("a derived writer schema"))
        .expect("the derived schema reads into the table");
    decoder
        .add_writer_schema(2, SMALLER)
        .expect("the smaller schema reads into the table");
    let mut message = vec![0, 0, 0, 0, first % 3];
    message.extend_from_slice(datum);
    common::fuzz_with(decoder, &message);
});
