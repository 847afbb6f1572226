//! The native calc over a batch of 4,096 rows: expressions that can fail (a division) beside ones
//! that cannot, where Flink's code skips work (`CASE` branches, the right side of `OR`), and the
//! same calc with nothing that can fail.
#![allow(clippy::expect_used)] // a bench's fixed inputs

use std::hint::black_box;
use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use criterion::{Criterion, criterion_group, criterion_main};
use streamfusion_operators::calc::Calc;

const ROWS: i64 = 4096;

fn batch() -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("price", DataType::Int64, true),
        Field::new("qty", DataType::Int64, true),
        Field::new("channel", DataType::Utf8, true),
    ]));
    let channels = ["Google", "Facebook", "Baidu", "Apple"];
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(
                (0..ROWS).map(|i| 100 + i * 31 % 10_000),
            )),
            Arc::new(Int64Array::from_iter_values((0..ROWS).map(|i| i % 5))),
            Arc::new(StringArray::from_iter_values(
                (0..ROWS).map(|i| channels[(i % 4) as usize]),
            )),
        ],
    )
    .expect("a valid batch")
}

fn column(index: usize) -> String {
    format!(r#"{{"kind":"column","index":{index}}}"#)
}

fn call(op: &str, args: &[String]) -> String {
    format!(
        r#"{{"kind":"call","op":"{op}","args":[{}]}}"#,
        args.join(",")
    )
}

fn literal(value: i64) -> String {
    format!(r#"{{"kind":"literal","type":"BIGINT","value":"{value}"}}"#)
}

fn calc(divisor: &str) -> String {
    let (price, qty, channel) = (column(0), column(1), column(2));
    let divided = call(divisor, &[price.clone(), qty.clone()]);
    // CASE WHEN qty <> 0 THEN price / qty ELSE price * 2 + 1 END
    let case = call(
        "CASE",
        &[
            call("NOT_EQUALS", &[qty.clone(), literal(0)]),
            divided.clone(),
            call(
                "PLUS",
                &[call("TIMES", &[price.clone(), literal(2)]), literal(1)],
            ),
        ],
    );
    // qty = 0 OR price / qty > 100
    let filter = call(
        "OR",
        &[
            call("EQUALS", &[qty.clone(), literal(0)]),
            call("GREATER_THAN", &[divided, literal(100)]),
        ],
    );
    format!(
        r#"{{"filter":{filter},"projections":[{case},{price},{channel}],"names":["a","b","c"]}}"#
    )
}

fn bench(c: &mut Criterion) {
    let batch = batch();
    let mut group = c.benchmark_group("calc");
    group.throughput(criterion::Throughput::Elements(ROWS as u64));
    for (name, divisor) in [("division", "DIVIDE"), ("no_failing", "PLUS")] {
        let calc = Calc::try_new(&batch.schema(), &calc(divisor)).expect("a valid calc");
        group.bench_function(name, |b| {
            b.iter(|| black_box(calc.apply(black_box(&batch)).expect("applies")))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
