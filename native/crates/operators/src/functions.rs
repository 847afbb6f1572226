//! Flink's scalar functions on strings and timestamps, value for value as Flink 2.2 computes them.
//!
//! Each function states what it follows in Flink and what it refuses at build time (so the
//! planner keeps the call in Flink):
//!
//! * `LOWER` / `UPPER`: Java's `String.toLowerCase()` / `toUpperCase()` (ASCII is mapped byte by
//!   byte, other text by Unicode's case mappings, as in Java). A text holding a capital sigma is
//!   lowered by the JVM itself ([`JavaText`]): Java picks its final form by the word boundaries
//!   of its `BreakIterator`, which Unicode's Final_Sigma rule (Rust's) does not follow.
//! * `CHAR_LENGTH`: code points (Flink counts UTF-8 characters, not UTF-16 units).
//! * `SUBSTRING(s FROM pos [FOR len])`: Flink's `substringSQL` in code points: position 0 is 1, a
//!   negative one counts from the end (and gives '' beyond the start), a negative length gives
//!   NULL.
//! * `EXTRACT(unit FROM ts)` on a `TIMESTAMP` (no zone): Flink's arithmetic on epoch
//!   milliseconds, which truncates towards zero. Before 1970 that is not the calendar's field: a
//!   time of day is negative (`HOUR` of 1969-12-31 18:00 is -6) and the date is the next day's.
//! * `DATE_FORMAT(ts, pattern)`: `java.time`'s formatter over the timestamp's own date-time, for
//!   patterns made of `yyyy MM dd HH mm ss SSS` and separators only.
//! * `REGEXP_EXTRACT(s, regex, index)`: `java.util.regex` find, for patterns whose syntax means the
//!   same in Java and in Rust's `regex` (see [`JavaRegex`]); NULL without a match, for a group that
//!   did not take part, or for an index beyond the groups.
//! * `s LIKE pattern [ESCAPE e]` with a constant pattern: `%` is any text, `_` one character
//!   other than Java's line terminators (Flink's quick paths have no `_`, and its regex path reads
//!   `_` as Java's `.`), the rest literal; no escape character without `ESCAPE`.
//! * `SPLIT_INDEX(s, separator, index)`: commons-lang's whole-separator split keeping empty
//!   tokens; NULL for an index out of range and for the empty string (which has no tokens).

