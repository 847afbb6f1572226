//! Flink's `protobuf` format: protobuf wire bytes walked straight into Arrow columns and back,
//! guided by the message's descriptor (a `FileDescriptorSet` the caller takes from the compiled
//! message class named by `protobuf.message-class-name`).
//!
//! Columns match proto fields by name (any subset, any order, at any depth). One plan per message
//! type pairs each column with its field and says how values convert; the decoder
//! ([`ProtobufDecoder`]) and the encoder ([`ProtobufEncoder`]) share it, so both accept exactly
//! the same tables.

mod decode;
mod encode;
mod java_map_order;

pub use decode::ProtobufDecoder;
pub use encode::ProtobufEncoder;

use arrow::datatypes::{DataType, Field};
use prost_reflect::{
    Cardinality, DescriptorPool, FieldDescriptor, Kind, MessageDescriptor, Syntax, Value,
};

use crate::builder::map_fields;
use crate::error::{FormatError, Result};

/// Every option key of Flink's `protobuf` format (without the `protobuf.` prefix).
pub const PROTOBUF_OPTION_KEYS: &[&str] = &[
    "message-class-name",
    "ignore-parse-errors",
    "read-default-values",
    "write-null-string-literal",
];

/// How one column reads its proto field.
#[derive(Debug)]
enum Conv {
    Int32(Kind),
    Int64(Kind),
    Float,
    Double,
    Bool,
    String,
    Bytes,
    EnumName(Vec<(i32, String)>, String),
    EnumNumber(Vec<i32>),
    Message(Box<MessagePlan>),
    List(Box<Conv>),
    /// Key and value, and the wire types of the entry's key and value fields.
    Map(Box<Conv>, Box<Conv>, [u8; 2]),
}

#[derive(Debug)]
struct FieldPlan {
    number: u32,
    conv: Conv,
    /// The wire type of the field's values (0, 1, 2 or 5), and whether a packed list (wire type
    /// 2) is accepted too; other occurrences are unknown fields to protobuf-java, and skipped.
    wire_type: u8,
    packable: bool,
    /// The value read for an absent scalar under `read-default-values` in proto2.
    declared_default: Option<Value>,
    name: String,
    /// Whether the field tracks presence (proto2 optional, proto3 `optional`, messages, oneof
    /// members): such a field is written whenever its column is not NULL, even at its default.
    presence: bool,
    /// Whether a list is written packed.
    packed: bool,
    /// The field's (real) oneof, as an index into [`MessagePlan::oneofs`].
    oneof: Option<usize>,
    required: bool,
}

#[derive(Debug)]
struct MessagePlan {
    fields: Vec<FieldPlan>,
    /// Field number to index in `fields` (numbers are small; a dense table).
    by_number: Vec<Option<usize>>,
    /// Read fields numbered past `DENSE_NUMBERS`, by number (sorted), so a large field number
    /// cannot blow up the dense table.
    sparse: Vec<(u32, usize)>,
    proto3: bool,
    /// The message's descriptor: fields the table does not read are still checked as
    /// protobuf-java parses them, so a message Flink rejects is rejected here too.
    descriptor: MessageDescriptor,
    /// How the length-delimited values of the declared fields no column reads are checked, by
    /// field number (sorted; fields with nothing to check are left out).
    unread: Vec<(u32, decode::UnreadBytes)>,
    /// Indices into `fields` in field-number order, the order protobuf-java writes them.
    write_order: Vec<usize>,
    /// The members of each oneof the table writes, as indices into `fields` in column order.
    oneofs: Vec<Vec<usize>>,
    /// Every member (read or not) of the oneofs the table reads a member of, by field number
    /// (sorted), with the index of its oneof in the message.
    oneof_members: Vec<(u32, usize)>,
    /// Proto2 `required` fields of the message that no column writes.
    unwritten_required: Vec<String>,
    /// Whether the message has `required` fields at all (its default instance is then not a
    /// complete message).
    has_required: bool,
}

/// Field numbers below this are looked up in a dense table; protobuf allows up to 2^29 - 1.
const DENSE_NUMBERS: usize = 4096;

impl MessagePlan {
    /// The index in `fields` of the read field numbered `number`, if the table reads it.
    fn index_of(&self, number: u32) -> Option<usize> {
        match self.by_number.get(number as usize) {
            Some(index) => *index,
            None => self
                .sparse
                .binary_search_by_key(&number, |(n, _)| *n)
                .ok()
                .map(|at| self.sparse[at].1),
        }
    }

