//! Decoding: each message's fields are collected in one pass, then each column reads its
//! field's occurrences.
//!
//! Values follow Flink 2.2's protobuf format: all 32-bit integer kinds read as INT and 64-bit
//! kinds as BIGINT (unsigned bits kept), enums as their name (STRING) or number (INT), messages as
//! ROW, repeated fields as ARRAY, maps as MAP. Absent fields: in a proto3 message scalars, strings
//! and enums read as their defaults; absent messages, and empty repeated fields and maps, are NULL
//! unless `protobuf.read-default-values` is set (then a row of defaults, an empty array or map); in
//! proto2 an absent field is NULL, or its declared default with `read-default-values`. A singular
//! field that occurs more than once takes its last occurrence (protobuf merges repeated
//! occurrences of a singular message; Flink's writer never produces them).

use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor, Syntax, Value};

use super::{
    Conv, FieldPlan, MessagePlan, PROTOBUF_OPTION_KEYS, Wire, message_descriptor, plan_message,
};
use crate::builder::{ColumnBuilder, Rows};
use crate::decoder::Decoder;
use crate::error::{FormatError, Result};
use crate::options::FormatOptions;

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

type Read<T> = std::result::Result<T, String>;

impl<'a> Cursor<'a> {
    // Inlined, as are `take` and `field`, so that their results stay in registers: returned
    // through memory, a field's number and value were read back in pieces that missed the
    // stores just made, a third of the message loop.
    #[inline(always)]
    fn varint(&mut self) -> Read<u64> {
        // protobuf-java reads a ten-byte varint two ways: with ten bytes left before the end of
        // the message, bit 63 is the ninth byte's continuation bit (so always set) and the tenth
        // byte only has to end the varint; nearer the end, bit 63 is the tenth byte's low bit.
        // Canonical encoders write 0x01 there, where both agree; others get what Flink gets.
        let roomy = self.bytes.len() - self.pos >= 10;
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = *self.bytes.get(self.pos).ok_or("truncated message")?;
            self.pos += 1;
            value |= if shift == 63 && roomy {
                1 << 63
            } else {
                u64::from(b & 0x7f) << shift
            };
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("malformed varint".into())
    }

    #[inline(always)]
    fn take(&mut self, n: usize) -> Read<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or("truncated message")?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    #[inline(always)]
    fn field(&mut self) -> Read<(u32, Wire<'a>)> {
        // Tags are 32-bit: like protobuf-java, keep the low 32 bits of a longer varint.
        let tag = self.varint()? as u32;
        let number = tag >> 3;
        let wire = match tag & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => Wire::Fixed64(u64::from_le_bytes(
                self.take(8)?.try_into().map_err(|_| "truncated")?,
            )),
            2 => {
                let n = usize::try_from(self.varint()?).map_err(|_| "length out of range")?;
                Wire::Bytes(self.take(n)?)
            }
            5 => Wire::Fixed32(u32::from_le_bytes(
                self.take(4)?.try_into().map_err(|_| "truncated")?,
            )),
            other => {
                return Err(format!(
                    "unsupported wire type {other} (groups are not supported)"
                ));
            }
        };
        if number == 0 {
            return Err("field number 0 is invalid".into());
        }
        Ok((number, wire))
    }
}

/// protobuf-java's default recursion limit: a message may nest 100 levels below the top one.
const MAX_DEPTH: usize = 100;

fn check_depth(depth: usize) -> Read<()> {
    if depth > MAX_DEPTH {
        return Err("Protocol message had too many levels of nesting.".into());
    }
    Ok(())
}

/// Checks one occurrence of a known field the table does not read, as protobuf-java's parser
/// would: nested messages are well formed and within the nesting limit, proto3 strings are UTF-8
/// and packed lists are whole. A wire type that does not match the field makes it unknown.
fn check_unread(field: &FieldDescriptor, wire: Wire<'_>, depth: usize) -> Read<()> {
    match wire {
        Wire::Bytes(bytes) => UnreadBytes::of(field).check(bytes, depth),
        _ => Ok(()),
    }
}