use std::fmt::Write;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int32Array, Int64Array, StringArray, StringBuilder};
use arrow::datatypes::{
    ArrowTimestampType, DataType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow::temporal_conversions::as_datetime;
use chrono::{Datelike, NaiveDateTime, Timelike};
use regex_syntax::ast::{self, Ast, ClassSetItem, LiteralKind, SpecialLiteralKind};
use regex_syntax::hir::{Hir, HirKind};

use crate::calc::JavaText;

/// Greek capital sigma, whose small form Java's `toLowerCase` chooses by the word around it.
const CAPITAL_SIGMA: char = '\u{03A3}';

/// A function's input that is not of the type it takes.
fn type_error(function: &str, array: &dyn Array) -> String {
    format!("{function} of {}", array.data_type())
}

/// Maps every string of `array` (Utf8) through `f`, NULL staying NULL.
fn map_strings(
    function: &str,
    array: &ArrayRef,
    mut f: impl FnMut(&str, &mut String) -> bool,
) -> Result<ArrayRef, String> {
    let strings = array
        .as_string_opt::<i32>()
        .ok_or_else(|| type_error(function, array.as_ref()))?;
    let mut builder = StringBuilder::with_capacity(strings.len(), strings.value_data().len());
    let mut scratch = String::new();
    for value in strings.iter() {
        match value {
            Some(s) => {
                scratch.clear();
                if f(s, &mut scratch) {
                    builder.append_value(&scratch);
                } else {
                    builder.append_null();
                }
            }
            None => builder.append_null(),
        }
    }
    Ok(Arc::new(builder.finish()))
}

/// The characters beyond ASCII that Java 17's `String.toLowerCase` or `toUpperCase` (Unicode
/// 13.0) changes, as ranges of code points. Rust's mappings of these equal Java's (case pairs are
/// stable across Unicode versions), but Rust's later Unicode also maps characters Java leaves as
/// they are (Vithkuqi, Glagolitic and Latin letters added since): those are kept.
const JAVA_CASED: &[(u32, u32)] = &[
    (0xB5, 0xB5),
    (0xC0, 0xD6),
    (0xD8, 0xF6),
    (0xF8, 0x137),
    (0x139, 0x18C),
    (0x18E, 0x19A),
    (0x19C, 0x1A9),
    (0x1AC, 0x1B9),
    (0x1BC, 0x1BD),
    (0x1BF, 0x1BF),
    (0x1C4, 0x220),
    (0x222, 0x233),
    (0x23A, 0x254),
    (0x256, 0x257),
    (0x259, 0x259),
    (0x25B, 0x25C),
    (0x260, 0x261),
    (0x263, 0x263),
    (0x265, 0x266),
    (0x268, 0x26C),
    (0x26F, 0x26F),
    (0x271, 0x272),
    (0x275, 0x275),
    (0x27D, 0x27D),
    (0x280, 0x280),
    (0x282, 0x283),
    (0x287, 0x28C),
    (0x292, 0x292),
    (0x29D, 0x29E),
    (0x345, 0x345),
    (0x370, 0x373),
    (0x376, 0x377),
    (0x37B, 0x37D),
    (0x37F, 0x37F),
    (0x386, 0x386),
    (0x388, 0x38A),
    (0x38C, 0x38C),
    (0x38E, 0x3A1),
    (0x3A3, 0x3D1),
    (0x3D5, 0x3F5),
    (0x3F7, 0x3FB),
    (0x3FD, 0x481),
    (0x48A, 0x52F),
    (0x531, 0x556),
    (0x561, 0x587),
    (0x10A0, 0x10C5),
    (0x10C7, 0x10C7),
    (0x10CD, 0x10CD),
    (0x10D0, 0x10FA),
    (0x10FD, 0x10FF),
    (0x13A0, 0x13F5),
    (0x13F8, 0x13FD),
    (0x1C80, 0x1C88),
    (0x1C90, 0x1CBA),
    (0x1CBD, 0x1CBF),
    (0x1D79, 0x1D79),
    (0x1D7D, 0x1D7D),
    (0x1D8E, 0x1D8E),
    (0x1E00, 0x1E9B),
    (0x1E9E, 0x1E9E),
    (0x1EA0, 0x1F15),
    (0x1F18, 0x1F1D),
    (0x1F20, 0x1F45),
    (0x1F48, 0x1F4D),
    (0x1F50, 0x1F57),
    (0x1F59, 0x1F59),
    (0x1F5B, 0x1F5B),
    (0x1F5D, 0x1F5D),
    (0x1F5F, 0x1F7D),
    (0x1F80, 0x1FB4),
    (0x1FB6, 0x1FBC),
    (0x1FBE, 0x1FBE),
    (0x1FC2, 0x1FC4),
    (0x1FC6, 0x1FCC),
    (0x1FD0, 0x1FD3),
    (0x1FD6, 0x1FDB),
    (0x1FE0, 0x1FEC),
    (0x1FF2, 0x1FF4),
    (0x1FF6, 0x1FFC),
    (0x2126, 0x2126),
    (0x212A, 0x212B),
    (0x2132, 0x2132),
    (0x214E, 0x214E),
    (0x2160, 0x217F),
    (0x2183, 0x2184),
    (0x24B6, 0x24E9),
    (0x2C00, 0x2C2E),
    (0x2C30, 0x2C5E),
    (0x2C60, 0x2C70),
    (0x2C72, 0x2C73),
    (0x2C75, 0x2C76),
    (0x2C7E, 0x2CE3),
    (0x2CEB, 0x2CEE),
    (0x2CF2, 0x2CF3),
    (0x2D00, 0x2D25),
    (0x2D27, 0x2D27),
    (0x2D2D, 0x2D2D),
    (0xA640, 0xA66D),
    (0xA680, 0xA69B),
    (0xA722, 0xA72F),
    (0xA732, 0xA76F),
    (0xA779, 0xA787),
    (0xA78B, 0xA78D),
    (0xA790, 0xA794),
    (0xA796, 0xA7AE),
    (0xA7B0, 0xA7BF),
    (0xA7C2, 0xA7CA),
    (0xA7F5, 0xA7F6),
    (0xAB53, 0xAB53),
    (0xAB70, 0xABBF),
    (0xFB00, 0xFB06),
    (0xFB13, 0xFB17),
    (0xFF21, 0xFF3A),
    (0xFF41, 0xFF5A),
    (0x10400, 0x1044F),
    (0x104B0, 0x104D3),
    (0x104D8, 0x104FB),
    (0x10C80, 0x10CB2),
    (0x10CC0, 0x10CF2),
    (0x118A0, 0x118DF),
    (0x16E40, 0x16E7F),
    (0x1E900, 0x1E943),
];

/// Whether Java 17 changes the case of `c` (a character beyond ASCII).
fn java_cased(c: char) -> bool {
    let c = u32::from(c);
    JAVA_CASED
        .binary_search_by(|&(first, last)| {
            if last < c {
                std::cmp::Ordering::Less
            } else if first > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// One text of `LOWER` or `UPPER` into `out`: ASCII in place, other text by Unicode's mappings
/// where Java's Unicode has them (characters Java 17 leaves as they are stay so).
fn map_case(s: &str, out: &mut String, ascii: fn(&mut str), unicode: fn(&str) -> String) {
    if s.is_ascii() {
        out.push_str(s);
        ascii(out);
        return;
    }
    let mut rest = s;
    // Split at the characters Rust maps and Java does not, which stay as they are.
    let rust_only = |c: char| {
        !c.is_ascii()
            && !java_cased(c)
            && (!c.to_lowercase().eq(std::iter::once(c))
                || !c.to_uppercase().eq(std::iter::once(c)))
    };
    while let Some((at, kept)) = rest.char_indices().find(|&(_, c)| rust_only(c)) {
        out.push_str(&unicode(&rest[..at]));
        out.push(kept);
        rest = &rest[at + kept.len_utf8()..];
    }
    out.push_str(&unicode(rest));
}

/// `LOWER`: texts holding a capital sigma are lowered by `java`, the rest here.
pub(crate) fn lower(array: &ArrayRef, java: &dyn JavaText) -> Result<ArrayRef, String> {
    let mut failure = None;
    let lowered = map_strings("LOWER", array, |s, out| {
        if !s.contains(CAPITAL_SIGMA) {
            map_case(s, out, str::make_ascii_lowercase, str::to_lowercase);
            return true;
        }
        match java.to_lower_case(s) {
            Ok(text) => {
                out.push_str(&text);
                true
            }
            Err(e) => {
                failure.get_or_insert(e);
                false
            }
        }
    })?;
    failure.map_or(Ok(lowered), Err)
}

pub(crate) fn upper(array: &ArrayRef) -> Result<ArrayRef, String> {
    map_strings("UPPER", array, |s, out| {
        map_case(s, out, str::make_ascii_uppercase, str::to_uppercase);
        true
    })
}

pub(crate) fn char_length(array: &ArrayRef) -> Result<ArrayRef, String> {
    let strings = array
        .as_string_opt::<i32>()
        .ok_or_else(|| type_error("CHAR_LENGTH", array.as_ref()))?;
    let lengths: Int32Array = strings
        .iter()
        .map(|s| s.map(|s| s.chars().count() as i32))
        .collect();
    Ok(Arc::new(lengths))
}

/// Where [`trim`] removes characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TrimSide {
    Both,
    Leading,
    Trailing,
}

impl TrimSide {
    pub(crate) fn parse(name: &str) -> Result<Self, String> {
        match name {
            "BOTH" => Ok(TrimSide::Both),
            "LEADING" => Ok(TrimSide::Leading),
            "TRAILING" => Ok(TrimSide::Trailing),
            other => Err(format!("TRIM {other} is not evaluated natively")),
        }
    }
}

/// `TRIM(side characters FROM s)`, `LTRIM` and `RTRIM`, as Flink's `BinaryStringDataUtil`: every
/// character of `characters` is removed from the side's end, in any order (not the text as a
/// whole).
pub(crate) fn trim(array: &ArrayRef, characters: &str, side: TrimSide) -> Result<ArrayRef, String> {
    let removed = |c: char| characters.contains(c);
    map_strings("TRIM", array, |s, out| {
        out.push_str(match side {
            TrimSide::Both => s.trim_matches(removed),
            TrimSide::Leading => s.trim_start_matches(removed),
            TrimSide::Trailing => s.trim_end_matches(removed),
        });
        true
    })
}

/// `REPLACE(s, search, replacement)` by a non-empty search text: every occurrence, left to right
/// and not overlapping, as Java's `String.replace`.
pub(crate) fn replace(
    array: &ArrayRef,
    search: &str,
    replacement: &str,
) -> Result<ArrayRef, String> {
    if search.is_empty() {
        return Err("REPLACE of the empty string is not evaluated natively".into());
    }
    map_strings("REPLACE", array, |s, out| {
        out.push_str(&s.replace(search, replacement));
        true
    })
}

/// `SUBSTRING(s FROM position [FOR length])` of every string, as Flink's `substringSQL`.
pub(crate) fn substring(
    array: &ArrayRef,
    position: i64,
    length: Option<i64>,
) -> Result<ArrayRef, String> {
    let length = length.unwrap_or(i64::from(i32::MAX));
    map_strings("SUBSTRING", array, |s, out| {
        if length < 0 {
            return false;
        }
        let chars = s.chars().count() as i64;
        let start = match position {
            p if p > 0 => p - 1,
            p if p < 0 => chars + p,
            _ => 0,
        };
        if s.is_empty() || start >= chars || start < 0 {
            return true;
        }
        let end = if chars - start < length {
            chars
        } else {
            start + length
        };
        out.extend(s.chars().skip(start as usize).take((end - start) as usize));
        true
    })
}

/// `CAST(ts AS STRING)` of a timestamp without a zone whose precision is its unit's (3, 6 or 9),
/// as Flink's `DateTimeUtils.formatTimestamp`: `yyyy-MM-dd HH:mm:ss` and the fraction of the
/// second in as many digits as the precision, each field's digits computed as Flink's `int4` and
/// `int2` compute them.
pub(crate) fn timestamp_text(array: &ArrayRef) -> Result<ArrayRef, String> {
    let digits = match array.data_type() {
        DataType::Timestamp(TimeUnit::Second, None) => 0,
        DataType::Timestamp(TimeUnit::Millisecond, None) => 3,
        DataType::Timestamp(TimeUnit::Microsecond, None) => 6,
        _ => 9,
    };
    let mut out = StringBuilder::new();
    for value in date_times("CAST", array)? {
        let Some(t) = value else {
            out.append_null();
            continue;
        };
        let mut text = String::with_capacity(30);
        // Each field after the separator before it, its digits as Java's `'0' + v / 10^k % 10`
        // (also for values out of the field's range).
        let fields = [
            ("", t.year(), 4),
            ("-", t.month() as i32, 2),
            ("-", t.day() as i32, 2),
            (" ", t.hour() as i32, 2),
            (":", t.minute() as i32, 2),
            (":", t.second() as i32, 2),
        ];
        for (separator, value, width) in fields {
            text.push_str(separator);
            for k in (0..width).rev() {
                let digit = value / 10_i32.pow(k) % 10;
                text.push(char::from_u32((48 + digit) as u32).unwrap_or('?'));
            }
        }
        if digits > 0 {
            let fraction = format!("{:09}", t.nanosecond());
            text.push('.');
            text.push_str(&fraction[..digits]);
        }
        out.append_value(text);
    }
    Ok(Arc::new(out.finish()))
}

/// `ts + INTERVAL` of a timestamp without a zone, as Flink's generated code adds one to a
/// `TimestampData`: `shift` moves its epoch milliseconds and the part of a millisecond the unit
/// holds beyond them stays as it is.
fn shift_timestamps(
    function: &str,
    array: &ArrayRef,
    shift: impl Fn(i64) -> Option<i64>,
) -> Result<ArrayRef, String> {
    fn of<T: ArrowTimestampType>(
        array: &ArrayRef,
        per_milli: i64,
        shift: &dyn Fn(i64) -> Option<i64>,
    ) -> Result<ArrayRef, String> {
        let shifted = array
            .as_primitive::<T>()
            .iter()
            .map(|v| {
                v.map(|v| {
                    let (millis, rest) = (v.div_euclid(per_milli), v.rem_euclid(per_milli));
                    shift(millis)
                        .and_then(|m| m.checked_mul(per_milli)?.checked_add(rest))
                        .ok_or_else(|| format!("a timestamp of {v} moves out of range"))
                })
                .transpose()
            })
            .collect::<Result<arrow::array::PrimitiveArray<T>, String>>()?;
        Ok(Arc::new(shifted))
    }
    match array.data_type() {
        DataType::Timestamp(TimeUnit::Millisecond, None) => {
            of::<TimestampMillisecondType>(array, 1, &shift)
        }
        DataType::Timestamp(TimeUnit::Microsecond, None) => {
            of::<TimestampMicrosecondType>(array, 1_000, &shift)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, None) => {
            of::<TimestampNanosecondType>(array, 1_000_000, &shift)
        }
        _ => Err(type_error(function, array.as_ref())),
    }
}

/// `ts + INTERVAL` of a day-time interval of `millis` milliseconds: Java's `long` addition.
pub(crate) fn add_millis(array: &ArrayRef, millis: i64) -> Result<ArrayRef, String> {
    shift_timestamps("+ INTERVAL", array, |m| Some(m.wrapping_add(millis)))
}

/// `ts + INTERVAL` of a year-month interval of `months` months, as Flink's
/// `DateTimeUtils.addMonths`: the date moves by whole months, a day past the new month's last
/// is that last day, and the time of day stays.
pub(crate) fn add_months(array: &ArrayRef, months: i64) -> Result<ArrayRef, String> {
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).ok_or("no epoch")?;
    let step =
        chrono::Months::new(u32::try_from(months.unsigned_abs()).map_err(|e| e.to_string())?);
    shift_timestamps("+ INTERVAL", array, |millis| {
        let (days, time) = (
            millis.div_euclid(MILLIS_PER_DAY),
            millis.rem_euclid(MILLIS_PER_DAY),
        );
        let date = epoch.checked_add_signed(chrono::TimeDelta::try_days(days)?)?;
        let moved = if months >= 0 {
            date.checked_add_months(step)?
        } else {
            date.checked_sub_months(step)?
        };
        moved
            .signed_duration_since(epoch)
            .num_days()
            .checked_mul(MILLIS_PER_DAY)?
            .checked_add(time)
    })
}

/// The date-times of a timestamp column without a zone, by its unit.
fn date_times(function: &str, array: &ArrayRef) -> Result<Vec<Option<NaiveDateTime>>, String> {
    fn of<T: ArrowTimestampType>(array: &ArrayRef) -> Vec<Option<NaiveDateTime>> {
        array
            .as_primitive::<T>()
            .iter()
            .map(|v| v.and_then(as_datetime::<T>))
            .collect()
    }
    match array.data_type() {
        DataType::Timestamp(unit, None) => Ok(match unit {
            TimeUnit::Second => of::<TimestampSecondType>(array),
            TimeUnit::Millisecond => of::<TimestampMillisecondType>(array),
            TimeUnit::Microsecond => of::<TimestampMicrosecondType>(array),
            TimeUnit::Nanosecond => of::<TimestampNanosecondType>(array),
        }),
        _ => Err(type_error(function, array.as_ref())),
    }
}

/// The fields `EXTRACT` reads from a `TIMESTAMP`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
}

impl Field {
    pub(crate) fn parse(unit: &str) -> Result<Self, String> {
        Ok(match unit {
            "YEAR" => Field::Year,
            "MONTH" => Field::Month,
            "DAY" => Field::Day,
            "HOUR" => Field::Hour,
            "MINUTE" => Field::Minute,
            "SECOND" => Field::Second,
            other => {
                return Err(format!(
                    "EXTRACT({other} FROM ...) is not evaluated natively"
                ));
            }
        })
    }
}

const MILLIS_PER_DAY: i64 = 86_400_000;

/// The epoch milliseconds of a timestamp column without a zone (rounded down, as Flink's
/// `TimestampData` keeps them).
fn epoch_millis(function: &str, array: &ArrayRef) -> Result<Vec<Option<i64>>, String> {
    fn of<T: ArrowTimestampType>(
        array: &ArrayRef,
        to_millis: impl Fn(i64) -> Option<i64>,
    ) -> Vec<Option<i64>> {
        array
            .as_primitive::<T>()
            .iter()
            .map(|v| v.and_then(&to_millis))
            .collect()
    }
    match array.data_type() {
        DataType::Timestamp(unit, None) => Ok(match unit {
            TimeUnit::Second => of::<TimestampSecondType>(array, |v| v.checked_mul(1000)),
            TimeUnit::Millisecond => of::<TimestampMillisecondType>(array, Some),
            TimeUnit::Microsecond => {
                of::<TimestampMicrosecondType>(array, |v| Some(v.div_euclid(1_000)))
            }
            TimeUnit::Nanosecond => {
                of::<TimestampNanosecondType>(array, |v| Some(v.div_euclid(1_000_000)))
            }
        }),
        _ => Err(type_error(function, array.as_ref())),
    }
}

/// `field` of epoch milliseconds `millis` as Flink's `DateTimeUtils.extractFromTimestamp` computes
/// it: Java's `/` and `%`, which truncate towards zero.
fn extract_millis(field: Field, millis: i64) -> Option<i64> {
    Some(match field {
        Field::Hour => millis % MILLIS_PER_DAY / 3_600_000,
        Field::Minute => millis % 3_600_000 / 60_000,
        Field::Second => millis % 60_000 / 1000,
        Field::Year | Field::Month | Field::Day => {
            let date = chrono::NaiveDate::from_ymd_opt(1970, 1, 1)?
                .checked_add_signed(chrono::TimeDelta::try_days(millis / MILLIS_PER_DAY)?)?;
            i64::from(match field {
                Field::Year => date.year(),
                Field::Month => date.month() as i32,
                _ => date.day() as i32,
            })
        }
    })
}

pub(crate) fn extract(field: Field, array: &ArrayRef) -> Result<ArrayRef, String> {
    let values: Int64Array = epoch_millis("EXTRACT", array)?
        .into_iter()
        .map(|millis| millis.and_then(|m| extract_millis(field, m)))
        .collect();
    Ok(Arc::new(values))
}

/// One piece of a `DATE_FORMAT` pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// `yyyy`: the year of the era, at least four digits, `+` before a fifth.
    YearOfEra,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    /// `SSS`: milliseconds of the second, truncated.
    Millis,
    Text(String),
}

