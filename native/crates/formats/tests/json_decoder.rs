//! JSON decoder behaviour on hand-written messages: types, projection, bad input.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use arrow::array::{
    Array, AsArray, BooleanArray, Decimal128Array, Float32Array, Float64Array, Int8Array,
    Int32Array, Int64Array, ListArray, MapArray, StringArray, StructArray,
    TimestampMillisecondArray, TimestampNanosecondArray,
};
use arrow::datatypes::{DataType, Field, Fields, Schema, TimeUnit};
use streamfusion_formats::FormatError;
use streamfusion_formats::json::JsonDecoder;
use streamfusion_formats::options::FormatOptions;

fn decoder(fields: Vec<Field>, options: &[(&str, &str)]) -> JsonDecoder {
    let options = FormatOptions::new(
        "json",
        options.iter().map(|(k, v)| (k.to_string(), v.to_string())),
    );
    JsonDecoder::try_new(Arc::new(Schema::new(fields)), &options).unwrap()
}

fn f(name: &str, data_type: DataType) -> Field {
    Field::new(name, data_type, true)
}

#[test]
fn numbers_follow_flink_conversions() {
    let mut d = decoder(
        vec![
            f("i", DataType::Int32),
            f("b", DataType::Int64),
            f("t", DataType::Int8),
            f("x", DataType::Float64),
            f("y", DataType::Float32),
            f("flag", DataType::Boolean),
        ],
        &[],
    );
    d.decode(br#"{"i": 1.9, "b": "12", "t": -128, "x": "NaN", "y": 16777217, "flag": "TRUE"}"#)
        .unwrap();
    d.decode(br#"{"i": "-7", "b": 1e18, "t": "12", "x": "-Infinity", "y": "2.5f", "flag": 1}"#)
        .unwrap();
    let batch = d.flush().unwrap();
    let i = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    assert_eq!(i.values().as_ref(), &[1, -7]);
    let b = batch
        .column(1)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    assert_eq!(b.values().as_ref(), &[12, 1_000_000_000_000_000_000]);
    let t = batch
        .column(2)
        .as_any()
        .downcast_ref::<Int8Array>()
        .unwrap();
    assert_eq!(t.values().as_ref(), &[-128, 12]);
    let x = batch
        .column(3)
        .as_any()
        .downcast_ref::<Float64Array>()
        .unwrap();
    assert!(x.value(0).is_nan());
    assert_eq!(x.value(1), f64::NEG_INFINITY);
    let y = batch
        .column(4)
        .as_any()
        .downcast_ref::<Float32Array>()
        .unwrap();
    assert_eq!(y.values().as_ref(), &[16_777_216.0, 2.5]);
    let flag = batch
        .column(5)
        .as_any()
        .downcast_ref::<BooleanArray>()
        .unwrap();
    assert!(flag.value(0));
    assert!(!flag.value(1));
}

#[test]
fn small_ints_reject_fractions_and_out_of_range() {
    let mut d = decoder(vec![f("t", DataType::Int8)], &[]);
    for bad in [&br#"{"t": 1.5}"#[..], br#"{"t": 128}"#, br#"{"t": "x"}"#] {
        let err = d.decode(bad).unwrap_err();
        assert!(
            err.to_string().contains("Fail to deserialize at field: t"),
            "{err}"
        );
    }
    assert_eq!(d.flush().unwrap().num_rows(), 0);
}

#[test]
fn decimals_are_exact_round_half_up_and_null_on_overflow() {
    let mut d = decoder(
        vec![
            f("d", DataType::Decimal128(38, 18)),
            f("s", DataType::Decimal128(5, 2)),
        ],
        &[],
    );
    d.decode(br#"{"d": 99999999999999999999.999999999999999999, "s": 1.235}"#)
        .unwrap();
    d.decode(br#"{"d": "-0.000000000000000001", "s": 1234.5}"#)
        .unwrap();
    let batch = d.flush().unwrap();
    let dec = batch
        .column(0)
        .as_any()
        .downcast_ref::<Decimal128Array>()
        .unwrap();
    assert_eq!(
        dec.value(0),
        99_999_999_999_999_999_999_999_999_999_999_999_999
    );
    assert_eq!(dec.value(1), -1);
    let small = batch
        .column(1)
        .as_any()
        .downcast_ref::<Decimal128Array>()
        .unwrap();
    assert_eq!(small.value(0), 124);
    assert!(
        small.is_null(1),
        "a value wider than DECIMAL(5,2) is NULL, as in Flink"
    );
}

#[test]
fn strings_keep_number_text_and_serialize_containers() {
    let mut d = decoder(vec![f("s", DataType::Utf8)], &[]);
    d.decode(br#"{"s": 12.50}"#).unwrap();
    d.decode(br#"{"s": {"a": [1, 1.0e1, "x\n"], "b": null}}"#)
        .unwrap();
    d.decode(br#"{"s": "caf\u00e9 \ud83d\ude80"}"#).unwrap();
    d.decode(br#"{"s": true}"#).unwrap();
    let batch = d.flush().unwrap();
    let s = batch
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(s.value(0), "12.50");
    assert_eq!(s.value(1), r#"{"a":[1,10.0,"x\n"],"b":null}"#);
    assert_eq!(s.value(2), "caf\u{e9} \u{1F680}");
    assert_eq!(s.value(3), "true");
}

#[test]
fn projection_skips_unread_fields_of_any_shape() {
    let mut d = decoder(vec![f("b", DataType::Int64)], &[]);
    d.decode(br#"{"a": {"x": [1, {"y": "z"}]}, "b": 2, "c": [[], {}], "d": "x"}"#)
        .unwrap();
    let batch = d.flush().unwrap();
    assert_eq!(batch.num_columns(), 1);
    let b = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    assert_eq!(b.value(0), 2);
}

#[test]
fn nested_rows_arrays_and_maps() {
    let inner = Fields::from(vec![f("x", DataType::Int32), f("y", DataType::Utf8)]);
    let entries = Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![
            Field::new("key", DataType::Utf8, false),
            f("value", DataType::Int32),
        ])),
        false,
    );
    let mut d = decoder(
        vec![
            f("r", DataType::Struct(inner)),
            f("a", DataType::List(Arc::new(f("element", DataType::Int32)))),
            f("m", DataType::Map(Arc::new(entries), false)),
        ],
        &[],
    );
    d.decode(br#"{"r": {"y": "s", "x": 1}, "a": [1, null, 3], "m": {"k": 1, "j": null, "k": 2}}"#)
        .unwrap();
    d.decode(br#"{"r": null, "a": [], "m": {}}"#).unwrap();
    d.decode(br#"{}"#).unwrap();
    let batch = d.flush().unwrap();
    assert_eq!(batch.num_rows(), 3);

    let r = batch
        .column(0)
        .as_any()
        .downcast_ref::<StructArray>()
        .unwrap();
    assert_eq!(
        r.column(0)
            .as_primitive::<arrow::datatypes::Int32Type>()
            .value(0),
        1
    );
    assert_eq!(r.column(1).as_string::<i32>().value(0), "s");
    assert!(r.is_null(1));
    assert!(r.is_null(2));

    let a = batch
        .column(1)
        .as_any()
        .downcast_ref::<ListArray>()
        .unwrap();
    assert_eq!(a.value_length(0), 3);
    assert!(a.value(0).is_null(1));
    assert_eq!(a.value_length(1), 0);
    assert!(a.is_null(2));

    let m = batch.column(2).as_any().downcast_ref::<MapArray>().unwrap();
    assert_eq!(m.value_length(0), 2, "a repeated key keeps one entry");
    let keys = m.keys().as_string::<i32>();
    let values = m.values().as_primitive::<arrow::datatypes::Int32Type>();
    assert_eq!((keys.value(0), values.value(0)), ("k", 2));
    assert_eq!(keys.value(1), "j");
    assert!(values.is_null(1));
}

#[test]
fn timestamps_in_both_standards() {
    let fields = vec![
        f("ts", DataType::Timestamp(TimeUnit::Millisecond, None)),
        f(
            "ns",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
        ),
    ];
    let mut sql = decoder(fields.clone(), &[]);
    sql.decode(br#"{"ts": "1969-12-31 23:59:59.999", "ns": "2020-01-02 03:04:05.123456789Z"}"#)
        .unwrap();
    let batch = sql.flush().unwrap();
    let ts = batch
        .column(0)
        .as_any()
        .downcast_ref::<TimestampMillisecondArray>()
        .unwrap();
    assert_eq!(ts.value(0), -1);
    let ns = batch
        .column(1)
        .as_any()
        .downcast_ref::<TimestampNanosecondArray>()
        .unwrap();
    assert_eq!(ns.value(0), 1_577_934_245_123_456_789);

    let mut iso = decoder(fields, &[("timestamp-format.standard", "ISO-8601")]);
    iso.decode(br#"{"ts": "1970-01-01T00:00:01", "ns": "1970-01-01T00:00:00.5Z"}"#)
        .unwrap();
    assert!(iso.decode(br#"{"ts": "1970-01-01 00:00:01"}"#).is_err());
    let batch = iso.flush().unwrap();
    assert_eq!(batch.num_rows(), 1);
}

#[test]
fn a_failed_message_leaves_no_partial_row() {
    let mut d = decoder(
        vec![
            f("a", DataType::Int64),
            f("b", DataType::List(Arc::new(f("e", DataType::Int32)))),
        ],
        &[],
    );
    d.decode(br#"{"a": 1, "b": [1]}"#).unwrap();
    let err = d.decode(br#"{"a": 2, "b": [2, "x"]}"#).unwrap_err();
    match err {
        FormatError::Decode { position, reason } => {
            assert_eq!(position, 1);
            assert!(
                reason.contains("Fail to deserialize at field: b"),
                "{reason}"
            );
            assert!(reason.contains(r#"{"a": 2"#), "{reason}");
        }
        other => panic!("unexpected {other:?}"),
    }
    d.decode(br#"{"a": 3, "b": [3]}"#).unwrap();
    let batch = d.flush().unwrap();
    assert_eq!(batch.num_rows(), 2);
    let b = batch
        .column(1)
        .as_any()
        .downcast_ref::<ListArray>()
        .unwrap();
    assert_eq!(
        b.value(1)
            .as_primitive::<arrow::datatypes::Int32Type>()
            .value(0),
        3
    );
    assert_eq!(b.values().len(), 2);
}

#[test]
fn ignore_parse_errors_skips_and_counts() {
    let mut d = decoder(
        vec![f("a", DataType::Int64)],
        &[("ignore-parse-errors", "true")],
    );
    for message in [
        &br#"{"a": 1}"#[..],
        br#"{"a": "x"}"#,
        br#"{"a":"#,
        br#"[1]"#,
        b"\xff\xfe",
        br#"{"a": 2}"#,
    ] {
        d.decode(message).unwrap();
    }
    assert_eq!(d.skipped(), 4);
    assert_eq!(d.flush().unwrap().num_rows(), 2);
}

#[test]
fn malformed_input_is_an_error_never_a_panic() {
    let mut d = decoder(vec![f("a", DataType::Utf8)], &[]);
    let deep = "[".repeat(5000) + &"]".repeat(5000);
    let cases: Vec<&[u8]> = vec![
        b"{",
        b"{\"a\": }",
        b"nul",
        b"123",
        b"\"str\"",
        b"{\"a\": \"\xff\"}",
        b"   ",
        deep.as_bytes(),
    ];
    for case in cases {
        assert!(
            d.decode(case).is_err(),
            "{:?}",
            String::from_utf8_lossy(case)
        );
    }
    d.decode(b"").unwrap();
    assert_eq!(d.flush().unwrap().num_rows(), 0);
}

#[test]
fn missing_fields_are_null_or_an_error_when_asked() {
    let mut lenient = decoder(vec![f("a", DataType::Int64), f("b", DataType::Int64)], &[]);
    lenient.decode(br#"{"a": 1}"#).unwrap();
    assert!(lenient.flush().unwrap().column(1).is_null(0));

    let mut strict = decoder(
        vec![f("a", DataType::Int64), f("b", DataType::Int64)],
        &[("fail-on-missing-field", "true")],
    );
    let err = strict.decode(br#"{"a": 1}"#).unwrap_err();
    assert!(err.to_string().contains("Some field is missing"), "{err}");
}

/// A NULL (written or missing) where the table says NOT NULL is the message's error, naming the
/// column by its path; where a nullable parent is NULL its NOT NULL fields hold nothing to check.
#[test]
fn a_null_for_a_not_null_column_is_the_messages_error() {
    let required = |name: &str, data_type: DataType| Field::new(name, data_type, false);
    let row = DataType::Struct(Fields::from(vec![
        required("x", DataType::Int32),
        f("y", DataType::Utf8),
    ]));
    let mut d = decoder(
        vec![
            required("id", DataType::Int64),
            f("r", row),
            f(
                "l",
                DataType::List(Arc::new(required("element", DataType::Int32))),
            ),
            f(
                "m",
                DataType::Map(
                    Arc::new(Field::new(
                        "entries",
                        DataType::Struct(Fields::from(vec![
                            required("key", DataType::Utf8),
                            required("value", DataType::Int64),
                        ])),
                        false,
                    )),
                    false,
                ),
            ),
        ],
        &[],
    );
    d.decode(br#"{"id": 1, "r": {"x": 1}, "l": [1, 2], "m": {"k": 1}}"#)
        .unwrap();
    d.decode(br#"{"id": 2, "r": null, "l": null, "m": null}"#)
        .unwrap();
    let bad: [(&[u8], &str); 5] = [
        (br#"{"r": {"x": 1}}"#, "id"),
        (br#"{"id": null}"#, "id"),
        (br#"{"id": 3, "r": {"y": "a"}}"#, "r.x"),
        (br#"[{"id": 4}, {"id": 5, "l": [1, null]}]"#, "l.element"),
        (br#"{"id": 6, "m": {"k": null}}"#, "m.value"),
    ];
    for (i, (message, path)) in bad.into_iter().enumerate() {
        match d.decode(message).unwrap_err() {
            FormatError::Decode { position, reason } => {
                assert_eq!(position, 2 + i, "{reason}");
                assert!(
                    reason.contains(&format!("the column '{path}' is NOT NULL")),
                    "{reason}"
                );
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    d.decode(br#"[{"id": 7}, {"id": 8, "l": [3]}]"#).unwrap();
    let batch = d.flush().unwrap();
    assert_eq!(batch.num_rows(), 4);
    let ids = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    assert_eq!(ids.values().to_vec(), vec![1, 2, 7, 8]);

    // Skipped and counted under ignore-parse-errors, as any malformed message.
    let mut lenient = decoder(
        vec![required("id", DataType::Int64)],
        &[("ignore-parse-errors", "true")],
    );
    lenient.decode(br#"{"id": 1}"#).unwrap();
    lenient.decode(br#"{}"#).unwrap();
    assert_eq!(lenient.skipped(), 1);
    assert_eq!(lenient.flush().unwrap().num_rows(), 1);
}

#[test]
fn top_level_arrays_give_one_row_per_object() {
    let mut d = decoder(vec![f("a", DataType::Int64)], &[]);
    d.decode(br#"[{"a": 1}, {"a": 2}]"#).unwrap();
    d.decode(br#"[]"#).unwrap();
    // Flink makes a NULL row of a null element, which no batch holds.
    assert!(d.decode(br#"[{"a": 3}, null]"#).is_err());
    assert_eq!(d.flush().unwrap().num_rows(), 2);
}

#[test]
fn input_flink_reads_another_way_is_an_error() {
    let mut d = decoder(
        vec![
            f("a", DataType::Int64),
            f("flag", DataType::Boolean),
            f("ts", DataType::Timestamp(TimeUnit::Millisecond, None)),
        ],
        &[],
    );
    for (message, reason) in [
        (&br#"{"a": 1, "a": 2}"#[..], "appears twice"),
        (br#"{"flag": {"a": 1}}"#, "as BOOLEAN"),
        (
            br#"{"ts": "2020-01-01 00:00:00.1234"}"#,
            "more fractional digits",
        ),
        (br#"{"a": 1} trailing"#, "malformed JSON"),
        (br#"{"s": "\ud800"}"#, "lone surrogate"),
    ] {
        let err = d.decode(message).unwrap_err().to_string();
        assert!(err.contains(reason), "{err}");
    }
    let deep = format!("{{\"x\": {}{}}}", "[".repeat(1000), "]".repeat(1000));
    let err = d.decode(deep.as_bytes()).unwrap_err().to_string();
    assert!(err.contains("nesting depth (1001)"), "{err}");
    // Jackson's limit itself is read: the root object and 999 arrays in it.
    let deepest = format!("{{\"x\": {}{}}}", "[".repeat(999), "]".repeat(999));
    d.decode(deepest.as_bytes()).unwrap();
    assert_eq!(d.flush().unwrap().num_rows(), 1);
    let long = format!("{{\"x\": 1.{}}}", "0".repeat(999));
    let err = d.decode(long.as_bytes()).unwrap_err().to_string();
    assert!(err.contains("Number value length"), "{err}");
    assert_eq!(d.flush().unwrap().num_rows(), 0);
}

#[test]
fn unread_fields_are_converted_but_not_built() {
    let physical = Arc::new(Schema::new(vec![
        f("a", DataType::Int64),
        f("b", DataType::Int32),
        f(
            "r",
            DataType::Struct(Fields::from(vec![
                f("x", DataType::Int32),
                f("y", DataType::Utf8),
            ])),
        ),
    ]));
    let produced = Arc::new(Schema::new(vec![
        f("a", DataType::Int64),
        f(
            "r",
            DataType::Struct(Fields::from(vec![f("y", DataType::Utf8)])),
        ),
    ]));
    let mut d =
        JsonDecoder::try_new_projected(physical, produced, &FormatOptions::default()).unwrap();
    d.decode(br#"{"a": 1, "b": 2, "r": {"x": 3, "y": "q"}}"#)
        .unwrap();
    // Flink decodes the whole row: a bad value in a column the query does not read fails too.
    assert!(d.decode(br#"{"a": 1, "b": "x"}"#).is_err());
    assert!(d.decode(br#"{"a": 1, "r": {"x": "bad"}}"#).is_err());
    let batch = d.flush().unwrap();
    assert_eq!(batch.num_columns(), 2);
    assert_eq!(batch.num_rows(), 1);
    let r = batch.column(1).as_struct();
    assert_eq!(r.num_columns(), 1);
    assert_eq!(r.column(0).as_string::<i32>().value(0), "q");
}

/// A STRING column given an object spells its floats as Flink's decoder of the whole value row
/// does, whatever columns the query reads: a DECIMAL column the query leaves out still decides.
#[test]
fn a_string_column_spells_floats_by_the_whole_row_whatever_is_read() {
    let message = br#"{"payload": {"x": 1.0, "y": 1e3, "z": 0.10}, "amount": 1}"#;
    let payload = |physical: Vec<Field>, produced: Vec<Field>| {
        let mut d = JsonDecoder::try_new_projected(
            Arc::new(Schema::new(physical)),
            Arc::new(Schema::new(produced)),
            &FormatOptions::default(),
        )
        .unwrap();
        d.decode(message).unwrap();
        let batch = d.flush().unwrap();
        batch.column(0).as_string::<i32>().value(0).to_string()
    };
    let with_decimal = vec![
        f("payload", DataType::Utf8),
        f("amount", DataType::Decimal128(10, 2)),
    ];
    let whole = payload(with_decimal.clone(), with_decimal.clone());
    let read_alone = payload(with_decimal, vec![f("payload", DataType::Utf8)]);
    assert_eq!(read_alone, whole);
    let without_decimal = vec![f("payload", DataType::Utf8), f("amount", DataType::Int64)];
    assert_ne!(payload(without_decimal.clone(), without_decimal), whole);
}

#[test]
fn options_are_checked_with_flink_messages() {
    let bad = |pairs: &[(&str, &str)]| {
        let options = FormatOptions::new(
            "json",
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())),
        );
        JsonDecoder::try_new(
            Arc::new(Schema::new(vec![f("a", DataType::Int64)])),
            &options,
        )
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        bad(&[
            ("fail-on-missing-field", "true"),
            ("ignore-parse-errors", "true")
        ]),
        "fail-on-missing-field and ignore-parse-errors shouldn't both be true."
    );
    assert!(
        bad(&[("timestamp-format.standard", "iso-8601")])
            .contains("Supported values are [SQL, ISO-8601]")
    );
    assert!(
        bad(&[("ignore-parse-errors", "1")])
            .contains("Invalid value for option 'ignore-parse-errors'")
    );
    assert!(bad(&[("no-such-option", "1")]).contains("Unsupported option 'json.no-such-option'"));
}

#[test]
fn number_text_is_read_from_each_message_and_batch() {
    // Decimals and number text for STRING come from the message's bytes, found per message:
    // messages of different shapes, across batches, each read their own.
    let mut d = decoder(
        vec![
            f("s", DataType::Utf8),
            f("d", DataType::Decimal128(10, 3)),
            f("i", DataType::Int64),
        ],
        &[],
    );
    let read = |d: &mut JsonDecoder| {
        let batch = d.flush().unwrap();
        let s: Vec<Option<String>> = batch
            .column(0)
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(str::to_string))
            .collect();
        let dec = batch
            .column(1)
            .as_any()
            .downcast_ref::<Decimal128Array>()
            .unwrap();
        let dec: Vec<Option<i128>> = dec.iter().collect();
        let i: Vec<Option<i64>> = batch
            .column(2)
            .as_primitive::<arrow::datatypes::Int64Type>()
            .iter()
            .collect();
        (s, dec, i)
    };
    d.decode(br#"{"s": 1.50, "d": 2.5, "i": 3.99}"#).unwrap();
    d.decode(br#"{"i": 7, "d": "-0.125", "s": [1, {"a": 2.0}]}"#)
        .unwrap();
    d.decode(br#"[{"s": 10e2}, {"d": 12345.6789, "s": null, "i": -1.5}]"#)
        .unwrap();
    assert_eq!(
        read(&mut d),
        (
            vec![
                Some("1.50".to_string()),
                // With a DECIMAL column Flink reads floats as stripped decimals.
                Some("[1,{\"a\":2}]".to_string()),
                Some("10e2".to_string()),
                None
            ],
            vec![Some(2500), Some(-125), None, Some(12_345_679)],
            vec![Some(3), Some(7), None, Some(-1)],
        )
    );
    d.decode(br#"{"d": 0.001, "s": -0, "i": 1e2}"#).unwrap();
    assert_eq!(
        read(&mut d),
        (vec![Some("-0".to_string())], vec![Some(1)], vec![Some(100)])
    );
}

/// Float tokens of every shape a writer produces: Java's and Rust's shortest forms of random
/// doubles (exponents at both ends, subnormals), long mantissas past 19 digits, values within an
/// ulp of halfway between two doubles, and huge integers.
fn float_tokens(count: usize) -> Vec<String> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut tokens = Vec::with_capacity(count);
    while tokens.len() < count {
        let bits = next();
        let d = f64::from_bits(bits);
        if !d.is_finite() {
            continue;
        }
        let token = match tokens.len() % 5 {
            0 => format!("{d:e}"),
            1 => format!("{d:?}"),
            2 => {
                // Exactly halfway between two doubles (an odd 54-bit integer times 2^-n, so
                // ties to even decide), written exactly: m * 2^-n = m * 5^n * 10^-n.
                let m = u128::from((1u64 << 53) | (next() & ((1 << 53) - 1)) | 1);
                let n = (next() % 21) as u32;
                format!("{}e-{n}", m * 5u128.pow(n))
            }
            3 => format!(
                "{}.{:019}{}",
                next() % 1000,
                next() % 10u64.pow(19),
                next() % 1000
            ),
            _ => format!("{}{:019}.5e-3", next() % 100_000, next() % 10u64.pow(19)),
        };
        tokens.push(token);
    }
    tokens
}

#[test]
fn doubles_are_the_correctly_rounded_value_of_their_token() {
    // Flink reads a DOUBLE from the token's text with `Double.parseDouble`, which rounds
    // correctly, as Rust's `str::parse` does: the decoder must give that double bit for bit.
    let mut d = decoder(vec![f("x", DataType::Float64)], &[]);
    let tokens = float_tokens(50_000);
    for token in &tokens {
        d.decode(format!(r#"{{"x": {token}}}"#).as_bytes())
            .unwrap_or_else(|e| panic!("{token}: {e}"));
    }
    let batch = d.flush().unwrap();
    let values = batch
        .column(0)
        .as_primitive::<arrow::datatypes::Float64Type>();
    for (token, value) in tokens.iter().zip(values.values().iter()) {
        let expected: f64 = token.parse().unwrap();
        assert_eq!(value.to_bits(), expected.to_bits(), "{token}");
    }
}
