//! A table schema with every type the formats decode, nested, shared by the fuzz targets.
#![allow(dead_code)] // each target uses part of this module

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use streamfusion_formats::options::FormatOptions;
use streamfusion_formats::{Decoder, create_decoder};

/// `with_nanos` adds a TIMESTAMP_LTZ(9) column, which the Avro format rejects by default.
pub fn schema(with_maps: bool, with_nanos: bool) -> SchemaRef {
    let row = Fields::from(vec![
        Field::new("x", DataType::Int32, true),
        Field::new("y", DataType::Utf8, true),
        Field::new("z", DataType::Decimal128(10, 2), true),
    ]);
    let mut fields = vec![
        Field::new("b", DataType::Boolean, true),
        Field::new("t", DataType::Int8, true),
        Field::new("i", DataType::Int32, false),
        Field::new("l", DataType::Int64, true),
        Field::new("f", DataType::Float32, true),
        Field::new("d", DataType::Float64, true),
        Field::new("dec", DataType::Decimal128(38, 18), true),
        Field::new("s", DataType::Utf8, true),
        Field::new("bin", DataType::Binary, true),
        Field::new("dt", DataType::Date32, true),
        Field::new("tm", DataType::Time32(TimeUnit::Millisecond), true),
        Field::new("ts", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        Field::new(
            "a",
            DataType::List(Arc::new(Field::new("element", DataType::Int64, true))),
            true,
        ),
        Field::new("r", DataType::Struct(row), true),
    ];
    if with_maps {
        fields.push(Field::new("m", string_int_map(), true));
    }
    if with_nanos {
        fields.push(Field::new(
            "ts9",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            true,
        ));
    }
    Arc::new(Schema::new(fields))
}

/// MAP<STRING, INT>.
pub fn string_int_map() -> DataType {
    let entries = Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![
            Field::new("key", DataType::Utf8, false),
            Field::new("value", DataType::Int32, true),
        ])),
        false,
    );
    DataType::Map(Arc::new(entries), false)
}

/// Feeds `data` to a `format` decoder (see [`fuzz_with`]).
pub fn fuzz_decoder(format: &str, schema: SchemaRef, data: &[u8]) {
    if let Ok(decoder) = create_decoder(format, schema.clone(), schema, &FormatOptions::default()) {
        fuzz_with(decoder, data);
    }
}

/// Feeds `data` to `decoder`: the first half alone, then the whole input (a failed message must
/// leave the decoder clean for the next one); every batch that comes out must be valid Arrow.
/// Errors are fine, panics are not.
pub fn fuzz_with(mut decoder: Box<dyn Decoder>, data: &[u8]) {
    let _ = decoder.decode(Some(&data[..data.len() / 2]));
    let _ = decoder.decode(Some(data));
    if let Ok(batch) = decoder.flush() {
        for column in batch.columns() {
            column
                .to_data()
                .validate_full()
                .expect("decoded batch is valid Arrow");
        }
    }
}
