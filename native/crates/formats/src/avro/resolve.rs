//! Reading a writer's datum into the columns of a table by Avro's schema resolution: record
//! fields by name (a writer field the table lacks is skipped, a table field the writer lacks is
//! NULL), unions by branch, numeric promotion, strings and bytes interchangeable; numeric
//! promotion is int to long, float or double, long to float or double, float to double. Enums and
//! fixed values resolve into none of the types a table's schema derives (Avro's `Resolver` has no
//! such promotion, and Flink's reader fails on them).

use super::reader::AvroReader;
use super::schema::AvroSchema;
use super::table::TableNode;
use crate::builder::ColumnBuilder;
use crate::error::FormatError;

/// A scalar read from a writer datum, before it is converted to the table's column.
enum Scalar<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Long(i64),
    Float(f32),
    Double(f64),
    Bytes(&'a [u8]),
    /// A fixed value, read past: Avro reads it into a fixed only, which no table's schema holds.
    Fixed,
    /// An Avro string's bytes, as written (Avro keeps them so where a reader takes bytes).
    Text(&'a [u8]),
    /// An enum's symbol, its index checked against the writer's symbols.
    Symbol,
}

/// Reads one writer value into `builder`, shaped by the table's `reader` node.
pub(crate) fn read_resolved<'a>(
    writer: &'a AvroSchema,
    reader: &TableNode,
    builder: &mut ColumnBuilder,
    r: &mut AvroReader<'a>,
) -> Result<(), String> {
    if let AvroSchema::Union(branches) = writer {
        let index = r.int()?;
        let branch = usize::try_from(index)
            .ok()
            .and_then(|i| branches.get(i))
            .ok_or_else(|| format!("union index {index} is out of range"))?;
        return read_resolved(branch, reader, builder, r);
    }
    if let TableNode::Nullable(inner) = reader {
        if *writer == AvroSchema::Null {
            builder.push_null();
            return Ok(());
        }
        return read_resolved(writer, inner, builder, r);
    }
    match (writer, reader) {
        (AvroSchema::Record(fields), TableNode::Record(_)) => {
            let ColumnBuilder::Struct {
                fields: children, ..
            } = builder
            else {
                return Err("an Avro record for a column that is not a ROW".into());
            };
            read_record(fields, reader, children, r, Unread::SkipUnless(&[]))?;
            builder.end_nested_value();
            Ok(())
        }
        (AvroSchema::Array(items), TableNode::Array(element)) => {
            let ColumnBuilder::List { element: child, .. } = builder else {
                return Err("an Avro array for a column that is not an ARRAY".into());
            };
            loop {
                let n = r.block()?;
                if n == 0 {
                    break;
                }
                for _ in 0..n {
                    read_resolved(items, element, child, r)?;
                }
            }
            builder.end_nested_value();
            Ok(())
        }
        (AvroSchema::Map(values), TableNode::Map(value)) => {
            let ColumnBuilder::Map {
                keys,
                values: value_builder,
                ..
            } = builder
            else {
                return Err("an Avro map for a column that is not a MAP".into());
            };
            loop {
                let n = r.block()?;
                if n == 0 {
                    break;
                }
                for _ in 0..n {
                    read_resolved(&AvroSchema::String, &TableNode::String, keys, r)?;
                    read_resolved(values, value, value_builder, r)?;
                }
            }
            builder.end_nested_value();
            Ok(())
        }
        (AvroSchema::Record(_) | AvroSchema::Array(_) | AvroSchema::Map(_), _) => Err(format!(
            "the writer's {} cannot be read into this column",
            kind(writer)
        )),
        // The common pairs, straight into their builders (the general path below returns each
        // value through memory, which costs more than reading it).
        (AvroSchema::Long, TableNode::Long | TableNode::Timestamp) => match builder {
            ColumnBuilder::Int64(c) => {
                c.push(r.long()?);
                Ok(())
            }
            ColumnBuilder::TimestampMillisecond(c) => {
                c.push(r.long()?);
                Ok(())
            }
            _ => push_scalar(read_scalar(writer, r)?, reader, builder),
        },
        (AvroSchema::Int, TableNode::Int) => match builder {
            ColumnBuilder::Int32(c) => {
                c.push(r.int()?);
                Ok(())
            }
            _ => push_scalar(read_scalar(writer, r)?, reader, builder),
        },
        (AvroSchema::Double, TableNode::Double) => match builder {
            ColumnBuilder::Float64(c) => {
                c.push(f64::from_le_bytes(r.fixed::<8>()?));
                Ok(())
            }
            _ => push_scalar(read_scalar(writer, r)?, reader, builder),
        },
        (AvroSchema::String, TableNode::String) => {
            let n = r.length()?;
            push_bytes(builder, &crate::java_utf8::decode_bytes(r.take(n)?))
        }
        _ => {
            resolves(writer, reader)?;
            let value = read_scalar(writer, r)?;
            push_scalar(value, reader, builder)
        }
    }
}

