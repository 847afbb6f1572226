//! Flink's `avro` format: Avro binary datums (no container, no header) of the schema Flink
//! derives from the table (`AvroSchemaConverter`): nullable types are `["null", T]` unions,
//! TINYINT and SMALLINT are `int`, DECIMAL is `bytes` (big-endian two's complement, minimal
//! length), DATE `int` days, TIME(p <= 3) `int` milliseconds, MAP and MULTISET (string keys) Avro
//! maps, ROW a record. With the default `avro.timestamp_mapping.legacy = true`, TIMESTAMP(p <= 3)
//! is `timestamp-millis` and TIMESTAMP_LTZ is not supported; with `false`, TIMESTAMP is
//! `local-timestamp-millis`/`-micros` and TIMESTAMP_LTZ `timestamp-millis`/`-micros`.
//!
//! The datum is walked straight into Arrow columns; encoding writes the bytes Flink writes
//! (one block per array or map, as Avro's Java encoder does). Like Flink, timestamps are epoch
//! milliseconds whatever the declared unit (Flink writes `toEpochMilli()` into `-micros` types and
//! reads the long back as milliseconds). Map entries keep their order (Flink's writer goes through
//! a `HashMap`, so its byte order of map entries differs; the values read back equal).

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, Decimal128Array, ListArray, MapArray,
    RecordBatch, StructArray,
};
use arrow::datatypes::{
    BinaryType, DataType, Date32Type, Field, Float32Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type, SchemaRef, Time32MillisecondType, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, Utf8Type,
};

use crate::avro_schema::{AvroSchema, Unread, read_record};
use crate::builder::{ColumnBuilder, builders_for, end_row, finish_batch, map_fields};
use crate::decoder::Decoder;
use crate::encoder::{Encoder, MessageColumn};
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

