//! Encoding: each row becomes the bytes protobuf-java's `toByteArray()` gives for the message that
//! Flink's protobuf serializer builds from it, byte for byte.
//!
//! That means: fields in field-number order; a NULL column leaves its field unset; a proto3 field
//! without presence is left out at its default (`0`, `""`, empty bytes, `false`, enum number 0;
//! `-0.0` is written), a field with presence is written whenever its column is not NULL; lists
//! are packed where protobuf-java packs them (proto3 scalars, proto2 `[packed = true]`); a NULL
//! list element, map key or map value is written as its type's default (strings as
//! `protobuf.write-null-string-literal`, enums as their first declared constant, messages
//! empty); an enum name or number the enum does not declare is written as its first declared
//! constant; of several non-NULL members of one oneof, the last in column order is written; map
//! entries carry both key and value and come in the order a `java.util.HashMap` iterates them.

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, GenericListArray, MapArray, RecordBatch,
};
use arrow::datatypes::{
    BinaryType, Float32Type, Float64Type, Int32Type, Int64Type, SchemaRef, Utf8Type,
};
use prost_reflect::Kind;

use super::java_map_order::{JavaKey, iteration_order};
use super::{
    Conv, FieldPlan, MessagePlan, PROTOBUF_OPTION_KEYS, Wire, message_descriptor, plan_message,
};
use crate::builder::MessageColumn;
use crate::encoder::Encoder;
use crate::error::{FormatError, Result};
use crate::options::FormatOptions;

type Write = std::result::Result<(), String>;

/// Encodes rows into protobuf messages of one compiled message type.
#[derive(Debug)]
pub struct ProtobufEncoder {
    schema: SchemaRef,
    plan: MessagePlan,
    /// `protobuf.write-null-string-literal`: what a NULL string element, key or value becomes.
    null_string: String,
}

impl ProtobufEncoder {
    /// An encoder of `message` (its full proto name), defined with its imports in the
    /// `FileDescriptorSet` bytes `descriptors`, from rows of `schema`.
    pub fn try_new(
        schema: SchemaRef,
        descriptors: &[u8],
        message: &str,
        options: &FormatOptions,
    ) -> Result<Self> {
        options.check_keys(PROTOBUF_OPTION_KEYS)?;
        let descriptor = message_descriptor(descriptors, message)?;
        let plan = plan_message(&descriptor, schema.fields().iter().map(Arc::as_ref))?;
        if !plan.unwritten_required.is_empty() {
            return Err(FormatError::config(format!(
                "no column writes the required field(s) {} of {message}, so no row could be \
                 written (Message missing required fields)",
                plan.unwritten_required.join(", ")
            )));
        }
        let null_string = options
            .string("write-null-string-literal")
            .unwrap_or_default()
            .to_string();
        if null_string.contains(['\\', '"']) {
            // Flink writes the literal into the Java source of its generated serializer, where
            // backslashes are escapes and a quote ends the string.
            return Err(FormatError::config(
                "a protobuf.write-null-string-literal holding a backslash or a quote is not \
                 encoded natively: Flink's format reads it as Java source text",
            ));
        }
        Ok(Self {
            schema,
            plan,
            null_string,
        })
    }
}

impl Encoder for ProtobufEncoder {
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray> {
        let mut messages = MessageColumn::with_capacity(batch.num_rows());
        for row in 0..batch.num_rows() {
            write_message(
                &self.plan,
                batch.columns(),
                row,
                &self.null_string,
                messages.bytes(),
            )
            .map_err(|reason| FormatError::Encode {
                row,
                reason: format!("Failed to serialize PB object: {reason}"),
            })?;
            messages.end_message()?;
        }
        messages.finish(None)
    }

    fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

/// Writes the fields of row `row` of `columns` (a batch's, or a ROW column's children).
fn write_message(
    plan: &MessagePlan,
    columns: &[ArrayRef],
    row: usize,
    null_string: &str,
    out: &mut Vec<u8>,
) -> Write {
    if let Some(name) = plan.unwritten_required.first() {
        return Err(missing_required(plan, name));
    }
    for &f in &plan.write_order {
        let field = &plan.fields[f];
        let column = &columns[f];
        if column.is_null(row) {
            if field.required {
                return Err(missing_required(plan, &field.name));
            }
            continue;
        }
        // Setting a oneof member clears the others: the last one set, in column order, stays.
        if let Some(oneof) = field.oneof {
            let last_set = plan.oneofs[oneof]
                .iter()
                .rev()
                .find(|&&member| !columns[member].is_null(row));
            if last_set != Some(&f) {
                continue;
            }
        }
        write_field(field, column, row, null_string, out)
            .map_err(|e| format!("field '{}': {e}", field.name))?;
    }
    Ok(())
}

fn missing_required(plan: &MessagePlan, name: &str) -> String {
    format!(
        "Message missing required fields: {name} (of {})",
        plan.descriptor.full_name()
    )
}

fn write_field(
    field: &FieldPlan,
    column: &ArrayRef,
    row: usize,
    null_string: &str,
    out: &mut Vec<u8>,
) -> Write {
    match &field.conv {
        Conv::List(element) => {
            let list: &GenericListArray<i32> = column.as_list_opt().ok_or("not an ARRAY column")?;
            let offsets = list.value_offsets();
            let (start, end) = (offsets[row] as usize, offsets[row + 1] as usize);
            let values = list.values();
            if start == end {
                return Ok(());
            }
            if field.packed && packable(element) {
                write_tag(field.number, 2, out);
                return length_prefixed(out, |out| {
                    (start..end).try_for_each(|i| {
                        let value = value_of(element, values, i, null_string)?;
                        write_value(value, out);
                        Ok(())
                    })
                });
            }
            (start..end)
                .try_for_each(|i| write_element(field.number, element, values, i, null_string, out))
        }
        Conv::Map(key, value, _) => {
            let map: &MapArray = column.as_map_opt().ok_or("not a MAP column")?;
            let offsets = map.value_offsets();
            let start = offsets[row] as usize;
            let end = offsets[row + 1] as usize;
            let (keys, values) = (map.keys(), map.values());
            let java_keys = (start..end)
                .map(|i| java_key(key, keys, i, null_string))
                .collect::<std::result::Result<Vec<_>, String>>()?;
            for (k, v) in iteration_order(&java_keys) {
                write_tag(field.number, 2, out);
                length_prefixed(out, |out| {
                    write_element(1, key, keys, start + k, null_string, out)?;
                    write_element(2, value, values, start + v, null_string, out)
                })?;
            }
            Ok(())
        }
        conv => {
            if !field.presence && !matches!(conv, Conv::Message(_)) {
                let value = value_of(conv, column, row, null_string)?;
                if !value.is_default() {
                    write_tag(field.number, value.wire_type(), out);
                    write_value(value, out);
                }
                return Ok(());
            }
            write_element(field.number, conv, column, row, null_string, out)
        }
    }
}

/// Writes one value with its tag: a singular field that is set, a list element or a map entry's
/// key or value. A NULL is written as the type's default.
fn write_element(
    number: u32,
    conv: &Conv,
    array: &ArrayRef,
    i: usize,
    null_string: &str,
    out: &mut Vec<u8>,
) -> Write {
    if let Conv::Message(plan) = conv {
        write_tag(number, 2, out);
        if array.is_null(i) {
            // The default instance: an empty message, complete only without required fields.
            if plan.has_required {
                return Err(format!(
                    "Message missing required fields (a NULL {} is written as its default instance)",
                    plan.descriptor.full_name()
                ));
            }
            out.push(0);
            return Ok(());
        }
        let row: &arrow::array::StructArray = array.as_struct_opt().ok_or("not a ROW column")?;
        return length_prefixed(out, |out| {
            write_message(plan, row.columns(), i, null_string, out)
        });
    }
    let value = value_of(conv, array, i, null_string)?;
    write_tag(number, value.wire_type(), out);
    write_value(value, out);
    Ok(())
}

/// The wire value of element `i` of `array`, or of the type's default where it is NULL.
fn value_of<'a>(
    conv: &'a Conv,
    array: &'a ArrayRef,
    i: usize,
    null_string: &'a str,
) -> std::result::Result<Wire<'a>, String> {
    let null = array.is_null(i);
    Ok(match conv {
        Conv::Int32(kind) => {
            let v = if null { 0 } else { int32s(array)?.value(i) };
            match kind {
                Kind::Sint32 => Wire::Varint(u64::from(((v << 1) ^ (v >> 31)) as u32)),
                Kind::Fixed32 | Kind::Sfixed32 => Wire::Fixed32(v as u32),
                Kind::Uint32 => Wire::Varint(u64::from(v as u32)),
                // int32: negative values are sign-extended to ten bytes.
                _ => Wire::Varint(i64::from(v) as u64),
            }
        }
        Conv::Int64(kind) => {
            let v = if null {
                0
            } else {
                array
                    .as_primitive_opt::<Int64Type>()
                    .ok_or("not a BIGINT column")?
                    .value(i)
            };
            match kind {
                Kind::Sint64 => Wire::Varint(((v << 1) ^ (v >> 63)) as u64),
                Kind::Fixed64 | Kind::Sfixed64 => Wire::Fixed64(v as u64),
                _ => Wire::Varint(v as u64),
            }
        }
        Conv::Float => Wire::Fixed32(if null {
            0
        } else {
            array
                .as_primitive_opt::<Float32Type>()
                .ok_or("not a FLOAT column")?
                .value(i)
                .to_bits()
        }),
        Conv::Double => Wire::Fixed64(if null {
            0
        } else {
            array
                .as_primitive_opt::<Float64Type>()
                .ok_or("not a DOUBLE column")?
                .value(i)
                .to_bits()
        }),
        Conv::Bool => Wire::Varint(u64::from(
            !null
                && array
                    .as_any()
                    .downcast_ref::<BooleanArray>()
                    .ok_or("not a BOOLEAN column")?
                    .value(i),
        )),
        Conv::String => Wire::Bytes(if null {
            null_string.as_bytes()
        } else {
            strings(array)?.value(i).as_bytes()
        }),
        Conv::Bytes => Wire::Bytes(if null {
            &[]
        } else {
            array
                .as_bytes_opt::<BinaryType>()
                .ok_or("not a BYTES column")?
                .value(i)
        }),
        Conv::EnumName(values, _) => {
            let first = values.first().map_or(0, |(n, _)| *n);
            let number = if null {
                first
            } else {
                let name = strings(array)?.value(i);
                values
                    .iter()
                    .find(|(_, n)| n == name)
                    .map_or(first, |(number, _)| *number)
            };
            Wire::Varint(i64::from(number) as u64)
        }
        Conv::EnumNumber(values) => {
            let first = values.first().copied().unwrap_or(0);
            let number = if null {
                first
            } else {
                let v = int32s(array)?.value(i);
                if values.contains(&v) { v } else { first }
            };
            Wire::Varint(i64::from(number) as u64)
        }
        Conv::Message(_) | Conv::List(_) | Conv::Map(..) => {
            return Err("a message, list or map is not a scalar".into());
        }
    })
}