/// How protobuf-java checks a length-delimited value of a field while parsing: the value of a
/// field the table does not read is checked so, and not built.
#[derive(Debug, Clone)]
pub(super) enum UnreadBytes {
    Nothing,
    /// A message, checked field by field.
    Message(MessageDescriptor),
    /// A string protobuf-java reads as UTF-8 (proto3's, and map entries' in every syntax).
    Utf8,
    /// A packed list of fixed-width values, each whole.
    Whole(usize),
    /// A packed list of varints.
    Varints,
}

impl UnreadBytes {
    pub(super) fn of(field: &FieldDescriptor) -> Self {
        match field.kind() {
            Kind::Message(message) => Self::Message(message),
            Kind::String
                if field.parent_file().syntax() == Syntax::Proto3
                    || field.parent_message().is_map_entry() =>
            {
                Self::Utf8
            }
            Kind::String | Kind::Bytes => Self::Nothing,
            Kind::Fixed32 | Kind::Sfixed32 | Kind::Float if field.is_list() => Self::Whole(4),
            Kind::Fixed64 | Kind::Sfixed64 | Kind::Double if field.is_list() => Self::Whole(8),
            _ if field.is_list() => Self::Varints,
            _ => Self::Nothing,
        }
    }

    fn check(&self, bytes: &[u8], depth: usize) -> Read<()> {
        match self {
            Self::Nothing => Ok(()),
            Self::Message(message) => check_message(message, bytes, depth + 1),
            Self::Utf8 => {
                if crate::java_utf8::is_utf8(bytes) {
                    Ok(())
                } else {
                    Err("Protocol message had invalid UTF-8.".into())
                }
            }
            Self::Whole(width) => whole_elements(bytes, *width),
            Self::Varints => {
                let mut cursor = Cursor { bytes, pos: 0 };
                while cursor.pos < bytes.len() {
                    cursor.varint()?;
                }
                Ok(())
            }
        }
    }
}

/// Fails on a map entry's string key or value that is not UTF-8.
fn check_entry_string(conv: &Conv, wire: &Wire<'_>) -> Read<()> {
    if let (Conv::String, Wire::Bytes(bytes)) = (conv, wire)
        && !crate::java_utf8::is_utf8(bytes)
    {
        return Err("Protocol message had invalid UTF-8.".into());
    }
    Ok(())
}

fn whole_elements(bytes: &[u8], width: usize) -> Read<()> {
    if bytes.len() % width == 0 {
        Ok(())
    } else {
        Err("truncated message".into())
    }
}

fn check_message(message: &MessageDescriptor, bytes: &[u8], depth: usize) -> Read<()> {
    check_depth(depth)?;
    let mut cursor = Cursor { bytes, pos: 0 };
    while cursor.pos < bytes.len() {
        let (number, wire) = cursor.field()?;
        if let Some(field) = message.get_field(number) {
            check_unread(&field, wire, depth)?;
        }
    }
    Ok(())
}

/// Reads the message `bytes` into one row of `columns` (a struct's children or the batch).
/// `occurrences` is empty scratch space (see [`recycle`]).
fn read_message<'a>(
    plan: &MessagePlan,
    bytes: &'a [u8],
    columns: &mut [ColumnBuilder],
    read_defaults: bool,
    primitives_default: bool,
    depth: usize,
    occurrences: &mut Vec<Occurrence<'a>>,
) -> Read<()> {
    check_depth(depth)?;
    // Every occurrence of a read field, tagged with the field's index. Writers emit fields in
    // number order, so this is usually sorted already.
    let mut cursor = Cursor { bytes, pos: 0 };
    // The member of each oneof met so far: (oneof, field number).
    let mut oneofs_set: Vec<(usize, u32)> = Vec::new();
    while cursor.pos < bytes.len() {
        let (number, wire) = cursor.field()?;
        if !plan.oneof_members.is_empty()
            && let Some(oneof) = plan.oneof_of(number)
        {
            match oneofs_set.iter().find(|(o, _)| *o == oneof) {
                // protobuf-java keeps the member set last and clears the others; such a message
                // is left to Flink's decoder.
                Some((_, first)) if *first != number => {
                    return Err(format!(
                        "fields {first} and {number} are members of one oneof, both set"
                    ));
                }
                Some(_) => {}
                None => oneofs_set.push((oneof, number)),
            }
        }
        if let Some(f) = plan.index_of(number) {
            let field = &plan.fields[f];
            if (wire.wire_type() == field.wire_type || (field.packable && wire.wire_type() == 2))
                && !unknown_closed_enum(&field.conv, plan.proto3, &wire)
            {
                occurrences.push((f, wire));
            }
        } else if let Wire::Bytes(value) = wire {
            plan.unread_bytes(number).check(value, depth)?;
        }
    }
    if !occurrences.is_sorted_by_key(|(f, _)| *f) {
        // Stable: occurrences of one field keep their wire order (the last one wins).
        occurrences.sort_by_key(|(f, _)| *f);
    }
    let mut rest = occurrences.as_slice();
    for (index, (field, column)) in plan.fields.iter().zip(columns.iter_mut()).enumerate() {
        let count = rest.iter().take_while(|(f, _)| *f == index).count();
        let (found, tail) = rest.split_at(count);
        rest = tail;
        read_field(
            field,
            found,
            column,
            plan.proto3,
            read_defaults,
            primitives_default,
            depth,
        )
        .map_err(|e| format!("field {}: {e}", field.number))?;
    }
    Ok(())
}

