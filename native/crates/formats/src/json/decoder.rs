//! [`JsonDecoder`]: each message parsed by simd-json and its tape walked into the Arrow column
//! builders of the target schema, value by value as Flink's JSON deserializer reads it.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Fields, IntervalUnit, SchemaRef, TimeUnit};
use simd_json::{Node, StaticNode};

use super::options::JsonDecodeOptions;
use crate::builder::{ColumnBuilder, NotNullCheck, builders_for, finish_batch};
use crate::decimal::parse_decimal;
use crate::error::{FormatError, Result};
use crate::javatext::{java_trim, parse_java_double, parse_java_float, parse_java_long};
use crate::options::FormatOptions;
use crate::temporal::{
    TimestampStandard, parse_date, parse_sql_time_whole_seconds, parse_timestamp,
    parse_timestamp_ltz, timestamp_in_unit,
};

/// Deepest nesting Jackson (Flink's JSON parser) accepts: the root object is level 1.
const MAX_DEPTH: usize = 1000;
/// Longest number token Jackson accepts, in characters.
const MAX_NUMBER_LENGTH: usize = 1000;
/// Longest field name Jackson accepts (`maxNameLength`), in characters.
const MAX_NAME_LENGTH: usize = 50_000;
/// Longest string Jackson reads (`maxStringLength`), in characters.
const MAX_STRING_LENGTH: usize = 20_000_000;

/// Decodes JSON messages into Arrow batches of a fixed schema.
///
/// Messages are read as rows of the table's physical columns; the batches hold the columns the
/// query reads (a projection of them, nested fields too). Unread fields are still converted, so
/// a message fails here exactly where Flink's full decode of the same row would, and are never
/// built. A message holds one object (one row) or an array of objects (one row each); an empty
/// message yields no row. Values convert as Flink 2.2's default JSON deserializer converts them
/// (numbers from strings, float truncation for INT/BIGINT, DECIMAL overflow as NULL, raw number
/// text for STRING, SQL or ISO-8601 timestamps).
///
/// The decoder reads the messages Flink's deserializer reads unambiguously, and fails every
/// other message (one it would decode some other way than this walk does): JSON simd-json does
/// not accept (content after the root value, invalid UTF-8, lone surrogates, malformed
/// tokens), a key repeated within an object, an object or array given to a scalar column,
/// nesting deeper than Jackson's 1000 levels or numbers longer than its 1000 characters, a root
/// array element that is not an object, and timestamps with more fractional digits than the
/// column's Arrow unit keeps. A caller that must match Flink on every message hands the failed
/// ones to Flink's own deserializer (see `Decoder`'s deferral); under `ignore-parse-errors`
/// without one, they are skipped and counted.
pub struct JsonDecoder {
    schema: SchemaRef,
    plan: StructPlan,
    columns: Vec<ColumnBuilder>,
    not_null: NotNullCheck,
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
    Timestamp { zoned: bool, unit: TimeUnit },
    List(Box<Conv>),
    Map { values: Box<Conv> },
    Struct(StructPlan),
}

/// How the fields of one JSON object convert: every field of the physical row type, each with
/// the builder (among the fields the query reads) its values go to, if any.
#[derive(Debug)]
struct StructPlan {
    names: Vec<Box<str>>,
    convs: Vec<Conv>,
    index: HashMap<Box<str>, usize>,
    /// Per field, the index of its builder among the produced fields, or `None` when the query
    /// does not read it (its values are converted, to fail where Flink fails, but not kept).
    targets: Vec<Option<usize>>,
}

