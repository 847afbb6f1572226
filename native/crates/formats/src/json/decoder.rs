use std::collections::HashMap;
use std::fmt;

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Fields, IntervalUnit, SchemaRef, TimeUnit};
use base64::Engine;
use simd_json::{Node, StaticNode};

use super::options::JsonDecodeOptions;
use crate::builder::{ColumnBuilder, builders_for, finish_batch};
use crate::decimal::parse_decimal;
use crate::error::{FormatError, Result};
use crate::javatext::{java_trim, parse_java_double, parse_java_float, parse_java_long};
use crate::options::FormatOptions;
use crate::temporal::{
    TimestampStandard, parse_date, parse_sql_time_whole_seconds, parse_timestamp,
    parse_timestamp_ltz,
};

/// Deepest nesting a message may have; deeper input is a decode error, never a stack overflow.
const MAX_DEPTH: usize = 1000;

/// Decodes JSON messages into Arrow batches of a fixed schema.
///
/// The schema is what the query reads: fields it does not name are skipped in the tape walk and
/// never built. A message holds one object (one row) or an array of objects (one row each);
/// an empty message yields no row. Values convert as Flink 2.2's default JSON deserializer
/// converts them (numbers from strings, float truncation for INT/BIGINT, DECIMAL overflow as
/// NULL, raw number text for STRING, SQL or ISO-8601 timestamps).
///
/// Deliberate differences from Flink, all on input Flink itself mishandles:
/// * a key repeated in one object: the last value wins and later keys are still read (Flink
///   stops reading the object once it has counted as many keys as the row has fields);
/// * an object or array given to a BOOLEAN column is `false` and is skipped whole (Flink's
///   parser loses its place in the message and reads the inner keys as outer ones);
/// * a message that fails under `ignore-parse-errors` is skipped and counted (Flink hands a
///   NULL row downstream);
/// * timestamps keep the digits of the column's precision (Flink keeps every parsed digit).
pub struct JsonDecoder {
    schema: SchemaRef,
    plan: StructPlan,
    columns: Vec<ColumnBuilder>,
    options: JsonDecodeOptions,
    rows: usize,
    messages: usize,
    skipped: usize,
    buffers: simd_json::Buffers,
    /// The tape's node vector, kept between messages (empty, borrowing nothing).
    tape: Option<simd_json::Tape<'static>>,
    scratch: Vec<u8>,
    number_offsets: Vec<u32>,
    has_decimal: bool,
}

impl fmt::Debug for JsonDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonDecoder")
            .field("schema", &self.schema)
            .field("options", &self.options)
            .field("rows", &self.rows)
            .field("skipped", &self.skipped)
            .finish_non_exhaustive()
    }
}

/// How one column converts a JSON value, shaped like its Arrow type.
#[derive(Debug)]
enum Conv {
    Boolean,
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    Decimal { precision: u8, scale: i8 },
    Utf8,
    Binary,
    Date,
    Time,
    Timestamp { zoned: bool },
    List(Box<Conv>),
    Map { values: Box<Conv> },
    Struct(StructPlan),
}

#[derive(Debug)]
struct StructPlan {
    names: Vec<Box<str>>,
    convs: Vec<Conv>,
    index: HashMap<Box<str>, usize>,
}

impl StructPlan {
    fn new(fields: &Fields) -> Result<Self> {
        let names: Vec<Box<str>> = fields.iter().map(|f| f.name().as_str().into()).collect();
        let convs = fields
            .iter()
            .map(|f| Conv::new(f.data_type(), f.name()))
            .collect::<Result<_>>()?;
        let index = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        Ok(Self {
            names,
            convs,
            index,
        })
    }

    #[inline]
    fn lookup(&self, key: &str) -> Option<usize> {
        if self.names.len() <= 8 {
            self.names.iter().position(|n| &**n == key)
        } else {
            self.index.get(key).copied()
        }
    }
}

