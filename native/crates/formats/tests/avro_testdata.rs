//! The Avro files of `../shared/testdata/avro` (from apache/avro) decode to what their JSON twins
//! and READMEs say, with every codec.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::Arc;

use arrow::array::{AsArray, RecordBatch};
use arrow::datatypes::{DataType, Field, Int32Type, Int64Type, Schema};
use streamfusion_formats::avro::file::{read_container, read_single_object};

/// Under the crate's directory as cargo runs the test, not as it was built: a target directory
/// shared by several checkouts may run a binary another one built.
fn testdata(path: &str) -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
        .join("../../../../shared/testdata/avro/share/test")
        .join(path)
}

fn weather_table() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("station", DataType::Utf8, false),
        Field::new("time", DataType::Int64, false),
        Field::new("temp", DataType::Int32, false),
    ]))
}

fn rows(batch: &RecordBatch) -> Vec<serde_json::Value> {
    let station = batch.column(0).as_string::<i32>();
    let time = batch.column(1).as_primitive::<Int64Type>();
    let temp = batch.column(2).as_primitive::<Int32Type>();
    (0..batch.num_rows())
        .map(|i| serde_json::json!({"station": station.value(i), "time": time.value(i), "temp": temp.value(i)}))
        .collect()
}

#[test]
fn weather_files_in_every_codec_match_their_json_twin() {
    let expected: Vec<serde_json::Value> = std::fs::read_to_string(testdata("data/weather.json"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!expected.is_empty());
    for file in [
        "weather.avro",
        "weather-deflate.avro",
        "weather-snappy.avro",
        "weather-zstd.avro",
    ] {
        let bytes = std::fs::read(testdata(&format!("data/{file}"))).unwrap();
        let batch = read_container(&bytes, &weather_table(), true).unwrap();
        assert_eq!(rows(&batch), expected, "{file}");
    }
    // The sorted file holds the same readings in another order.
    let bytes = std::fs::read(testdata("data/weather-sorted.avro")).unwrap();
    let mut sorted = rows(&read_container(&bytes, &weather_table(), true).unwrap());
    let mut twin = expected.clone();
    let key = |v: &serde_json::Value| v.to_string();
    sorted.sort_by_key(key);
    twin.sort_by_key(key);
    assert_eq!(sorted, twin);
}

#[test]
fn unions_with_branches_a_column_cannot_hold_are_errors_naming_the_record() {
    let inner = Field::new(
        "data2",
        DataType::Struct(vec![Field::new("d1", DataType::Utf8, true)].into()),
        true,
    );
    let table = Arc::new(Schema::new(vec![
        Field::new("data1", DataType::Utf8, true),
        inner,
    ]));
    let bytes = std::fs::read(testdata("data/schemas/withUnion/data.avro")).unwrap();
    // data1 is ["string", "int"]: the first record holds a string, the second an int, which no
    // Avro promotion turns into a STRING column (Avro's own resolving reader refuses it too).
    let err = read_container(&bytes, &table, true)
        .unwrap_err()
        .to_string();
    assert!(err.contains("record 1: field 'data1'"), "{err}");
    assert!(err.contains("cannot be read into this column"), "{err}");
    let simple = Arc::new(Schema::new(vec![Field::new("text", DataType::Utf8, false)]));
    let bytes = std::fs::read(testdata("data/schemas/simple/data.avro")).unwrap();
    let batch = read_container(&bytes, &simple, true).unwrap();
    assert!(batch.num_rows() > 0);
    assert!(
        batch
            .column(0)
            .as_string::<i32>()
            .iter()
            .all(|v| v.is_some())
    );
}

#[test]
fn single_object_message_matches_its_readme() {
    let schema = std::fs::read_to_string(testdata("data/messageV1/test_schema.avsc")).unwrap();
    let table = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, false),
        Field::new(
            "tags",
            DataType::List(Arc::new(Field::new("element", DataType::Utf8, false))),
            false,
        ),
    ]));
    let bytes = std::fs::read(testdata("data/messageV1/test_message.bin")).unwrap();
    let batch = read_single_object(&bytes, &schema, &table, true).unwrap();
    assert_eq!(batch.column(0).as_primitive::<Int64Type>().value(0), 42);
    assert_eq!(batch.column(1).as_string::<i32>().value(0), "Bill");
    let tags = batch.column(2).as_list::<i32>().value(0);
    let tags = tags.as_string::<i32>();
    assert_eq!((tags.value(0), tags.value(1)), ("dog_lover", "cat_hater"));
}

#[test]
fn corrupt_containers_are_errors() {
    let bytes = std::fs::read(testdata("data/weather.avro")).unwrap();
    for cut in [3, 10, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            read_container(&bytes[..cut], &weather_table(), true).is_err(),
            "cut at {cut}"
        );
    }
    let mut wrong_sync = bytes.clone();
    let last = wrong_sync.len() - 1;
    wrong_sync[last] ^= 0xff;
    let err = read_container(&wrong_sync, &weather_table(), true).unwrap_err();
    assert!(err.to_string().contains("sync marker"), "{err}");
}