/// How a record field the table's row does not hold is stepped over: Flink's reader either reads
/// it (a column of the table the query does not read: Avro's datum reader reads every field of
/// its reader schema) or skips it (a field of a writer schema that the reader schema lacks, which
/// Avro's resolving decoder skips, with skip calls that read differently).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Unread<'p> {
    /// Every such field is read.
    Read,
    /// The table's physical columns: those are read (and converted, as Flink converts every
    /// column of its row), the others skipped.
    SkipUnless(&'p [(String, TableNode)]),
}

/// The bytes Avro Java's buffered decoder still holds from earlier messages: Flink's formats keep
/// one decoder for every message, and what a datum leaves unread in its buffer is read as the
/// start of the next message's datum.
#[derive(Debug, Default)]
pub(super) struct Carried(Vec<u8>);

impl Carried {
    /// Whether a datum read now starts in bytes of earlier messages.
    pub(super) fn any(&self) -> bool {
        !self.0.is_empty()
    }

    /// Reads one record of the writer's `fields` from the carried bytes followed by `datum` (see
    /// [`read_planned`]), then carries what the decoder leaves loaded, or nothing after a failure.
    pub(super) fn read_record(
        &mut self,
        datum: &[u8],
        fields: &[(String, AvroSchema)],
        plan: &RecordPlan,
        table: &TableNode,
        columns: &mut [ColumnBuilder],
    ) -> Result<(), String> {
        let joined;
        let stream: &[u8] = if self.0.is_empty() {
            datum
        } else {
            joined = [self.0.as_slice(), datum].concat();
            &joined
        };
        let mut reader = AvroReader::buffered(stream, self.0.len());
        let result = read_planned(fields, plan, table, columns, &mut reader);
        self.0 = match result {
            Ok(()) => reader.unread_loaded().to_vec(),
            Err(_) => Vec::new(),
        };
        result
    }
}

/// A record that failed to read: corrupt state when it started in bytes carried from earlier
/// messages (the message alone may be fine), else a decode error of the message at `position`.
pub(super) fn record_error(position: usize, carried: bool, reason: String) -> FormatError {
    if carried {
        FormatError::Corrupt { position, reason }
    } else {
        FormatError::Decode { position, reason }
    }
}

/// How each field of a writer's record is read into a table's row: into a column of the row,
/// read and converted only (a physical column the row does not hold), or skipped; and which of
/// the row's columns the writer lacks. Fixed for one writer schema and one table, so a decoder
/// finds the fields by name once, not in every datum.
#[derive(Debug)]
pub(crate) struct RecordPlan {
    steps: Vec<FieldStep>,
    /// The row's columns no writer field fills, in the row's order.
    missing: Vec<usize>,
    /// A NOT NULL physical column the row does not hold and no writer field fills: Flink's reader
    /// resolves every physical column, so every record fails naming it.
    unread_not_null: Option<String>,
}

#[derive(Debug)]
enum FieldStep {
    /// Into the row's column at this index.
    Column(usize),
    /// Read and converted as this physical column (any value where `None`), not kept.
    Convert(Option<TableNode>),
    /// Skipped, as Avro's resolving decoder skips a field its reader schema lacks.
    Skip,
}

