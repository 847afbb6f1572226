//! The bench shapes, as JSON messages and their table schemas: a Nexmark bid (7 columns) and a
//! wide row (30 scalar columns).
#![allow(dead_code)] // each bench uses part of this module

use arrow::datatypes::{DataType, Field, Schema, TimeUnit};

pub const MESSAGES: usize = 4096;

pub fn bid_messages() -> Vec<Vec<u8>> {
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

pub fn wide_messages() -> Vec<Vec<u8>> {
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

pub fn bid_schema() -> Schema {
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

pub fn wide_schema() -> Schema {
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

/// Prints the size of a bench's messages, for turning rows/s into MB/s.
pub fn report(name: &str, messages: usize, bytes: usize) {
    println!(
        "{name}: {messages} messages, {bytes} bytes ({:.1} bytes/message)",
        bytes as f64 / messages as f64
    );
}
