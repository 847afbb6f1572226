//! Flink's `avro-confluent` format: each message is `0x00`, a 4-byte big-endian schema id, and an
//! Avro datum written with that schema. This crate does no I/O: the caller talks to the schema
//! registry. Decoding: the caller hands over the writer schema of each new id
//! ([`AvroConfluentDecoder::add_writer_schema`]) and datums are read into the table's columns by
//! Avro schema resolution (see [`crate::avro_schema`]). Encoding: the caller registers
//! [`AvroConfluentEncoder`]'s writer schema (the one Flink derives from the table) and gives back
//! its id.

use std::collections::HashMap;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use arrow::array::BinaryArray;

use super::encode::AvroEncoder;
use super::resolve::{Carried, RecordPlan, Unread, record_error};
use super::schema::AvroSchema;
use super::table::{TableNode, derive_table, derived_schema_json};
use crate::builder::Rows;
use crate::decoder::Decoder;
use crate::encoder::Encoder;
use crate::error::{FormatError, Result};
use crate::options::FormatOptions;

/// Every option key of Flink's `avro-confluent` format (without the prefix).
pub const AVRO_CONFLUENT_OPTION_KEYS: &[&str] = &[
    "url",
    "subject",
    "schema",
    "properties",
    "basic-auth.credentials-source",
    "basic-auth.user-info",
    "bearer-auth.credentials-source",
    "bearer-auth.token",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "timestamp_mapping.legacy",
];

/// Decodes Confluent-framed Avro messages into rows of the table.
#[derive(Debug)]
pub struct AvroConfluentDecoder {
    schema: SchemaRef,
    table: TableNode,
    /// The table's physical columns: the reader schema Flink resolves writer schemas against.
    physical: Vec<(String, TableNode)>,
    /// Bytes the last datum left unread in Flink's decoder's buffer, which it reads as the start
    /// of the next message's datum (the header is read from the message itself).
    carry: Carried,
    writers: HashMap<u32, (Vec<(String, AvroSchema)>, RecordPlan)>,
    rows: Rows,
}

impl AvroConfluentDecoder {
    /// A decoder of messages of the table's `physical` columns producing the `produced` ones.
    pub fn try_new(
        physical: SchemaRef,
        produced: SchemaRef,
        options: &FormatOptions,
    ) -> Result<Self> {
        options.check_keys(AVRO_CONFLUENT_OPTION_KEYS)?;
        if options.string("url").is_none() {
            return Err(FormatError::config(
                "One or more required options are missing: avro-confluent.url",
            ));
        }
        let legacy = options.boolean("timestamp_mapping.legacy", true)?;
        Ok(Self {
            table: derive_table(&produced, legacy)?,
            rows: Rows::try_new(produced.clone())?,
            physical: match derive_table(&physical, legacy)? {
                TableNode::Record(fields) => fields,
                _ => return Err(FormatError::config("the table is not a row")),
            },
            carry: Carried::default(),
            schema: produced,
            writers: HashMap::new(),
        })
    }

    /// Registers the writer schema (Avro JSON) of a schema id.
    pub fn add_writer_schema(&mut self, id: u32, schema: &str) -> Result<()> {
        let parsed = AvroSchema::parse(schema)
            .map_err(|e| FormatError::config(format!("writer schema {id}: {e}")))?;
        let AvroSchema::Record(fields) = parsed else {
            return Err(FormatError::config(format!(
                "writer schema {id} is not an Avro record, so it cannot be read into table rows"
            )));
        };
        let plan = RecordPlan::new(&fields, &self.table, Unread::SkipUnless(&self.physical))
            .map_err(|e| FormatError::config(format!("writer schema {id}: {e}")))?;
        self.writers.insert(id, (fields, plan));
        Ok(())
    }

    pub fn has_writer_schema(&self, id: u32) -> bool {
        self.writers.contains_key(&id)
    }

    fn read(&mut self, bytes: &[u8]) -> std::result::Result<(), String> {
        let [magic, a, b, c, d, datum @ ..] = bytes else {
            return Err(format!(
                "a message of {} bytes is shorter than the 5-byte header",
                bytes.len()
            ));
        };
        if *magic != 0 {
            return Err(format!("Unknown magic byte {magic} (expected 0)"));
        }
        let id = u32::from_be_bytes([*a, *b, *c, *d]);
        let Some((fields, plan)) = self.writers.get(&id) else {
            return Err(format!("no writer schema is known for schema id {id}"));
        };
        self.carry
            .read_record(datum, fields, plan, &self.table, self.rows.columns())
            .map_err(|e| format!("schema id {id}: {e}"))
    }
}