/// A `DATE_FORMAT` pattern in the subset of `java.time`'s pattern letters formatted natively.
#[derive(Debug, Clone)]
pub(crate) struct DatePattern {
    pieces: Vec<Piece>,
}

impl DatePattern {
    pub(crate) fn parse(pattern: &str) -> Result<Self, String> {
        let refuse =
            || format!("DATE_FORMAT with the pattern {pattern:?} is not evaluated natively");
        let chars: Vec<char> = pattern.chars().collect();
        let mut pieces = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let run = chars[i..].iter().take_while(|&&d| d == c).count();
            if c.is_ascii_alphabetic() {
                let piece = match (c, run) {
                    ('y', 4) => Piece::YearOfEra,
                    ('M', 2) => Piece::Month,
                    ('d', 2) => Piece::Day,
                    ('H', 2) => Piece::Hour,
                    ('m', 2) => Piece::Minute,
                    ('s', 2) => Piece::Second,
                    ('S', 3) => Piece::Millis,
                    _ => return Err(refuse()),
                };
                pieces.push(piece);
                i += run;
            } else if matches!(c, '-' | '/' | ':' | '.' | ',' | ' ' | '_') {
                pieces.push(Piece::Text(c.to_string()));
                i += 1;
            } else {
                return Err(refuse());
            }
        }
        Ok(Self { pieces })
    }

    fn write(&self, t: &NaiveDateTime, out: &mut String) -> std::fmt::Result {
        for piece in &self.pieces {
            match piece {
                Piece::YearOfEra => {
                    let year = t.year();
                    let of_era = if year >= 1 { year } else { 1 - year };
                    if of_era > 9999 {
                        write!(out, "+{of_era}")?;
                    } else {
                        write!(out, "{of_era:04}")?;
                    }
                }
                Piece::Month => write!(out, "{:02}", t.month())?,
                Piece::Day => write!(out, "{:02}", t.day())?,
                Piece::Hour => write!(out, "{:02}", t.hour())?,
                Piece::Minute => write!(out, "{:02}", t.minute())?,
                Piece::Second => write!(out, "{:02}", t.second())?,
                Piece::Millis => write!(out, "{:03}", t.nanosecond() % 1_000_000_000 / 1_000_000)?,
                Piece::Text(text) => out.push_str(text),
            }
        }
        Ok(())
    }

    pub(crate) fn format(&self, array: &ArrayRef) -> Result<ArrayRef, String> {
        let times = date_times("DATE_FORMAT", array)?;
        let mut builder = StringBuilder::with_capacity(times.len(), times.len() * 16);
        let mut scratch = String::new();
        for t in times {
            match t {
                Some(t) => {
                    scratch.clear();
                    self.write(&t, &mut scratch)
                        .map_err(|e| format!("DATE_FORMAT: {e}"))?;
                    builder.append_value(&scratch);
                }
                None => builder.append_null(),
            }
        }
        Ok(Arc::new(builder.finish()))
    }
}

