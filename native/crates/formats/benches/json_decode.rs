//! JSON decode throughput: the native decoder (all columns, and a 2-column projection) against
//! simd-json's bare parse of the same messages, the ceiling decode can approach; and the native
//! encoder over the decoded batch.
//!
//! `cargo bench -p streamfusion-formats --bench json_decode` (release profile).
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::sync::Arc;

use arrow::datatypes::Schema;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use streamfusion_formats::json::JsonDecoder;
use streamfusion_formats::options::FormatOptions;

mod shapes;

use shapes::{bid_messages, bid_schema, wide_messages, wide_schema};

fn bench_shape(
    c: &mut Criterion,
    name: &str,
    messages: &[Vec<u8>],
    schema: Schema,
    projected: &[usize],
) {
    let bytes: usize = messages.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group(format!("json_{name}"));
    group.throughput(Throughput::Elements(messages.len() as u64));

    group.bench_function("simd_json_parse", |b| {
        let mut buffers = simd_json::Buffers::default();
        let mut scratch = Vec::new();
        b.iter(|| {
            for m in messages {
                scratch.clear();
                scratch.extend_from_slice(m);
                let tape = simd_json::to_tape_with_buffers(&mut scratch, &mut buffers);
                black_box(tape.map(|t| t.0.len()).unwrap_or(0));
            }
        })
    });

    let schema = Arc::new(schema);
    let options = FormatOptions::default();
    group.bench_function("decode_all_columns", |b| {
        let mut decoder = JsonDecoder::try_new(schema.clone(), &options).unwrap();
        b.iter_batched(
            || (),
            |_| {
                for m in messages {
                    decoder.decode(m).unwrap();
                }
                black_box(decoder.flush().unwrap().num_rows())
            },
            BatchSize::SmallInput,
        )
    });

    let projection = Arc::new(schema.project(projected).unwrap());
    group.bench_function("decode_two_columns", |b| {
        let mut decoder = JsonDecoder::try_new(projection.clone(), &options).unwrap();
        b.iter(|| {
            for m in messages {
                decoder.decode(m).unwrap();
            }
            black_box(decoder.flush().unwrap().num_rows())
        })
    });
    group.bench_function("encode_all_columns", |b| {
        let mut decoder = JsonDecoder::try_new(schema.clone(), &options).unwrap();
        for m in messages {
            decoder.decode(m).unwrap();
        }
        let batch = decoder.flush().unwrap();
        let mut encoder =
            streamfusion_formats::json::JsonEncoder::try_new(schema.clone(), &options).unwrap();
        b.iter(|| black_box(arrow::array::Array::len(&encoder.encode(&batch).unwrap())))
    });
    group.finish();
    shapes::report(&format!("json_{name}"), messages.len(), bytes);
}

fn json(c: &mut Criterion) {
    bench_shape(c, "bid", &bid_messages(), bid_schema(), &[0, 2]);
    bench_shape(c, "wide", &wide_messages(), wide_schema(), &[0, 3]);
}

criterion_group!(benches, json);
criterion_main!(benches);
