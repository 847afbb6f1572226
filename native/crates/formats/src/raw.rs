//! Flink's `raw` format: one column, the whole message is its value.
//!
//! Numbers are their two's-complement or IEEE-754 bytes in `raw.endianness` (big-endian by
//! default), BOOLEAN is one byte (non-zero is true), strings are the bytes in `raw.charset`
//! (UTF-8 by default), binaries the bytes as they are. A null message decodes to a NULL value and
//! a NULL value encodes to a null message, as in Flink.
//!
//! Strings are stored as valid UTF-8. A UTF-8 message that is not valid UTF-8 is refused (left to
//! Flink's format): Flink keeps its bytes as they are, and two such strings stay apart where U+FFFD
//! in place of the bad bytes would make them equal. In the other charsets bytes that are not valid
//! become U+FFFD, as Java's decoders replace them.

use arrow::array::{Array, ArrayRef, AsArray, BinaryArray, BooleanArray, RecordBatch};
use arrow::datatypes::{
    BinaryType, DataType, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    SchemaRef, Utf8Type,
};

use crate::builder::MessageColumn;
use crate::builder::{ColumnBuilder, finish_batch};
use crate::decoder::Decoder;
use crate::encoder::Encoder;
use crate::error::{FormatError, Result};
use crate::options::FormatOptions;

/// Every option key of Flink's `raw` format (without the `raw.` prefix).
pub const RAW_OPTION_KEYS: &[&str] = &["charset", "endianness"];

/// The character sets the `raw` format can read and write natively.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    Utf8,
    Ascii,
    Latin1,
    Utf16Be,
    Utf16Le,
    /// UTF-16 with a byte-order mark (big-endian without one), as Java's `UTF-16`.
    Utf16,
}

impl Charset {
    /// Java's canonical names and common aliases, in any case.
    fn parse(name: &str) -> Option<Self> {
        let n = name.to_ascii_uppercase().replace('_', "-");
        Some(match n.as_str() {
            "UTF-8" | "UTF8" => Charset::Utf8,
            "US-ASCII" | "ASCII" | "ISO646-US" => Charset::Ascii,
            "ISO-8859-1" | "ISO8859-1" | "LATIN1" | "L1" | "ISO-LATIN-1" | "8859-1" => {
                Charset::Latin1
            }
            "UTF-16BE" | "UTF16BE" | "X-UTF-16BE" => Charset::Utf16Be,
            "UTF-16LE" | "UTF16LE" | "X-UTF-16LE" => Charset::Utf16Le,
            "UTF-16" | "UTF16" => Charset::Utf16,
            _ => return None,
        })
    }

    fn decode(self, bytes: &[u8]) -> String {
        match self {
            Charset::Utf8 => crate::java_utf8::decode(bytes).into_owned(),
            Charset::Ascii => bytes
                .iter()
                .map(|&b| if b < 0x80 { b as char } else { '\u{FFFD}' })
                .collect(),
            Charset::Latin1 => bytes.iter().map(|&b| b as char).collect(),
            Charset::Utf16Be => utf16(bytes, true),
            Charset::Utf16Le => utf16(bytes, false),
            Charset::Utf16 => match bytes {
                [0xFE, 0xFF, rest @ ..] => utf16(rest, true),
                [0xFF, 0xFE, rest @ ..] => utf16(rest, false),
                _ => utf16(bytes, true),
            },
        }
    }

    fn encode(self, s: &str, out: &mut Vec<u8>) {
        match self {
            Charset::Utf8 => out.extend_from_slice(s.as_bytes()),
            Charset::Ascii => out.extend(
                s.chars()
                    .map(|c| if (c as u32) < 0x80 { c as u8 } else { b'?' }),
            ),
            Charset::Latin1 => out.extend(
                s.chars()
                    .map(|c| if (c as u32) < 0x100 { c as u8 } else { b'?' }),
            ),
            Charset::Utf16Be | Charset::Utf16 => {
                // Java writes the byte-order mark only before some content.
                if self == Charset::Utf16 && !s.is_empty() {
                    out.extend_from_slice(&[0xFE, 0xFF]);
                }
                for unit in s.encode_utf16() {
                    out.extend_from_slice(&unit.to_be_bytes());
                }
            }
            Charset::Utf16Le => {
                for unit in s.encode_utf16() {
                    out.extend_from_slice(&unit.to_le_bytes());
                }
            }
        }
    }
}

