//! Flink's `csv` format: one message is one record.
//!
//! Decoding follows Flink 2.2's `CsvRowDataDeserializationSchema` over Jackson's CSV parser:
//! only the first record of a message is read; a field is quoted only when it starts with the
//! quote character; one trailing empty column is tolerated; columns are matched by position in
//! the table's physical schema, so projection reads only the columns the query names; a value
//! equal to `csv.null-literal` is NULL; ARRAY and ROW columns are element lists split by
//! `csv.array-element-delimiter`. With `csv.ignore-parse-errors` a record that cannot be read is
//! skipped and counted, and a value that cannot be converted is NULL.
//!
//! Encoding writes Flink's bytes: no line terminator, Jackson's quoting rule (a string is quoted
//! when it is longer than 24 characters or holds a character below the delimiter or quote, the
//! quote itself or a backslash), numbers never quoted, decimals plain unless
//! `csv.write-bigdecimal-in-scientific-notation` is set to true.

mod options;

use std::collections::HashMap;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, Decimal128Array, ListArray, RecordBatch,
    StructArray,
};
use arrow::datatypes::{
    BinaryType, DataType, Date32Type, Field, Float32Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type, SchemaRef, TimeUnit, Utf8Type,
};
use base64::Engine;

pub use options::{CSV_OPTION_KEYS, CsvOptions};

use crate::builder::MessageColumn;
use crate::builder::{ColumnBuilder, Rows};
use crate::decimal::{decimal_to_java_string, decimal_to_plain_string, parse_decimal};
use crate::decoder::Decoder;
use crate::encoder::Encoder;
use crate::error::{FormatError, Result};
use crate::javatext::{java_trim, parse_java_double, parse_java_float, parse_java_long};
use crate::javatext::{push_integer, push_java_double, push_java_float};
use crate::options::FormatOptions;
use crate::temporal::{
    TimestampStandard, days_from_civil, format_date, format_time_of_day, format_timestamp,
    parse_iso_local_time, parse_timestamp, parse_timestamp_ltz, time_of_day_nanos,
    timestamp_in_unit, timestamp_parts,
};

/// Field metadata key carrying the Flink type where the Arrow type alone loses it (TIME's
/// precision); set by the Java bridge's type mapping.
const FLINK_TYPE_KEY: &str = "flink.type";

/// Checks a column type the way Flink's `CsvRowSchemaConverter` does.
fn check_type(field: &Field, nested: bool) -> Result<()> {
    match field.data_type() {
        DataType::List(element) if !nested => check_type(element, true),
        DataType::Struct(fields) if !nested => fields.iter().try_for_each(|f| check_type(f, true)),
        DataType::List(_) | DataType::Struct(_) => Err(FormatError::config(format!(
            "Only simple types are supported in the second level nesting of fields '{}' but was: {}",
            field.name(),
            field.data_type()
        ))),
        DataType::Map(_, _) => Err(FormatError::config(format!(
            "Unsupported type '{}' for field '{}'.",
            field.data_type(),
            field.name()
        ))),
        _ => Ok(()),
    }
}

/// Milliseconds of TIME are truncated to the column's precision (TIME is TIME(0) by default).
fn time_precision(field: &Field) -> u32 {
    field
        .metadata()
        .get(FLINK_TYPE_KEY)
        .and_then(|t| t.strip_prefix("TIME(")?.strip_suffix(')')?.parse().ok())
        .unwrap_or(3)
}

/// Decodes one record per message into the produced columns.
#[derive(Debug)]
pub struct CsvDecoder {
    produced: SchemaRef,
    /// Position of each produced column among the physical columns.
    positions: Vec<usize>,
    physical_width: usize,
    /// The physical columns the query does not read, with a scratch builder each: Flink
    /// converts every column, so their values must convert here too.
    unread: Vec<(usize, Field, ColumnBuilder)>,
    options: CsvOptions,
    rows: Rows,
}