impl RecordPlan {
    /// The plan of the writer's record `fields` read into the row `reader` (fields matched by
    /// name, the first of a repeated name), with the fields the row lacks stepped over by
    /// `unread`.
    pub(crate) fn new(
        fields: &[(String, AvroSchema)],
        reader: &TableNode,
        unread: Unread<'_>,
    ) -> Result<Self, String> {
        let TableNode::Record(table_fields) = reader else {
            return Err("not a record".into());
        };
        let steps: Vec<FieldStep> = fields
            .iter()
            .map(
                |(name, _)| match table_fields.iter().position(|(n, _)| n == name) {
                    Some(t) => FieldStep::Column(t),
                    None => match unread {
                        Unread::Read => FieldStep::Convert(None),
                        Unread::SkipUnless(physical) => {
                            match physical.iter().find(|(n, _)| n == name) {
                                Some((_, node)) => FieldStep::Convert(Some(node.clone())),
                                None => FieldStep::Skip,
                            }
                        }
                    },
                },
            )
            .collect();
        let missing = (0..table_fields.len())
            .filter(|t| {
                !steps
                    .iter()
                    .any(|s| matches!(s, FieldStep::Column(c) if c == t))
            })
            .collect();
        let unread_not_null = match unread {
            Unread::Read => None,
            Unread::SkipUnless(physical) => physical
                .iter()
                .find(|(name, node)| {
                    !matches!(node, TableNode::Nullable(_))
                        && !table_fields.iter().any(|(n, _)| n == name)
                        && !fields.iter().any(|(n, _)| n == name)
                })
                .map(|(name, _)| name.clone()),
        };
        Ok(Self {
            steps,
            missing,
            unread_not_null,
        })
    }
}

/// Reads a record's fields into the table's row children, by name.
pub(crate) fn read_record<'a>(
    fields: &'a [(String, AvroSchema)],
    reader: &TableNode,
    children: &mut [ColumnBuilder],
    r: &mut AvroReader<'a>,
    unread: Unread<'_>,
) -> Result<(), String> {
    let plan = RecordPlan::new(fields, reader, unread)?;
    read_planned(fields, &plan, reader, children, r)
}

/// Reads a record's fields into the table's row children as `plan` (made for these `fields`
/// and this `reader`) says.
pub(crate) fn read_planned<'a>(
    fields: &'a [(String, AvroSchema)],
    plan: &RecordPlan,
    reader: &TableNode,
    children: &mut [ColumnBuilder],
    r: &mut AvroReader<'a>,
) -> Result<(), String> {
    let TableNode::Record(table_fields) = reader else {
        return Err("not a record".into());
    };
    for ((name, schema), step) in fields.iter().zip(&plan.steps) {
        match step {
            FieldStep::Column(t) => {
                read_resolved(schema, &table_fields[*t].1, &mut children[*t], r)
                    .map_err(|e| format!("field '{name}': {e}"))?
            }
            FieldStep::Convert(node) => {
                step_over(schema, node.as_ref(), r).map_err(|e| format!("field '{name}': {e}"))?
            }
            FieldStep::Skip => skip(schema, r)?,
        }
    }
    if let Some(name) = &plan.unread_not_null {
        return Err(missing_not_null(name));
    }
    for &t in &plan.missing {
        if !matches!(table_fields[t].1, TableNode::Nullable(_)) {
            return Err(missing_not_null(&table_fields[t].0));
        }
        children[t].push_null();
    }
    Ok(())
}

fn kind(schema: &AvroSchema) -> &'static str {
    match schema {
        AvroSchema::Null => "null",
        AvroSchema::Boolean => "boolean",
        AvroSchema::Int => "int",
        AvroSchema::Long => "long",
        AvroSchema::Float => "float",
        AvroSchema::Double => "double",
        AvroSchema::Bytes => "bytes",
        AvroSchema::String => "string",
        AvroSchema::Record(_) => "record",
        AvroSchema::Enum(_) => "enum",
        AvroSchema::Array(_) => "array",
        AvroSchema::Map(_) => "map",
        AvroSchema::Union(_) => "union",
        AvroSchema::Fixed(_) => "fixed",
    }
}