fn derive(field: &Field, legacy: bool) -> Result<TableNode> {
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
fn writer_schema_of(node: &TableNode) -> AvroSchema {
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

fn legacy_mapping(options: &FormatOptions) -> Result<bool> {
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

/// Bytes Avro Java's buffered binary decoder reads from its input at a time
/// (`DecoderFactory.DEFAULT_BUFFER_SIZE`).
const JAVA_DECODER_BUFFER: usize = 8192;

/// Reads one Avro binary datum, primitive by primitive as Avro Java's `BinaryDecoder` reads it.
///
/// A buffered reader also follows what that decoder holds in its buffer: Flink's formats keep one
/// decoder for every message, and bytes a datum leaves unread in its buffer are read as the start
/// of the next message's datum. The stream is those bytes followed by the message; `window` is
/// the end of what the decoder has loaded, which a primitive needing more than is left loaded
/// moves up to [`JAVA_DECODER_BUFFER`] bytes past the read position.
pub(crate) struct AvroReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The end of the loaded bytes, for a buffered reader; `None` reads `bytes` as one buffer.
    window: Option<usize>,
}

type Read<T> = std::result::Result<T, String>;

const END: &str = "unexpected end of the datum";

impl<'a> AvroReader<'a> {
    /// A reader of a datum alone (a file's, a test's).
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            window: None,
        }
    }

    /// A reader of `stream` as Java's buffered decoder reads it, holding its first `loaded` bytes
    /// (left from earlier messages) before it reads any of the rest.
    pub(crate) fn buffered(stream: &'a [u8], loaded: usize) -> Self {
        Self {
            bytes: stream,
            pos: 0,
            window: Some(loaded.min(stream.len())),
        }
    }

    pub(crate) fn is_at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The bytes loaded and not read: what the decoder holds for the next message.
    pub(crate) fn unread_loaded(&self) -> &'a [u8] {
        &self.bytes[self.pos..self.limit()]
    }

    fn limit(&self) -> usize {
        self.window.unwrap_or(self.bytes.len())
    }

    /// `ensureBounds(num)`: loads more when fewer than `num` bytes are left loaded.
    fn ensure(&mut self, num: usize) {
        if let Some(limit) = self.window
            && limit - self.pos < num
        {
            self.window = Some(
                self.pos
                    .saturating_add(JAVA_DECODER_BUFFER)
                    .min(self.bytes.len()),
            );
        }
    }

    fn byte(&mut self) -> Read<u8> {
        if self.pos >= self.limit() {
            return Err(END.into());
        }
        let b = self.bytes[self.pos];
        self.pos += 1;
        Ok(b)
    }

    /// `readLong`: a zig-zag varint of up to ten bytes (bits past 64 dropped).
    pub(crate) fn long(&mut self) -> Read<i64> {
        self.ensure(10);
        let mut value: u64 = 0;
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 63 {
                return Err("Invalid long encoding".into());
            }
        }
        Ok((value >> 1) as i64 ^ -((value & 1) as i64))
    }

    /// `readInt` (ints, enum symbols, union branches): a zig-zag varint of up to five bytes,
    /// bits past 32 dropped as Java drops them.
    pub(crate) fn int(&mut self) -> Read<i32> {
        self.ensure(5);
        let mut value: u32 = 0;
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            value |= u32::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 28 {
                return Err("Invalid int encoding".into());
            }
        }
        Ok((value >> 1) as i32 ^ -((value & 1) as i32))
    }

    /// `readBoolean`: one byte, true only when it is 1.
    pub(crate) fn boolean(&mut self) -> Read<bool> {
        if let Some(limit) = self.window
            && self.pos == limit
        {
            self.window = Some(
                self.pos
                    .saturating_add(JAVA_DECODER_BUFFER)
                    .min(self.bytes.len()),
            );
        }
        Ok(self.byte()? == 1)
    }

    /// `readFloat` and `readDouble`: `N` little-endian bytes.
    pub(crate) fn fixed<const N: usize>(&mut self) -> Read<[u8; N]> {
        self.ensure(N);
        let end = self.pos + N;
        if end > self.limit() {
            return Err(END.into());
        }
        let mut out = [0u8; N];
        out.copy_from_slice(&self.bytes[self.pos..end]);
        self.pos = end;
        Ok(out)
    }

    /// `doReadBytes` (strings, bytes, fixed): what is loaded, then the rest straight from the
    /// input, leaving nothing loaded.
    pub(crate) fn take(&mut self, n: usize) -> Read<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or(END)?;
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        if let Some(limit) = self.window
            && end > limit
        {
            self.window = Some(end);
        }
        Ok(slice)
    }

    /// `doSkipBytes`: within what is loaded (a negative length moves back, as in Java), else on
    /// past it, leaving nothing loaded.
    pub(crate) fn skip_bytes(&mut self, n: i64) -> Read<()> {
        let remaining = self.limit() - self.pos;
        if n <= remaining as i64 {
            self.pos = usize::try_from(self.pos as i64 + n)
                .map_err(|_| format!("Malformed data. Length is negative: {n}"))?;
            return Ok(());
        }
        self.take(usize::try_from(n).map_err(|_| END.to_string())?)?;
        Ok(())
    }

    /// `doSkipItems`: the item count of the next array or map block to step over item by item,
    /// skipping whole the blocks that give their size in bytes (0 ends the value).
    pub(crate) fn skip_block(&mut self) -> Read<usize> {
        let mut count = self.int()?;
        while count < 0 {
            let bytes = self.long()?;
            self.skip_bytes(bytes)?;
            count = self.int()?;
        }
        usize::try_from(count).map_err(|_| "block too large".to_string())
    }

    pub(crate) fn length(&mut self) -> Read<usize> {
        let length = self.long()?;
        usize::try_from(length).map_err(|_| format!("Malformed data. Length is negative: {length}"))
    }

    /// Item count of the next array or map block (0 ends the value).
    pub(crate) fn block(&mut self) -> Read<usize> {
        let count = self.long()?;
        if count < 0 {
            self.long()?; // the block's size in bytes
        }
        usize::try_from(count.unsigned_abs()).map_err(|_| "block too large".to_string())
    }
}

/// Decodes one Avro datum per message.
#[derive(Debug)]
pub struct AvroDecoder {
    schema: SchemaRef,
    /// The datum's schema: the one Flink derives from the table's physical columns.
    writer: Vec<(String, AvroSchema)>,
    /// The table's physical columns, as Flink converts them.
    physical: Vec<(String, TableNode)>,
    /// The produced columns, read from the datum by name (unread ones are stepped over).
    table: TableNode,
    columns: Vec<ColumnBuilder>,
    rows: usize,
    messages: usize,
    /// Bytes the last datum left unread in Flink's decoder's buffer, which it reads as the start
    /// of the next message.
    carry: Vec<u8>,
}