impl CsvDecoder {
    /// A decoder of records with the columns of `physical`, producing the columns of `produced`
    /// (a subset of `physical`, by name, in any order).
    pub fn try_new(
        physical: SchemaRef,
        produced: SchemaRef,
        options: &FormatOptions,
    ) -> Result<Self> {
        let options = CsvOptions::parse(options)?;
        for field in physical.fields() {
            check_type(field, false)?;
        }
        let index: HashMap<&str, usize> = physical
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name().as_str(), i))
            .collect();
        let positions = produced
            .fields()
            .iter()
            .map(|f| {
                index.get(f.name().as_str()).copied().ok_or_else(|| {
                    FormatError::config(format!(
                        "produced column '{}' is not a physical column",
                        f.name()
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let unread = physical
            .fields()
            .iter()
            .enumerate()
            .filter(|(i, _)| !positions.contains(i))
            .map(|(i, f)| Ok((i, f.as_ref().clone(), ColumnBuilder::new(f.data_type())?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            rows: Rows::try_new(produced.clone())?,
            physical_width: physical.fields().len(),
            unread,
            produced,
            positions,
            options,
        })
    }

    fn decode_record(&mut self, message: &[u8]) -> std::result::Result<bool, String> {
        // Jackson's CSV parser reads a message whose first or second byte is zero as UTF-16 or
        // UTF-32 (its encoding detection), which this decoder does not.
        if let [first, second, ..] = message
            && (*first == 0 || *second == 0)
        {
            return Err(
                "a zero among the first two bytes: Jackson reads the message as UTF-16 or \
                 UTF-32"
                    .into(),
            );
        }
        let text = std::str::from_utf8(message).map_err(|e| format!("Invalid UTF-8: {e}"))?;
        let Some(mut values) = parse_record(text, &self.options)? else {
            return Err("No content to map due to end-of-input".into());
        };
        if values.len() > self.physical_width {
            let trailing_blank = values.len() == self.physical_width + 1
                && values.last().is_some_and(|v| java_trim(v).is_empty());
            if !trailing_blank {
                let extra = &values[self.physical_width];
                return Err(format!(
                    "Too many entries: expected at most {} (value #{} ({} chars) \"{extra}\")",
                    self.physical_width,
                    self.physical_width,
                    extra.chars().count()
                ));
            }
            values.pop();
        }
        // Flink's row converter reads the whole physical row.
        let arity = self.physical_width;
        if arity > values.len() && !self.options.ignore_parse_errors {
            return Err(format!(
                "Row length mismatch. {arity} fields expected but was {}.",
                values.len()
            ));
        }
        for (c, field) in self.produced.fields().iter().enumerate() {
            let builder = &mut self.rows.columns()[c];
            match values.get(self.positions[c]) {
                None => builder.push_null(),
                Some(text) => {
                    let len = builder.len();
                    if let Err(e) = convert_field(field, text, builder, &self.options) {
                        if self.options.ignore_parse_errors {
                            builder.truncate(len);
                            builder.push_null();
                        } else {
                            return Err(format!(
                                "Fail to deserialize at field: {}: {e}",
                                field.name()
                            ));
                        }
                    }
                }
            }
        }
        for (position, field, scratch) in &mut self.unread {
            if let Some(text) = values.get(*position) {
                let converted = convert_field(field, text, scratch, &self.options);
                scratch.truncate(0);
                if let Err(e) = converted
                    && !self.options.ignore_parse_errors
                {
                    return Err(format!(
                        "Fail to deserialize at field: {}: {e}",
                        field.name()
                    ));
                }
            }
        }
        Ok(true)
    }
}

impl Decoder for CsvDecoder {
    fn decode(&mut self, message: Option<&[u8]>) -> Result<()> {
        let position = self.rows.next_message();
        // Flink's CSV format produces no row for a null message.
        let Some(message) = message else {
            return Ok(());
        };
        let result = self.decode_record(message).map(|_| ());
        self.rows.end_row(result).or_else(|reason| {
            if self.options.ignore_parse_errors {
                self.rows.skip();
                Ok(())
            } else {
                Err(FormatError::Decode {
                    position,
                    reason: format!(
                        "Failed to deserialize CSV row '{}': {reason}",
                        String::from_utf8_lossy(&message[..message.len().min(256)])
                    ),
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
        &self.produced
    }
}

/// The fields of the first record of `text`, or `None` when it holds no record at all.
fn parse_record(
    text: &str,
    options: &CsvOptions,
) -> std::result::Result<Option<Vec<String>>, String> {
    let mut text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if options.allow_comments {
        // As Jackson's CSV parser before a record: spaces (only U+0020), blank lines and comment
        // lines go, so a record starts at its first other character.
        loop {
            text = text.trim_start_matches(' ');
            if let Some(comment) = text.strip_prefix('#') {
                text = &comment[comment.find(['\n', '\r']).unwrap_or(comment.len())..];
            } else if let Some(rest) = text.strip_prefix(['\n', '\r']) {
                text = rest;
            } else {
                break;
            }
        }
        if text.is_empty() {
            return Ok(None);
        }
    }
    if text.is_empty() {
        return Ok(None);
    }
    let delimiter = options.field_delimiter;
    let mut fields = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        let mut value = String::new();
        let quoted = options.quote.is_some() && chars.peek() == options.quote.as_ref();
        if quoted {
            let quote = options.quote.unwrap_or('"');
            chars.next();
            loop {
                match chars.next() {
                    None => return Err("Missing closing quote for value".into()),
                    Some(c) if Some(c) == options.escape => value.push(unescape(chars.next())?),
                    Some(c) if c == quote => {
                        if chars.peek() == Some(&quote) {
                            chars.next();
                            value.push(quote);
                        } else {
                            break;
                        }
                    }
                    Some(c) => value.push(c),
                }
            }
            match chars.peek() {
                None | Some('\n') | Some('\r') => {
                    fields.push(value);
                    return Ok(Some(fields));
                }
                Some(&c) if c == delimiter => {
                    chars.next();
                    fields.push(value);
                }
                Some(&c) => {
                    return Err(format!(
                        "Unexpected character ('{c}' (code {})): Expected column separator character ('{delimiter}' (code {})) or end-of-line",
                        c as u32, delimiter as u32
                    ));
                }
            }
        } else {
            loop {
                match chars.next() {
                    None | Some('\n') | Some('\r') => {
                        fields.push(value);
                        return Ok(Some(fields));
                    }
                    Some(c) if c == delimiter => break,
                    Some(c) if Some(c) == options.escape => value.push(unescape(chars.next())?),
                    Some(c) => value.push(c),
                }
            }
            fields.push(value);
        }
    }
}

/// The character an escape character and `c` after it stand for; an escape at the end of the
/// input is an error, as in Jackson's CSV parser.
fn unescape(c: Option<char>) -> std::result::Result<char, String> {
    match c {
        Some('0') => Ok('\0'),
        Some('n') => Ok('\n'),
        Some('r') => Ok('\r'),
        Some('t') => Ok('\t'),
        Some(other) => Ok(other),
        None => Err("Unexpected EOF in escaped character".into()),
    }
}

/// Converts one field's text into `builder`.
fn convert_field(
    field: &Field,
    text: &str,
    builder: &mut ColumnBuilder,
    options: &CsvOptions,
) -> std::result::Result<(), String> {
    match field.data_type() {
        DataType::List(element) => {
            let ColumnBuilder::List { element: child, .. } = builder else {
                return Err("not a list column".into());
            };
            if !java_trim(text).is_empty() {
                for item in text.split(options.array_element_delimiter) {
                    convert_scalar(element, item, child, options)?;
                }
            }
            builder.end_nested_value();
            Ok(())
        }
        DataType::Struct(fields) => {
            if java_trim(text).is_empty() {
                builder.push_null();
                return Ok(());
            }
            let items: Vec<&str> = text.split(options.array_element_delimiter).collect();
            if items.len() < fields.len() && !options.ignore_parse_errors {
                return Err(format!(
                    "Row length mismatch. {} fields expected but was {}.",
                    fields.len(),
                    items.len()
                ));
            }
            let ColumnBuilder::Struct {
                fields: children, ..
            } = builder
            else {
                return Err("not a row column".into());
            };
            for (f, (child_field, child)) in fields.iter().zip(children.iter_mut()).enumerate() {
                match items.get(f) {
                    None => child.push_null(),
                    Some(item) => {
                        convert_scalar(child_field, item, child, options).map_err(|e| {
                            format!("Fail to deserialize at field: {}: {e}", child_field.name())
                        })?
                    }
                }
            }
            builder.end_nested_value();
            Ok(())
        }
        _ => convert_scalar(field, text, builder, options),
    }
}

fn convert_scalar(
    field: &Field,
    text: &str,
    builder: &mut ColumnBuilder,
    options: &CsvOptions,
) -> std::result::Result<(), String> {
    if options.null_literal.as_deref() == Some(text) {
        builder.push_null();
        return Ok(());
    }
    let number = |min: i64, max: i64| {
        parse_java_long(java_trim(text))
            .filter(|v| (min..=max).contains(v))
            .ok_or_else(|| format!("For input string: \"{text}\""))
    };
    match (field.data_type(), &mut *builder) {
        (DataType::Boolean, b) => b.push_bool(java_trim(text).eq_ignore_ascii_case("true")),
        (DataType::Int8, ColumnBuilder::Int8(c)) => {
            c.push(number(i64::from(i8::MIN), i64::from(i8::MAX))? as i8)
        }
        (DataType::Int16, ColumnBuilder::Int16(c)) => {
            c.push(number(i64::from(i16::MIN), i64::from(i16::MAX))? as i16)
        }
        (DataType::Int32, ColumnBuilder::Int32(c)) => {
            c.push(number(i64::from(i32::MIN), i64::from(i32::MAX))? as i32)
        }
        (DataType::Int64, ColumnBuilder::Int64(c)) => c.push(number(i64::MIN, i64::MAX)?),
        (DataType::Float32, ColumnBuilder::Float32(c)) => {
            c.push(parse_java_float(text).ok_or_else(|| format!("For input string: \"{text}\""))?)
        }
        (DataType::Float64, ColumnBuilder::Float64(c)) => {
            c.push(parse_java_double(text).ok_or_else(|| format!("For input string: \"{text}\""))?)
        }
        (DataType::Decimal128(p, s), _) => match parse_decimal(text, *p, *s)? {
            Some(v) => {
                if let ColumnBuilder::Decimal128(c) = builder {
                    c.push(v);
                }
            }
            None => builder.push_null(),
        },
        (DataType::Utf8, ColumnBuilder::Bytes(c)) => {
            c.push(text.as_bytes()).map_err(|e| e.to_string())?
        }
        (DataType::Binary, ColumnBuilder::Bytes(c)) => {
            let bytes = crate::base64_text::decode(text)
                .map_err(|e| format!("Unable to deserialize byte array: {e}"))?;
            c.push(&bytes).map_err(|e| e.to_string())?;
        }
        (DataType::Date32, ColumnBuilder::Date32(c)) => c.push(parse_sql_date(text)?),
        (DataType::Time32(_) | DataType::Time64(_), b) => {
            let nanos = parse_iso_local_time(text)
                .ok_or_else(|| format!("Text '{text}' could not be parsed as a time"))?;
            let unit = 10i64.pow(3 - time_precision(field).min(3));
            let millis = nanos / 1_000_000 / unit * unit;
            match b {
                ColumnBuilder::Time32Second(c) => c.push((millis / 1000) as i32),
                ColumnBuilder::Time32Millisecond(c) => c.push(millis as i32),
                ColumnBuilder::Time64Microsecond(c) => c.push(millis * 1000),
                ColumnBuilder::Time64Nanosecond(c) => c.push(millis * 1_000_000),
                _ => return Err("not a time column".into()),
            }
        }
        (DataType::Timestamp(_, zone), b) => {
            let trimmed = java_trim(text);
            let parsed = if zone.is_some() {
                parse_timestamp_ltz(trimmed, TimestampStandard::Sql)
            } else {
                parse_timestamp(trimmed, TimestampStandard::Sql)
            };
            let parsed = parsed
                .ok_or_else(|| format!("Text '{text}' could not be parsed as a timestamp"))?;
            let value =
                |unit| timestamp_in_unit(unit, parsed).map_err(|e| format!("'{text}': {e}"));
            match b {
                ColumnBuilder::TimestampSecond(c) => c.push(value(TimeUnit::Second)?),
                ColumnBuilder::TimestampMillisecond(c) => c.push(value(TimeUnit::Millisecond)?),
                ColumnBuilder::TimestampMicrosecond(c) => c.push(value(TimeUnit::Microsecond)?),
                ColumnBuilder::TimestampNanosecond(c) => c.push(value(TimeUnit::Nanosecond)?),
                _ => return Err("not a timestamp column".into()),
            }
        }
        (other, _) => return Err(format!("Unsupported type: {other}")),
    }
    Ok(())
}

/// The first year `java.sql.Date.valueOf`, which Flink's CSV format reads dates with, counts on
/// the Gregorian calendar throughout (the calendar changed in October 1582; before it, Java's
/// lenient calendar is Julian and moves or refuses days the proleptic Gregorian one reads as they
/// are).
const GREGORIAN_YEARS: i64 = 1583;

/// `java.sql.Date.valueOf(text).toLocalDate()`: a 4-digit year, 1-2 digit month (1-12) and day
/// (1-31), days past the month's end rolling into the next month; years before
/// [`GREGORIAN_YEARS`] are refused (left to Flink).
fn parse_sql_date(text: &str) -> std::result::Result<i32, String> {
    let not_a_date = || format!("'{text}' is not a date (yyyy-[m]m-[d]d)");
    let mut parts = text.splitn(3, '-');
    let (Some(year), Some(month), Some(day)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(not_a_date());
    };
    if year.len() != 4 || !(1..=2).contains(&month.len()) || !(1..=2).contains(&day.len()) {
        return Err(not_a_date());
    }
    let (Ok(year), Ok(month), Ok(day)) = (year.parse::<i64>(), month.parse(), day.parse::<u32>())
    else {
        return Err(not_a_date());
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return Err(not_a_date());
    }
    if year < GREGORIAN_YEARS {
        return Err(format!(
            "'{text}' is before 1583: Flink reads such dates on the Julian calendar"
        ));
    }
    i32::try_from(days_from_civil(year, month, 1) + i64::from(day) - 1).map_err(|_| not_a_date())
}

/// Encodes each row as one record, without a line terminator.
#[derive(Debug)]
pub struct CsvEncoder {
    schema: SchemaRef,
    options: CsvOptions,
}

impl CsvEncoder {
    pub fn try_new(schema: SchemaRef, options: &FormatOptions) -> Result<Self> {
        let options = CsvOptions::parse(options)?;
        for field in schema.fields() {
            check_type(field, false)?;
        }
        Ok(Self { schema, options })
    }

    fn push_field(
        &self,
        column: &ArrayRef,
        field: &Field,
        i: usize,
        out: &mut String,
    ) -> std::result::Result<(), String> {
        if column.is_null(i) {
            out.push_str(self.options.null_literal.as_deref().unwrap_or(""));
            return Ok(());
        }
        let mut text = String::new();
        let quoted_path = match field.data_type() {
            DataType::List(_) => {
                let list = column
                    .as_any()
                    .downcast_ref::<ListArray>()
                    .ok_or("not a list")?;
                let values = list.value(i);
                for k in 0..values.len() {
                    if k > 0 {
                        text.push(self.options.array_element_delimiter);
                    }
                    self.push_element(&values, k, &mut text)?;
                }
                true
            }
            DataType::Struct(_) => {
                let row = column
                    .as_any()
                    .downcast_ref::<StructArray>()
                    .ok_or("not a row")?;
                for (f, child) in row.columns().iter().enumerate() {
                    if f > 0 {
                        text.push(self.options.array_element_delimiter);
                    }
                    self.push_element(child, i, &mut text)?;
                }
                true
            }
            _ => self.push_scalar(column, i, &mut text)?,
        };
        if quoted_path && self.needs_quotes(&text) {
            self.push_quoted(&text, out);
        } else {
            out.push_str(&text);
        }
        Ok(())
    }

    fn push_element(
        &self,
        array: &ArrayRef,
        i: usize,
        out: &mut String,
    ) -> std::result::Result<(), String> {
        if array.is_null(i) {
            out.push_str(self.options.null_literal.as_deref().unwrap_or(""));
            Ok(())
        } else {
            self.push_scalar(array, i, out).map(|_| ())
        }
    }

    /// Appends a value's text; returns whether it takes the string path (may be quoted).
    fn push_scalar(
        &self,
        array: &ArrayRef,
        i: usize,
        out: &mut String,
    ) -> std::result::Result<bool, String> {
        match array.data_type() {
            DataType::Boolean => {
                let b = array
                    .as_any()
                    .downcast_ref::<BooleanArray>()
                    .ok_or("not boolean")?;
                out.push_str(if b.value(i) { "true" } else { "false" });
                Ok(false)
            }
            DataType::Int8 => {
                push_integer(array.as_primitive::<Int8Type>().value(i), out);
                Ok(false)
            }
            DataType::Int16 => {
                push_integer(array.as_primitive::<Int16Type>().value(i), out);
                Ok(false)
            }
            DataType::Int32 => {
                push_integer(array.as_primitive::<Int32Type>().value(i), out);
                Ok(false)
            }
            DataType::Int64 => {
                push_integer(array.as_primitive::<Int64Type>().value(i), out);
                Ok(false)
            }
            DataType::Float32 => {
                push_java_float(array.as_primitive::<Float32Type>().value(i), out, false);
                Ok(false)
            }
            DataType::Float64 => {
                push_java_double(array.as_primitive::<Float64Type>().value(i), out, false);
                Ok(false)
            }
            DataType::Decimal128(_, scale) => {
                let d = array
                    .as_any()
                    .downcast_ref::<Decimal128Array>()
                    .ok_or("not decimal")?;
                let scale = i32::from(*scale);
                if self.options.scientific_decimals {
                    out.push_str(&decimal_to_java_string(d.value(i), scale, true));
                } else {
                    out.push_str(&decimal_to_plain_string(d.value(i), scale));
                }
                Ok(false)
            }
            DataType::Utf8 => {
                out.push_str(array.as_bytes::<Utf8Type>().value(i));
                Ok(true)
            }
            DataType::Binary => {
                out.push_str(
                    &base64::engine::general_purpose::STANDARD
                        .encode(array.as_bytes::<BinaryType>().value(i)),
                );
                Ok(true)
            }
            DataType::Date32 => {
                format_date(i64::from(array.as_primitive::<Date32Type>().value(i)), out);
                Ok(true)
            }
            DataType::Time32(_) | DataType::Time64(_) => {
                let nanos = time_of_day_nanos(array.as_ref(), i).ok_or("not a time")?;
                // Flink's CSV keeps TIME's milliseconds.
                format_time_of_day(nanos / 1_000_000 * 1_000_000, out);
                Ok(true)
            }
            DataType::Timestamp(_, zone) => {
                let (millis, nanos) =
                    timestamp_parts(array.as_ref(), i).ok_or("not a timestamp")?;
                format_timestamp(millis, nanos, TimestampStandard::Sql, zone.is_some(), out);
                Ok(true)
            }
            other => Err(format!("Unsupported type: {other}")),
        }
    }

    /// Jackson's loose quoting check for string values, by their characters alone: a value
    /// spelled as the null literal is quoted where its characters need it, as in Jackson (only
    /// a NULL is written as the bare literal).
    fn needs_quotes(&self, text: &str) -> bool {
        let Some(quote) = self.options.quote else {
            return false;
        };
        if text.is_empty() {
            return false;
        }
        if text.encode_utf16().count() > 24 {
            return true;
        }
        let min_safe = (self.options.field_delimiter as u32).max(quote as u32) + 1;
        match self.options.escape {
            Some(escape) => text.chars().any(|c| (c as u32) < min_safe || c == escape),
            None => text
                .chars()
                .any(|c| (c as u32) < min_safe || c == quote || c == '\\'),
        }
    }

    fn push_quoted(&self, text: &str, out: &mut String) {
        let quote = self.options.quote.unwrap_or('"');
        out.push(quote);
        for c in text.chars() {
            if c == quote || Some(c) == self.options.escape {
                out.push(c);
            }
            out.push(c);
        }
        out.push(quote);
    }
}

impl Encoder for CsvEncoder {
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray> {
        let mut messages = MessageColumn::with_capacity(batch.num_rows());
        let mut record = String::new();
        for i in 0..batch.num_rows() {
            record.clear();
            for (c, field) in self.schema.fields().iter().enumerate() {
                if c > 0 {
                    record.push(self.options.field_delimiter);
                }
                self.push_field(batch.column(c), field, i, &mut record)
                    .map_err(|reason| FormatError::Encode {
                        row: i,
                        reason: format!("Fail to serialize at field: {}: {reason}", field.name()),
                    })?;
            }
            messages.bytes().extend_from_slice(record.as_bytes());
            messages.end_message()?;
        }
        messages.finish(None)
    }

    fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}