/// A `java.util.regex` pattern run by Rust's `regex` where both mean the same.
///
/// Admitted: literals (escaped or not, `\t \n \r \f`), `.` (rewritten to exclude Java's line
/// terminators), `\d \s \w` and their negations (rewritten to Java's ASCII classes), bracketed
/// classes of literals, ranges and `\d \s \w`, `^` and `\A` / `\z`, groups (capturing, or `(?:`
/// without flags), alternation, and greedy or lazy repetition. Refused: `$` (Java's also matches
/// before a final line terminator), `\b`, flags, named groups, Unicode and POSIX classes, class
/// set operations and nested classes, and anything Rust's parser rejects (back-references,
/// possessive quantifiers, `\Q...\E`, look-around).
#[derive(Debug, Clone)]
pub(crate) struct JavaRegex {
    regex: regex::Regex,
}

const JAVA_DOT: &str = r"[^\n\r\x{85}\x{2028}\x{2029}]";

impl JavaRegex {
    pub(crate) fn compile(pattern: &str) -> Result<Self, String> {
        let refuse = |why: &str| {
            format!("REGEXP_EXTRACT with the pattern {pattern:?} is not evaluated natively: {why}")
        };
        let parsed = ast::parse::Parser::new()
            .parse(pattern)
            .map_err(|e| refuse(&e.kind().to_string()))?;
        let mut rewrites = Vec::new();
        admit(&parsed, pattern, &mut rewrites).map_err(refuse)?;
        rewrites.sort_by_key(|(start, _, _)| *start);
        let mut rust = String::with_capacity(pattern.len() + 32 * rewrites.len());
        let mut at = 0;
        for (start, end, text) in rewrites {
            rust.push_str(&pattern[at..start]);
            rust.push_str(text);
            at = end;
        }
        rust.push_str(&pattern[at..]);
        let hir = regex_syntax::Parser::new()
            .parse(&rust)
            .map_err(|e| refuse(&e.to_string()))?;
        if captures_in_empty_iterations(&hir) {
            return Err(refuse(
                "a group repeated where an iteration can match empty text is captured \
                 differently in Java",
            ));
        }
        let regex = regex::Regex::new(&rust).map_err(|e| refuse(&e.to_string()))?;
        Ok(Self { regex })
    }