fn read_scalar<'a>(writer: &'a AvroSchema, r: &mut AvroReader<'a>) -> Result<Scalar<'a>, String> {
    Ok(match writer {
        AvroSchema::Null => Scalar::Null,
        AvroSchema::Boolean => Scalar::Bool(r.boolean()?),
        AvroSchema::Int => Scalar::Int(i64::from(r.int()?)),
        AvroSchema::Long => Scalar::Long(r.long()?),
        AvroSchema::Float => Scalar::Float(f32::from_le_bytes(r.fixed::<4>()?)),
        AvroSchema::Double => Scalar::Double(f64::from_le_bytes(r.fixed::<8>()?)),
        AvroSchema::Bytes => {
            let n = r.length()?;
            Scalar::Bytes(r.take(n)?)
        }
        AvroSchema::String => {
            let n = r.length()?;
            Scalar::Text(r.take(n)?)
        }
        AvroSchema::Fixed(size) => {
            r.take(*size)?;
            Scalar::Fixed
        }
        AvroSchema::Enum(symbols) => {
            let index = r.int()?;
            usize::try_from(index)
                .ok()
                .filter(|i| *i < symbols.len())
                .ok_or_else(|| format!("enum index {index} is out of range"))?;
            Scalar::Symbol
        }
        other => return Err(format!("the writer's {} is not a scalar", kind(other))),
    })
}

fn push_scalar(
    value: Scalar<'_>,
    reader: &TableNode,
    builder: &mut ColumnBuilder,
) -> Result<(), String> {
    let mismatch = || {
        "the writer's value cannot be read into this column (no Avro promotion applies)".to_string()
    };
    match (value, reader) {
        (Scalar::Null, _) => Err("a null for a NOT NULL column".into()),
        (Scalar::Bool(b), TableNode::Boolean) => {
            builder.push_bool(b);
            Ok(())
        }
        (Scalar::Int(v), TableNode::Int) => {
            let v = i32::try_from(v)
                .map_err(|_| "an Avro long cannot be read as an int".to_string())?;
            match builder {
                ColumnBuilder::Int8(c) => c.push(v as i8),
                ColumnBuilder::Int16(c) => c.push(v as i16),
                ColumnBuilder::Int32(c) => c.push(v),
                ColumnBuilder::Date32(c) => c.push(v),
                ColumnBuilder::Time32Millisecond(c) => c.push(v),
                _ => return Err(mismatch()),
            }
            Ok(())
        }
        // Avro promotes no long to an int, whatever its value (Flink's reader fails on it).
        (Scalar::Long(_), TableNode::Int) => Err("an Avro long cannot be read as an int".into()),
        (Scalar::Int(v) | Scalar::Long(v), TableNode::Long | TableNode::Timestamp) => match builder
        {
            ColumnBuilder::Int64(c) => {
                c.push(v);
                Ok(())
            }
            ColumnBuilder::TimestampMillisecond(c) => {
                c.push(v);
                Ok(())
            }
            ColumnBuilder::TimestampMicrosecond(c) => {
                c.push(v.checked_mul(1000).ok_or("timestamp out of range")?);
                Ok(())
            }
            _ => Err(mismatch()),
        },
        (Scalar::Int(v) | Scalar::Long(v), TableNode::Float) => push_float(builder, v as f32),
        (Scalar::Int(v) | Scalar::Long(v), TableNode::Double) => push_double(builder, v as f64),
        (Scalar::Float(v), TableNode::Float) => push_float(builder, v),
        (Scalar::Float(v), TableNode::Double) => push_double(builder, f64::from(v)),
        (Scalar::Double(v), TableNode::Double) => push_double(builder, v),
        // Text read as Flink reads it, through Java's UTF-8 decoder, which replaces what is not
        // UTF-8 by its own rules; bytes as they are, whether the writer wrote bytes or a string.
        (Scalar::Text(b) | Scalar::Bytes(b), TableNode::String) => {
            push_bytes(builder, &crate::java_utf8::decode_bytes(b))
        }
        (Scalar::Text(b) | Scalar::Bytes(b), TableNode::Bytes) => push_bytes(builder, b),
        // A string promoted to bytes keeps its bytes, which Flink reads as an unscaled integer.
        (Scalar::Bytes(b) | Scalar::Text(b), TableNode::Decimal(precision)) => {
            let ColumnBuilder::Decimal128(c) = builder else {
                return Err(mismatch());
            };
            if b.is_empty() {
                // Flink's DecimalData.fromUnscaledBytes builds a BigInteger of the bytes.
                return Err("Zero length BigInteger".into());
            }
            // As Flink's DecimalData.fromUnscaledBytes: a value wider than the column is NULL.
            let bound = 10u128
                .checked_pow(u32::from(*precision))
                .unwrap_or(u128::MAX);
            match unscaled(b).filter(|v| v.unsigned_abs() < bound) {
                Some(v) => c.push(v),
                None => builder.push_null(),
            }
            Ok(())
        }
        _ => Err(mismatch()),
    }
}

