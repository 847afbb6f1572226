//! Arbitrary bytes through the csv decoder: an error or rows, never a panic, and every batch
//! that comes out is valid Arrow.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamfusion_formats::create_decoder;
use streamfusion_formats::options::FormatOptions;

mod common;

fuzz_target!(|data: &[u8]| {
    let schema = common::schema(false);
    let Ok(mut decoder) = create_decoder("csv", schema.clone(), schema, &FormatOptions::default())
    else {
        return;
    };
    // The first half alone, then the whole input: a failed message must leave the decoder
    // clean for the next one.
    let _ = decoder.decode(Some(&data[..data.len() / 2]));
    let _ = decoder.decode(Some(data));
    if let Ok(batch) = decoder.flush() {
        for column in batch.columns() {
            column.to_data().validate_full().expect("decoded batch is valid Arrow");
        }
    }
});
