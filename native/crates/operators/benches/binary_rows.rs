//! Rows in Flink's binary layout read back into Arrow (what a sink handed `BinaryRowData` does),
//! 4,096 rows per batch: narrow integer rows, rows of text, and rows of nested values. The rows
//! are written once by the binary rows writer; the bench times the read alone.
#![allow(clippy::expect_used)] // a bench's fixed inputs

use std::hint::black_box;
use std::sync::Arc;

use arrow::array::{
    ArrayRef, Int32Array, Int64Array, Int64Builder, ListBuilder, RecordBatch, StringArray,
    StringBuilder, StructArray,
};
use arrow::datatypes::{DataType, Field, Fields};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use streamfusion_operators::binary_rows::{BinaryRows, ColumnType, FlinkType};
use streamfusion_operators::binary_rows_to_arrow::BinaryRowsToArrow;

const ROWS: usize = 4096;

fn narrow() -> (RecordBatch, Vec<ColumnType>) {
    let n = ROWS as i64;
    let batch = RecordBatch::try_from_iter(vec![
        (
            "a",
            Arc::new(Int64Array::from_iter_values(0..n)) as ArrayRef,
        ),
        (
            "b",
            Arc::new(Int64Array::from_iter_values((0..n).map(|i| i * 7))),
        ),
        (
            "c",
            Arc::new(Int32Array::from_iter_values(
                (0..ROWS as i32).map(|i| i % 97),
            )),
        ),
        (
            "d",
            Arc::new(Int64Array::from_iter(
                (0..n).map(|i| (i % 5 != 0).then_some(i)),
            )),
        ),
    ])
    .expect("a valid batch");
    let types = [
        FlinkType::BigInt,
        FlinkType::BigInt,
        FlinkType::Int,
        FlinkType::BigInt,
    ];
    (batch, types.map(ColumnType::Flat).to_vec())
}

fn strings() -> (RecordBatch, Vec<ColumnType>) {
    let columns = (0..8)
        .map(|c| {
            let values = (0..ROWS).map(|r| format!("value {c} of row {r}, {}", "x".repeat(r % 24)));
            (
                format!("s{c}"),
                Arc::new(StringArray::from_iter_values(values)) as ArrayRef,
            )
        })
        .collect::<Vec<_>>();
    let batch = RecordBatch::try_from_iter(columns).expect("a valid batch");
    (batch, vec![ColumnType::Flat(FlinkType::Bytes); 8])
}

fn nested() -> (RecordBatch, Vec<ColumnType>) {
    let mut tags = ListBuilder::new(Int64Builder::new());
    let mut names = ListBuilder::new(StringBuilder::new());
    for r in 0..ROWS {
        for k in 0..r % 6 {
            tags.values().append_value((r * k) as i64);
            names.values().append_value(format!("name {k}"));
        }
        tags.append(true);
        names.append(r % 9 != 0);
    }
    let bid = StructArray::try_new(
        Fields::from(vec![
            Field::new("price", DataType::Int64, true),
            Field::new("channel", DataType::Utf8, true),
        ]),
        vec![
            Arc::new(Int64Array::from_iter_values(
                (0..ROWS as i64).map(|i| i * 3),
            )),
            Arc::new(StringArray::from_iter_values(
                (0..ROWS).map(|r| format!("channel {}", r % 50)),
            )),
        ],
        None,
    )
    .expect("a valid struct");
    let batch = RecordBatch::try_from_iter(vec![
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..ROWS as i64)) as ArrayRef,
        ),
        ("tags", Arc::new(tags.finish())),
        ("names", Arc::new(names.finish())),
        ("bid", Arc::new(bid)),
    ])
    .expect("a valid batch");
    let types = vec![
        ColumnType::Flat(FlinkType::BigInt),
        ColumnType::Array(Box::new(ColumnType::Flat(FlinkType::BigInt))),
        ColumnType::Array(Box::new(ColumnType::Flat(FlinkType::Bytes))),
        ColumnType::Row(vec![
            ColumnType::Flat(FlinkType::BigInt),
            ColumnType::Flat(FlinkType::Bytes),
        ]),
    ];
    (batch, types)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("binary_rows_to_arrow");
    group.throughput(Throughput::Elements(ROWS as u64));
    for (name, (batch, types)) in [
        ("narrow_ints", narrow()),
        ("strings", strings()),
        ("nested", nested()),
    ] {
        let out = BinaryRows::of_columns(batch.schema_ref(), &types)
            .expect("a writer")
            .write(&batch)
            .expect("rows");
        // The buffer starts with each row's start and the end of the last, as `i32`s.
        let starts = (0..=ROWS)
            .map(|r| i32::from_le_bytes(out[4 * r..4 * r + 4].try_into().expect("four bytes")))
            .collect::<Vec<_>>();
        let reader = BinaryRowsToArrow::try_new(batch.schema(), types).expect("a reader");
        assert_eq!(reader.read(&out, &starts).expect("a batch"), batch);
        group.bench_function(name, |b| {
            b.iter(|| black_box(reader.read(black_box(&out), &starts).expect("a batch")))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