/// A big-endian two's-complement integer, or `None` when it does not fit 128 bits.
fn unscaled(bytes: &[u8]) -> Option<i128> {
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    let fill = if negative { 0xff } else { 0x00 };
    // Leading bytes that only extend the sign add nothing.
    let mut start = 0;
    while bytes.len() - start > 16
        && bytes[start] == fill
        && bytes
            .get(start + 1)
            .is_some_and(|b| (b & 0x80 != 0) == negative)
    {
        start += 1;
    }
    let bytes = &bytes[start..];
    if bytes.len() > 16 {
        return None;
    }
    let mut v: i128 = if negative { -1 } else { 0 };
    for b in bytes {
        v = (v << 8) | i128::from(*b);
    }
    Some(v)
}

fn push_float(builder: &mut ColumnBuilder, v: f32) -> Result<(), String> {
    let ColumnBuilder::Float32(c) = builder else {
        return Err("not a FLOAT column".into());
    };
    c.push(v);
    Ok(())
}

fn push_double(builder: &mut ColumnBuilder, v: f64) -> Result<(), String> {
    let ColumnBuilder::Float64(c) = builder else {
        return Err("not a DOUBLE column".into());
    };
    c.push(v);
    Ok(())
}

fn push_bytes(builder: &mut ColumnBuilder, b: &[u8]) -> Result<(), String> {
    let ColumnBuilder::Bytes(c) = builder else {
        return Err("not a string or bytes column".into());
    };
    c.push(b).map_err(|e| e.to_string())
}

/// Reads a value the query does not read, as Avro's datum reader reads it (every primitive,
/// enum symbols and union branches checked), without building it; with the column's `node`,
/// fails where Avro's resolution into the column's schema or Flink's conversion of the value to
/// the column fails.
fn step_over<'a>(
    schema: &'a AvroSchema,
    node: Option<&TableNode>,
    r: &mut AvroReader<'a>,
) -> Result<(), String> {
    if let AvroSchema::Union(branches) = schema {
        let index = r.int()?;
        let branch = usize::try_from(index)
            .ok()
            .and_then(|i| branches.get(i))
            .ok_or_else(|| format!("union index {index} is out of range"))?;
        return step_over(branch, node, r);
    }
    if let Some(node) = node {
        resolves(schema, node)?;
    }
    let node = match node {
        Some(TableNode::Nullable(inner)) => Some(inner.as_ref()),
        other => other,
    };
    match schema {
        AvroSchema::Record(fields) => match node {
            Some(TableNode::Record(children)) => {
                for (name, field) in fields {
                    match children.iter().find(|(n, _)| n == name) {
                        Some((_, child)) => step_over(field, Some(child), r)?,
                        // Avro's resolving decoder skips what the reader's record lacks.
                        None => skip(field, r)?,
                    }
                }
                if let Some((name, _)) = children.iter().find(|(name, child)| {
                    !matches!(child, TableNode::Nullable(_))
                        && !fields.iter().any(|(field, _)| field == name)
                }) {
                    return Err(missing_not_null(name));
                }
            }
            _ => {
                for (_, field) in fields {
                    step_over(field, None, r)?;
                }
            }
        },
        AvroSchema::Array(items) => loop {
            let n = r.block()?;
            if n == 0 {
                break;
            }
            let element = match node {
                Some(TableNode::Array(element)) => Some(element.as_ref()),
                _ => None,
            };
            for _ in 0..n {
                step_over(items, element, r)?;
            }
        },
        AvroSchema::Map(values) => loop {
            let n = r.block()?;
            if n == 0 {
                break;
            }
            let value = match node {
                Some(TableNode::Map(value)) => Some(value.as_ref()),
                _ => None,
            };
            for _ in 0..n {
                read_scalar(&AvroSchema::String, r)?;
                step_over(values, value, r)?;
            }
        },
        // The common scalars read as `read_scalar` reads them, without building the value (a
        // string's text is never looked at: every byte sequence reads as some text).
        AvroSchema::Long => {
            r.long()?;
        }
        AvroSchema::Int => {
            r.int()?;
        }
        AvroSchema::String | AvroSchema::Bytes => {
            let n = r.length()?;
            r.take(n)?;
            if n == 0 && matches!(node, Some(TableNode::Decimal(_))) {
                // Flink's DecimalData.fromUnscaledBytes builds a BigInteger of the bytes.
                return Err("Zero length BigInteger".into());
            }
        }
        scalar => {
            read_scalar(scalar, r)?;
        }
    }
    Ok(())
}