impl Decoder for AvroConfluentDecoder {
    fn decode(&mut self, message: Option<&[u8]>) -> Result<()> {
        let position = self.rows.next_message();
        let Some(bytes) = message else { return Ok(()) };
        let carried = self.carry.any();
        let result = self.read(bytes);
        self.rows.end_row(result).map_err(|reason| {
            record_error(
                position,
                carried,
                format!("Failed to deserialize Avro record: {reason}"),
            )
        })
    }

    fn flush(&mut self) -> Result<RecordBatch> {
        self.rows.flush()
    }

    fn pending_rows(&self) -> usize {
        self.rows.pending()
    }

    fn skipped(&self) -> usize {
        0
    }

    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn add_writer_schema(&mut self, id: u32, schema: &str) -> Result<()> {
        AvroConfluentDecoder::add_writer_schema(self, id, schema)
    }
}

/// Encodes rows as Confluent-framed Avro datums of the schema Flink derives from the table.
#[derive(Debug)]
pub struct AvroConfluentEncoder {
    inner: AvroEncoder,
    writer_schema: String,
    registered: bool,
}

impl AvroConfluentEncoder {
    pub fn try_new(schema: SchemaRef, options: &FormatOptions) -> Result<Self> {
        options.check_keys(AVRO_CONFLUENT_OPTION_KEYS)?;
        if options.string("url").is_none() {
            return Err(FormatError::config(
                "One or more required options are missing: avro-confluent.url",
            ));
        }
        let legacy = options.boolean("timestamp_mapping.legacy", true)?;
        Ok(Self {
            writer_schema: derived_schema_json(&schema, legacy)?,
            inner: AvroEncoder::with_legacy_mapping(schema, legacy)?,
            registered: false,
        })
    }
}

impl Encoder for AvroConfluentEncoder {
    fn encode(&mut self, batch: &arrow::array::RecordBatch) -> Result<BinaryArray> {
        if !self.registered {
            return Err(FormatError::config(
                "the writer schema has no registry id yet; register it before encoding",
            ));
        }
        self.inner.encode(batch)
    }

    fn schema(&self) -> &SchemaRef {
        self.inner.schema()
    }

    fn writer_schema(&self) -> Option<&str> {
        Some(&self.writer_schema)
    }

    fn set_schema_id(&mut self, id: u32) -> Result<()> {
        let mut header = vec![0u8];
        header.extend_from_slice(&id.to_be_bytes());
        self.inner.set_header(header);
        self.registered = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, AsArray};
    use arrow::datatypes::{DataType, Field, Int32Type, Int64Type, Schema};
    use std::sync::Arc;

    fn zigzag(v: i64, out: &mut Vec<u8>) {
        let mut z = ((v << 1) ^ (v >> 63)) as u64;
        while z >= 0x80 {
            out.push((z as u8) | 0x80);
            z >>= 7;
        }
        out.push(z as u8);
    }