    /// Group `index` of the first match in every string; NULL where Java's would be.
    pub(crate) fn extract(&self, array: &ArrayRef, index: i64) -> Result<ArrayRef, String> {
        let groups = self.regex.captures_len();
        let strings = array
            .as_string_opt::<i32>()
            .ok_or_else(|| type_error("REGEXP_EXTRACT", array.as_ref()))?;
        let group = usize::try_from(index).ok().filter(|g| *g < groups);
        let values: StringArray = strings
            .iter()
            .map(|s| {
                let (s, group) = (s?, group?);
                let captures = self.regex.captures(s)?;
                captures.get(group).map(|m| m.as_str())
            })
            .collect();
        Ok(Arc::new(values))
    }
}

/// Whether `hir` repeats a capture group in an iteration that can match empty text. Java's
/// backtracking matcher ends such a repetition with an empty iteration and keeps its empty capture
/// (`(a?)*b` on `aab`: group 1 is ''), where Rust's `regex` keeps the last non-empty one ('a').
fn captures_in_empty_iterations(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Repetition(repetition) => {
            let body = repetition.sub.properties();
            (body.minimum_len() == Some(0) && body.explicit_captures_len() > 0)
                || captures_in_empty_iterations(&repetition.sub)
        }
        HirKind::Capture(capture) => captures_in_empty_iterations(&capture.sub),
        HirKind::Concat(all) | HirKind::Alternation(all) => {
            all.iter().any(captures_in_empty_iterations)
        }
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => false,
    }
}

/// Checks that `node` means the same in Java, collecting the spans Rust must read differently.
fn admit(
    node: &Ast,
    pattern: &str,
    rewrites: &mut Vec<(usize, usize, &'static str)>,
) -> Result<(), &'static str> {
    match node {
        Ast::Empty(_) => Ok(()),
        Ast::Literal(literal) => admit_literal(literal),
        Ast::Dot(span) => {
            rewrites.push((span.start.offset, span.end.offset, JAVA_DOT));
            Ok(())
        }
        Ast::Assertion(assertion) => match assertion.kind {
            ast::AssertionKind::StartLine
            | ast::AssertionKind::StartText
            | ast::AssertionKind::EndText => Ok(()),
            ast::AssertionKind::EndLine => {
                Err("Java's `$` also matches before a final line terminator")
            }
            _ => Err("word boundaries differ between Java and Rust"),
        },
        Ast::ClassPerl(perl) => {
            rewrites.push((
                perl.span.start.offset,
                perl.span.end.offset,
                ascii_class(perl, true),
            ));
            Ok(())
        }
        Ast::ClassUnicode(_) => Err("Unicode classes are not evaluated natively"),
        Ast::ClassBracketed(class) => match &class.kind {
            ast::ClassSet::Item(item) => admit_class_item(item, rewrites),
            ast::ClassSet::BinaryOp(_) => Err("class set operations differ between Java and Rust"),
        },
        Ast::Repetition(repetition) => match *repetition.ast {
            // `a++` repeats a repetition in Rust but is possessive in Java.
            Ast::Repetition(_) => Err("possessive quantifiers are not evaluated natively"),
            ref inner => {
                let op = pattern
                    .get(repetition.op.span.start.offset..repetition.op.span.end.offset)
                    .unwrap_or_default();
                if op.starts_with('{') && !java_counted(op) {
                    // Rust reads `{ 2 }`, `{1, 3}` and `{,3}`; Java rejects them (Flink: NULL).
                    return Err("a counted repetition Java does not read as Rust does");
                }
                admit(inner, pattern, rewrites)
            }
        },
        Ast::Group(group) => match &group.kind {
            ast::GroupKind::CaptureIndex(_) => admit(&group.ast, pattern, rewrites),
            ast::GroupKind::NonCapturing(flags) if flags.items.is_empty() => {
                admit(&group.ast, pattern, rewrites)
            }
            ast::GroupKind::NonCapturing(_) => Err("inline flags are not evaluated natively"),
            ast::GroupKind::CaptureName { .. } => Err("named groups are not evaluated natively"),
        },
        Ast::Flags(_) => Err("inline flags are not evaluated natively"),
        Ast::Alternation(alternation) => alternation
            .asts
            .iter()
            .try_for_each(|a| admit(a, pattern, rewrites)),
        Ast::Concat(concat) => concat
            .asts
            .iter()
            .try_for_each(|a| admit(a, pattern, rewrites)),
    }
}

