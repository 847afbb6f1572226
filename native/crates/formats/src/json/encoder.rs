//! [`JsonEncoder`]: rows of an Arrow batch written as the JSON bytes Flink's JSON serializer
//! writes for them.

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, Decimal128Array, ListArray, MapArray,
    RecordBatch, StructArray,
};
use arrow::datatypes::{
    BinaryType, DataType, Date32Type, DurationMillisecondType, Float32Type, Float64Type, Int8Type,
    Int16Type, Int32Type, Int64Type, IntervalUnit, IntervalYearMonthType, SchemaRef, TimeUnit,
    Utf8Type,
};
use base64::Engine;

use super::options::{JsonEncodeOptions, MapNullKeyMode};
use crate::builder::MessageColumn;
use crate::decimal::{decimal_to_java_string, decimal_to_plain_string};
use crate::error::{FormatError, Result};
use crate::javatext::{push_integer, push_java_double, push_java_float};
use crate::options::FormatOptions;
use crate::temporal::{
    format_date, format_time_of_day, format_timestamp, time_of_day_nanos, timestamp_parts,
};

/// Encodes rows into JSON messages, byte for byte as Flink's `json` format writes them: one
/// compact object per row, fields in schema order, Jackson's escaping (supplementary characters
/// as `\uXXXX` surrogate pairs), non-finite floats as strings, decimals via
/// `BigDecimal.toString()` after stripping trailing zeros (or plain with
/// `encode.decimal-as-plain-number`), timestamps with trimmed fractions, TIME without its
/// milliseconds, NULL map keys per `map-null-key.mode`.
///
/// FLOAT and DOUBLE print the shortest digits that read back to the same value (Java 19 and
/// later); Java 17 occasionally prints one more digit. Either reads back equal.
#[derive(Debug)]
pub struct JsonEncoder {
    schema: SchemaRef,
    options: JsonEncodeOptions,
    names: Vec<String>,
}

