//! Arbitrary bytes through the json decoder: an error or rows, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    common::fuzz_decoder("json", common::schema(true, true), data);
});