    #[test]
    fn resolves_by_field_name_with_promotion_skips_and_missing_fields() {
        let table = Arc::new(Schema::new(vec![
            Field::new("name", DataType::Utf8, true),
            Field::new("id", DataType::Int64, false),
            Field::new("added", DataType::Int32, true),
        ]));
        let options = FormatOptions::new(
            "avro-confluent",
            [("url".to_string(), "http://r".to_string())],
        );
        let mut decoder = AvroConfluentDecoder::try_new(table.clone(), table, &options).unwrap();
        let writer = r#"{"type":"record","name":"r","namespace":"n","fields":[
            {"name":"id","type":"int"},
            {"name":"dropped","type":{"type":"array","items":"string"}},
            {"name":"name","type":["null","string"]},
            {"name":"kind","type":{"type":"enum","name":"K","symbols":["A","B"]}}]}"#;
        decoder.add_writer_schema(7, writer).unwrap();

        let mut message = vec![0, 0, 0, 0, 7];
        zigzag(42, &mut message); // id: int, promoted to long
        zigzag(1, &mut message); // dropped: one block of one string
        zigzag(1, &mut message);
        message.push(b'x');
        zigzag(0, &mut message);
        zigzag(1, &mut message); // name: union branch 1
        zigzag(2, &mut message);
        message.extend_from_slice(b"ok");
        zigzag(1, &mut message); // kind: B (not read)
        Decoder::decode(&mut decoder, Some(&message)).unwrap();

        let err = Decoder::decode(&mut decoder, Some(&[0, 0, 0, 0, 9, 1])).unwrap_err();
        assert!(
            err.to_string()
                .contains("no writer schema is known for schema id 9"),
            "{err}"
        );
        let err = Decoder::decode(&mut decoder, Some(&[1, 0, 0, 0, 7])).unwrap_err();
        assert!(err.to_string().contains("Unknown magic byte"), "{err}");

        let batch = decoder.flush().unwrap();
        assert_eq!(batch.num_rows(), 1);
        assert_eq!(batch.column(0).as_string::<i32>().value(0), "ok");
        assert_eq!(batch.column(1).as_primitive::<Int64Type>().value(0), 42);
        assert!(batch.column(2).as_primitive::<Int32Type>().is_null(0));
    }

    /// What Avro's schema resolution refuses fails the record, as in Flink's reader (a long is
    /// never read as an int, an empty decimal is no number); a string read into BYTES keeps its
    /// bytes as written, whether UTF-8 or not.
    #[test]
    fn resolution_refuses_what_avro_refuses_and_keeps_a_strings_bytes() {
        let table = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("b", DataType::Binary, true),
            Field::new("d", DataType::Decimal128(10, 2), true),
        ]));
        let options = FormatOptions::new(
            "avro-confluent",
            [("url".to_string(), "http://r".to_string())],
        );
        let mut decoder = AvroConfluentDecoder::try_new(table.clone(), table, &options).unwrap();
        let writer = |id: &str| {
            format!(
                r#"{{"type":"record","name":"r","fields":[{{"name":"id","type":"{id}"}},
                {{"name":"b","type":"string"}},
                {{"name":"d","type":{{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}}}}]}}"#
            )
        };
        decoder.add_writer_schema(1, &writer("int")).unwrap();
        decoder.add_writer_schema(2, &writer("long")).unwrap();
        let message = |schema: u8, decimal: &[u8]| {
            let mut m = vec![0, 0, 0, 0, schema];
            zigzag(5, &mut m);
            zigzag(2, &mut m); // b: two bytes that are not UTF-8
            m.extend_from_slice(&[0xc3, 0x28]);
            zigzag(decimal.len() as i64, &mut m);
            m.extend_from_slice(decimal);
            m
        };
        Decoder::decode(&mut decoder, Some(&message(1, &[0x04, 0xd2]))).unwrap();
        let err = Decoder::decode(&mut decoder, Some(&message(2, &[0x04, 0xd2]))).unwrap_err();
        assert!(
            err.to_string().contains("long cannot be read as an int"),
            "{err}"
        );
        let err = Decoder::decode(&mut decoder, Some(&message(1, &[]))).unwrap_err();
        assert!(err.to_string().contains("Zero length BigInteger"), "{err}");
        let batch = decoder.flush().unwrap();
        assert_eq!(batch.num_rows(), 1);
        assert_eq!(batch.column(0).as_primitive::<Int32Type>().value(0), 5);
        assert_eq!(batch.column(1).as_binary::<i32>().value(0), &[0xc3, 0x28]);
        assert_eq!(
            batch
                .column(2)
                .as_primitive::<arrow::datatypes::Decimal128Type>()
                .value(0),
            1234
        );
    }

    /// Avro's resolution has no promotion from an enum or a fixed into the types Flink derives
    /// (string, bytes, decimal as bytes), so Flink's reader fails on them; a string promoted to
    /// bytes is read into a DECIMAL as its bytes. Flink resolves every physical column, so a
    /// column the query does not read fails the record all the same.
    #[test]
    fn enums_and_fixed_resolve_into_no_column_read_or_not() {
        let physical = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("b", DataType::Binary, true),
            Field::new("d", DataType::Decimal128(10, 2), true),
            Field::new("n", DataType::Int32, true),
            Field::new("required", DataType::Int64, false),
        ]));
        let produced = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("d", DataType::Decimal128(10, 2), true),
        ]));
        let options = FormatOptions::new(
            "avro-confluent",
            [("url".to_string(), "http://r".to_string())],
        );
        let mut decoder =
            AvroConfluentDecoder::try_new(physical.clone(), physical, &options).unwrap();
        let mut projected = AvroConfluentDecoder::try_new(
            Arc::new(Schema::new(vec![
                Field::new("id", DataType::Int32, true),
                Field::new("d", DataType::Decimal128(10, 2), true),
                Field::new("s", DataType::Utf8, true),
                Field::new("n", DataType::Int32, true),
                Field::new("b", DataType::Binary, true),
            ])),
            produced,
            &options,
        )
        .unwrap();
        let schemas = [
            (
                1,
                r#"{"name":"s","type":{"type":"enum","name":"E","symbols":["A","B"]}}"#,
            ),
            (
                2,
                r#"{"name":"b","type":{"type":"fixed","name":"F","size":2}}"#,
            ),
            (
                3,
                r#"{"name":"d","type":{"type":"fixed","name":"G","size":2,"logicalType":"decimal","precision":4,"scale":2}}"#,
            ),
            (4, r#"{"name":"d","type":"string"}"#),
            (5, r#"{"name":"n","type":"long"}"#),
        ];
        for (id, field) in schemas {
            let writer = format!(
                r#"{{"type":"record","name":"r","fields":[{{"name":"id","type":"int"}},{field},
                {{"name":"required","type":"long"}}]}}"#
            );
            decoder.add_writer_schema(id, &writer).unwrap();
            projected.add_writer_schema(id, &writer).unwrap();
        }
        // A writer without the NOT NULL column `required`, which only `decoder` reads.
        let lacking = r#"{"type":"record","name":"r","fields":[{"name":"id","type":"int"}]}"#;
        decoder.add_writer_schema(6, lacking).unwrap();
        projected.add_writer_schema(6, lacking).unwrap();
        let message = |schema: u8, value: &[u8]| {
            let mut m = vec![0, 0, 0, 0, schema];
            zigzag(5, &mut m);
            m.extend_from_slice(value);
            if schema != 6 {
                zigzag(9, &mut m);
            }
            m
        };
        let fails =
            |decoder: &mut AvroConfluentDecoder, message: &[u8], what: &str| match Decoder::decode(
                decoder,
                Some(message),
            ) {
                Err(err) => assert!(err.to_string().contains(what), "{err}"),
                Ok(()) => panic!(
                    "schema {} read where it should fail with {what}",
                    message[4]
                ),
            };
        for decoder in [&mut decoder, &mut projected] {
            fails(
                decoder,
                &message(1, &[2]),
                "the writer's enum cannot be read",
            );
            fails(
                decoder,
                &message(2, &[0xc3, 0x28]),
                "the writer's fixed cannot",
            );
            fails(
                decoder,
                &message(3, &[0x04, 0xd2]),
                "the writer's fixed cannot",
            );
            fails(decoder, &message(4, &[0]), "Zero length BigInteger");
            fails(decoder, &message(5, &[2]), "long cannot be read as an int");
            Decoder::decode(decoder, Some(&message(4, &[4, 0x04, 0xd2]))).unwrap();
        }
        fails(&mut decoder, &message(6, &[]), "no field 'required'");
        Decoder::decode(&mut projected, Some(&message(6, &[]))).unwrap();

        let batch = decoder.flush().unwrap();
        assert_eq!(batch.num_rows(), 1);
        let decimal = batch
            .column(3)
            .as_primitive::<arrow::datatypes::Decimal128Type>();
        assert_eq!(decimal.value(0), 1234);
        let batch = projected.flush().unwrap();
        assert_eq!(batch.num_rows(), 2);
        let decimal = batch
            .column(1)
            .as_primitive::<arrow::datatypes::Decimal128Type>();
        assert_eq!(decimal.value(0), 1234);
        assert!(decimal.is_null(1));
    }

    #[test]
    fn writer_schemas_must_be_records_and_valid() {
        let table = Arc::new(Schema::new(vec![Field::new("a", DataType::Int64, true)]));
        let options = FormatOptions::new(
            "avro-confluent",
            [("url".to_string(), "http://r".to_string())],
        );
        let mut decoder =
            AvroConfluentDecoder::try_new(table.clone(), table.clone(), &options).unwrap();
        assert!(decoder.add_writer_schema(1, "\"long\"").is_err());
        assert!(decoder.add_writer_schema(1, "{not json").is_err());
        assert!(
            AvroConfluentDecoder::try_new(table.clone(), table, &FormatOptions::default()).is_err()
        );
    }
}