    /// The oneof (its index in the message) the field numbered `number` is a member of, if the
    /// table reads a member of that oneof.
    fn oneof_of(&self, number: u32) -> Option<usize> {
        self.oneof_members
            .binary_search_by_key(&number, |(n, _)| *n)
            .ok()
            .map(|at| self.oneof_members[at].1)
    }

    /// How a length-delimited value of the unread field numbered `number` is checked.
    fn unread_bytes(&self, number: u32) -> &decode::UnreadBytes {
        match self.unread.binary_search_by_key(&number, |(n, _)| *n) {
            Ok(at) => &self.unread[at].1,
            Err(_) => &decode::UnreadBytes::Nothing,
        }
    }
}

fn incompatible(kind: &Kind, data_type: &DataType, name: &str) -> FormatError {
    FormatError::config(format!(
        "{}(protobuf) is not compatible of {data_type} (column '{name}')",
        kind_name(kind)
    ))
}

fn kind_name(kind: &Kind) -> String {
    match kind {
        Kind::Message(m) => m.full_name().to_string(),
        Kind::Enum(e) => e.full_name().to_string(),
        other => format!("{other:?}").to_uppercase(),
    }
}

fn scalar_conv(kind: Kind, data_type: &DataType, name: &str) -> Result<Conv> {
    Ok(match (&kind, data_type) {
        (
            Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 | Kind::Uint32 | Kind::Fixed32,
            DataType::Int32,
        ) => Conv::Int32(kind),
        (
            Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 | Kind::Uint64 | Kind::Fixed64,
            DataType::Int64,
        ) => Conv::Int64(kind),
        (Kind::Float, DataType::Float32) => Conv::Float,
        (Kind::Double, DataType::Float64) => Conv::Double,
        (Kind::Bool, DataType::Boolean) => Conv::Bool,
        (Kind::String, DataType::Utf8) => Conv::String,
        (Kind::Bytes, DataType::Binary) => Conv::Bytes,
        (Kind::Enum(e), DataType::Utf8) => Conv::EnumName(
            e.values()
                .map(|v| (v.number(), v.name().to_string()))
                .collect(),
            e.default_value().name().to_string(),
        ),
        (Kind::Enum(e), DataType::Int32) => {
            Conv::EnumNumber(e.values().map(|v| v.number()).collect())
        }
        (Kind::Message(m), DataType::Struct(fields)) => Conv::Message(Box::new(plan_message(
            m,
            fields.iter().map(|f| f.as_ref()),
        )?)),
        _ => return Err(incompatible(&kind, data_type, name)),
    })
}

fn field_conv(field: &FieldDescriptor, column: &Field) -> Result<Conv> {
    let name = column.name();
    if field.is_map() {
        let DataType::Map(entries, _) = column.data_type() else {
            return Err(incompatible(&field.kind(), column.data_type(), name));
        };
        let (key, value) = map_fields(entries)?;
        let Kind::Message(entry) = field.kind() else {
            return Err(FormatError::config(format!(
                "map field '{name}' has no entry message"
            )));
        };
        return Ok(Conv::Map(
            Box::new(scalar_conv(
                entry.map_entry_key_field().kind(),
                key.data_type(),
                name,
            )?),
            Box::new(scalar_conv(
                entry.map_entry_value_field().kind(),
                value.data_type(),
                name,
            )?),
            [
                wire_type_of(&entry.map_entry_key_field().kind()),
                wire_type_of(&entry.map_entry_value_field().kind()),
            ],
        ));
    }
    if field.is_list() {
        let DataType::List(element) = column.data_type() else {
            return Err(incompatible(&field.kind(), column.data_type(), name));
        };
        return Ok(Conv::List(Box::new(scalar_conv(
            field.kind(),
            element.data_type(),
            name,
        )?)));
    }
    scalar_conv(field.kind(), column.data_type(), name)
}

