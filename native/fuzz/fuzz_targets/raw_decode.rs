//! Arbitrary bytes through the raw decoder for every column type and charset.
#![no_main]

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema};
use libfuzzer_sys::fuzz_target;
use streamfusion_formats::create_decoder;
use streamfusion_formats::options::FormatOptions;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, message)) = data.split_first() else {
        return;
    };
    let types = [
        DataType::Boolean,
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::Float32,
        DataType::Float64,
        DataType::Utf8,
        DataType::Binary,
    ];
    let charsets = [
        "UTF-8",
        "US-ASCII",
        "ISO-8859-1",
        "UTF-16",
        "UTF-16LE",
        "UTF-16BE",
    ];
    let data_type = types[usize::from(selector) % types.len()].clone();
    let charset = charsets[usize::from(selector / 16) % charsets.len()];
    let schema = Arc::new(Schema::new(vec![Field::new("v", data_type, true)]));
    let options = FormatOptions::new("raw", [("charset".to_string(), charset.to_string())]);
    let Ok(mut decoder) = create_decoder("raw", schema.clone(), schema, &options) else {
        return;
    };
    let _ = decoder.decode(Some(message));
    let _ = decoder.decode(None);
    if let Ok(batch) = decoder.flush() {
        batch
            .column(0)
            .to_data()
            .validate_full()
            .expect("decoded batch is valid Arrow");
    }
});