/// UTF-16 as Java's decoder reads it with replacement: a high surrogate not followed by a low one
/// is one malformed sequence with the unit after it (both become one U+FFFD), a lone low surrogate
/// is one, and so is whatever is left at the end that is not a whole character.
fn utf16(bytes: &[u8], big_endian: bool) -> String {
    let unit = |at: usize| {
        let pair = [bytes[at], bytes[at + 1]];
        if big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        }
    };
    let mut out = String::with_capacity(bytes.len() / 2);
    let mut at = 0;
    while at + 2 <= bytes.len() {
        let first = unit(at);
        match first {
            0xD800..=0xDBFF => {
                if at + 4 > bytes.len() {
                    break;
                }
                let second = unit(at + 2);
                out.push(if (0xDC00..=0xDFFF).contains(&second) {
                    let code = 0x10000
                        + ((u32::from(first) - 0xD800) << 10)
                        + (u32::from(second) - 0xDC00);
                    char::from_u32(code).unwrap_or('\u{FFFD}')
                } else {
                    '\u{FFFD}'
                });
                at += 4;
            }
            0xDC00..=0xDFFF => {
                out.push('\u{FFFD}');
                at += 2;
            }
            _ => {
                out.push(char::from_u32(u32::from(first)).unwrap_or('\u{FFFD}'));
                at += 2;
            }
        }
    }
    if at < bytes.len() {
        out.push('\u{FFFD}');
    }
    out
}

#[derive(Debug, Clone, Copy)]
struct RawOptions {
    charset: Charset,
    big_endian: bool,
}

impl RawOptions {
    fn parse(options: &FormatOptions) -> Result<Self> {
        options.check_keys(RAW_OPTION_KEYS)?;
        let big_endian = match options.string("endianness") {
            None => true,
            Some(e) if e.eq_ignore_ascii_case("big-endian") => true,
            Some(e) if e.eq_ignore_ascii_case("little-endian") => false,
            Some(e) => {
                return Err(FormatError::config(format!(
                    "Unsupported endianness name: {e}. Valid values of 'raw.endianness' option are 'big-endian' and 'little-endian'."
                )));
            }
        };
        let name = options.string("charset").unwrap_or("UTF-8");
        let charset = Charset::parse(name).ok_or_else(|| {
            FormatError::config(format!(
                "Unsupported 'raw.charset' name: {name}. StreamFusion's raw format reads and writes \
                 UTF-8, US-ASCII, ISO-8859-1, UTF-16, UTF-16BE and UTF-16LE."
            ))
        })?;
        Ok(Self {
            charset,
            big_endian,
        })
    }
}

