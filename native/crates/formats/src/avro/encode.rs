//! [`AvroEncoder`]: each row written as the Avro datum Flink writes for it.

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, Decimal128Array, ListArray, MapArray,
    RecordBatch, StructArray,
};
use arrow::datatypes::{
    BinaryType, DataType, Date32Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, SchemaRef, Time32MillisecondType, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, Utf8Type,
};

use super::table::{TableNode, derive, legacy_mapping};
use crate::builder::MessageColumn;
use crate::encoder::Encoder;
use crate::error::{FormatError, Result};
use crate::options::FormatOptions;

fn write_long(v: i64, out: &mut Vec<u8>) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

fn write_bytes(data: &[u8], out: &mut Vec<u8>) {
    write_long(data.len() as i64, out);
    out.extend_from_slice(data);
}

/// Minimal big-endian two's complement, as Java's `BigInteger.toByteArray()`.
fn decimal_bytes(v: i128) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (b, next) = (bytes[start], bytes[start + 1]);
        if (b == 0x00 && next & 0x80 == 0) || (b == 0xFF && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    bytes[start..].to_vec()
}

fn write_value(
    node: &TableNode,
    array: &ArrayRef,
    i: usize,
    out: &mut Vec<u8>,
) -> std::result::Result<(), String> {
    if let TableNode::Nullable(inner) = node {
        if array.is_null(i) {
            write_long(0, out);
            return Ok(());
        }
        write_long(1, out);
        return write_value(inner, array, i, out);
    }
    if array.is_null(i) {
        return Err("a NULL value for a NOT NULL Avro type".into());
    }
    match node {
        TableNode::Boolean => {
            let b = array
                .as_any()
                .downcast_ref::<BooleanArray>()
                .ok_or("not boolean")?;
            out.push(u8::from(b.value(i)));
        }
        TableNode::Int => {
            let v = match array.data_type() {
                DataType::Int8 => i64::from(array.as_primitive::<Int8Type>().value(i)),
                DataType::Int16 => i64::from(array.as_primitive::<Int16Type>().value(i)),
                DataType::Date32 => i64::from(array.as_primitive::<Date32Type>().value(i)),
                DataType::Time32(_) => {
                    i64::from(array.as_primitive::<Time32MillisecondType>().value(i))
                }
                _ => i64::from(array.as_primitive::<Int32Type>().value(i)),
            };
            write_long(v, out);
        }
        TableNode::Long => write_long(array.as_primitive::<Int64Type>().value(i), out),
        TableNode::Float => {
            out.extend_from_slice(&array.as_primitive::<Float32Type>().value(i).to_le_bytes())
        }
        TableNode::Double => {
            out.extend_from_slice(&array.as_primitive::<Float64Type>().value(i).to_le_bytes())
        }
        TableNode::String => write_bytes(array.as_bytes::<Utf8Type>().value(i).as_bytes(), out),
        TableNode::Bytes => write_bytes(array.as_bytes::<BinaryType>().value(i), out),
        TableNode::Decimal(_) => {
            let d = array
                .as_any()
                .downcast_ref::<Decimal128Array>()
                .ok_or("not decimal")?;
            write_bytes(&decimal_bytes(d.value(i)), out);
        }
        TableNode::Timestamp => {
            // Epoch milliseconds, as Flink's `toEpochMilli()` writes even for `-micros` types.
            let millis = match array.data_type() {
                DataType::Timestamp(TimeUnit::Microsecond, _) => array
                    .as_primitive::<TimestampMicrosecondType>()
                    .value(i)
                    .div_euclid(1000),
                _ => array.as_primitive::<TimestampMillisecondType>().value(i),
            };
            write_long(millis, out);
        }
        TableNode::Array(element) => {
            let list = array
                .as_any()
                .downcast_ref::<ListArray>()
                .ok_or("not a list")?;
            let values = list.value(i);
            if !values.is_empty() {
                write_long(values.len() as i64, out);
                for k in 0..values.len() {
                    write_value(element, &values, k, out)?;
                }
            }
            write_long(0, out);
        }
        TableNode::Map(value) => {
            let map = array
                .as_any()
                .downcast_ref::<MapArray>()
                .ok_or("not a map")?;
            let entries = map.value(i);
            if entries.len() > 0 {
                write_long(entries.len() as i64, out);
                let keys = entries.column(0);
                let values = entries.column(1);
                for k in 0..entries.len() {
                    write_value(&TableNode::String, keys, k, out)?;
                    write_value(value, values, k, out)?;
                }
            }
            write_long(0, out);
        }
        TableNode::Record(fields) => {
            let row = array
                .as_any()
                .downcast_ref::<StructArray>()
                .ok_or("not a row")?;
            for ((_, node), column) in fields.iter().zip(row.columns()) {
                write_value(node, column, i, out)?;
            }
        }
        TableNode::Nullable(_) => return Err("a union inside a union".into()),
    }
    Ok(())
}

/// Encodes each row as one Avro datum.
#[derive(Debug)]
pub struct AvroEncoder {
    schema: SchemaRef,
    nodes: Vec<TableNode>,
    /// Bytes written before each datum (Confluent's framing; empty for plain Avro).
    header: Vec<u8>,
}

impl AvroEncoder {
    pub fn try_new(schema: SchemaRef, options: &FormatOptions) -> Result<Self> {
        let legacy = legacy_mapping(options)?;
        Self::with_legacy_mapping(schema, legacy)
    }

    pub(crate) fn with_legacy_mapping(schema: SchemaRef, legacy: bool) -> Result<Self> {
        let nodes = schema
            .fields()
            .iter()
            .map(|f| derive(f, legacy))
            .collect::<Result<_>>()?;
        Ok(Self {
            schema,
            nodes,
            header: Vec::new(),
        })
    }
}

impl AvroEncoder {
    /// Writes `header` before every datum from now on.
    pub(crate) fn set_header(&mut self, header: Vec<u8>) {
        self.header = header;
    }
}

impl Encoder for AvroEncoder {
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray> {
        let mut messages = MessageColumn::with_capacity(batch.num_rows());
        for i in 0..batch.num_rows() {
            messages.bytes().extend_from_slice(&self.header);
            for (c, node) in self.nodes.iter().enumerate() {
                write_value(node, batch.column(c), i, messages.bytes()).map_err(|reason| {
                    FormatError::Encode {
                        row: i,
                        reason: format!("field '{}': {reason}", self.schema.field(c).name()),
                    }
                })?;
            }
            messages.end_message()?;
        }
        messages.finish(None)
    }

    fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::avro::reader::AvroReader;

    #[test]
    fn zigzag_and_decimal_bytes_match_java() {
        let mut out = Vec::new();
        for v in [0i64, -1, 1, -64, 64, i64::MAX, i64::MIN] {
            out.clear();
            write_long(v, &mut out);
            let mut r = AvroReader::new(&out);
            assert_eq!(r.long().unwrap(), v);
        }
        write_long(-64, &mut out);
        assert_eq!(decimal_bytes(0), vec![0]);
        assert_eq!(decimal_bytes(127), vec![0x7f]);
        assert_eq!(decimal_bytes(128), vec![0x00, 0x80]);
        assert_eq!(decimal_bytes(-1), vec![0xff]);
        assert_eq!(decimal_bytes(-129), vec![0xff, 0x7f]);
    }
}