fn plan_message<'a>(
    message: &MessageDescriptor,
    columns: impl Iterator<Item = &'a Field>,
) -> Result<MessagePlan> {
    let mut fields = Vec::new();
    let mut by_number: Vec<Option<usize>> = Vec::new();
    let mut sparse = Vec::new();
    let mut oneofs: Vec<(String, Vec<usize>)> = Vec::new();
    for column in columns {
        let field = message.get_field_by_name(column.name()).ok_or_else(|| {
            FormatError::config(format!(
                "Column {} does not exists in definition of proto class {}.",
                column.name(),
                message.full_name()
            ))
        })?;
        let number = field.number() as usize;
        if number < DENSE_NUMBERS {
            if number >= by_number.len() {
                by_number.resize(number + 1, None);
            }
            by_number[number] = Some(fields.len());
        } else {
            sparse.push((field.number(), fields.len()));
        }
        let wire_type = wire_type_of(&field.kind());
        let oneof = field
            .containing_oneof()
            .filter(|o| !o.is_synthetic())
            .map(
                |o| match oneofs.iter().position(|(name, _)| *name == o.name()) {
                    Some(at) => at,
                    None => {
                        oneofs.push((o.name().to_string(), Vec::new()));
                        oneofs.len() - 1
                    }
                },
            );
        if let Some(at) = oneof {
            oneofs[at].1.push(fields.len());
        }
        fields.push(FieldPlan {
            number: field.number(),
            conv: field_conv(&field, column)?,
            wire_type,
            packable: field.is_list() && wire_type != 2,
            declared_default: (!field.is_list() && !field.is_map()).then(|| field.default_value()),
            name: field.name().to_string(),
            presence: field.supports_presence(),
            packed: field.is_packed(),
            oneof,
            required: field.cardinality() == Cardinality::Required,
        });
    }
    let mut write_order: Vec<usize> = (0..fields.len()).collect();
    write_order.sort_by_key(|&f| fields[f].number);
    let required: Vec<FieldDescriptor> = message
        .fields()
        .filter(|f| f.cardinality() == Cardinality::Required)
        .collect();
    let unwritten_required = required
        .iter()
        .filter(|f| !fields.iter().any(|p| p.number == f.number()))
        .map(|f| f.name().to_string())
        .collect();
    let mut unread: Vec<(u32, decode::UnreadBytes)> = message
        .fields()
        .filter(|f| !fields.iter().any(|p| p.number == f.number()))
        .map(|f| (f.number(), decode::UnreadBytes::of(&f)))
        .filter(|(_, check)| !matches!(check, decode::UnreadBytes::Nothing))
        .collect();
    unread.sort_unstable_by_key(|(n, _)| *n);
    let read_oneofs: Vec<String> = oneofs.iter().map(|(name, _)| name.clone()).collect();
    let mut oneof_members: Vec<(u32, usize)> = message
        .oneofs()
        .enumerate()
        .filter(|(_, o)| !o.is_synthetic() && read_oneofs.iter().any(|name| name == o.name()))
        .flat_map(|(at, o)| {
            o.fields()
                .map(move |f| (f.number(), at))
                .collect::<Vec<_>>()
        })
        .collect();
    oneof_members.sort_unstable();
    Ok(MessagePlan {
        oneof_members,
        unread,
        fields,
        by_number,
        sparse: {
            sparse.sort_unstable();
            sparse
        },
        proto3: message.parent_file().syntax() == Syntax::Proto3,
        descriptor: message.clone(),
        write_order,
        oneofs: oneofs.into_iter().map(|(_, members)| members).collect(),
        unwritten_required,
        has_required: !required.is_empty(),
    })
}

fn wire_type_of(kind: &Kind) -> u8 {
    match kind {
        Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => 1,
        Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => 5,
        Kind::String | Kind::Bytes | Kind::Message(_) => 2,
        _ => 0,
    }
}

/// A value as it goes on the wire: one occurrence of a field.
#[derive(Debug, Clone, Copy)]
enum Wire<'a> {
    Varint(u64),
    Fixed32(u32),
    Fixed64(u64),
    Bytes(&'a [u8]),
}

impl Wire<'_> {
    fn wire_type(&self) -> u8 {
        match self {
            Wire::Varint(_) => 0,
            Wire::Fixed64(_) => 1,
            Wire::Bytes(_) => 2,
            Wire::Fixed32(_) => 5,
        }
    }

    /// Whether a proto3 field without presence leaves this value out: all bits zero (so `-0.0`
    /// is written, as protobuf-java compares raw bits) or empty.
    fn is_default(&self) -> bool {
        match self {
            Wire::Varint(v) | Wire::Fixed64(v) => *v == 0,
            Wire::Fixed32(v) => *v == 0,
            Wire::Bytes(b) => b.is_empty(),
        }
    }
}

/// The descriptor of `message` (its full proto name) in the `FileDescriptorSet` bytes that define
/// it and its imports.
fn message_descriptor(descriptors: &[u8], message: &str) -> Result<MessageDescriptor> {
    let pool = DescriptorPool::decode(descriptors)
        .map_err(|e| FormatError::config(format!("invalid protobuf descriptors: {e}")))?;
    pool.get_message_by_name(message).ok_or_else(|| {
        FormatError::config(format!("the descriptors do not define message {message}"))
    })
}