/// The single column's type, checked as Flink's `RawFormatFactory` checks it.
fn single_column(schema: &SchemaRef) -> Result<DataType> {
    if schema.fields().len() != 1 {
        return Err(FormatError::config(format!(
            "The 'raw' format only supports single physical column. However the defined schema contains multiple physical columns: [{}]",
            schema
                .fields()
                .iter()
                .map(|f| format!("`{}` {}", f.name(), f.data_type()))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let data_type = schema.field(0).data_type().clone();
    match data_type {
        DataType::Boolean
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::Float32
        | DataType::Float64
        | DataType::Utf8
        | DataType::Binary => Ok(data_type),
        other => Err(FormatError::config(format!(
            "The 'raw' format doesn't support '{other}' as column type."
        ))),
    }
}

/// Decodes each message into one row of one column.
#[derive(Debug)]
pub struct RawDecoder {
    schema: SchemaRef,
    data_type: DataType,
    options: RawOptions,
    column: ColumnBuilder,
    messages: usize,
}

impl RawDecoder {
    pub fn try_new(schema: SchemaRef, options: &FormatOptions) -> Result<Self> {
        let options = RawOptions::parse(options)?;
        let data_type = single_column(&schema)?;
        Ok(Self {
            column: ColumnBuilder::new(&data_type)?,
            schema,
            data_type,
            options,
            messages: 0,
        })
    }

    fn value(&mut self, bytes: &[u8]) -> std::result::Result<(), String> {
        let size = |n: usize, name: &str| {
            if bytes.len() == n {
                Ok(())
            } else {
                Err(format!(
                    "Size of data received for deserializing {name} type is not {n}."
                ))
            }
        };
        let be = self.options.big_endian;
        macro_rules! number {
            ($variant:ident, $t:ty, $name:literal) => {{
                size(std::mem::size_of::<$t>(), $name)?;
                let mut raw = [0u8; std::mem::size_of::<$t>()];
                raw.copy_from_slice(bytes);
                let v = if be {
                    <$t>::from_be_bytes(raw)
                } else {
                    <$t>::from_le_bytes(raw)
                };
                if let ColumnBuilder::$variant(c) = &mut self.column {
                    c.push(v);
                }
            }};
        }
        match self.data_type {
            DataType::Boolean => {
                size(1, "BOOLEAN")?;
                self.column.push_bool(bytes[0] != 0);
            }
            DataType::Int8 => number!(Int8, i8, "TINYINT"),
            DataType::Int16 => number!(Int16, i16, "SMALLINT"),
            DataType::Int32 => number!(Int32, i32, "INT"),
            DataType::Int64 => number!(Int64, i64, "BIGINT"),
            DataType::Float32 => number!(Float32, f32, "FLOAT"),
            DataType::Float64 => number!(Float64, f64, "DOUBLE"),
            DataType::Utf8 => {
                if self.options.charset == Charset::Utf8 && std::str::from_utf8(bytes).is_err() {
                    return Err(
                        "the message is not valid UTF-8, whose bytes Flink keeps as they \
                                are"
                        .into(),
                    );
                }
                let text = self.options.charset.decode(bytes);
                if let ColumnBuilder::Bytes(c) = &mut self.column {
                    c.push(text.as_bytes()).map_err(|e| e.to_string())?;
                }
            }
            _ => {
                if let ColumnBuilder::Bytes(c) = &mut self.column {
                    c.push(bytes).map_err(|e| e.to_string())?;
                }
            }
        }
        Ok(())
    }
}

impl Decoder for RawDecoder {
    fn decode(&mut self, message: Option<&[u8]>) -> Result<()> {
        let position = self.messages;
        self.messages += 1;
        match message {
            // Flink's raw format gives a NULL for a null message; a NOT NULL column cannot hold it.
            None => match self.schema.fields().first() {
                Some(field) if !field.is_nullable() => Err(FormatError::Decode {
                    position,
                    reason: format!(
                        "the column '{}' is NOT NULL, but the record is null",
                        field.name()
                    ),
                }),
                _ => {
                    self.column.push_null();
                    Ok(())
                }
            },
            Some(bytes) => self.value(bytes).map_err(|reason| FormatError::Decode {
                position,
                reason: format!("{reason} (the message has {} bytes)", bytes.len()),
            }),
        }
    }

    fn flush(&mut self) -> Result<RecordBatch> {
        let rows = self.column.len();
        self.messages = 0;
        finish_batch(&self.schema, std::slice::from_mut(&mut self.column), rows)
    }

    fn pending_rows(&self) -> usize {
        self.column.len()
    }

    fn skipped(&self) -> usize {
        0
    }

    fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

/// Encodes each row's single value as one message.
#[derive(Debug)]
pub struct RawEncoder {
    schema: SchemaRef,
    options: RawOptions,
}

impl RawEncoder {
    pub fn try_new(schema: SchemaRef, options: &FormatOptions) -> Result<Self> {
        let options = RawOptions::parse(options)?;
        single_column(&schema)?;
        Ok(Self { schema, options })
    }
}

impl Encoder for RawEncoder {
    fn reads_invalid_text_as_java(&self) -> bool {
        self.options.charset != Charset::Utf8
    }

    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray> {
        let column: &ArrayRef = batch.column(0);
        let be = self.options.big_endian;
        let mut messages = MessageColumn::with_capacity(batch.num_rows());
        for i in 0..batch.num_rows() {
            let bytes: &mut Vec<u8> = messages.bytes();
            macro_rules! number {
                ($t:ty, $i:expr) => {{
                    let v = column.as_primitive::<$t>().value($i);
                    bytes.extend_from_slice(&if be { v.to_be_bytes() } else { v.to_le_bytes() });
                }};
            }
            if !column.is_null(i) {
                match column.data_type() {
                    DataType::Boolean => {
                        let b = column
                            .as_any()
                            .downcast_ref::<BooleanArray>()
                            .ok_or_else(|| FormatError::config("not a boolean column"))?;
                        bytes.push(u8::from(b.value(i)));
                    }
                    DataType::Int8 => number!(Int8Type, i),
                    DataType::Int16 => number!(Int16Type, i),
                    DataType::Int32 => number!(Int32Type, i),
                    DataType::Int64 => number!(Int64Type, i),
                    // to_bits keeps NaN payloads, as Java's floatToRawIntBits does.
                    DataType::Float32 => {
                        let bits = column.as_primitive::<Float32Type>().value(i).to_bits();
                        bytes.extend_from_slice(&if be {
                            bits.to_be_bytes()
                        } else {
                            bits.to_le_bytes()
                        });
                    }
                    DataType::Float64 => {
                        let bits = column.as_primitive::<Float64Type>().value(i).to_bits();
                        bytes.extend_from_slice(&if be {
                            bits.to_be_bytes()
                        } else {
                            bits.to_le_bytes()
                        });
                    }
                    DataType::Utf8 => self
                        .options
                        .charset
                        .encode(column.as_bytes::<Utf8Type>().value(i), bytes),
                    _ => bytes.extend_from_slice(column.as_bytes::<BinaryType>().value(i)),
                }
            }
            messages.end_message()?;
        }
        // A NULL value is a null message, as Flink's raw format writes it.
        messages.finish(column.nulls().cloned())
    }

    fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::{Field, Schema};
    use std::sync::Arc;

    fn schema(data_type: DataType) -> SchemaRef {
        Arc::new(Schema::new(vec![Field::new("v", data_type, true)]))
    }

    fn options(pairs: &[(&str, &str)]) -> FormatOptions {
        FormatOptions::new(
            "raw",
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())),
        )
    }

    #[test]
    fn numbers_round_trip_in_both_byte_orders() {
        for endianness in ["big-endian", "LITTLE-ENDIAN"] {
            let opts = options(&[("endianness", endianness)]);
            let mut decoder = RawDecoder::try_new(schema(DataType::Int32), &opts).unwrap();
            let value: i32 = -123_456;
            let bytes = if endianness == "big-endian" {
                value.to_be_bytes()
            } else {
                value.to_le_bytes()
            };
            decoder.decode(Some(&bytes)).unwrap();
            decoder.decode(None).unwrap();
            let batch = decoder.flush().unwrap();
            assert_eq!(batch.column(0).as_primitive::<Int32Type>().value(0), value);
            assert!(batch.column(0).is_null(1));

            let mut encoder = RawEncoder::try_new(schema(DataType::Int32), &opts).unwrap();
            let encoded = encoder.encode(&batch).unwrap();
            assert_eq!(encoded.value(0), bytes);
            assert!(encoded.is_null(1));
        }
    }

    #[test]
    fn invalid_utf8_is_left_to_flink_and_other_charsets_replace() {
        let mut decoder = RawDecoder::try_new(schema(DataType::Utf8), &options(&[])).unwrap();
        decoder.decode(Some("ok ✓".as_bytes())).unwrap();
        for invalid in [
            &[0xFF][..],
            &[0xC0, 0xAF],
            &[0xED, 0xA0, 0x80],
            &[0xE2, 0x82],
        ] {
            let err = decoder.decode(Some(invalid)).unwrap_err().to_string();
            assert!(err.contains("not valid UTF-8"), "{err}");
        }
        let latin = options(&[("charset", "ISO-8859-1")]);
        let mut decoder = RawDecoder::try_new(schema(DataType::Utf8), &latin).unwrap();
        decoder.decode(Some(&[0xFF])).unwrap();
        let batch = decoder.flush().unwrap();
        assert_eq!(batch.column(0).as_string::<i32>().value(0), "ÿ");
    }

    #[test]
    fn wrong_sizes_and_options_are_errors() {
        let mut decoder = RawDecoder::try_new(schema(DataType::Int64), &options(&[])).unwrap();
        let err = decoder.decode(Some(&[1, 2, 3])).unwrap_err().to_string();
        assert!(
            err.contains("Size of data received for deserializing BIGINT type is not 8."),
            "{err}"
        );
        assert!(RawDecoder::try_new(schema(DataType::Date32), &options(&[])).is_err());
        assert!(
            RawDecoder::try_new(schema(DataType::Utf8), &options(&[("charset", "klingon")]))
                .is_err()
        );
        assert!(
            RawDecoder::try_new(
                schema(DataType::Utf8),
                &options(&[("endianness", "middle")])
            )
            .is_err()
        );
    }

    #[test]
    fn charsets() {
        assert_eq!(
            Charset::Latin1.decode(&[0x63, 0x61, 0x66, 0xE9]),
            "caf\u{e9}"
        );
        assert_eq!(Charset::Utf8.decode(&[0x61, 0xFF]), "a\u{FFFD}");
        // As Java's `new String(bytes, "UTF-16BE")`: a high surrogate takes the unit after it
        // into one malformed sequence; a lone low one and a partial end are one each.
        for (bytes, java) in [
            (&[0xD8, 0x00, 0x00, 0x41][..], "\u{FFFD}"),
            (&[0xD8, 0x00, 0x41], "\u{FFFD}"),
            (&[0xD8, 0x00], "\u{FFFD}"),
            (&[0x00, 0x41, 0x42], "A\u{FFFD}"),
            (&[0xDC, 0x00, 0x00, 0x41], "\u{FFFD}A"),
            (&[0xD8, 0x00, 0xD8, 0x00, 0xDC, 0x00], "\u{FFFD}\u{FFFD}"),
            (&[0xFE, 0xFF, 0x00, 0x41], "\u{FEFF}A"),
            (&[0xFF, 0xFE, 0x00, 0x41], "\u{FFFE}A"),
            (&[0xD8, 0x3D, 0xDE, 0x00], "\u{1F600}"),
        ] {
            assert_eq!(Charset::Utf16Be.decode(bytes), java, "{bytes:02x?}");
        }
        assert_eq!(Charset::Utf16.decode(&[0xFF, 0xFE, 0x41, 0x00]), "A");
        let mut out = Vec::new();
        Charset::Utf16.encode("a", &mut out);
        assert_eq!(out, [0xFE, 0xFF, 0x00, 0x61]);
        assert_eq!(Charset::Utf16.decode(&out), "a");
        assert_eq!(Charset::parse("utf8"), Some(Charset::Utf8));
        assert_eq!(Charset::parse("ISO8859_1"), Some(Charset::Latin1));
    }
}