fn int32s(array: &ArrayRef) -> std::result::Result<&arrow::array::Int32Array, String> {
    array
        .as_primitive_opt::<Int32Type>()
        .ok_or_else(|| "not an INT column".into())
}

fn strings(array: &ArrayRef) -> std::result::Result<&arrow::array::StringArray, String> {
    array
        .as_bytes_opt::<Utf8Type>()
        .ok_or_else(|| "not a STRING column".into())
}

/// Map key `i` as Java holds it, which decides where the entry goes in a `HashMap`.
fn java_key<'a>(
    conv: &'a Conv,
    keys: &'a ArrayRef,
    i: usize,
    null_string: &'a str,
) -> std::result::Result<JavaKey<'a>, String> {
    Ok(match (conv, value_of(conv, keys, i, null_string)?) {
        (Conv::String, Wire::Bytes(_)) => JavaKey::String(if keys.is_null(i) {
            null_string
        } else {
            strings(keys)?.value(i)
        }),
        (Conv::Bool, Wire::Varint(v)) => JavaKey::Boolean(v != 0),
        (Conv::Int32(_), _) => JavaKey::Int(if keys.is_null(i) {
            0
        } else {
            int32s(keys)?.value(i)
        }),
        (Conv::Int64(_), _) => JavaKey::Long(if keys.is_null(i) {
            0
        } else {
            keys.as_primitive_opt::<Int64Type>()
                .ok_or("not a BIGINT column")?
                .value(i)
        }),
        _ => return Err("a map key must be an integer, a boolean or a string".into()),
    })
}

fn packable(conv: &Conv) -> bool {
    !matches!(
        conv,
        Conv::String | Conv::Bytes | Conv::Message(_) | Conv::List(_) | Conv::Map(..)
    )
}

fn write_value(value: Wire<'_>, out: &mut Vec<u8>) {
    match value {
        Wire::Varint(v) => write_varint(v, out),
        Wire::Fixed32(v) => out.extend_from_slice(&v.to_le_bytes()),
        Wire::Fixed64(v) => out.extend_from_slice(&v.to_le_bytes()),
        Wire::Bytes(b) => {
            write_varint(b.len() as u64, out);
            out.extend_from_slice(b);
        }
    }
}

fn write_tag(number: u32, wire_type: u8, out: &mut Vec<u8>) {
    write_varint(u64::from(number << 3 | u32::from(wire_type)), out);
}

fn write_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Runs `body`, then puts the length of what it wrote in front of it. One byte is set aside
/// first, enough for bodies under 128 bytes; longer ones move up to make room.
fn length_prefixed(out: &mut Vec<u8>, body: impl FnOnce(&mut Vec<u8>) -> Write) -> Write {
    let at = out.len();
    out.push(0);
    body(out)?;
    let length = out.len() - at - 1;
    if length < 0x80 {
        out[at] = length as u8;
    } else {
        let mut prefix = Vec::with_capacity(5);
        write_varint(length as u64, &mut prefix);
        out.splice(at..=at, prefix);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_are_protobufs() {
        let mut out = Vec::new();
        write_varint(300, &mut out);
        assert_eq!(out, [0xac, 0x02]);
        out.clear();
        write_varint(i64::from(-1i32) as u64, &mut out);
        assert_eq!(out.len(), 10);
    }

    #[test]
    fn a_length_goes_in_front_of_its_body() {
        let mut out = vec![9];
        length_prefixed(&mut out, |out| {
            out.extend_from_slice(&[1; 200]);
            Ok(())
        })
        .unwrap();
        assert_eq!(&out[..3], &[9, 0xc8, 0x01]);
        assert_eq!(out.len(), 203);
    }
}
