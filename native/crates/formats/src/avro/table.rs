//! The Avro schema Flink derives from a table (`AvroSchemaConverter`), as nodes the decoder and
//! encoder walk and as the JSON a registry is given.

use arrow::datatypes::{DataType, Field, SchemaRef, TimeUnit};

use super::schema::AvroSchema;
use crate::builder::map_fields;
use crate::error::{FormatError, Result};
use crate::options::FormatOptions;

/// Every option key of Flink's `avro` format (without the `avro.` prefix).
pub const AVRO_OPTION_KEYS: &[&str] = &["codec", "encoding", "timestamp_mapping.legacy"];

const FLINK_TYPE_KEY: &str = "flink.type";

/// One value of the derived Avro schema.
#[derive(Debug, Clone)]
pub(crate) enum TableNode {
    Boolean,
    /// `int` read into TINYINT, SMALLINT, INT or DATE/TIME columns.
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
    /// A decimal of this precision (digits): wider values read as NULL, as in Flink.
    Decimal(u8),
    /// A timestamp in milliseconds or microseconds (the column's unit says which).
    Timestamp,
    Array(Box<TableNode>),
    Map(Box<TableNode>),
    Record(Vec<(String, TableNode)>),
    /// `["null", T]`.
    Nullable(Box<TableNode>),
}

pub(super) fn derive(field: &Field, legacy: bool) -> Result<TableNode> {
    let node = match field.data_type() {
        DataType::Boolean => TableNode::Boolean,
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Date32 => TableNode::Int,
        DataType::Time32(TimeUnit::Millisecond) => TableNode::Int,
        DataType::Time32(_) | DataType::Time64(_) => {
            return Err(FormatError::config(format!(
                "Avro does not support TIME type with precision: {} (column '{}'), it only supports precision less than 3.",
                field
                    .metadata()
                    .get(FLINK_TYPE_KEY)
                    .map_or("> 3", String::as_str),
                field.name()
            )));
        }
        DataType::Int64 => TableNode::Long,
        DataType::Float32 => TableNode::Float,
        DataType::Float64 => TableNode::Double,
        DataType::Utf8 => TableNode::String,
        DataType::Binary => TableNode::Bytes,
        DataType::Decimal128(precision, _) => TableNode::Decimal(*precision),
        DataType::Timestamp(unit, zone) => {
            if legacy && zone.is_some() {
                return Err(FormatError::config(format!(
                    "Unsupported type TIMESTAMP_LTZ of column '{}' with 'avro.timestamp_mapping.legacy' = 'true'.",
                    field.name()
                )));
            }
            match unit {
                TimeUnit::Millisecond => TableNode::Timestamp,
                TimeUnit::Microsecond if !legacy => TableNode::Timestamp,
                _ => {
                    return Err(FormatError::config(format!(
                        "Avro does not support the precision of TIMESTAMP column '{}': it supports precision up to {}.",
                        field.name(),
                        if legacy { 3 } else { 6 }
                    )));
                }
            }
        }
        DataType::List(element) => TableNode::Array(Box::new(derive(element, legacy)?)),
        DataType::Map(entries, _) => {
            let (key, value) = map_fields(entries)?;
            if key.data_type() != &DataType::Utf8 {
                return Err(FormatError::config(format!(
                    "Avro format doesn't support non-string as key type of map. The key type of column '{}' is: {}",
                    field.name(),
                    key.data_type()
                )));
            }
            let value =
                if field.metadata().get(FLINK_TYPE_KEY).map(String::as_str) == Some("MULTISET") {
                    // Flink counts multiset elements with a nullable INT.
                    TableNode::Nullable(Box::new(TableNode::Int))
                } else {
                    derive(value, legacy)?
                };
            TableNode::Map(Box::new(value))
        }
        DataType::Struct(fields) => TableNode::Record(
            fields
                .iter()
                .map(|f| Ok((f.name().clone(), derive(f, legacy)?)))
                .collect::<Result<_>>()?,
        ),
        other => {
            return Err(FormatError::config(format!(
                "Unsupported to derive Schema for type: {other} (column '{}')",
                field.name()
            )));
        }
    };
    Ok(if field.is_nullable() {
        TableNode::Nullable(Box::new(node))
    } else {
        node
    })
}

/// The Avro schema a table node is written with (what Flink's writer uses for that column).
pub(super) fn writer_schema_of(node: &TableNode) -> AvroSchema {
    match node {
        TableNode::Boolean => AvroSchema::Boolean,
        TableNode::Int => AvroSchema::Int,
        TableNode::Long | TableNode::Timestamp => AvroSchema::Long,
        TableNode::Float => AvroSchema::Float,
        TableNode::Double => AvroSchema::Double,
        TableNode::Bytes | TableNode::Decimal(_) => AvroSchema::Bytes,
        TableNode::String => AvroSchema::String,
        TableNode::Array(element) => AvroSchema::Array(Box::new(writer_schema_of(element))),
        TableNode::Map(value) => AvroSchema::Map(Box::new(writer_schema_of(value))),
        TableNode::Record(fields) => AvroSchema::Record(
            fields
                .iter()
                .map(|(name, node)| (name.clone(), writer_schema_of(node)))
                .collect(),
        ),
        TableNode::Nullable(inner) => {
            AvroSchema::Union(vec![AvroSchema::Null, writer_schema_of(inner)])
        }
    }
}