impl JsonEncoder {
    pub fn try_new(schema: SchemaRef, options: &FormatOptions) -> Result<Self> {
        let options = JsonEncodeOptions::parse(options)?;
        for field in schema.fields() {
            check_type(field.data_type(), field.name())?;
        }
        let names = schema
            .fields()
            .iter()
            .map(|f| {
                let mut s = String::new();
                push_string(f.name(), &mut s);
                s.push(':');
                s
            })
            .collect();
        Ok(Self {
            schema,
            options,
            names,
        })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// One message per row of `batch`.
    pub fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray> {
        let mut messages = MessageColumn::with_capacity(batch.num_rows());
        let mut out = String::new();
        for row in 0..batch.num_rows() {
            out.clear();
            out.push('{');
            let mut first = true;
            for (c, column) in batch.columns().iter().enumerate() {
                if column.is_null(row) && self.options.ignore_null_fields {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(&self.names[c]);
                write_value(column, row, &self.options, &mut out).map_err(|reason| {
                    FormatError::Encode {
                        row,
                        reason: format!(
                            "Fail to serialize at field: {}: {reason}",
                            self.schema.field(c).name()
                        ),
                    }
                })?;
            }
            out.push('}');
            messages.bytes().extend_from_slice(out.as_bytes());
            messages.end_message()?;
        }
        messages.finish(None)
    }
}

fn check_type(data_type: &DataType, name: &str) -> Result<()> {
    match data_type {
        DataType::Map(entries, _) => {
            let (key, value) = crate::builder::map_fields(entries)?;
            if key.data_type() != &DataType::Utf8 {
                return Err(FormatError::config(format!(
                    "JSON format doesn't support non-string as key type of map. The type of column '{name}' is: {data_type}"
                )));
            }
            check_type(value.data_type(), name)
        }
        DataType::List(element) => check_type(element.data_type(), name),
        DataType::Struct(fields) => fields
            .iter()
            .try_for_each(|f| check_type(f.data_type(), f.name())),
        _ => Ok(()),
    }
}

type Write = std::result::Result<(), String>;

fn write_value(array: &ArrayRef, i: usize, options: &JsonEncodeOptions, out: &mut String) -> Write {
    if array.is_null(i) {
        out.push_str("null");
        return Ok(());
    }
    match array.data_type() {
        DataType::Boolean => {
            let b = array
                .as_any()
                .downcast_ref::<BooleanArray>()
                .ok_or("not boolean")?;
            out.push_str(if b.value(i) { "true" } else { "false" });
        }
        DataType::Int8 => push_integer(array.as_primitive::<Int8Type>().value(i), out),
        DataType::Int16 => push_integer(array.as_primitive::<Int16Type>().value(i), out),
        DataType::Int32 => push_integer(array.as_primitive::<Int32Type>().value(i), out),
        DataType::Int64 => push_integer(array.as_primitive::<Int64Type>().value(i), out),
        DataType::Interval(IntervalUnit::YearMonth) => {
            push_integer(array.as_primitive::<IntervalYearMonthType>().value(i), out)
        }
        DataType::Duration(TimeUnit::Millisecond) => push_integer(
            array.as_primitive::<DurationMillisecondType>().value(i),
            out,
        ),
        DataType::Float32 => {
            push_java_float(array.as_primitive::<Float32Type>().value(i), out, true)
        }
        DataType::Float64 => {
            push_java_double(array.as_primitive::<Float64Type>().value(i), out, true)
        }
        DataType::Decimal128(_, scale) => {
            let d = array
                .as_any()
                .downcast_ref::<Decimal128Array>()
                .ok_or("not decimal")?;
            let scale = i32::from(*scale);
            if options.decimal_as_plain_number {
                out.push_str(&decimal_to_plain_string(d.value(i), scale));
            } else {
                out.push_str(&decimal_to_java_string(d.value(i), scale, true));
            }
        }
        DataType::Utf8 => push_string(array.as_bytes::<Utf8Type>().value(i), out),
        DataType::Binary => {
            out.push('"');
            out.push_str(
                &base64::engine::general_purpose::STANDARD
                    .encode(array.as_bytes::<BinaryType>().value(i)),
            );
            out.push('"');
        }
        DataType::Date32 => {
            out.push('"');
            format_date(i64::from(array.as_primitive::<Date32Type>().value(i)), out);
            out.push('"');
        }
        DataType::Time32(_) | DataType::Time64(_) => {
            let seconds = time_of_day_nanos(array.as_ref(), i).ok_or("not a time")? / 1_000_000_000;
            // Flink writes TIME without its milliseconds.
            out.push('"');
            format_time_of_day(seconds * 1_000_000_000, out);
            out.push('"');
        }
        DataType::Timestamp(_, zone) => {
            let (millis, nanos) = timestamp_parts(array.as_ref(), i).ok_or("not a timestamp")?;
            out.push('"');
            format_timestamp(
                millis,
                nanos,
                options.timestamp_standard,
                zone.is_some(),
                out,
            );
            out.push('"');
        }
        DataType::List(_) => {
            let list = array
                .as_any()
                .downcast_ref::<ListArray>()
                .ok_or("not a list")?;
            let values = list.value(i);
            out.push('[');
            for k in 0..values.len() {
                if k > 0 {
                    out.push(',');
                }
                write_value(&values, k, options, out)?;
            }
            out.push(']');
        }
        DataType::Map(_, _) => {
            let map = array
                .as_any()
                .downcast_ref::<MapArray>()
                .ok_or("not a map")?;
            let entries = map.value(i);
            let keys = entries.column(0);
            let values = entries.column(1);
            let key_strings = keys.as_bytes::<Utf8Type>();
            // Jackson's ObjectNode.set: a repeated key keeps its first position, last value.
            let mut order: Vec<(String, usize)> = Vec::with_capacity(entries.len());
            for k in 0..entries.len() {
                let key = if keys.is_null(k) {
                    match &options.map_null_key {
                        MapNullKeyMode::Fail => return Err("JSON format doesn't support to serialize map data with null keys. You can drop null key entries or encode null in literals by specifying map-null-key.mode option.".into()),
                        MapNullKeyMode::Drop => continue,
                        MapNullKeyMode::Literal(literal) => literal.clone(),
                    }
                } else {
                    key_strings.value(k).to_string()
                };
                match order.iter().position(|(existing, _)| *existing == key) {
                    Some(p) => order[p].1 = k,
                    None => order.push((key, k)),
                }
            }
            out.push('{');
            for (n, (key, k)) in order.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                push_string(key, out);
                out.push(':');
                write_value(values, *k, options, out)?;
            }
            out.push('}');
        }
        DataType::Struct(fields) => {
            let row = array
                .as_any()
                .downcast_ref::<StructArray>()
                .ok_or("not a struct")?;
            out.push('{');
            let mut first = true;
            for (f, field) in fields.iter().enumerate() {
                let column = row.column(f);
                if options.ignore_null_fields && column.is_null(i) {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                push_string(field.name(), out);
                out.push(':');
                write_value(column, i, options, out)
                    .map_err(|e| format!("Fail to serialize at field: {}: {e}", field.name()))?;
            }
            out.push('}');
        }
        other => return Err(format!("Not support to parse type: {other}")),
    }
    Ok(())
}

/// A JSON string as Jackson's generator writes it (supplementary characters as surrogate
/// escapes).
fn push_string(s: &str, out: &mut String) {
    super::write_json_string(s, out, true);
}

impl crate::encoder::Encoder for JsonEncoder {
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray> {
        JsonEncoder::encode(self, batch)
    }

    fn schema(&self) -> &SchemaRef {
        JsonEncoder::schema(self)
    }
}