/// Whether `op` is a counted repetition as Java writes one: `{n}`, `{n,}` or `{n,m}`, digits only
/// (then `?` where it is lazy).
fn java_counted(op: &str) -> bool {
    let op = op.strip_suffix('?').unwrap_or(op);
    let Some(inner) = op.strip_prefix('{').and_then(|o| o.strip_suffix('}')) else {
        return false;
    };
    let (low, high) = inner.split_once(',').unwrap_or((inner, ""));
    !low.is_empty()
        && low.bytes().all(|b| b.is_ascii_digit())
        && high.bytes().all(|b| b.is_ascii_digit())
}

fn admit_literal(literal: &ast::Literal) -> Result<(), &'static str> {
    match literal.kind {
        LiteralKind::Verbatim | LiteralKind::Meta | LiteralKind::Superfluous => Ok(()),
        LiteralKind::Special(
            SpecialLiteralKind::Tab
            | SpecialLiteralKind::LineFeed
            | SpecialLiteralKind::CarriageReturn
            | SpecialLiteralKind::FormFeed,
        ) => Ok(()),
        _ => Err("this escape means something else in Java"),
    }
}

fn admit_class_item(
    item: &ClassSetItem,
    rewrites: &mut Vec<(usize, usize, &'static str)>,
) -> Result<(), &'static str> {
    match item {
        ClassSetItem::Empty(_) => Ok(()),
        ClassSetItem::Literal(literal) if matches!(literal.c, '[' | ']') => {
            Err("a bracket inside a class reads differently in Java")
        }
        ClassSetItem::Literal(literal) => admit_literal(literal),
        ClassSetItem::Range(range) => {
            admit_literal(&range.start)?;
            admit_literal(&range.end)
        }
        ClassSetItem::Perl(perl) if !perl.negated => {
            rewrites.push((
                perl.span.start.offset,
                perl.span.end.offset,
                ascii_class(perl, false),
            ));
            Ok(())
        }
        ClassSetItem::Perl(_) => Err("negated classes inside a class are not evaluated natively"),
        ClassSetItem::Union(union) => union
            .items
            .iter()
            .try_for_each(|i| admit_class_item(i, rewrites)),
        ClassSetItem::Ascii(_) => Err("POSIX classes are not Java syntax"),
        ClassSetItem::Unicode(_) => Err("Unicode classes are not evaluated natively"),
        ClassSetItem::Bracketed(_) => Err("nested classes are not evaluated natively"),
    }
}

/// Java's ASCII meaning of `\d`, `\s`, `\w` (and negations, outside a class).
fn ascii_class(perl: &ast::ClassPerl, standalone: bool) -> &'static str {
    match (perl.kind.clone(), perl.negated, standalone) {
        (ast::ClassPerlKind::Digit, false, true) => "[0-9]",
        (ast::ClassPerlKind::Digit, true, _) => "[^0-9]",
        (ast::ClassPerlKind::Digit, false, false) => "0-9",
        (ast::ClassPerlKind::Space, false, true) => r"[\t\n\x0B\f\r ]",
        (ast::ClassPerlKind::Space, true, _) => r"[^\t\n\x0B\f\r ]",
        (ast::ClassPerlKind::Space, false, false) => r"\t\n\x0B\f\r ",
        (ast::ClassPerlKind::Word, false, true) => "[a-zA-Z_0-9]",
        (ast::ClassPerlKind::Word, true, _) => "[^a-zA-Z_0-9]",
        (ast::ClassPerlKind::Word, false, false) => "a-zA-Z_0-9",
    }
}

/// A `LIKE` pattern with its escape character, matched whole.
#[derive(Debug, Clone)]
pub(crate) struct LikePattern {
    regex: regex::Regex,
}

impl LikePattern {
    /// Refuses what Flink refuses (an escape of more than one character, or one followed by
    /// anything but `%`, `_` or itself), so Flink raises its own error.
    pub(crate) fn compile(pattern: &str, escape: Option<&str>) -> Result<Self, String> {
        let refuse = |why: &str| format!("LIKE {pattern:?}: {why}");
        let escape = match escape {
            None => None,
            Some(e) => {
                let mut chars = e.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if c != '\0' && c.len_utf16() == 1 => Some(c),
                    _ => return Err(refuse("the escape is not one character")),
                }
            }
        };
        let mut rust = String::from(r"\A");
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            if Some(c) == escape {
                match chars.next() {
                    Some(next) if next == '%' || next == '_' || Some(next) == escape => {
                        rust.push_str(&regex::escape(&next.to_string()));
                    }
                    _ => return Err(refuse("an escape must precede %, _ or itself")),
                }
            } else if c == '%' {
                rust.push_str("(?s:.*)");
            } else if c == '_' {
                rust.push_str(JAVA_DOT);
            } else {
                rust.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
            }
        }
        rust.push_str(r"\z");
        let regex = regex::Regex::new(&rust).map_err(|e| refuse(&e.to_string()))?;
        Ok(Self { regex })
    }

    pub(crate) fn matches(&self, array: &ArrayRef) -> Result<ArrayRef, String> {
        let strings = array
            .as_string_opt::<i32>()
            .ok_or_else(|| type_error("LIKE", array.as_ref()))?;
        let values: arrow::array::BooleanArray = strings
            .iter()
            .map(|s| s.map(|s| self.regex.is_match(s)))
            .collect();
        Ok(Arc::new(values))
    }
}

