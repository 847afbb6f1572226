//! Decode and encode throughput of the csv, avro, json, protobuf and raw formats on the JSON bench's
//! Nexmark bid and wide rows: the rows are decoded once from JSON, written with each format's own
//! encoder, and the bench decodes those messages (all columns, and a two-column projection) and
//! encodes the rows again.
//!
//! Protobuf has no TIMESTAMP or DECIMAL: its rows carry timestamps as epoch milliseconds (BIGINT)
//! and decimals as DOUBLE, with a message type derived from the columns. Raw is one column: the
//! bid's `url`.
//!
//! `cargo bench -p streamfusion-formats --bench formats` (release profile).
#![allow(clippy::unwrap_used)]

mod shapes;

use std::hint::black_box;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use prost_reflect::prost::Message;
use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{
    DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet,
};
use streamfusion_formats::json::JsonDecoder;
use streamfusion_formats::options::FormatOptions;
use streamfusion_formats::{MessageSchema, create_decoder_with, create_encoder_with};

/// The rows of one shape, decoded from its JSON messages.
fn rows(messages: &[Vec<u8>], schema: Schema) -> RecordBatch {
    let mut decoder = JsonDecoder::try_new(Arc::new(schema), &FormatOptions::default()).unwrap();
    for m in messages {
        decoder.decode(m).unwrap();
    }
    decoder.flush().unwrap()
}

/// `batch` with TIMESTAMP as BIGINT and DECIMAL as DOUBLE, the types protobuf can carry.
fn protobuf_rows(batch: &RecordBatch) -> RecordBatch {
    let (fields, columns): (Vec<Field>, Vec<ArrayRef>) = batch
        .schema()
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(field, column)| {
            let to = match field.data_type() {
                DataType::Timestamp(..) => DataType::Int64,
                DataType::Decimal128(..) => DataType::Float64,
                other => other.clone(),
            };
            let cast = arrow::compute::cast(column, &to).unwrap();
            (Field::new(field.name(), to, true), cast)
        })
        .unzip();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

/// A proto3 message `bench.Row` with one field per column, numbered in column order.
fn protobuf_descriptors(schema: &Schema) -> Vec<u8> {
    let field = schema
        .fields()
        .iter()
        .zip(1..)
        .map(|(f, number)| FieldDescriptorProto {
            name: Some(f.name().clone()),
            number: Some(number),
            label: Some(Label::Optional as i32),
            r#type: Some(match f.data_type() {
                DataType::Int64 => Type::Int64,
                DataType::Int32 => Type::Int32,
                DataType::Float64 => Type::Double,
                DataType::Utf8 => Type::String,
                other => panic!("no protobuf type for {other}"),
            } as i32),
            json_name: Some(f.name().clone()),
            ..Default::default()
        })
        .collect();
    let file = FileDescriptorProto {
        name: Some("bench.proto".into()),
        package: Some("bench".into()),
        syntax: Some("proto3".into()),
        message_type: vec![DescriptorProto {
            name: Some("Row".into()),
            field,
            ..Default::default()
        }],
        ..Default::default()
    };
    FileDescriptorSet { file: vec![file] }.encode_to_vec()
}

fn bench_format(
    c: &mut Criterion,
    format: &str,
    name: &str,
    batch: &RecordBatch,
    projected: &[usize],
) {
    let schema: SchemaRef = batch.schema();
    let descriptors = (format == "protobuf").then(|| protobuf_descriptors(&schema));
    let message_schema = MessageSchema {
        descriptors: descriptors.as_deref(),
        message: descriptors.as_ref().map(|_| "bench.Row"),
    };
    let options = FormatOptions::default();
    let mut encoder =
        create_encoder_with(format, schema.clone(), &options, message_schema).unwrap();
    let messages = encoder.encode(batch).unwrap();
    let bytes = messages.value_data().len();

    let mut group = c.benchmark_group(format!("{format}_{name}"));
    group.throughput(Throughput::Elements(messages.len() as u64));
    let messages = &messages;
    let decode = |produced: SchemaRef| {
        let mut decoder =
            create_decoder_with(format, schema.clone(), produced, &options, message_schema)
                .unwrap();
        move |b: &mut criterion::Bencher<'_>| {
            b.iter(|| {
                for i in 0..messages.len() {
                    decoder.decode(Some(messages.value(i))).unwrap();
                }
                black_box(decoder.flush().unwrap().num_rows())
            })
        }
    };
    group.bench_function("decode_all_columns", decode(schema.clone()));
    group.bench_function(
        "decode_two_columns",
        decode(Arc::new(schema.project(projected).unwrap())),
    );
    group.bench_function("encode_all_columns", |b| {
        b.iter(|| black_box(encoder.encode(batch).unwrap().len()))
    });
    group.finish();
    shapes::report(&format!("{format}_{name}"), messages.len(), bytes);
}

fn formats(c: &mut Criterion) {
    let bid = rows(&shapes::bid_messages(), shapes::bid_schema());
    let wide = rows(&shapes::wide_messages(), shapes::wide_schema());
    for format in ["csv", "avro", "json"] {
        bench_format(c, format, "bid", &bid, &[0, 2]);
        bench_format(c, format, "wide", &wide, &[0, 3]);
    }
    bench_format(c, "protobuf", "bid", &protobuf_rows(&bid), &[0, 2]);
    bench_format(c, "protobuf", "wide", &protobuf_rows(&wide), &[0, 3]);
    let url = bid.project(&[4]).unwrap();
    bench_format(c, "raw", "bid_url", &url, &[0]);
}

criterion_group!(benches, formats);
criterion_main!(benches);