impl Conv {
    fn new(data_type: &DataType, name: &str) -> Result<Self> {
        Ok(match data_type {
            DataType::Boolean => Conv::Boolean,
            DataType::Int8 => Conv::Int8,
            DataType::Int16 => Conv::Int16,
            DataType::Int32 | DataType::Interval(IntervalUnit::YearMonth) => Conv::Int32,
            DataType::Int64 | DataType::Duration(TimeUnit::Millisecond) => Conv::Int64,
            DataType::Float32 => Conv::Float32,
            DataType::Float64 => Conv::Float64,
            DataType::Decimal128(precision, scale) => Conv::Decimal {
                precision: *precision,
                scale: *scale,
            },
            DataType::Utf8 => Conv::Utf8,
            DataType::Binary | DataType::FixedSizeBinary(_) => Conv::Binary,
            DataType::Date32 => Conv::Date,
            DataType::Time32(_) | DataType::Time64(_) => Conv::Time,
            DataType::Timestamp(_, zone) => Conv::Timestamp {
                zoned: zone.is_some(),
            },
            DataType::List(element) => Conv::List(Box::new(Conv::new(element.data_type(), name)?)),
            DataType::Map(entries, _) => {
                let (key, value) = crate::builder::map_fields(entries)?;
                if key.data_type() != &DataType::Utf8 {
                    return Err(FormatError::config(format!(
                        "JSON format doesn't support non-string as key type of map. The type of column '{name}' is: {data_type}"
                    )));
                }
                Conv::Map {
                    values: Box::new(Conv::new(value.data_type(), name)?),
                }
            }
            DataType::Struct(fields) => Conv::Struct(StructPlan::new(fields)?),
            other => {
                return Err(FormatError::config(format!(
                    "The JSON format does not support the type {other} of column '{name}'."
                )));
            }
        })
    }
}

/// Everything one message's walk reads.
struct Message<'a, 'de> {
    nodes: &'a [Node<'de>],
    /// Input offset of each tape node's first byte.
    offsets: &'a [u32],
    original: &'a [u8],
    options: &'a JsonDecodeOptions,
    has_decimal: bool,
}

type Walk<T> = std::result::Result<T, String>;