/// Token `index` of every string split at each `separator` (non-empty), empty tokens kept.
pub(crate) fn split_index(
    array: &ArrayRef,
    separator: &str,
    index: i64,
) -> Result<ArrayRef, String> {
    let strings = array
        .as_string_opt::<i32>()
        .ok_or_else(|| type_error("SPLIT_INDEX", array.as_ref()))?;
    let index = usize::try_from(index).ok();
    let values: StringArray = strings
        .iter()
        .map(|s| {
            let (s, index) = (s?, index?);
            if s.is_empty() {
                return None;
            }
            s.split(separator).nth(index)
        })
        .collect();
    Ok(Arc::new(values))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(values: &[Option<&str>]) -> ArrayRef {
        Arc::new(StringArray::from(values.to_vec()))
    }

    fn texts(array: &ArrayRef) -> Vec<Option<String>> {
        array
            .as_string::<i32>()
            .iter()
            .map(|s| s.map(str::to_string))
            .collect()
    }

    #[test]
    fn timestamps_are_written_as_flink_writes_them() {
        // 1969-12-31 23:59:59.999, 0999-01-02 03:04:05.060, and 2024-02-29 08:00:00.
        let millis: ArrayRef = Arc::new(arrow::array::TimestampMillisecondArray::from(vec![
            Some(-1),
            Some(-30_641_662_554_940),
            Some(1_709_193_600_000),
            None,
        ]));
        assert_eq!(
            texts(&timestamp_text(&millis).unwrap()),
            vec![
                Some("1969-12-31 23:59:59.999".to_string()),
                Some("0999-01-02 03:04:05.060".to_string()),
                Some("2024-02-29 08:00:00.000".to_string()),
                None
            ]
        );
        let micros: ArrayRef = Arc::new(arrow::array::TimestampMicrosecondArray::from(vec![
            1_709_193_600_000_001,
        ]));
        assert_eq!(
            texts(&timestamp_text(&micros).unwrap()),
            vec![Some("2024-02-29 08:00:00.000001".to_string())]
        );
    }

    #[test]
    fn intervals_move_timestamps_as_flink_moves_them() {
        use arrow::datatypes::TimestampMicrosecondType;
        // 2024-01-31 10:00:00.000001 and 1969-12-31 23:59:59.999999 (microseconds).
        let micros: ArrayRef = Arc::new(arrow::array::TimestampMicrosecondArray::from(vec![
            Some(1_706_695_200_000_001),
            Some(-1),
            None,
        ]));
        let values = |array: ArrayRef| -> Vec<Option<i64>> {
            array
                .as_primitive::<TimestampMicrosecondType>()
                .iter()
                .collect()
        };
        // One month on: the 31st of January becomes the last day of February, at the same time.
        assert_eq!(
            values(add_months(&micros, 1).unwrap()),
            vec![Some(1_709_200_800_000_001), Some(2_678_399_999_999), None]
        );
        // Minus one and a half seconds: the part of a millisecond beyond it stays.
        assert_eq!(
            values(add_millis(&micros, -1_500).unwrap()),
            vec![Some(1_706_695_198_500_001), Some(-1_500_001), None]
        );
    }

    #[test]
    fn trim_removes_any_of_its_characters_and_replace_every_occurrence() {
        let input = strings(&[Some("abba"), Some("  ab "), Some("xyzyx"), None, Some("")]);
        let out = |characters, side| texts(&trim(&input, characters, side).unwrap());
        let owned = |values: &[Option<&str>]| -> Vec<Option<String>> {
            values.iter().map(|v| v.map(str::to_string)).collect()
        };
        assert_eq!(
            out("ab", TrimSide::Leading),
            owned(&[Some(""), Some("  ab "), Some("xyzyx"), None, Some("")])
        );
        assert_eq!(
            out("xy", TrimSide::Both),
            owned(&[Some("abba"), Some("  ab "), Some("z"), None, Some("")])
        );
        assert_eq!(
            out(" ", TrimSide::Trailing),
            owned(&[Some("abba"), Some("  ab"), Some("xyzyx"), None, Some("")])
        );
        assert_eq!(
            texts(&replace(&input, "b", "XY").unwrap()),
            owned(&[
                Some("aXYXYa"),
                Some("  aXY "),
                Some("xyzyx"),
                None,
                Some("")
            ])
        );
        assert!(replace(&input, "", "-").is_err());
    }

    /// Answers as a JVM would not, so a test sees which texts were asked.
    #[derive(Default)]
    struct Asked(std::cell::RefCell<Vec<String>>);

    impl JavaText for Asked {
        fn to_lower_case(&self, text: &str) -> Result<String, String> {
            self.0.borrow_mut().push(text.to_string());
            Ok(format!("java:{text}"))
        }
    }

    #[test]
    fn texts_with_a_capital_sigma_are_lowered_by_the_jvm() {
        let input = strings(&[
            Some("AbC"),
            Some("ΟΔΟΣ-ΠΑΡΟΔΟΣ"),
            Some("σς ΑΒΓ"),
            None,
            Some("A_Σ"),
        ]);
        let java = Asked::default();
        assert_eq!(
            texts(&lower(&input, &java).unwrap()),
            vec![
                Some("abc".into()),
                Some("java:ΟΔΟΣ-ΠΑΡΟΔΟΣ".into()),
                Some("σς αβγ".into()),
                None,
                Some("java:A_Σ".into())
            ]
        );
        assert_eq!(*java.0.borrow(), vec!["ΟΔΟΣ-ΠΑΡΟΔΟΣ", "A_Σ"]);
        // Upper case has no rule by context: no JVM is asked.
        assert_eq!(
            texts(&upper(&input).unwrap())[1],
            Some("ΟΔΟΣ-ΠΑΡΟΔΟΣ".into())
        );
        let without = lower(&input, &crate::calc::WithoutJvm).unwrap_err();
        assert!(
            without.contains("ΟΔΟΣ-ΠΑΡΟΔΟΣ") && without.contains("needs the JVM"),
            "{without}"
        );
    }

    #[test]
    fn case_mapping_follows_unicode_like_java() {
        let input = strings(&[Some("AbC"), Some("ΟΔΟΣ"), Some("straße"), None]);
        let java = Asked::default();
        assert_eq!(
            texts(&lower(&input, &java).unwrap()),
            vec![
                Some("abc".into()),
                Some("java:ΟΔΟΣ".into()),
                Some("straße".into()),
                None
            ]
        );
        let at = |p, l| texts(&substring(&input, p, l).unwrap())[1].clone();
        assert_eq!(at(0, Some(2)), Some("ΟΔ".into()));
        assert_eq!(at(-3, None), Some("ΔΟΣ".into()));
        assert_eq!(at(-5, None), Some("".into()));
        assert_eq!(at(5, None), Some("".into()));
        assert_eq!(at(2, Some(-1)), None);
        assert_eq!(texts(&upper(&input).unwrap())[2], Some("STRASSE".into()));
        // Cased only since Unicode 14 (Glagolitic U+2C2F, Vithkuqi U+10570, Latin U+A7C0 and
        // U+019B, whose capital came in 16): Java 17 leaves them, and so do we, the rest mapped.
        let later = strings(&[Some("ⰯaΔ\u{10570}"), Some("ꟀƛÀ")]);
        assert_eq!(
            texts(&lower(&later, &java).unwrap()),
            vec![Some("Ⱟaδ\u{10570}".into()), Some("Ꟁƛà".into())]
        );
        assert_eq!(
            texts(&upper(&later).unwrap()),
            vec![Some("ⰯAΔ\u{10570}".into()), Some("ꟀƛÀ".into())]
        );
        assert!(java_cased('À') && java_cased('ÿ') && java_cased('\u{1E921}'));
        assert!(!java_cased('\u{2C2F}') && !java_cased('中'));
        let lengths = char_length(&input).unwrap();
        assert_eq!(
            lengths
                .as_primitive::<arrow::datatypes::Int32Type>()
                .value(2),
            6
        );
    }

    #[test]
    fn date_format_pads_and_signs_years_as_java_time() {
        let millis: ArrayRef = Arc::new(arrow::array::TimestampMillisecondArray::from(vec![
            Some(0),
            Some(-1),
            Some(1_700_000_000_123),
            None,
        ]));
        let pattern = DatePattern::parse("yyyy-MM-dd HH:mm:ss.SSS").unwrap();
        assert_eq!(
            texts(&pattern.format(&millis).unwrap()),
            vec![
                Some("1970-01-01 00:00:00.000".into()),
                Some("1969-12-31 23:59:59.999".into()),
                Some("2023-11-14 22:13:20.123".into()),
                None
            ]
        );
        assert!(DatePattern::parse("yyyy-MM-dd'T'HH").is_err());
        assert!(DatePattern::parse("YYYY").is_err());
        // Flink truncates: one millisecond before 1970 is hour 0 of 1970-01-01.
        let hours = extract(Field::Hour, &millis).unwrap();
        let days = extract(Field::Day, &millis).unwrap();
        assert_eq!(
            days.as_primitive::<arrow::datatypes::Int64Type>().value(1),
            1
        );
        assert_eq!(
            hours
                .as_primitive::<arrow::datatypes::Int64Type>()
                .iter()
                .collect::<Vec<_>>(),
            vec![Some(0), Some(0), Some(22), None]
        );
    }

    #[test]
    fn regex_subset_matches_java_and_refuses_the_rest() {
        let urls = strings(&[
            Some("https://x.org/a?channel_id=7&b=1"),
            Some("channel_id=&x"),
            Some("nothing"),
            None,
        ]);
        let regex = JavaRegex::compile("(&|^|\\?)channel_id=([^&]*)").unwrap();
        assert_eq!(
            texts(&regex.extract(&urls, 2).unwrap()),
            vec![Some("7".into()), Some("".into()), None, None]
        );
        assert_eq!(texts(&regex.extract(&urls, 3).unwrap())[0], None);
        assert_eq!(texts(&regex.extract(&urls, -1).unwrap())[0], None);
        // `.` stops at '\r' in Java; `\d` is ASCII.
        let dot = JavaRegex::compile("a(.)(\\d)").unwrap();
        let input = strings(&[Some("a\r1"), Some("ab١"), Some("ab1")]);
        assert_eq!(
            texts(&dot.extract(&input, 1).unwrap()),
            vec![None, None, Some("b".into())]
        );
        for refused in [
            "a$",
            "\\bword",
            "(?i)a",
            "(?<n>a)",
            "\\p{L}",
            "[a&&b]",
            "(a)\\1",
            "a++",
            // Counted repetitions Java rejects (Flink gives NULL) and Rust reads.
            "a{ 2 }",
            "[0-9]{1, 3}",
            "a{2 }",
            "a{,3}",
            // A group repeated where an iteration can be empty: Java keeps the empty capture.
            "(\\w*\\.?)*@",
            "(a?)*b",
            "(a|)*b",
            "(?:(a)|b?)+c",
            "x(?:y?(a*))*",
            "((a)?)?b",
        ] {
            assert!(JavaRegex::compile(refused).is_err(), "{refused}");
        }
        for admitted in [
            "a{2}",
            "a{2,}",
            "a{1,3}?",
            "(ab){0,2}",
            "(a)*b",
            "(?:(a*)b)*",
            "(?:a?)*(b)",
            "x(?:y(a*))*",
        ] {
            assert!(JavaRegex::compile(admitted).is_ok(), "{admitted}");
        }
        // Each repetition's last iteration is captured, as in Java.
        let last = JavaRegex::compile("(?:(a*)b)*c").unwrap();
        let input = strings(&[Some("aabbabc"), Some("c")]);
        assert_eq!(
            texts(&last.extract(&input, 1).unwrap()),
            vec![Some("a".into()), None]
        );
    }

    #[test]
    fn like_matches_whole_strings_with_javas_underscore() {
        let input = strings(&[
            Some("abc"),
            Some("a\nc"),
            Some("a_c"),
            Some("xabcx"),
            Some(""),
            None,
        ]);
        let like = |p: &str, e: Option<&str>| {
            LikePattern::compile(p, e)
                .unwrap()
                .matches(&input)
                .unwrap()
                .as_boolean()
                .iter()
                .collect::<Vec<_>>()
        };
        let t = Some(true);
        let f = Some(false);
        assert_eq!(like("a_c", None), vec![t, f, t, f, f, None]);
        assert_eq!(like("a%c", None), vec![t, t, t, f, f, None]);
        assert_eq!(like("%b%", None), vec![t, f, f, t, f, None]);
        assert_eq!(like("", None), vec![f, f, f, f, t, None]);
        assert_eq!(like("a!_c", Some("!")), vec![f, f, t, f, f, None]);
        assert_eq!(like("a.c", None), vec![f, f, f, f, f, None]);
        assert!(LikePattern::compile("a!", Some("!")).is_err());
        assert!(LikePattern::compile("a!b", Some("!")).is_err());
        assert!(LikePattern::compile("ab", Some("!!")).is_err());
    }

    #[test]
    fn split_index_keeps_empty_tokens_and_has_none_for_the_empty_string() {
        let input = strings(&[Some("a//b/"), Some(""), Some("/"), None]);
        let at = |i| texts(&split_index(&input, "/", i).unwrap());
        assert_eq!(at(0), vec![Some("a".into()), None, Some("".into()), None]);
        assert_eq!(at(1), vec![Some("".into()), None, Some("".into()), None]);
        assert_eq!(at(3), vec![Some("".into()), None, None, None]);
        assert_eq!(at(-1), vec![None, None, None, None]);
    }
}
