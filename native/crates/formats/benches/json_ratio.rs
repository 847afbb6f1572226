//! JSON decode as a fraction of simd-json's bare parse of the same messages, measured in
//! alternating rounds in one process so that the machine's drift weighs on both alike (the
//! Criterion bench `json_decode` runs them minutes apart).
//!
//! `cargo bench -p streamfusion-formats --bench json_ratio [-- <shape>]` (release profile).
//! Prints, per shape (`bid`, `wide`; both without an argument), the median rate of each over
//! the rounds and their ratio.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow::datatypes::Schema;
use streamfusion_formats::json::JsonDecoder;
use streamfusion_formats::options::FormatOptions;

mod shapes;

const ROUNDS: usize = 60;

fn parse(messages: &[Vec<u8>], buffers: &mut simd_json::Buffers, scratch: &mut Vec<u8>) {
    for m in messages {
        scratch.clear();
        scratch.extend_from_slice(m);
        let tape = simd_json::to_tape_with_buffers(scratch, buffers);
        black_box(tape.map(|t| t.0.len()).unwrap_or(0));
    }
}

fn decode(messages: &[Vec<u8>], decoder: &mut JsonDecoder) {
    for m in messages {
        decoder.decode(m).unwrap();
    }
    black_box(decoder.flush().unwrap().num_rows());
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn shape(name: &str, messages: &[Vec<u8>], schema: Schema, projected: &[usize]) {
    let schema = Arc::new(schema);
    let options = FormatOptions::default();
    let mut all = JsonDecoder::try_new(schema.clone(), &options).unwrap();
    let projection = Arc::new(schema.project(projected).unwrap());
    let mut two =
        JsonDecoder::try_new_projected(schema.clone(), projection.clone(), &options).unwrap();
    let mut buffers = simd_json::Buffers::default();
    let mut scratch = Vec::new();
    let mut times = [Vec::new(), Vec::new(), Vec::new()];
    for round in 0..ROUNDS + 5 {
        let started = Instant::now();
        parse(messages, &mut buffers, &mut scratch);
        let parsed = started.elapsed();
        let started = Instant::now();
        decode(messages, &mut all);
        let decoded = started.elapsed();
        let started = Instant::now();
        decode(messages, &mut two);
        let projected = started.elapsed();
        // The first rounds warm caches and the allocator.
        if round >= 5 {
            times[0].push(parsed);
            times[1].push(decoded);
            times[2].push(projected);
        }
    }
    let rate = |d: Duration| messages.len() as f64 / d.as_secs_f64() / 1e6;
    let [parse, decode, project] = times.map(|mut t| rate(median(&mut t)));
    println!(
        "json_{name}: bare parse {parse:.2} M/s, decode all columns {decode:.2} M/s ({:.0}% of the parse), 2 columns {project:.2} M/s ({:.0}%)",
        100.0 * decode / parse,
        100.0 * project / parse
    );
}

fn main() {
    // Cargo hands bench binaries `--bench`; any other argument names the shapes to run.
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    type Shape = (
        &'static str,
        fn() -> Vec<Vec<u8>>,
        fn() -> Schema,
        [usize; 2],
    );
    let shapes: [Shape; 2] = [
        ("bid", shapes::bid_messages, shapes::bid_schema, [0, 2]),
        ("wide", shapes::wide_messages, shapes::wide_schema, [0, 3]),
    ];
    for (name, messages, schema, projected) in shapes {
        if wanted.is_empty() || wanted.iter().any(|w| w == name) {
            shape(name, &messages(), schema(), &projected);
        }
    }
}