impl StructPlan {
    /// The plan of `physical` fields producing `produced` ones (a subset by name, nested rows
    /// possibly pruned to a subset of their fields).
    fn new(physical: &Fields, produced: &Fields) -> Result<Self> {
        let names: Vec<Box<str>> = physical.iter().map(|f| f.name().as_str().into()).collect();
        let mut targets: Vec<Option<usize>> = vec![None; physical.len()];
        let mut convs = Vec::with_capacity(physical.len());
        let mut produced_of: Vec<Option<&DataType>> = vec![None; physical.len()];
        for (t, field) in produced.iter().enumerate() {
            let Some(p) = physical.iter().position(|f| f.name() == field.name()) else {
                return Err(FormatError::config(format!(
                    "the column '{}' is not a field of the JSON rows",
                    field.name()
                )));
            };
            targets[p] = Some(t);
            produced_of[p] = Some(field.data_type());
        }
        for (field, produced) in physical.iter().zip(produced_of) {
            convs.push(Conv::new(field.data_type(), produced, field.name())?);
        }
        let index = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        Ok(Self {
            names,
            convs,
            index,
            targets,
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
    /// How a value of `data_type` converts; `produced` is the type the query reads of it (the
    /// same, or a row pruned to some of its fields), `None` when it reads none of it.
    fn new(data_type: &DataType, produced: Option<&DataType>, name: &str) -> Result<Self> {
        if let Some(produced) = produced
            && produced != data_type
            && !matches!(
                (data_type, produced),
                (DataType::Struct(_), DataType::Struct(_))
            )
        {
            return Err(FormatError::config(format!(
                "the column '{name}' is read as {produced}, which is not a projection of its type {data_type}"
            )));
        }
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
            DataType::Timestamp(unit, zone) => Conv::Timestamp {
                zoned: zone.is_some(),
                unit: *unit,
            },
            DataType::List(element) => Conv::List(Box::new(Conv::new(
                element.data_type(),
                Some(element.data_type()),
                name,
            )?)),
            DataType::Map(entries, _) => {
                let (key, value) = crate::builder::map_fields(entries)?;
                if key.data_type() != &DataType::Utf8 {
                    return Err(FormatError::config(format!(
                        "JSON format doesn't support non-string as key type of map. The type of column '{name}' is: {data_type}"
                    )));
                }
                Conv::Map {
                    values: Box::new(Conv::new(value.data_type(), Some(value.data_type()), name)?),
                }
            }
            DataType::Struct(fields) => {
                let empty = Fields::empty();
                let produced_fields = match produced {
                    Some(DataType::Struct(produced)) => produced,
                    _ => &empty,
                };
                Conv::Struct(StructPlan::new(fields, produced_fields)?)
            }
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
    /// simd-json's structural indexes of the message: where every token starts, and every
    /// closer, colon and comma.
    structurals: &'a [u32],
    /// Input offset of each tape node's first byte, found from `structurals` when a number's
    /// text is first read (most messages never need it).
    offsets: std::cell::RefCell<NodeOffsets<'a>>,
    original: &'a [u8],
    options: &'a JsonDecodeOptions,
    has_decimal: bool,
}

/// Input offsets of a message's tape nodes, in a vector kept between messages.
struct NodeOffsets<'a> {
    offsets: &'a mut Vec<u32>,
    filled: bool,
}

impl Message<'_, '_> {
    /// Input offset of the first byte of tape node `i`.
    fn offset(&self, i: usize) -> Walk<usize> {
        let mut state = self.offsets.borrow_mut();
        if !state.filled {
            // Tape nodes are the structurals that open a value (containers, strings,
            // scalars), in order; closers, colons and commas have none.
            state.offsets.clear();
            for &index in self.structurals {
                if !matches!(
                    self.original.get(index as usize),
                    Some(b'}' | b']' | b':' | b',') | None
                ) {
                    state.offsets.push(index);
                }
            }
            state.filled = true;
        }
        state
            .offsets
            .get(i)
            .map(|o| *o as usize)
            .ok_or_else(|| "malformed JSON: the structure index does not match".to_string())
    }
}

type Walk<T> = std::result::Result<T, String>;

impl JsonDecoder {
    /// A decoder producing batches of `schema` with the `json` options given (keys without the
    /// `json.` prefix), for messages holding exactly the schema's columns.
    pub fn try_new(schema: SchemaRef, options: &FormatOptions) -> Result<Self> {
        Self::try_new_projected(Arc::clone(&schema), schema, options)
    }

    /// A decoder of messages holding the `physical` columns producing batches of `produced`
    /// (the columns the query reads: a subset by name, nested rows pruned to the fields read).
    pub fn try_new_projected(
        physical: SchemaRef,
        produced: SchemaRef,
        options: &FormatOptions,
    ) -> Result<Self> {
        let options = JsonDecodeOptions::parse(options)?;
        let plan = StructPlan::new(physical.fields(), produced.fields())?;
        let columns = builders_for(produced.fields())?;
        // As Flink's deserializer: decimals anywhere in the row it decodes decide how a STRING
        // column spells the floats of an object or array it is given. That row is the whole
        // value: Flink's Kafka source pushes no projection into its format.
        let has_decimal = physical
            .fields()
            .iter()
            .any(|f| contains_decimal(f.data_type()));
        Ok(Self {
            not_null: NotNullCheck::new(produced.fields()),
            schema: produced,
            plan,
            columns,
            options,
            rows: 0,
            messages: 0,
            skipped: 0,
            buffers: simd_json::Buffers::with_max_depth(128, MAX_DEPTH),
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
        // The tape's node vector is reused: it leaves every message empty, borrowing nothing.
        let mut tape = self
            .tape
            .take()
            .unwrap_or_else(simd_json::Tape::null)
            .reset();
        let walked = match simd_json::fill_tape(&mut self.scratch, &mut self.buffers, &mut tape) {
            // Only a message this long can hold a name or string past Jackson's limits.
            Ok(()) if message.len() > MAX_NAME_LENGTH && past_jackson_lengths(&tape.0) => {
                Err(format!(
                    "a field name longer than {MAX_NAME_LENGTH} or a string longer than \
                     {MAX_STRING_LENGTH} characters, which Jackson refuses"
                ))
            }
            Ok(()) => {
                let mut offsets = std::mem::take(&mut self.number_offsets);
                let walked = walk_message(
                    &tape.0,
                    self.buffers.structural_indexes(),
                    &mut offsets,
                    message,
                    &self.plan,
                    &mut self.columns,
                    &self.options,
                    self.has_decimal,
                );
                self.number_offsets = offsets;
                walked
            }
            // simd-json holds Jackson's nesting limit (`Buffers::with_max_depth`).
            Err(e) if *e.error() == simd_json::ErrorType::DepthLimitExceeded => Err(format!(
                "Document nesting depth ({}) exceeds the maximum allowed ({MAX_DEPTH})",
                MAX_DEPTH + 1
            )),
            Err(e) => Err(format!("malformed JSON: {e}")),
        };
        self.tape = Some(tape.reset());
        let rows = walked?;
        self.not_null
            .check(&self.columns, self.rows, self.rows + rows)?;
        self.rows += rows;
        Ok(())
    }

    /// Builds the batch of every row decoded since the last flush.
    pub fn flush(&mut self) -> Result<RecordBatch> {
        self.messages = 0;
        let rows = std::mem::take(&mut self.rows);
        finish_batch(&self.schema, &mut self.columns, rows)
    }
}

/// Walks one parsed message (`nodes`, its tape) into `columns`; returns the rows it held.
#[allow(clippy::too_many_arguments)]
fn walk_message(
    nodes: &[Node<'_>],
    structurals: &[u32],
    offsets: &mut Vec<u32>,
    message: &[u8],
    plan: &StructPlan,
    columns: &mut [ColumnBuilder],
    options: &JsonDecodeOptions,
    has_decimal: bool,
) -> Walk<usize> {
    if memchr::memchr(b'\\', message).is_some() {
        check_surrogates(message)?;
    }
    // A number token past Jackson's length limit needs a message longer than the limit.
    if message.len() > MAX_NUMBER_LENGTH {
        check_number_lengths(structurals, message)?;
    }
    let msg = Message {
        nodes,
        structurals,
        offsets: std::cell::RefCell::new(NodeOffsets {
            offsets,
            filled: false,
        }),
        original: message,
        options,
        has_decimal,
    };
    let mut rows = 0;
    match nodes.first() {
        Some(Node::Object { .. }) => {
            walk_row(&msg, plan, Some(columns), 0)?;
            rows += 1;
        }
        Some(Node::Array { len, .. }) => {
            let mut i = 1;
            for _ in 0..*len {
                // Flink makes a NULL row of a null element, and fails on other non-objects.
                if !matches!(nodes.get(i), Some(Node::Object { .. })) {
                    return Err(
                        "Illegal JSON object data: an array element is not an object".into(),
                    );
                }
                i = walk_row(&msg, plan, Some(columns), i)?;
                rows += 1;
            }
        }
        _ => {
            return Err(
                "No content to map due to end-of-input: the message is not a JSON object or array"
                    .into(),
            );
        }
    }
    Ok(rows)
}

/// Fails on a number token longer than Jackson's limit, which simd-json does not share.
fn check_number_lengths(structurals: &[u32], message: &[u8]) -> Walk<()> {
    for (n, &index) in structurals.iter().enumerate() {
        if let Some(b'-' | b'0'..=b'9') = message.get(index as usize) {
            let end = structurals
                .get(n + 1)
                .map_or(message.len(), |e| *e as usize);
            if end.saturating_sub(index as usize) > MAX_NUMBER_LENGTH
                && number_length(&message[index as usize..]) > MAX_NUMBER_LENGTH
            {
                return Err(format!(
                    "Number value length exceeds the maximum allowed ({MAX_NUMBER_LENGTH})"
                ));
            }
        }
    }
    Ok(())
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

/// Whether `nodes` hold a field name of more than [`MAX_NAME_LENGTH`] bytes or a string of more
/// than [`MAX_STRING_LENGTH`] (bytes, never fewer than its characters: such a message is left to
/// Flink's decoder, which decides by Jackson's counts).
fn past_jackson_lengths(nodes: &[Node<'_>]) -> bool {
    nodes.iter().enumerate().any(|(i, node)| match node {
        Node::String(s) => s.len() > MAX_STRING_LENGTH,
        Node::Object { len, .. } => {
            let mut key = i + 1;
            (0..*len).any(|_| {
                let long =
                    matches!(nodes.get(key), Some(Node::String(k)) if k.len() > MAX_NAME_LENGTH);
                key = if key + 1 < nodes.len() {
                    skip(nodes, key + 1)
                } else {
                    nodes.len()
                };
                long
            })
        }
        _ => false,
    })
}

/// Index of the node after the value starting at `i`.
#[inline]
fn skip(nodes: &[Node<'_>], i: usize) -> usize {
    match nodes[i] {
        Node::Object { count, .. } | Node::Array { count, .. } => i + count + 1,
        _ => i + 1,
    }
}

/// Reads the object at `i` into one row of `columns` (or only converts it, when the query reads
/// none of it); returns the index after it.
fn walk_row(
    msg: &Message<'_, '_>,
    plan: &StructPlan,
    mut columns: Option<&mut [ColumnBuilder]>,
    i: usize,
) -> Walk<usize> {
    let Node::Object { len, .. } = msg.nodes[i] else {
        return Err("Illegal JSON object data".into());
    };
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
            Some(name) if same_key(name, key) => Some(expected),
            _ => plan.lookup(key),
        };
        match field {
            Some(f) => {
                expected = f + 1;
                if seen.get(f) {
                    // Flink counts keys, not fields: a repeated key changes which ones it reads.
                    return Err(format!("the key '{key}' appears twice in one object"));
                }
                seen.set(f);
                let mut builder = match (plan.targets[f], columns.as_deref_mut()) {
                    (Some(t), Some(columns)) => Some(&mut columns[t]),
                    _ => None,
                };
                let conv = &plan.convs[f];
                let standard = msg.options.timestamp_standard;
                let converted =
                    if convert_common(&msg.nodes[j], conv, builder.as_deref_mut(), standard) {
                        Ok(j + 1)
                    } else {
                        convert(msg, conv, builder, j)
                    };
                j = converted.map_err(|e| format!("Fail to deserialize at field: {key}: {e}"))?;
            }
            None => j = skip(msg.nodes, j),
        }
    }
    if seen.all(plan.convs.len()) {
        return Ok(j);
    }
    for f in 0..plan.convs.len() {
        if !seen.get(f) {
            if msg.options.fail_on_missing_field {
                return Err(format!(
                    "Some field is missing in the JSON data: '{}'",
                    plan.names[f]
                ));
            }
            if let (Some(t), Some(columns)) = (plan.targets[f], columns.as_deref_mut()) {
                columns[t].push_null();
            }
        }
    }
    Ok(j)
}

/// Whether a field name and a key are equal. Keys are short: from 4 bytes on, two overlapping
/// words from each end cover them (8-byte words from 8 bytes on), with no loop and no call to
/// `memcmp`.
#[inline]
fn same_key(name: &str, key: &str) -> bool {
    let (a, b) = (name.as_bytes(), key.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let n = a.len();
    match n {
        0..4 => a.iter().zip(b).all(|(x, y)| x == y),
        4..8 => {
            let word = |s: &[u8], at: usize| {
                s.get(at..at + 4)
                    .and_then(|w| w.try_into().ok())
                    .map(u32::from_ne_bytes)
            };
            word(a, 0) == word(b, 0) && word(a, n - 4) == word(b, n - 4)
        }
        8..=16 => {
            let word = |s: &[u8], at: usize| {
                s.get(at..at + 8)
                    .and_then(|w| w.try_into().ok())
                    .map(u64::from_ne_bytes)
            };
            word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8)
        }
        _ => a == b,
    }
}

/// The common cases of [`convert`], inlined into the row walk: an integer token into a BIGINT
/// or INT column that holds it, a float token into a DOUBLE, a string into a STRING, a
/// timestamp with no digits past the millisecond into a TIMESTAMP(3), each kept in `builder`
/// or (with none) only checked. Returns whether it took the value; every other value (and any
/// value these would fail on) goes to `convert`, which reads it the same way or fails with its
/// message.
#[inline(always)]
fn convert_common(
    node: &Node<'_>,
    conv: &Conv,
    builder: Option<&mut ColumnBuilder>,
    standard: TimestampStandard,
) -> bool {
    macro_rules! keep {
        ($variant:ident, $value:expr) => {
            match builder {
                Some(ColumnBuilder::$variant(c)) => {
                    c.push($value);
                    true
                }
                Some(_) => false,
                None => true,
            }
        };
    }
    match (conv, node) {
        // simd-json gives a non-negative integer as U64, a negative one as I64.
        (Conv::Int64, Node::Static(StaticNode::U64(v))) => match i64::try_from(*v) {
            Ok(v) => keep!(Int64, v),
            Err(_) => false,
        },
        (Conv::Int64, Node::Static(StaticNode::I64(v))) => keep!(Int64, *v),
        (Conv::Int32, Node::Static(StaticNode::U64(v))) => match i32::try_from(*v) {
            Ok(v) => keep!(Int32, v),
            Err(_) => false,
        },
        (Conv::Int32, Node::Static(StaticNode::I64(v))) => match i32::try_from(*v) {
            Ok(v) => keep!(Int32, v),
            Err(_) => false,
        },
        (Conv::Float64, Node::Static(StaticNode::F64(v))) => keep!(Float64, *v),
        (Conv::Utf8, Node::String(text)) => match builder {
            Some(ColumnBuilder::Bytes(c)) => c.push(text.as_bytes()).is_ok(),
            Some(_) => false,
            None => true,
        },
        (
            Conv::Timestamp {
                zoned: false,
                unit: TimeUnit::Millisecond,
            },
            Node::String(text),
        ) => match parse_timestamp(text, standard) {
            Some((millis, 0)) => keep!(TimestampMillisecond, millis),
            _ => false,
        },
        _ => false,
    }
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

    /// Whether all of the first `fields` fields were present (a mask answers at once).
    #[inline]
    fn all(&self, fields: usize) -> bool {
        match self {
            Seen::Mask(m) => *m == u64::MAX >> (64 - fields.max(1)) || fields == 0,
            Seen::Vec(_) => false,
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
fn number_text<'a>(msg: &Message<'a, '_>, i: usize) -> Walk<&'a str> {
    let start = msg.offset(i)?;
    let rest = msg.original.get(start..).unwrap_or_default();
    let end = rest
        .iter()
        .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .unwrap_or(rest.len());
    // The bytes are ASCII by construction.
    Ok(std::str::from_utf8(&rest[..end]).unwrap_or(""))
}

/// Fails on a `\\u` escape of a surrogate that is not half of a pair: simd-json reads it as
/// something else, Jackson keeps it as a lone UTF-16 unit. `message` is valid JSON, so every
/// backslash is inside a string.
fn check_surrogates(message: &[u8]) -> Walk<()> {
    let unit = |at: usize| -> Option<u16> {
        if message.get(at) != Some(&b'\\') || message.get(at + 1) != Some(&b'u') {
            return None;
        }
        let hex = std::str::from_utf8(message.get(at + 2..at + 6)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    };
    let mut i = 0;
    while let Some(offset) = message
        .get(i..)
        .and_then(|rest| memchr::memchr(b'\\', rest))
    {
        let at = i + offset;
        match unit(at) {
            Some(high @ 0xD800..=0xDBFF) => {
                if !matches!(unit(at + 6), Some(0xDC00..=0xDFFF)) {
                    return Err(format!("a lone surrogate escape \\u{high:04x}"));
                }
                i = at + 12;
            }
            Some(low @ 0xDC00..=0xDFFF) => {
                return Err(format!("a lone surrogate escape \\u{low:04x}"));
            }
            Some(_) => i = at + 6,
            None => i = at + 2,
        }
    }
    Ok(())
}

/// Length of the number token at the start of `bytes`.
fn number_length(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
        .unwrap_or(bytes.len())
}

/// The text Jackson's `getText()` gives a non-string scalar token.
fn scalar_text(msg: &Message<'_, '_>, i: usize) -> Walk<String> {
    Ok(match msg.nodes[i] {
        Node::Static(StaticNode::Bool(b)) => b.to_string(),
        Node::Static(StaticNode::Null) => "null".to_string(),
        Node::Static(_) => number_text(msg, i)?.to_string(),
        Node::String(s) => s.to_string(),
        _ => String::new(),
    })
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

/// Converts the value at `i` into one value of `builder` (or only converts it, when the query
/// does not read it); returns the index after it.
fn convert(
    msg: &Message<'_, '_>,
    conv: &Conv,
    builder: Option<&mut ColumnBuilder>,
    i: usize,
) -> Walk<usize> {
    let node = &msg.nodes[i];
    if let Node::Static(StaticNode::Null) = node {
        if let Some(builder) = builder {
            builder.push_null();
        }
        return Ok(i + 1);
    }
    match conv {
        Conv::Boolean => {
            let value = match node {
                Node::Static(StaticNode::Bool(v)) => *v,
                Node::String(s) => java_trim(s).eq_ignore_ascii_case("true"),
                // Flink reads a container's first token as `false` and then loses its place.
                Node::Object { .. } | Node::Array { .. } => {
                    return Err(format!("cannot read {} as BOOLEAN", kind(node)));
                }
                _ => false,
            };
            if let Some(builder) = builder {
                builder.push_bool(value);
            }
        }
        Conv::Int8 => {
            let v = small_int(msg, i, i64::from(i8::MIN), i64::from(i8::MAX), "byte")?;
            match builder {
                Some(ColumnBuilder::Int8(c)) => c.push(v as i8),
                Some(_) => return Err(mismatch(conv)),
                None => {}
            }
        }
        Conv::Int16 => {
            let v = small_int(msg, i, i64::from(i16::MIN), i64::from(i16::MAX), "short")?;
            match builder {
                Some(ColumnBuilder::Int16(c)) => c.push(v as i16),
                Some(_) => return Err(mismatch(conv)),
                None => {}
            }
        }
        Conv::Int32 => {
            let v = int_value(msg, i, i64::from(i32::MIN), i64::from(i32::MAX), "int")? as i32;
            match builder {
                Some(ColumnBuilder::Int32(c)) => c.push(v),
                Some(ColumnBuilder::IntervalYearMonth(c)) => c.push(v),
                Some(_) => return Err(mismatch(conv)),
                None => {}
            }
        }
        Conv::Int64 => {
            let v = int_value(msg, i, i64::MIN, i64::MAX, "long")?;
            match builder {
                Some(ColumnBuilder::Int64(c)) => c.push(v),
                Some(ColumnBuilder::DurationMillisecond(c)) => c.push(v),
                Some(_) => return Err(mismatch(conv)),
                None => {}
            }
        }
        Conv::Float32 => {
            let text = value_text(msg, i, "FLOAT")?;
            let v =
                parse_java_float(&text).ok_or_else(|| format!("For input string: \"{text}\""))?;
            match builder {
                Some(ColumnBuilder::Float32(c)) => c.push(v),
                Some(_) => return Err(mismatch(conv)),
                None => {}
            }
        }
        Conv::Float64 => {
            let v = match node {
                // simd-json rounds a float token correctly (its fast paths are exact, and it
                // falls back to Rust's parser when they cannot tell), as `Double.parseDouble`
                // of the token's text does: the same double, without reading the text again.
                Node::Static(StaticNode::F64(v)) => *v,
                _ => {
                    let text = value_text(msg, i, "DOUBLE")?;
                    parse_java_double(&text)
                        .ok_or_else(|| format!("For input string: \"{text}\""))?
                }
            };
            match builder {
                Some(ColumnBuilder::Float64(c)) => c.push(v),
                Some(_) => return Err(mismatch(conv)),
                None => {}
            }
        }
        Conv::Decimal { precision, scale } => {
            let text = match node {
                Node::String(s) => java_trim(s),
                Node::Static(StaticNode::I64(_) | StaticNode::U64(_) | StaticNode::F64(_)) => {
                    number_text(msg, i)?
                }
                _ => return Err(format!("cannot read {} as DECIMAL", kind(node))),
            };
            let value = parse_decimal(text, *precision, *scale)?;
            match (value, builder) {
                (Some(v), Some(ColumnBuilder::Decimal128(c))) => c.push(v),
                // As Flink's DecimalData.fromBigDecimal: too wide for the column is NULL.
                (None, Some(builder)) => builder.push_null(),
                (_, Some(_)) => return Err(mismatch(conv)),
                (_, None) => {}
            }
        }
        Conv::Utf8 => {
            let text: std::borrow::Cow<'_, str> = match node {
                Node::String(s) => std::borrow::Cow::Borrowed(s),
                Node::Object { .. } | Node::Array { .. } => {
                    if builder.is_none() {
                        // Any container reads as its JSON text.
                        return Ok(skip(msg.nodes, i));
                    }
                    let mut text = String::new();
                    write_json(msg, i, &mut text, msg.has_decimal)?;
                    std::borrow::Cow::Owned(text)
                }
                _ => std::borrow::Cow::Owned(scalar_text(msg, i)?),
            };
            match builder {
                Some(ColumnBuilder::Bytes(c)) => {
                    c.push(text.as_bytes()).map_err(|e| e.to_string())?
                }
                Some(_) => return Err(mismatch(conv)),
                None => {}
            }
        }
        Conv::Binary => {
            let Node::String(s) = node else {
                return Err(format!(
                    "cannot read {} as BINARY: expected a base64 string",
                    kind(node)
                ));
            };
            let bytes = crate::base64_text::decode(s)?;
            match builder {
                Some(ColumnBuilder::Bytes(c)) => c.push(&bytes).map_err(|e| e.to_string())?,
                Some(_) => return Err(mismatch(conv)),
                None => {}
            }
        }
        Conv::Date => {
            let text = temporal_text(node, "DATE")?;
            let days = parse_date(text).ok_or_else(|| {
                format!("Text '{text}' could not be parsed as a DATE (yyyy-MM-dd)")
            })?;
            match builder {
                Some(ColumnBuilder::Date32(c)) => c.push(days),
                Some(_) => return Err(mismatch(conv)),
                None => {}
            }
        }
        Conv::Time => {
            let text = temporal_text(node, "TIME")?;
            let millis = parse_sql_time_whole_seconds(text)
                .ok_or_else(|| format!("Text '{text}' could not be parsed as a TIME (HH:mm:ss)"))?;
            match builder {
                Some(ColumnBuilder::Time32Second(c)) => c.push(millis / 1000),
                Some(ColumnBuilder::Time32Millisecond(c)) => c.push(millis),
                Some(ColumnBuilder::Time64Microsecond(c)) => c.push(i64::from(millis) * 1000),
                Some(ColumnBuilder::Time64Nanosecond(c)) => c.push(i64::from(millis) * 1_000_000),
                Some(_) => return Err(mismatch(conv)),
                None => {}
            }
        }
        Conv::Timestamp { zoned, unit } => {
            let text = temporal_text(node, "TIMESTAMP")?;
            let standard = msg.options.timestamp_standard;
            let parsed = if *zoned {
                parse_timestamp_ltz(text, standard)
            } else {
                parse_timestamp(text, standard)
            };
            let parsed = parsed.ok_or_else(|| timestamp_error(text, standard, *zoned))?;
            let value = timestamp_in_unit(*unit, parsed).map_err(|e| format!("'{text}': {e}"))?;
            match builder {
                Some(ColumnBuilder::TimestampSecond(c)) => c.push(value),
                Some(ColumnBuilder::TimestampMillisecond(c)) => c.push(value),
                Some(ColumnBuilder::TimestampMicrosecond(c)) => c.push(value),
                Some(ColumnBuilder::TimestampNanosecond(c)) => c.push(value),
                Some(_) => return Err(mismatch(conv)),
                None => {}
            }
        }
        Conv::List(element) => {
            let Node::Array { len, .. } = *node else {
                return Err(format!("Illegal JSON array data: got {}", kind(node)));
            };
            let mut j = i + 1;
            match builder {
                Some(builder) => {
                    let ColumnBuilder::List { element: child, .. } = &mut *builder else {
                        return Err(mismatch(conv));
                    };
                    for _ in 0..len {
                        j = convert(msg, element, Some(child), j)?;
                    }
                    builder.end_nested_value();
                }
                None => {
                    for _ in 0..len {
                        j = convert(msg, element, None, j)?;
                    }
                }
            }
        }
        Conv::Map { values } => {
            let Node::Object { len, .. } = *node else {
                return Err(format!("Illegal JSON map data: got {}", kind(node)));
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
                    Some(p) => {
                        // Flink converts the overwritten value too.
                        convert(msg, values, None, entries[p].1)?;
                        entries[p].1 = value;
                    }
                    None => {
                        if len > 16 {
                            positions.insert(key, entries.len());
                        }
                        entries.push((key, value));
                    }
                }
                j = skip(msg.nodes, value);
            }
            match builder {
                Some(builder) => {
                    let ColumnBuilder::Map {
                        keys,
                        values: value_builder,
                        ..
                    } = &mut *builder
                    else {
                        return Err(mismatch(conv));
                    };
                    let ColumnBuilder::Bytes(key_column) = keys.as_mut() else {
                        return Err(mismatch(conv));
                    };
                    for (key, value) in entries {
                        key_column.push(key.as_bytes()).map_err(|e| e.to_string())?;
                        convert(msg, values, Some(value_builder), value)?;
                    }
                    builder.end_nested_value();
                }
                None => {
                    for (_, value) in entries {
                        convert(msg, values, None, value)?;
                    }
                }
            }
        }
        Conv::Struct(plan) => {
            if !matches!(node, Node::Object { .. }) {
                return Err(format!("Illegal JSON object data: got {}", kind(node)));
            }
            match builder {
                Some(builder) => {
                    let ColumnBuilder::Struct { fields, .. } = &mut *builder else {
                        return Err(mismatch(conv));
                    };
                    walk_row(msg, plan, Some(fields), i)?;
                    builder.end_nested_value();
                }
                None => {
                    walk_row(msg, plan, None, i)?;
                }
            }
        }
    }
    Ok(skip(msg.nodes, i))
}

/// Text of a value read as a float: the string itself, or the scalar's token text.
fn value_text<'a>(msg: &Message<'a, '_>, i: usize, what: &str) -> Walk<std::borrow::Cow<'a, str>> {
    match msg.nodes[i] {
        Node::String(s) => Ok(std::borrow::Cow::Borrowed(s)),
        Node::Object { .. } | Node::Array { .. } => {
            Err(format!("cannot read {} as {what}", kind(&msg.nodes[i])))
        }
        Node::Static(StaticNode::I64(_) | StaticNode::U64(_) | StaticNode::F64(_)) => {
            Ok(std::borrow::Cow::Borrowed(number_text(msg, i)?))
        }
        _ => Ok(std::borrow::Cow::Owned(scalar_text(msg, i)?)),
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
            let text = number_text(msg, i)?;
            let d: f64 = text.parse().unwrap_or(f64::NAN);
            // An integer token past 64 bits (simd-json gives it as a float): Jackson reads it as
            // a BigInteger, out of range of any Java long, however close the float rounds.
            let integral = !text.contains(['.', 'e', 'E']);
            if integral || d.is_nan() || d < min as f64 || d > max as f64 {
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

/// The value at `i` as an error message shows it.
fn display_value(msg: &Message<'_, '_>, i: usize) -> String {
    match msg.nodes[i] {
        Node::String(s) => format!("\"{s}\""),
        _ => scalar_text(msg, i).unwrap_or_else(|e| e),
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
        // Integers as Jackson's tree holds them: a long's digits (-0 is 0) and, past 64 bits
        // (simd-json gives those as floats), a BigInteger's.
        Node::Static(StaticNode::I64(v)) => {
            out.push_str(&v.to_string());
            Ok(i + 1)
        }
        Node::Static(StaticNode::U64(v)) => {
            out.push_str(&v.to_string());
            Ok(i + 1)
        }
        Node::Static(StaticNode::F64(_)) if !number_text(msg, i)?.contains(['.', 'e', 'E']) => {
            out.push_str(number_text(msg, i)?);
            Ok(i + 1)
        }
        Node::Static(StaticNode::F64(_)) => {
            let text = number_text(msg, i)?;
            if decimals {
                // Jackson's BigDecimal, trailing zeros stripped; one of more digits than an i128
                // holds is left to Flink's decoder.
                let (unscaled, scale) =
                    crate::decimal::parse_decimal_exact(text).ok_or_else(|| {
                        format!("the number {text} has more digits than are read natively")
                    })?;
                out.push_str(&crate::decimal::decimal_to_java_string(
                    unscaled, scale, true,
                ));
            } else {
                let d: f64 = text.parse().unwrap_or(f64::NAN);
                crate::javatext::push_java_double(d, out, true);
            }
            Ok(i + 1)
        }
        _ => {
            out.push_str(&scalar_text(msg, i)?);
            Ok(i + 1)
        }
    }
}

/// A JSON string as Jackson writes it: `"` and `\` escaped, control characters as short escapes
/// or `\u00XX` (upper-case hex), characters outside the BMP as two `\uXXXX` surrogate escapes
/// when `escape_supplementary` (Jackson's generator) or as they are (a tree's `toString()`),
/// everything else as is.
///
/// Runs of characters written as they are are copied whole: only the bytes that start an escape
/// (ASCII `"`, `\`, controls, and with `escape_supplementary` the lead bytes of four-byte UTF-8
/// sequences, which are character boundaries) end a run.
pub(crate) fn write_json_string(s: &str, out: &mut String, escape_supplementary: bool) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut run = 0;
    for (i, b) in s.bytes().enumerate() {
        let supplementary = escape_supplementary && b >= 0xF0;
        if !(b == b'"' || b == b'\\' || b < 0x20 || supplementary) {
            continue;
        }
        out.push_str(s.get(run..i).unwrap_or_default());
        if supplementary {
            let c = s
                .get(i..)
                .and_then(|rest| rest.chars().next())
                .unwrap_or_default();
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                push_unicode_escape(*unit, out);
            }
            run = i + c.len_utf8();
        } else {
            match b {
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                b'\n' => out.push_str("\\n"),
                b'\r' => out.push_str("\\r"),
                b'\t' => out.push_str("\\t"),
                0x08 => out.push_str("\\b"),
                0x0c => out.push_str("\\f"),
                control => push_unicode_escape(u16::from(control), out),
            }
            run = i + 1;
        }
    }
    out.push_str(s.get(run..).unwrap_or_default());
    out.push('"');
}

/// `\uXXXX` with upper-case hex digits, as Jackson writes an escaped UTF-16 unit.
fn push_unicode_escape(unit: u16, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[usize::from((unit >> shift) & 0xF)]));
    }
}

impl crate::decoder::Decoder for JsonDecoder {
    fn decode(&mut self, message: Option<&[u8]>) -> Result<()> {
        // Flink's JSON format produces no row for a null message.
        JsonDecoder::decode(self, message.unwrap_or_default())
    }

    fn flush(&mut self) -> Result<RecordBatch> {
        JsonDecoder::flush(self)
    }

    fn pending_rows(&self) -> usize {
        JsonDecoder::rows(self)
    }

    fn skipped(&self) -> usize {
        JsonDecoder::skipped(self)
    }

    fn schema(&self) -> &SchemaRef {
        JsonDecoder::schema(self)
    }
}

#[cfg(test)]
mod string_tests {
    use super::write_json_string;

    /// Jackson's escaping one character at a time: what the run-copying writer must match.
    fn one_at_a_time(s: &str, escape_supplementary: bool) -> String {
        let mut out = String::from('"');
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
        out
    }

    #[test]
    fn runs_and_escapes_come_out_as_jackson_writes_them() {
        let strings = [
            "",
            "plain",
            "\"",
            "a\"b\\c",
            "tab\tnew\nline\rfeed\u{0c}back\u{08}",
            "\u{00}\u{01}\u{1f}\u{7f}",
            "caf\u{e9} \u{20ac} \u{ffff}",
            "\u{1f600}",
            "x\u{1f600}y\u{10ffff}\"\u{1f600}",
            "https://www.nexmark.com/x/item.htm?query=1&channel_id=12",
        ];
        for s in strings {
            for supplementary in [true, false] {
                let mut out = String::from("prefix");
                write_json_string(s, &mut out, supplementary);
                assert_eq!(
                    out,
                    format!("prefix{}", one_at_a_time(s, supplementary)),
                    "{s:?}"
                );
            }
        }
        let mut out = String::new();
        write_json_string("\u{1f600}", &mut out, true);
        assert_eq!(out, "\"\\uD83D\\uDE00\"");
    }
}