/// Whether `wire` is a number a proto2 enum (closed: protobuf-java keeps a number it does not
/// declare as an unknown field, so the field reads as absent and a list leaves the element out)
/// does not declare; for a list, of its element's enum.
fn unknown_closed_enum(conv: &Conv, proto3: bool, wire: &Wire<'_>) -> bool {
    let Wire::Varint(v) = wire else {
        return false;
    };
    let number = *v as i32;
    match conv {
        _ if proto3 => false,
        Conv::EnumName(values, _) => !values.iter().any(|(n, _)| *n == number),
        Conv::EnumNumber(values) => !values.contains(&number),
        Conv::List(element) => unknown_closed_enum(element, proto3, wire),
        _ => false,
    }
}

/// One occurrence of a field: the field's index in its message plan, and its value.
type Occurrence<'a> = (usize, Wire<'a>);

/// `occurrences`, emptied, for values borrowed from other bytes: the allocation is kept (the
/// standard library collects a vector's iterator into the same allocation where it can).
fn recycle<'b>(mut occurrences: Vec<Occurrence<'_>>) -> Vec<Occurrence<'b>> {
    occurrences.clear();
    occurrences
        .into_iter()
        .map(|(f, _)| (f, Wire::Varint(0)))
        .collect()
}

fn read_field(
    field: &FieldPlan,
    found: &[Occurrence<'_>],
    column: &mut ColumnBuilder,
    proto3: bool,
    read_defaults: bool,
    primitives_default: bool,
    depth: usize,
) -> Read<()> {
    match &field.conv {
        Conv::List(element) => {
            let ColumnBuilder::List { element: child, .. } = column else {
                return Err("not an ARRAY column".into());
            };
            let before = child.len();
            for (_, wire) in found {
                match (wire, element.as_ref()) {
                    // Packed scalars: one length-delimited run of values.
                    (Wire::Bytes(run), conv) if is_packable(conv) => {
                        let mut c = Cursor { bytes: run, pos: 0 };
                        while c.pos < run.len() {
                            let value = match packed_width(conv) {
                                4 => Wire::Fixed32(u32::from_le_bytes(
                                    c.take(4)?.try_into().map_err(|_| "truncated")?,
                                )),
                                8 => Wire::Fixed64(u64::from_le_bytes(
                                    c.take(8)?.try_into().map_err(|_| "truncated")?,
                                )),
                                _ => Wire::Varint(c.varint()?),
                            };
                            if !unknown_closed_enum(element, proto3, &value) {
                                push_scalar(element, value, child, proto3, read_defaults, depth)?;
                            }
                        }
                    }
                    (wire, _) => push_scalar(element, *wire, child, proto3, read_defaults, depth)?,
                }
            }
            if child.len() == before && !read_defaults {
                column.push_null();
            } else {
                column.end_nested_value();
            }
        }
        Conv::Map(key, value, wires) => {
            let ColumnBuilder::Map { keys, values, .. } = column else {
                return Err("not a MAP column".into());
            };
            let mut entries = 0usize;
            for (_, wire) in found {
                let Wire::Bytes(entry) = wire else {
                    return Err("a map entry that is not length-delimited".into());
                };
                // An entry is a message of two fields: a wrong wire type makes one unknown.
                let (mut k, mut v) = (None, Vec::new());
                let mut c = Cursor {
                    bytes: entry,
                    pos: 0,
                };
                while c.pos < entry.len() {
                    match c.field()? {
                        (1, w) if w.wire_type() == wires[0] => k = Some(w),
                        (2, w) if w.wire_type() == wires[1] => v.push((0, w)),
                        _ => {}
                    }
                }
                // protobuf-java checks the strings of map entries in every syntax.
                if let Some(wire) = &k {
                    check_entry_string(key, wire)?;
                }
                for (_, wire) in &v {
                    check_entry_string(value, wire)?;
                }
                // An entry whose value a closed enum does not declare is an unknown field.
                if v.last()
                    .is_some_and(|(_, w)| unknown_closed_enum(value, proto3, w))
                {
                    continue;
                }
                entries += 1;
                push_or_default(key, k, keys, proto3, read_defaults, depth)?;
                // The entry is one level of nesting; a message value is the next.
                let merged = merge_messages(value, &v);
                let v = merged
                    .as_deref()
                    .map(Wire::Bytes)
                    .or(v.last().map(|(_, w)| *w));
                push_or_default(value, v, values, proto3, read_defaults, depth + 1)?;
            }
            if entries == 0 && !read_defaults {
                column.push_null();
            } else {
                column.end_nested_value();
            }
        }
        // A singular message seen more than once is the merge of all occurrences.
        Conv::Message(_) if found.len() > 1 => {
            let merged = merge_messages(&field.conv, found).unwrap_or_default();
            let wire = Wire::Bytes(&merged);
            push_scalar(&field.conv, wire, column, proto3, read_defaults, depth)?
        }
        Conv::Message(plan) => match found.last() {
            Some((_, wire)) => {
                push_scalar(&field.conv, *wire, column, proto3, read_defaults, depth)?
            }
            None if read_defaults => push_default_row(plan, column, depth)?,
            None => column.push_null(),
        },
        conv => match found.last() {
            Some((_, wire)) => push_scalar(conv, *wire, column, proto3, read_defaults, depth)?,
            // protobuf-java's getter: the declared default (proto2), else the type's default.
            None if primitives_default => {
                push_default(conv, field.declared_default.as_ref(), column)?
            }
            None => column.push_null(),
        },
    }
    Ok(())
}

fn is_packable(conv: &Conv) -> bool {
    matches!(
        conv,
        Conv::Int32(_)
            | Conv::Int64(_)
            | Conv::Float
            | Conv::Double
            | Conv::Bool
            | Conv::EnumName(..)
            | Conv::EnumNumber(_)
    )
}

fn packed_width(conv: &Conv) -> usize {
    match conv {
        Conv::Float | Conv::Int32(Kind::Sfixed32 | Kind::Fixed32) => 4,
        Conv::Double | Conv::Int64(Kind::Sfixed64 | Kind::Fixed64) => 8,
        _ => 0,
    }
}

fn push_or_default(
    conv: &Conv,
    wire: Option<Wire<'_>>,
    column: &mut ColumnBuilder,
    proto3: bool,
    read_defaults: bool,
    depth: usize,
) -> Read<()> {
    match (wire, conv) {
        (Some(w), _) => push_scalar(conv, w, column, proto3, read_defaults, depth),
        (None, Conv::Message(plan)) => push_default_row(plan, column, depth),
        (None, _) => push_default(conv, None, column),
    }
}

fn push_scalar(
    conv: &Conv,
    wire: Wire<'_>,
    column: &mut ColumnBuilder,
    proto3: bool,
    read_defaults: bool,
    depth: usize,
) -> Read<()> {
    let mismatch = || format!("wire type {wire:?} does not fit the field");
    match (conv, wire, column) {
        (Conv::Int32(kind), w, ColumnBuilder::Int32(c)) => c.push(match (kind, w) {
            // Like protobuf-java: keep the low 32 bits, then undo the zigzag.
            (Kind::Sint32, Wire::Varint(v)) => ((v as u32 >> 1) as i32) ^ -((v as u32 & 1) as i32),
            (_, Wire::Varint(v)) => v as i32,
            (_, Wire::Fixed32(v)) => v as i32,
            _ => return Err(mismatch()),
        }),
        (Conv::Int64(kind), w, ColumnBuilder::Int64(c)) => c.push(match (kind, w) {
            (Kind::Sint64, Wire::Varint(v)) => ((v >> 1) as i64) ^ -((v & 1) as i64),
            (_, Wire::Varint(v)) => v as i64,
            (_, Wire::Fixed64(v)) => v as i64,
            _ => return Err(mismatch()),
        }),
        (Conv::Float, Wire::Fixed32(v), ColumnBuilder::Float32(c)) => c.push(f32::from_bits(v)),
        (Conv::Double, Wire::Fixed64(v), ColumnBuilder::Float64(c)) => c.push(f64::from_bits(v)),
        (Conv::Bool, Wire::Varint(v), c) => c.push_bool(v != 0),
        (Conv::String, Wire::Bytes(b), ColumnBuilder::Bytes(c)) => {
            let text = if proto3 {
                if !crate::java_utf8::is_utf8(b) {
                    return Err("Protocol message had invalid UTF-8.".into());
                }
                std::borrow::Cow::Borrowed(b)
            } else {
                // proto2 strings are read by Java's UTF-8 decoder, which replaces what is not
                // UTF-8 by its own rules.
                crate::java_utf8::decode_bytes(b)
            };
            c.push(&text).map_err(|e| e.to_string())?
        }
        (Conv::Bytes, Wire::Bytes(b), ColumnBuilder::Bytes(c)) => {
            c.push(b).map_err(|e| e.to_string())?
        }
        (Conv::EnumName(values, _), Wire::Varint(v), ColumnBuilder::Bytes(c)) => {
            let number = v as i32;
            let name = values
                .iter()
                .find(|(n, _)| *n == number)
                .map_or("UNRECOGNIZED", |(_, s)| s.as_str());
            c.push(name.as_bytes()).map_err(|e| e.to_string())?
        }
        (Conv::EnumNumber(values), Wire::Varint(v), ColumnBuilder::Int32(c)) => {
            let number = v as i32;
            if !values.contains(&number) {
                return Err("Can't get the number of an unknown enum value.".into());
            }
            c.push(number)
        }
        (Conv::Message(plan), Wire::Bytes(b), column) => {
            let ColumnBuilder::Struct { fields, .. } = column else {
                return Err("not a ROW column".into());
            };
            // Inside a message, proto3 defaults follow the top-level file's syntax, as in Flink.
            read_message(
                plan,
                b,
                fields,
                read_defaults,
                proto3 || read_defaults,
                depth + 1,
                &mut Vec::new(),
            )?;
            column.end_nested_value();
        }
        _ => return Err(mismatch()),
    }
    Ok(())
}

/// For a message field seen more than once, their merge: reading the concatenation of the
/// occurrences gives what protobuf-java's merging gives. `None` for other fields or one occurrence.
fn merge_messages(conv: &Conv, found: &[Occurrence<'_>]) -> Option<Vec<u8>> {
    if !matches!(conv, Conv::Message(_)) || found.len() < 2 {
        return None;
    }
    let mut merged = Vec::new();
    for (_, wire) in found {
        if let Wire::Bytes(b) = wire {
            merged.extend_from_slice(b);
        }
    }
    Some(merged)
}

/// The value an absent field reads as: its declared default (proto2), else the type's default.
fn push_default(conv: &Conv, declared: Option<&Value>, column: &mut ColumnBuilder) -> Read<()> {
    match (conv, column) {
        (Conv::Int32(_), ColumnBuilder::Int32(c)) => c.push(match declared {
            Some(Value::I32(v)) => *v,
            Some(Value::U32(v)) => *v as i32,
            _ => 0,
        }),
        (Conv::Int64(_), ColumnBuilder::Int64(c)) => c.push(match declared {
            Some(Value::I64(v)) => *v,
            Some(Value::U64(v)) => *v as i64,
            _ => 0,
        }),
        (Conv::Float, ColumnBuilder::Float32(c)) => c.push(match declared {
            Some(Value::F32(v)) => *v,
            _ => 0.0,
        }),
        (Conv::Double, ColumnBuilder::Float64(c)) => c.push(match declared {
            Some(Value::F64(v)) => *v,
            _ => 0.0,
        }),
        (Conv::Bool, c) => c.push_bool(matches!(declared, Some(Value::Bool(true)))),
        (Conv::String, ColumnBuilder::Bytes(c)) => c
            .push(match declared {
                Some(Value::String(s)) => s.as_bytes(),
                _ => b"",
            })
            .map_err(|e| e.to_string())?,
        (Conv::Bytes, ColumnBuilder::Bytes(c)) => c
            .push(match declared {
                Some(Value::Bytes(b)) => b,
                _ => &[],
            })
            .map_err(|e| e.to_string())?,
        (Conv::EnumName(values, first), ColumnBuilder::Bytes(c)) => {
            let name = match declared {
                Some(Value::EnumNumber(n)) => values
                    .iter()
                    .find(|(v, _)| v == n)
                    .map_or(first.as_str(), |(_, s)| s.as_str()),
                _ => first.as_str(),
            };
            c.push(name.as_bytes()).map_err(|e| e.to_string())?
        }
        (Conv::EnumNumber(values), ColumnBuilder::Int32(c)) => c.push(match declared {
            Some(Value::EnumNumber(n)) => *n,
            _ => values.first().copied().unwrap_or(0),
        }),
        _ => return Err("no default for this column".into()),
    }
    Ok(())
}

/// A row of defaults, recursively (what protobuf-java's default instance shows).
fn push_default_row(plan: &MessagePlan, column: &mut ColumnBuilder, depth: usize) -> Read<()> {
    if depth > 100 {
        return Err("recursive message defaults nest deeper than 100 levels".into());
    }
    let ColumnBuilder::Struct { fields, .. } = column else {
        return Err("not a ROW column".into());
    };
    for (field, child) in plan.fields.iter().zip(fields.iter_mut()) {
        match &field.conv {
            Conv::Message(inner) => push_default_row(inner, child, depth + 1)?,
            Conv::List(_) | Conv::Map(..) => child.end_nested_value(),
            conv => push_default(conv, field.declared_default.as_ref(), child)?,
        }
    }
    column.end_nested_value();
    Ok(())
}

/// Decodes one protobuf message per Kafka record into rows of the table.
#[derive(Debug)]
pub struct ProtobufDecoder {
    schema: SchemaRef,
    plan: MessagePlan,
    read_defaults: bool,
    ignore_parse_errors: bool,
    rows: Rows,
    /// The top-level message's occurrences, kept from message to message.
    occurrences: Vec<Occurrence<'static>>,
}

impl ProtobufDecoder {
    /// A decoder of `message` (its full proto name) from the `FileDescriptorSet` bytes that
    /// define it and its imports, producing `schema`.
    pub fn try_new(
        schema: SchemaRef,
        descriptors: &[u8],
        message: &str,
        options: &FormatOptions,
    ) -> Result<Self> {
        options.check_keys(PROTOBUF_OPTION_KEYS)?;
        let descriptor = message_descriptor(descriptors, message)?;
        let plan = plan_message(&descriptor, schema.fields().iter().map(Arc::as_ref))?;
        Ok(Self {
            rows: Rows::try_new(schema.clone())?,
            schema,
            plan,
            read_defaults: options.boolean("read-default-values", false)?,
            ignore_parse_errors: options.boolean("ignore-parse-errors", false)?,
            occurrences: Vec::new(),
        })
    }
}

impl Decoder for ProtobufDecoder {
    fn decode(&mut self, message: Option<&[u8]>) -> Result<()> {
        let position = self.rows.next_message();
        let mut occurrences = recycle(std::mem::take(&mut self.occurrences));
        let result = match message {
            None => Err("the message is null".to_string()),
            Some(bytes) => read_message(
                &self.plan,
                bytes,
                self.rows.columns(),
                self.read_defaults,
                self.plan.proto3 || self.read_defaults,
                0,
                &mut occurrences,
            ),
        };
        self.occurrences = recycle(occurrences);
        self.rows.end_row(result).or_else(|reason| {
            if self.ignore_parse_errors {
                self.rows.skip();
                Ok(())
            } else {
                Err(FormatError::Decode {
                    position,
                    reason: format!("Failed to deserialize PB object: {reason}"),
                })
            }
        })
    }

    fn flush(&mut self) -> Result<RecordBatch> {
        self.rows.flush()
    }

    fn pending_rows(&self) -> usize {
        self.rows.pending()
    }

    fn skipped(&self) -> usize {
        self.rows.skipped()
    }

    fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int32Array, Int64Array, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    use prost_reflect::prost::Message;
    use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
    use prost_reflect::prost_types::{
        DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet,
        OneofDescriptorProto,
    };

    /// proto3 `t.M { int64 a = 1; string b = 2; int32 c = 3; }`, and `t.O`, the same fields with
    /// `b` and `c` in `oneof choice`.
    fn descriptors() -> Vec<u8> {
        let field = |name: &str, number: i32, kind: Type| FieldDescriptorProto {
            name: Some(name.into()),
            number: Some(number),
            label: Some(Label::Optional as i32),
            r#type: Some(kind as i32),
            json_name: Some(name.into()),
            ..Default::default()
        };
        let file = FileDescriptorProto {
            name: Some("t.proto".into()),
            package: Some("t".into()),
            syntax: Some("proto3".into()),
            message_type: vec![DescriptorProto {
                name: Some("M".into()),
                field: vec![
                    field("a", 1, Type::Int64),
                    field("b", 2, Type::String),
                    field("c", 3, Type::Int32),
                ],
                ..Default::default()
            }],
            ..Default::default()
        };
        let member = |name: &str, number: i32, kind: Type| FieldDescriptorProto {
            oneof_index: Some(0),
            ..field(name, number, kind)
        };
        let mut file = file;
        file.message_type.push(DescriptorProto {
            name: Some("O".into()),
            field: vec![
                field("a", 1, Type::Int64),
                member("b", 2, Type::String),
                member("c", 3, Type::Int32),
            ],
            oneof_decl: vec![OneofDescriptorProto {
                name: Some("choice".into()),
                ..Default::default()
            }],
            ..Default::default()
        });
        FileDescriptorSet { file: vec![file] }.encode_to_vec()
    }

    fn decoder(columns: &[(&str, DataType)]) -> ProtobufDecoder {
        decoder_of("t.M", columns)
    }

    fn decoder_of(message: &str, columns: &[(&str, DataType)]) -> ProtobufDecoder {
        let schema = Schema::new(
            columns
                .iter()
                .map(|(name, t)| Field::new(*name, t.clone(), true))
                .collect::<Vec<_>>(),
        );
        ProtobufDecoder::try_new(
            Arc::new(schema),
            &descriptors(),
            message,
            &FormatOptions::default(),
        )
        .unwrap()
    }

    // Fields as protobuf writes them: a = 1 (varint), b = 2 (bytes), c = 3 (varint), 7 unknown.
    fn a(v: u8) -> Vec<u8> {
        vec![0x08, v]
    }
    fn b(text: &[u8]) -> Vec<u8> {
        [&[0x12, text.len() as u8][..], text].concat()
    }
    fn c(v: u8) -> Vec<u8> {
        vec![0x18, v]
    }

    #[test]
    fn fields_out_of_order_repeated_absent_or_unknown_read_as_protobuf_java_reads_them() {
        let mut decoder = decoder(&[
            ("a", DataType::Int64),
            ("b", DataType::Utf8),
            ("c", DataType::Int32),
        ]);
        let messages = [
            [a(5), b(b"x"), c(1)].concat(),
            // out of field-number order
            [b(b"y"), a(6)].concat(),
            // a singular field twice: the last one wins
            [a(1), b(b"z"), a(9)].concat(),
            // a field between two others absent, an unknown field read past
            [a(3), vec![0x38, 0x01], c(4)].concat(),
            // the first field in order, then one that goes back
            [a(2), c(8), b(b"w")].concat(),
        ];
        for message in &messages {
            decoder.decode(Some(message)).unwrap();
        }
        let batch = decoder.flush().unwrap();
        assert_eq!(
            batch.column(0).as_ref(),
            &Int64Array::from(vec![5, 6, 9, 3, 2]) as &dyn arrow::array::Array
        );
        assert_eq!(
            batch.column(1).as_ref(),
            &StringArray::from(vec!["x", "y", "z", "", "w"]) as &dyn arrow::array::Array
        );
        assert_eq!(
            batch.column(2).as_ref(),
            &Int32Array::from(vec![1, 0, 0, 4, 8]) as &dyn arrow::array::Array
        );
    }

    #[test]
    fn two_members_of_one_oneof_in_a_message_are_left_to_protobuf_java() {
        // protobuf-java keeps the member set last and clears the other, read or not.
        for columns in [
            &[("b", DataType::Utf8), ("c", DataType::Int32)][..],
            &[("b", DataType::Utf8)],
            &[("a", DataType::Int64), ("c", DataType::Int32)],
        ] {
            let mut decoder = decoder_of("t.O", columns);
            decoder.decode(Some(&[a(1), b(b"x")].concat())).unwrap();
            decoder.decode(Some(&[c(4), c(5), a(2)].concat())).unwrap();
            for both in [[b(b"x"), c(4)].concat(), [c(4), a(3), b(b"x")].concat()] {
                let err = decoder.decode(Some(&both)).unwrap_err().to_string();
                assert!(err.contains("members of one oneof, both set"), "{err}");
            }
            assert_eq!(decoder.flush().unwrap().num_rows(), 2);
        }
        // A table reading no member of the oneof reads such a message as it is.
        let mut decoder = decoder_of("t.O", &[("a", DataType::Int64)]);
        decoder
            .decode(Some(&[a(7), b(b"x"), c(4)].concat()))
            .unwrap();
        assert_eq!(
            decoder.flush().unwrap().column(0).as_ref(),
            &Int64Array::from(vec![7]) as &dyn arrow::array::Array
        );
    }

    #[test]
    fn columns_in_another_order_than_the_fields_read_the_same() {
        let mut decoder = decoder(&[("c", DataType::Int32), ("a", DataType::Int64)]);
        decoder
            .decode(Some(&[a(5), b(b"x"), c(1)].concat()))
            .unwrap();
        decoder.decode(Some(&[c(2), a(7)].concat())).unwrap();
        let batch = decoder.flush().unwrap();
        assert_eq!(
            batch.column(0).as_ref(),
            &Int32Array::from(vec![1, 2]) as &dyn arrow::array::Array
        );
        assert_eq!(
            batch.column(1).as_ref(),
            &Int64Array::from(vec![5, 7]) as &dyn arrow::array::Array
        );
    }

    #[test]
    fn a_message_failing_after_some_fields_leaves_no_partial_row_and_names_its_error() {
        let mut decoder = decoder(&[
            ("a", DataType::Int64),
            ("b", DataType::Utf8),
            ("c", DataType::Int32),
        ]);
        decoder
            .decode(Some(&[a(1), b(b"ok"), c(1)].concat()))
            .unwrap();
        let invalid = decoder
            .decode(Some(&[a(2), b(b"\xff"), c(2)].concat()))
            .unwrap_err();
        assert!(
            invalid
                .to_string()
                .contains("field 2: Protocol message had invalid UTF-8."),
            "{invalid}"
        );
        let truncated = decoder
            .decode(Some(&[a(3), vec![0x12, 0x09, b'x']].concat()))
            .unwrap_err();
        assert!(
            truncated.to_string().contains("truncated message"),
            "{truncated}"
        );
        decoder
            .decode(Some(&[a(4), b(b"next"), c(4)].concat()))
            .unwrap();
        let batch = decoder.flush().unwrap();
        assert_eq!(batch.num_rows(), 2);
        assert_eq!(
            batch.column(1).as_ref(),
            &StringArray::from(vec!["ok", "next"]) as &dyn arrow::array::Array
        );
    }
}