impl JsonDecoder {
    /// A decoder producing batches of `schema` with the `json` options given (keys without the
    /// `json.` prefix).
    pub fn try_new(schema: SchemaRef, options: &FormatOptions) -> Result<Self> {
        let options = JsonDecodeOptions::parse(options)?;
        let plan = StructPlan::new(schema.fields())?;
        let columns = builders_for(schema.fields())?;
        let has_decimal = schema
            .fields()
            .iter()
            .any(|f| contains_decimal(f.data_type()));
        Ok(Self {
            schema,
            plan,
            columns,
            options,
            rows: 0,
            messages: 0,
            skipped: 0,
            buffers: simd_json::Buffers::default(),
            tape: None,
            scratch: Vec::new(),
            number_offsets: Vec::new(),
            has_decimal,
        })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Rows decoded since the last flush.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Messages skipped under `ignore-parse-errors` since the decoder was created.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Decodes one message into zero or more rows. On error nothing of the message is kept.
    pub fn decode(&mut self, message: &[u8]) -> Result<()> {
        let position = self.messages;
        self.messages += 1;
        if message.is_empty() {
            return Ok(());
        }
        let rows_before = self.rows;
        match self.decode_message(message) {
            Ok(()) => Ok(()),
            Err(reason) => {
                for column in &mut self.columns {
                    column.truncate(rows_before);
                }
                self.rows = rows_before;
                if self.options.ignore_parse_errors {
                    self.skipped += 1;
                    Ok(())
                } else {
                    Err(FormatError::Decode {
                        position,
                        reason: format!(
                            "Failed to deserialize JSON '{}': {reason}",
                            preview(message)
                        ),
                    })
                }
            }
        }
    }

    fn decode_message(&mut self, message: &[u8]) -> Walk<()> {
        self.scratch.clear();
        self.scratch.extend_from_slice(message);
        let mut tape = self
            .tape
            .take()
            .unwrap_or_else(simd_json::Tape::null)
            .reset();
        simd_json::fill_tape(&mut self.scratch, &mut self.buffers, &mut tape)
            .map_err(|e| format!("malformed JSON: {e}"))?;
        // Tape nodes are the structurals that open a value (containers, strings, scalars), in
        // order; closers, colons and commas have none.
        self.number_offsets.clear();
        for &index in self.buffers.structural_indexes() {
            match message.get(index as usize) {
                Some(b'}' | b']' | b':' | b',') | None => {}
                Some(_) => self.number_offsets.push(index),
            }
        }
        let nodes = tape.0.as_slice();
        if self.number_offsets.len() < nodes.len() {
            return Err("malformed JSON: the structure index does not match".into());
        }
        let msg = Message {
            nodes,
            offsets: &self.number_offsets,
            original: message,
            options: &self.options,
            has_decimal: self.has_decimal,
        };
        match nodes.first() {
            Some(Node::Object { .. }) => {
                walk_row(&msg, &self.plan, &mut self.columns, 0, 0)?;
                self.rows += 1;
            }
            Some(Node::Array { len, .. }) => {
                let mut i = 1;
                for _ in 0..*len {
                    match nodes.get(i) {
                        Some(Node::Object { .. }) => {
                            i = walk_row(&msg, &self.plan, &mut self.columns, i, 1)?;
                            self.rows += 1;
                        }
                        Some(Node::Static(StaticNode::Null)) => i += 1,
                        _ => {
                            return Err(
                                "Illegal JSON object data: an array element is not an object"
                                    .into(),
                            );
                        }
                    }
                }
            }
            _ => return Err(
                "No content to map due to end-of-input: the message is not a JSON object or array"
                    .into(),
            ),
        }
        Ok(())
    }

    /// Builds the batch of every row decoded since the last flush.
    pub fn flush(&mut self) -> Result<RecordBatch> {
        self.messages = 0;
        let rows = std::mem::take(&mut self.rows);
        finish_batch(&self.schema, &mut self.columns, rows)
    }
}

fn contains_decimal(data_type: &DataType) -> bool {
    match data_type {
        DataType::Decimal128(_, _) => true,
        DataType::List(f) | DataType::Map(f, _) => contains_decimal(f.data_type()),
        DataType::Struct(fields) => fields.iter().any(|f| contains_decimal(f.data_type())),
        _ => false,
    }
}

/// The message as text for an error, cut to a readable length.
fn preview(message: &[u8]) -> String {
    const LIMIT: usize = 256;
    let text = String::from_utf8_lossy(&message[..message.len().min(LIMIT)]);
    if message.len() > LIMIT {
        format!("{text}... ({} bytes)", message.len())
    } else {
        text.into_owned()
    }
}

/// Index of the node after the value starting at `i`.
#[inline]
fn skip(nodes: &[Node<'_>], i: usize) -> usize {
    match nodes[i] {
        Node::Object { count, .. } | Node::Array { count, .. } => i + count + 1,
        _ => i + 1,
    }
}

/// Reads the object at `i` into one row of `columns`; returns the index after it.
fn walk_row(
    msg: &Message<'_, '_>,
    plan: &StructPlan,
    columns: &mut [ColumnBuilder],
    i: usize,
    depth: usize,
) -> Walk<usize> {
    let Node::Object { len, .. } = msg.nodes[i] else {
        return Err("Illegal JSON object data".into());
    };
    if depth > MAX_DEPTH {
        return Err(format!("the message nests deeper than {MAX_DEPTH} levels"));
    }
    let start = columns.first().map_or(0, ColumnBuilder::len);
    let mut seen = Seen::new(plan.convs.len());
    let mut j = i + 1;
    // Writers usually emit fields in schema order: try the field after the last one first.
    let mut expected = 0;
    for _ in 0..len {
        let Node::String(key) = msg.nodes[j] else {
            return Err("malformed JSON: object key is not a string".into());
        };
        j += 1;
        let field = match plan.names.get(expected) {
            Some(name) if **name == *key => Some(expected),
            _ => plan.lookup(key),
        };
        match field {
            Some(f) => {
                expected = f + 1;
                if seen.get(f) {
                    // A repeated key: the last value wins.
                    columns[f].truncate(start);
                }
                seen.set(f);
                j = convert(msg, &plan.convs[f], &mut columns[f], j, depth + 1)
                    .map_err(|e| format!("Fail to deserialize at field: {key}: {e}"))?;
            }
            None => j = skip(msg.nodes, j),
        }
    }
    for (f, column) in columns.iter_mut().enumerate() {
        if !seen.get(f) {
            if msg.options.fail_on_missing_field {
                return Err(format!(
                    "Some field is missing in the JSON data: '{}'",
                    plan.names[f]
                ));
            }
            column.push_null();
        }
    }
    Ok(j)
}

/// Which fields of one object were present: a bit mask, spilling to a vector past 64 fields
/// (no allocation for the common case).
enum Seen {
    Mask(u64),
    Vec(Vec<bool>),
}

impl Seen {
    fn new(fields: usize) -> Self {
        if fields <= 64 {
            Seen::Mask(0)
        } else {
            Seen::Vec(vec![false; fields])
        }
    }

    #[inline]
    fn get(&self, f: usize) -> bool {
        match self {
            Seen::Mask(m) => m & (1 << f) != 0,
            Seen::Vec(v) => v[f],
        }
    }

    #[inline]
    fn set(&mut self, f: usize) {
        match self {
            Seen::Mask(m) => *m |= 1 << f,
            Seen::Vec(v) => v[f] = true,
        }
    }
}

/// Number text of the scalar node at `i`, straight from the message.
fn number_text<'a>(msg: &Message<'a, '_>, i: usize) -> &'a str {
    let start = msg.offsets[i] as usize;
    let rest = &msg.original[start..];
    let end = rest
        .iter()
        .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .unwrap_or(rest.len());
    // The bytes are ASCII by construction.
    std::str::from_utf8(&rest[..end]).unwrap_or("")
}

/// The text Jackson's `getText()` gives a non-string scalar token.
fn scalar_text(msg: &Message<'_, '_>, i: usize) -> String {
    match msg.nodes[i] {
        Node::Static(StaticNode::Bool(b)) => b.to_string(),
        Node::Static(StaticNode::Null) => "null".to_string(),
        Node::Static(_) => number_text(msg, i).to_string(),
        Node::String(s) => s.to_string(),
        _ => String::new(),
    }
}

fn kind(node: &Node<'_>) -> &'static str {
    match node {
        Node::Object { .. } => "an object",
        Node::Array { .. } => "an array",
        Node::String(_) => "a string",
        Node::Static(StaticNode::Bool(_)) => "a boolean",
        Node::Static(StaticNode::Null) => "null",
        Node::Static(_) => "a number",
    }
}

fn mismatch(conv: &Conv) -> String {
    format!("no column builder matches {conv:?}")
}

/// Converts the value at `i` into one value of `builder`; returns the index after it.
fn convert(
    msg: &Message<'_, '_>,
    conv: &Conv,
    builder: &mut ColumnBuilder,
    i: usize,
    depth: usize,
) -> Walk<usize> {
    let node = &msg.nodes[i];
    if let Node::Static(StaticNode::Null) = node {
        builder.push_null();
        return Ok(i + 1);
    }
    match conv {
        Conv::Boolean => {
            let value = match node {
                Node::Static(StaticNode::Bool(v)) => *v,
                Node::String(s) => java_trim(s).eq_ignore_ascii_case("true"),
                _ => false,
            };
            builder.push_bool(value);
        }
        Conv::Int8 => {
            let v = small_int(msg, i, i64::from(i8::MIN), i64::from(i8::MAX), "byte")?;
            let ColumnBuilder::Int8(c) = builder else {
                return Err(mismatch(conv));
            };
            c.push(v as i8);
        }
        Conv::Int16 => {
            let v = small_int(msg, i, i64::from(i16::MIN), i64::from(i16::MAX), "short")?;
            let ColumnBuilder::Int16(c) = builder else {
                return Err(mismatch(conv));
            };
            c.push(v as i16);
        }
        Conv::Int32 => {
            let v = int_value(msg, i, i64::from(i32::MIN), i64::from(i32::MAX), "int")? as i32;
            match builder {
                ColumnBuilder::Int32(c) => c.push(v),
                ColumnBuilder::IntervalYearMonth(c) => c.push(v),
                _ => return Err(mismatch(conv)),
            }
        }
        Conv::Int64 => {
            let v = int_value(msg, i, i64::MIN, i64::MAX, "long")?;
            match builder {
                ColumnBuilder::Int64(c) => c.push(v),
                ColumnBuilder::DurationMillisecond(c) => c.push(v),
                _ => return Err(mismatch(conv)),
            }
        }
        Conv::Float32 => {
            let text = value_text(msg, i, "FLOAT")?;
            let v =
                parse_java_float(&text).ok_or_else(|| format!("For input string: \"{text}\""))?;
            let ColumnBuilder::Float32(c) = builder else {
                return Err(mismatch(conv));
            };
            c.push(v);
        }
        Conv::Float64 => {
            let text = value_text(msg, i, "DOUBLE")?;
            let v =
                parse_java_double(&text).ok_or_else(|| format!("For input string: \"{text}\""))?;
            let ColumnBuilder::Float64(c) = builder else {
                return Err(mismatch(conv));
            };
            c.push(v);
        }
        Conv::Decimal { precision, scale } => {
            let text = match node {
                Node::String(s) => java_trim(s),
                Node::Static(StaticNode::I64(_) | StaticNode::U64(_) | StaticNode::F64(_)) => {
                    number_text(msg, i)
                }
                _ => return Err(format!("cannot read {} as DECIMAL", kind(node))),
            };
            match parse_decimal(text, *precision, *scale)? {
                Some(v) => {
                    let ColumnBuilder::Decimal128(c) = builder else {
                        return Err(mismatch(conv));
                    };
                    c.push(v);
                }
                // As Flink's DecimalData.fromBigDecimal: too wide for the column is NULL.
                None => builder.push_null(),
            }
        }
        Conv::Utf8 => {
            let ColumnBuilder::Bytes(c) = builder else {
                return Err(mismatch(conv));
            };
            match node {
                Node::String(s) => c.push(s.as_bytes()),
                Node::Object { .. } | Node::Array { .. } => {
                    let mut text = String::new();
                    write_json(msg, i, &mut text, msg.has_decimal)?;
                    c.push(text.as_bytes())
                }
                _ => c.push(scalar_text(msg, i).as_bytes()),
            }
            .map_err(|e| e.to_string())?;
        }
        Conv::Binary => {
            let Node::String(s) = node else {
                return Err(format!(
                    "cannot read {} as BINARY: expected a base64 string",
                    kind(node)
                ));
            };
            let compact: String = s.split(|c: char| c.is_ascii_whitespace()).collect();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(compact.as_bytes())
                .map_err(|e| format!("invalid base64 value: {e}"))?;
            let ColumnBuilder::Bytes(c) = builder else {
                return Err(mismatch(conv));
            };
            c.push(&bytes).map_err(|e| e.to_string())?;
        }
        Conv::Date => {
            let text = temporal_text(node, "DATE")?;
            let days = parse_date(text).ok_or_else(|| {
                format!("Text '{text}' could not be parsed as a DATE (yyyy-MM-dd)")
            })?;
            let ColumnBuilder::Date32(c) = builder else {
                return Err(mismatch(conv));
            };
            c.push(days);
        }
        Conv::Time => {
            let text = temporal_text(node, "TIME")?;
            let millis = parse_sql_time_whole_seconds(text)
                .ok_or_else(|| format!("Text '{text}' could not be parsed as a TIME (HH:mm:ss)"))?;
            match builder {
                ColumnBuilder::Time32Second(c) => c.push(millis / 1000),
                ColumnBuilder::Time32Millisecond(c) => c.push(millis),
                ColumnBuilder::Time64Microsecond(c) => c.push(i64::from(millis) * 1000),
                ColumnBuilder::Time64Nanosecond(c) => c.push(i64::from(millis) * 1_000_000),
                _ => return Err(mismatch(conv)),
            }
        }
        Conv::Timestamp { zoned } => {
            let text = temporal_text(node, "TIMESTAMP")?;
            let standard = msg.options.timestamp_standard;
            let parsed = if *zoned {
                parse_timestamp_ltz(text, standard)
            } else {
                parse_timestamp(text, standard)
            };
            let (millis, nanos) = parsed.ok_or_else(|| timestamp_error(text, standard, *zoned))?;
            push_timestamp(builder, millis, nanos).map_err(|e| format!("{e} ('{text}')"))?;
        }
        Conv::List(element) => {
            let Node::Array { len, .. } = *node else {
                return Err(format!("Illegal JSON array data: got {}", kind(node)));
            };
            let ColumnBuilder::List { element: child, .. } = builder else {
                return Err(mismatch(conv));
            };
            let mut j = i + 1;
            for _ in 0..len {
                j = convert(msg, element, child, j, depth + 1)?;
            }
            builder.end_nested_value();
        }
        Conv::Map { values } => {
            let Node::Object { len, .. } = *node else {
                return Err(format!("Illegal JSON map data: got {}", kind(node)));
            };
            let ColumnBuilder::Map {
                keys,
                values: value_builder,
                ..
            } = builder
            else {
                return Err(mismatch(conv));
            };
            let ColumnBuilder::Bytes(key_column) = keys.as_mut() else {
                return Err(mismatch(conv));
            };
            // The last value of a repeated key wins, at the key's first position.
            let mut entries: Vec<(&str, usize)> = Vec::with_capacity(len);
            let mut positions: HashMap<&str, usize> = HashMap::new();
            let mut j = i + 1;
            for _ in 0..len {
                let Node::String(key) = msg.nodes[j] else {
                    return Err("malformed JSON: object key is not a string".into());
                };
                let value = j + 1;
                let existing = if len > 16 {
                    positions.get(key).copied()
                } else {
                    entries.iter().position(|(k, _)| *k == key)
                };
                match existing {
                    Some(p) => entries[p].1 = value,
                    None => {
                        if len > 16 {
                            positions.insert(key, entries.len());
                        }
                        entries.push((key, value));
                    }
                }
                j = skip(msg.nodes, value);
            }
            for (key, value) in entries {
                key_column.push(key.as_bytes()).map_err(|e| e.to_string())?;
                convert(msg, values, value_builder, value, depth + 1)?;
            }
            builder.end_nested_value();
        }
        Conv::Struct(plan) => {
            if !matches!(node, Node::Object { .. }) {
                return Err(format!("Illegal JSON object data: got {}", kind(node)));
            }
            let ColumnBuilder::Struct { fields, .. } = builder else {
                return Err(mismatch(conv));
            };
            walk_row(msg, plan, fields, i, depth)?;
            builder.end_nested_value();
        }
    }
    Ok(skip(msg.nodes, i))
}

/// Text of a value read as a float: the string itself, or the scalar's token text.
fn value_text<'a>(msg: &Message<'a, '_>, i: usize, what: &str) -> Walk<std::borrow::Cow<'a, str>> {
    match msg.nodes[i] {
        Node::String(s) => Ok(std::borrow::Cow::Owned(s.to_string())),
        Node::Object { .. } | Node::Array { .. } => {
            Err(format!("cannot read {} as {what}", kind(&msg.nodes[i])))
        }
        _ => Ok(std::borrow::Cow::Owned(scalar_text(msg, i))),
    }
}

fn temporal_text<'a>(node: &Node<'a>, what: &str) -> Walk<&'a str> {
    match node {
        Node::String(s) => Ok(s),
        other => Err(format!(
            "cannot read {} as {what}: expected a string",
            kind(other)
        )),
    }
}

fn timestamp_error(text: &str, standard: TimestampStandard, zoned: bool) -> String {
    let form = match (standard, zoned) {
        (TimestampStandard::Sql, false) => "yyyy-MM-dd HH:mm:ss[.fffffffff]",
        (TimestampStandard::Sql, true) => "yyyy-MM-dd HH:mm:ss[.fffffffff]Z",
        (TimestampStandard::Iso8601, false) => "yyyy-MM-ddTHH:mm[:ss[.fffffffff]]",
        (TimestampStandard::Iso8601, true) => "yyyy-MM-ddTHH:mm[:ss[.fffffffff]]Z",
    };
    format!("Text '{text}' could not be parsed as a timestamp of the form {form}")
}

/// Appends epoch millis + nanos of the millisecond in the builder's unit (truncating to it).
fn push_timestamp(builder: &mut ColumnBuilder, millis: i64, nanos: u32) -> Walk<()> {
    match builder {
        ColumnBuilder::TimestampSecond(c) => c.push(millis.div_euclid(1000)),
        ColumnBuilder::TimestampMillisecond(c) => c.push(millis),
        ColumnBuilder::TimestampMicrosecond(c) => c.push(
            millis
                .checked_mul(1000)
                .and_then(|v| v.checked_add(i64::from(nanos / 1000)))
                .ok_or("the timestamp is outside the range of microsecond timestamps")?,
        ),
        ColumnBuilder::TimestampNanosecond(c) => c.push(
            millis
                .checked_mul(1_000_000)
                .and_then(|v| v.checked_add(i64::from(nanos)))
                .ok_or("the timestamp is outside the range of Arrow nanosecond timestamps (1677-09-21 to 2262-04-11)")?,
        ),
        _ => return Err("not a timestamp column".into()),
    }
    Ok(())
}

/// TINYINT/SMALLINT: integer tokens in range, or Java's `parseByte`/`parseShort` of a string;
/// fractions are rejected.
fn small_int(msg: &Message<'_, '_>, i: usize, min: i64, max: i64, java: &str) -> Walk<i64> {
    let node = &msg.nodes[i];
    let value = match node {
        Node::Static(StaticNode::I64(v)) => Some(*v),
        Node::Static(StaticNode::U64(v)) => i64::try_from(*v).ok(),
        Node::Static(StaticNode::F64(_)) => None,
        Node::String(s) => parse_java_long(java_trim(s)),
        Node::Static(StaticNode::Bool(_)) => None,
        _ => return Err(format!("cannot read {} as an integer", kind(node))),
    };
    match value {
        Some(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!(
            "Numeric value ({}) out of range of Java {java}, or not an integer",
            display_value(msg, i)
        )),
    }
}

/// INT/BIGINT: integer tokens in range, float tokens truncated toward zero (as Jackson's
/// `getIntValue`/`getLongValue`), strings by Java's `parseInt`/`parseLong`.
fn int_value(msg: &Message<'_, '_>, i: usize, min: i64, max: i64, java: &str) -> Walk<i64> {
    let node = &msg.nodes[i];
    let value = match node {
        Node::Static(StaticNode::I64(v)) => Some(*v).filter(|v| (min..=max).contains(v)),
        Node::Static(StaticNode::U64(v)) => {
            i64::try_from(*v).ok().filter(|v| (min..=max).contains(v))
        }
        Node::Static(StaticNode::F64(_)) => {
            let d: f64 = number_text(msg, i).parse().unwrap_or(f64::NAN);
            if d.is_nan() || d < min as f64 || d > max as f64 {
                None
            } else {
                Some(d.trunc() as i64)
            }
        }
        Node::String(s) => parse_java_long(java_trim(s)).filter(|v| (min..=max).contains(v)),
        Node::Static(StaticNode::Bool(_)) => None,
        _ => return Err(format!("cannot read {} as an integer", kind(node))),
    };
    value.ok_or_else(|| {
        format!(
            "Numeric value ({}) out of range of Java {java}, or not a number",
            display_value(msg, i)
        )
    })
}

fn display_value(msg: &Message<'_, '_>, i: usize) -> String {
    match msg.nodes[i] {
        Node::String(s) => format!("\"{s}\""),
        _ => scalar_text(msg, i),
    }
}

/// Compact JSON of the value at `i`, as Jackson's tree `toString()` writes it: no whitespace,
/// keys in order, a repeated key's last value at its first position, numbers as Jackson's
/// node types print them (doubles, or stripped decimals when the table has a DECIMAL column).
fn write_json(msg: &Message<'_, '_>, i: usize, out: &mut String, decimals: bool) -> Walk<usize> {
    match msg.nodes[i] {
        Node::Object { len, .. } => {
            let mut entries: Vec<(&str, usize)> = Vec::with_capacity(len);
            let mut j = i + 1;
            for _ in 0..len {
                let Node::String(key) = msg.nodes[j] else {
                    return Err("malformed JSON: object key is not a string".into());
                };
                match entries.iter().position(|(k, _)| *k == key) {
                    Some(p) => entries[p].1 = j + 1,
                    None => entries.push((key, j + 1)),
                }
                j = skip(msg.nodes, j + 1);
            }
            out.push('{');
            for (n, (key, value)) in entries.into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                write_json_string(key, out, false);
                out.push(':');
                write_json(msg, value, out, decimals)?;
            }
            out.push('}');
            Ok(j)
        }
        Node::Array { len, .. } => {
            out.push('[');
            let mut j = i + 1;
            for n in 0..len {
                if n > 0 {
                    out.push(',');
                }
                j = write_json(msg, j, out, decimals)?;
            }
            out.push(']');
            Ok(j)
        }
        Node::String(s) => {
            write_json_string(s, out, false);
            Ok(i + 1)
        }
        Node::Static(StaticNode::F64(_)) => {
            let text = number_text(msg, i);
            if decimals {
                match crate::decimal::parse_decimal_exact(text) {
                    Some((unscaled, scale)) => out.push_str(
                        &crate::decimal::decimal_to_java_string(unscaled, scale, true),
                    ),
                    None => out.push_str(text),
                }
            } else {
                let d: f64 = text.parse().unwrap_or(f64::NAN);
                crate::javatext::push_java_double(d, out, true);
            }
            Ok(i + 1)
        }
        _ => {
            out.push_str(&scalar_text(msg, i));
            Ok(i + 1)
        }
    }
}

/// A JSON string as Jackson writes it: `"` and `\` escaped, control characters as short escapes
/// or `\u00XX` (upper-case hex), characters outside the BMP as two `\uXXXX` surrogate escapes
/// when `escape_supplementary` (Jackson's generator) or as they are (a tree's `toString()`),
/// everything else as is.
pub(crate) fn write_json_string(s: &str, out: &mut String, escape_supplementary: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if escape_supplementary && (c as u32) > 0xFFFF => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