impl AvroDecoder {
    /// A decoder of datums of the table's `physical` columns producing the `produced` ones (a
    /// subset by name); unread columns are stepped over, never built.
    pub fn try_new(
        physical: SchemaRef,
        produced: SchemaRef,
        options: &FormatOptions,
    ) -> Result<Self> {
        let legacy = legacy_mapping(options)?;
        let TableNode::Record(physical_nodes) = derive_table(&physical, legacy)? else {
            return Err(FormatError::config("the table is not a row"));
        };
        let writer = physical_nodes
            .iter()
            .map(|(name, node)| (name.clone(), writer_schema_of(node)))
            .collect();
        for field in produced.fields() {
            if physical.field_with_name(field.name()).is_err() {
                return Err(FormatError::config(format!(
                    "produced column '{}' is not a physical column",
                    field.name()
                )));
            }
        }
        Ok(Self {
            columns: builders_for(produced.fields())?,
            table: derive_table(&produced, legacy)?,
            schema: produced,
            writer,
            physical: physical_nodes,
            rows: 0,
            messages: 0,
            carry: Vec::new(),
        })
    }
}

impl Decoder for AvroDecoder {
    fn decode(&mut self, message: Option<&[u8]>) -> Result<()> {
        let position = self.messages;
        self.messages += 1;
        // Flink's Avro format produces no row for a null message.
        let Some(bytes) = message else { return Ok(()) };
        // What Flink's decoder still holds from earlier messages is read first.
        let carried = !self.carry.is_empty();
        let joined;
        let stream: &[u8] = if carried {
            joined = [self.carry.as_slice(), bytes].concat();
            &joined
        } else {
            bytes
        };
        let mut reader = AvroReader::buffered(stream, self.carry.len());
        let result = read_record(
            &self.writer,
            &self.table,
            &mut self.columns,
            &mut reader,
            Unread::SkipUnless(&self.physical),
        );
        self.carry = match result {
            Ok(()) => reader.unread_loaded().to_vec(),
            Err(_) => Vec::new(),
        };
        end_row(&mut self.columns, &mut self.rows, result).map_err(|reason| {
            let reason = format!(
                "Failed to deserialize Avro record of {} bytes: {reason}",
                bytes.len()
            );
            if carried {
                FormatError::Corrupt { position, reason }
            } else {
                FormatError::Decode { position, reason }
            }
        })
    }

    fn flush(&mut self) -> Result<RecordBatch> {
        self.messages = 0;
        let rows = std::mem::take(&mut self.rows);
        finish_batch(&self.schema, &mut self.columns, rows)
    }

    fn pending_rows(&self) -> usize {
        self.rows
    }

    fn skipped(&self) -> usize {
        0
    }

    fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn truncated_datums_are_errors() {
        let mut r = AvroReader::new(&[0x80]);
        assert!(r.long().is_err());
        let mut r = AvroReader::new(&[0x0a, 1]);
        let n = r.length().unwrap();
        assert!(r.take(n).is_err());
    }

    #[test]
    fn ints_and_booleans_read_as_java_reads_them() {
        // Five bytes whose last one carries bits past 32: Java drops them.
        let mut r = AvroReader::new(&[0xfe, 0xff, 0xff, 0xff, 0x7f]);
        assert_eq!(r.int().unwrap(), i32::MAX);
        assert!(
            AvroReader::new(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01])
                .int()
                .is_err()
        );
        let mut r = AvroReader::new(&[1, 0, 2]);
        assert!(r.boolean().unwrap());
        assert!(!r.boolean().unwrap());
        assert!(!r.boolean().unwrap(), "only 1 is true");
    }

    #[test]
    fn a_buffered_reader_keeps_what_java_keeps_loaded() {
        // Three bytes held from before, then a message: a long loads the message (fewer than ten
        // bytes were loaded), and what is not read stays loaded for the next message.
        let stream = [2, 4, 6, 8, 10, 12];
        let mut r = AvroReader::buffered(&stream, 3);
        assert_eq!(r.long().unwrap(), 1);
        assert_eq!(r.unread_loaded(), &[4, 6, 8, 10, 12]);
        // An int needs five loaded bytes: with six held, the message is never loaded.
        let stream = [2, 4, 6, 8, 10, 12, 99];
        let mut r = AvroReader::buffered(&stream, 6);
        assert_eq!(r.int().unwrap(), 1);
        assert_eq!(r.unread_loaded(), &[4, 6, 8, 10, 12]);
    }
}