/// Whether Avro's resolution reads a (non-union) writer value of `writer` into a column of the
/// table's `node`, as Avro's `Resolver` decides: the same kind, or a promotion the specification
/// allows. Enums and fixed values resolve into nothing a table's schema derives, which has
/// neither. Only the kinds are checked; the values are checked as they are read.
fn resolves(writer: &AvroSchema, node: &TableNode) -> Result<(), String> {
    let node = match (writer, node) {
        (AvroSchema::Null, TableNode::Nullable(_)) => return Ok(()),
        (AvroSchema::Null, _) => return Err("a null for a NOT NULL column".into()),
        (_, TableNode::Nullable(inner)) => inner.as_ref(),
        (_, node) => node,
    };
    let resolved = match writer {
        AvroSchema::Boolean => matches!(node, TableNode::Boolean),
        AvroSchema::Int => matches!(
            node,
            TableNode::Int
                | TableNode::Long
                | TableNode::Timestamp
                | TableNode::Float
                | TableNode::Double
        ),
        AvroSchema::Long => {
            if matches!(node, TableNode::Int) {
                return Err("an Avro long cannot be read as an int".into());
            }
            matches!(
                node,
                TableNode::Long | TableNode::Timestamp | TableNode::Float | TableNode::Double
            )
        }
        AvroSchema::Float => matches!(node, TableNode::Float | TableNode::Double),
        AvroSchema::Double => matches!(node, TableNode::Double),
        AvroSchema::String | AvroSchema::Bytes => matches!(
            node,
            TableNode::String | TableNode::Bytes | TableNode::Decimal(_)
        ),
        AvroSchema::Record(_) => matches!(node, TableNode::Record(_)),
        AvroSchema::Array(_) => matches!(node, TableNode::Array(_)),
        AvroSchema::Map(_) => matches!(node, TableNode::Map(_)),
        AvroSchema::Enum(_) | AvroSchema::Fixed(_) | AvroSchema::Null | AvroSchema::Union(_) => {
            false
        }
    };
    if resolved {
        Ok(())
    } else {
        Err(format!(
            "the writer's {} cannot be read into this column (no Avro promotion applies)",
            kind(writer)
        ))
    }
}

fn missing_not_null(name: &str) -> String {
    format!("the writer schema has no field '{name}' and the column is NOT NULL")
}

/// Skips a writer value the reader schema lacks, as Avro's resolving decoder skips it: strings
/// and bytes by their length, arrays and maps block by block (a block that gives its size in
/// bytes is skipped whole).
fn skip(schema: &AvroSchema, r: &mut AvroReader<'_>) -> Result<(), String> {
    match schema {
        AvroSchema::Null => {}
        AvroSchema::Boolean => {
            r.boolean()?;
        }
        AvroSchema::Int | AvroSchema::Enum(_) => {
            r.int()?;
        }
        AvroSchema::Long => {
            r.long()?;
        }
        AvroSchema::Float => {
            r.fixed::<4>()?;
        }
        AvroSchema::Double => {
            r.fixed::<8>()?;
        }
        AvroSchema::Bytes | AvroSchema::String => {
            let n = r.long()?;
            r.skip_bytes(n)?;
        }
        AvroSchema::Fixed(size) => {
            r.take(*size)?;
        }
        AvroSchema::Record(fields) => {
            for (_, field) in fields {
                skip(field, r)?;
            }
        }
        AvroSchema::Array(items) => loop {
            let n = r.skip_block()?;
            if n == 0 {
                break;
            }
            for _ in 0..n {
                skip(items, r)?;
            }
        },
        AvroSchema::Map(values) => loop {
            let n = r.skip_block()?;
            if n == 0 {
                break;
            }
            for _ in 0..n {
                skip(&AvroSchema::String, r)?;
                skip(values, r)?;
            }
        },
        AvroSchema::Union(branches) => {
            let index = r.int()?;
            let branch = usize::try_from(index)
                .ok()
                .and_then(|i| branches.get(i))
                .ok_or_else(|| format!("union index {index} is out of range"))?;
            skip(branch, r)?;
        }
    }
    Ok(())
}