/// The table's columns as one record node, by the schema Flink derives.
pub(crate) fn derive_table(schema: &SchemaRef, legacy: bool) -> Result<TableNode> {
    Ok(TableNode::Record(
        schema
            .fields()
            .iter()
            .map(|f| Ok((f.name().clone(), derive(f, legacy)?)))
            .collect::<Result<_>>()?,
    ))
}

pub(super) fn legacy_mapping(options: &FormatOptions) -> Result<bool> {
    options.check_keys(AVRO_OPTION_KEYS)?;
    if let Some(encoding) = options.string("encoding") {
        if !encoding.eq_ignore_ascii_case("binary") {
            return Err(FormatError::config(format!(
                "StreamFusion's avro format reads and writes 'avro.encoding' = 'binary' only, not '{encoding}'."
            )));
        }
    }
    options.boolean("timestamp_mapping.legacy", true)
}

/// The Avro schema Flink's `AvroSchemaConverter` derives for the table, as JSON: the record
/// `org.apache.flink.avro.generated.record`, nested records named after their path
/// (`record_field`), nullable types as `["null", T]` with a `null` default.
pub fn derived_schema_json(schema: &SchemaRef, legacy: bool) -> Result<String> {
    let fields = schema
        .fields()
        .iter()
        .map(|f| field_json(f, "org.apache.flink.avro.generated.record", legacy))
        .collect::<Result<Vec<_>>>()?;
    Ok(format!(
        r#"{{"type":"record","name":"record","namespace":"org.apache.flink.avro.generated","fields":[{}]}}"#,
        fields.join(",")
    ))
}

fn field_json(field: &Field, row_name: &str, legacy: bool) -> Result<String> {
    let path = format!("{row_name}_{}", field.name());
    let data_type = type_json(field, &path, legacy)?;
    let mut name = String::new();
    crate::json::write_json_string(field.name(), &mut name, false);
    Ok(if field.is_nullable() {
        format!(r#"{{"name":{name},"type":["null",{data_type}],"default":null}}"#)
    } else {
        format!(r#"{{"name":{name},"type":{data_type}}}"#)
    })
}

/// The JSON of a value's type (without its nullable union). `path` names a record here and is
/// what arrays and maps pass on to their elements, as Flink does.
fn type_json(field: &Field, path: &str, legacy: bool) -> Result<String> {
    derive(field, legacy)?; // rejects what Flink cannot derive, with its message
    let nullable = |f: &Field, t: String| {
        if f.is_nullable() {
            format!(r#"["null",{t}]"#)
        } else {
            t
        }
    };
    Ok(match field.data_type() {
        DataType::Boolean => r#""boolean""#.into(),
        DataType::Int8 | DataType::Int16 | DataType::Int32 => r#""int""#.into(),
        DataType::Int64 => r#""long""#.into(),
        DataType::Float32 => r#""float""#.into(),
        DataType::Float64 => r#""double""#.into(),
        DataType::Utf8 => r#""string""#.into(),
        DataType::Binary => r#""bytes""#.into(),
        DataType::Date32 => r#"{"type":"int","logicalType":"date"}"#.into(),
        DataType::Time32(_) => r#"{"type":"int","logicalType":"time-millis"}"#.into(),
        DataType::Decimal128(p, s) => {
            format!(r#"{{"type":"bytes","logicalType":"decimal","precision":{p},"scale":{s}}}"#)
        }
        DataType::Timestamp(unit, zone) => {
            let micros = *unit == TimeUnit::Microsecond;
            let logical = match (legacy, zone.is_some(), micros) {
                (true, _, _) => "timestamp-millis",
                (false, false, false) => "local-timestamp-millis",
                (false, false, true) => "local-timestamp-micros",
                (false, true, false) => "timestamp-millis",
                (false, true, true) => "timestamp-micros",
            };
            format!(r#"{{"type":"long","logicalType":"{logical}"}}"#)
        }
        DataType::List(element) => format!(
            r#"{{"type":"array","items":{}}}"#,
            nullable(element, type_json(element, path, legacy)?)
        ),
        DataType::Map(entries, _) => {
            let (_, value) = map_fields(entries)?;
            let values =
                if field.metadata().get(FLINK_TYPE_KEY).map(String::as_str) == Some("MULTISET") {
                    r#"["null","int"]"#.to_string()
                } else {
                    nullable(value, type_json(value, path, legacy)?)
                };
            format!(r#"{{"type":"map","values":{values}}}"#)
        }
        DataType::Struct(fields) => {
            let inner = fields
                .iter()
                .map(|f| field_json(f, path, legacy))
                .collect::<Result<Vec<_>>>()?;
            let (namespace, name) = path.rsplit_once('.').unwrap_or(("", path));
            format!(
                r#"{{"type":"record","name":"{name}","namespace":"{namespace}","fields":[{}]}}"#,
                inner.join(",")
            )
        }
        other => {
            return Err(FormatError::config(format!(
                "Unsupported to derive Schema for type: {other}"
            )));
        }
    })
}
