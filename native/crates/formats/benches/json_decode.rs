//! JSON decode throughput: the native decoder (all columns, and a 2-column projection) against
//! simd-json's bare parse of the same messages, the ceiling decode can approach; and the native
//! encoder over the decoded batch.
//!
//! `cargo bench -p streamfusion-formats --bench json_decode` (release profile).
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use streamfusion_formats::json::JsonDecoder;
use streamfusion_formats::options::FormatOptions;

const MESSAGES: usize = 4096;

fn bid_messages() -> Vec<Vec<u8>> {
    let channels = ["Google", "Facebook", "Baidu", "Apple"];
    (0..MESSAGES)
        .map(|i| {
            let channel = channels[i % 4];
            format!(
                r#"{{"auction":{},"bidder":{},"price":{},"channel":"{channel}","url":"https://www.nexmark.com/{}/item.htm?query=1&channel_id={}","date_time":"2023-11-14 22:13:{:02}.{:03}","extra":""}}"#,
                1000 + i * 7 % 100_000,
                1000 + i * 13 % 1_000_000,
                100 + i * 31 % 10_000_000,
                channel.to_lowercase(),
                i * 977 % (1 << 20),
                i % 60,
                i % 1000
            )
            .into_bytes()
        })
        .collect()
}

fn wide_messages() -> Vec<Vec<u8>> {
    (0..MESSAGES)
        .map(|i| {
            let mut s = String::from("{");
            for c in 0..5 {
                if c > 0 {
                    s.push(',');
                }
                s.push_str(&format!(
                    r#""id{c}":{},"n{c}":{},"x{c}":{}.25,"s{c}":"value-{i}-{c}-abcdefgh","t{c}":"2023-11-14 22:13:20.{:03}","d{c}":{}.5"#,
                    i * 1_000_003 + c,
                    i as i64 - 2000,
                    i * 3,
                    i % 1000,
                    i * 17
                ));
            }
            s.push('}');
            s.into_bytes()
        })
        .collect()
}

fn bid_schema() -> Schema {
    Schema::new(vec![
        Field::new("auction", DataType::Int64, true),
        Field::new("bidder", DataType::Int64, true),
        Field::new("price", DataType::Int64, true),
        Field::new("channel", DataType::Utf8, true),
        Field::new("url", DataType::Utf8, true),
        Field::new(
            "date_time",
            DataType::Timestamp(TimeUnit::Millisecond, None),
            true,
        ),
        Field::new("extra", DataType::Utf8, true),
    ])
}

fn wide_schema() -> Schema {
    let mut fields = Vec::new();
    for c in 0..5 {
        fields.push(Field::new(format!("id{c}"), DataType::Int64, true));
        fields.push(Field::new(format!("n{c}"), DataType::Int32, true));
        fields.push(Field::new(format!("x{c}"), DataType::Float64, true));
        fields.push(Field::new(format!("s{c}"), DataType::Utf8, true));
        fields.push(Field::new(
            format!("t{c}"),
            DataType::Timestamp(TimeUnit::Millisecond, None),
            true,
        ));
        fields.push(Field::new(
            format!("d{c}"),
            DataType::Decimal128(18, 4),
            true,
        ));
    }
    Schema::new(fields)
}

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
    println!(
        "json_{name}: {} messages, {bytes} bytes ({:.1} bytes/message)",
        messages.len(),
        bytes as f64 / messages.len() as f64
    );
}

fn json(c: &mut Criterion) {
    bench_shape(c, "bid", &bid_messages(), bid_schema(), &[0, 2]);
    bench_shape(c, "wide", &wide_messages(), wide_schema(), &[0, 3]);
}

criterion_group!(benches, json);
criterion_main!(benches);
