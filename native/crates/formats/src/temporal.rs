//! Date, time and timestamp text in the forms of Flink's `TimeFormats`, parsed and printed with
//! `java.time`'s rules: ISO dates with a sign outside years 0000-9999, SQL (`yyyy-MM-dd HH:mm:ss`)
//! and ISO-8601 (`yyyy-MM-ddTHH:mm[:ss]`) timestamps with 0-9 fraction digits, `24:00:00` and
//! past-the-end days of month resolved the SMART way where Flink's formatter does.

/// The value at `i` of an Arrow timestamp column as epoch milliseconds and nanoseconds within
/// the millisecond, whatever its unit; `None` for a column that is not a timestamp.
pub fn timestamp_parts(array: &dyn arrow::array::Array, i: usize) -> Option<(i64, u32)> {
    use arrow::array::AsArray;
    use arrow::datatypes::{
        DataType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
        TimestampNanosecondType, TimestampSecondType,
    };
    Some(match array.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => (
            array.as_primitive::<TimestampSecondType>().value(i) * 1000,
            0,
        ),
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            (array.as_primitive::<TimestampMillisecondType>().value(i), 0)
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            let v = array.as_primitive::<TimestampMicrosecondType>().value(i);
            (v.div_euclid(1000), (v.rem_euclid(1000) * 1000) as u32)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            let v = array.as_primitive::<TimestampNanosecondType>().value(i);
            (v.div_euclid(1_000_000), v.rem_euclid(1_000_000) as u32)
        }
        _ => return None,
    })
}

/// The value at `i` of an Arrow time column as nanoseconds of the day, whatever its unit;
/// `None` for a column that is not a time.
pub fn time_of_day_nanos(array: &dyn arrow::array::Array, i: usize) -> Option<i64> {
    use arrow::array::AsArray;
    use arrow::datatypes::{
        DataType, Time32MillisecondType, Time32SecondType, Time64MicrosecondType,
        Time64NanosecondType, TimeUnit,
    };
    Some(match array.data_type() {
        DataType::Time32(TimeUnit::Second) => {
            i64::from(array.as_primitive::<Time32SecondType>().value(i)) * 1_000_000_000
        }
        DataType::Time32(_) => {
            i64::from(array.as_primitive::<Time32MillisecondType>().value(i)) * 1_000_000
        }
        DataType::Time64(TimeUnit::Microsecond) => {
            array.as_primitive::<Time64MicrosecondType>().value(i) * 1000
        }
        DataType::Time64(_) => array.as_primitive::<Time64NanosecondType>().value(i),
        _ => return None,
    })
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
#[inline]
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day number.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// How a formatter resolves fields: SMART clamps a day 29-31 past the month's end and reads
/// `24:00:00` as the next day's midnight; STRICT rejects both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolver {
    Smart,
    Strict,
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    #[inline]
    fn digits(&mut self, n: usize) -> Option<u32> {
        let end = self.i.checked_add(n)?;
        let chunk = self.s.get(self.i..end)?;
        let mut v = 0u32;
        for b in chunk {
            if !b.is_ascii_digit() {
                return None;
            }
            v = v * 10 + u32::from(b - b'0');
        }
        self.i = end;
        Some(v)
    }

    #[inline]
    fn eat(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn done(&self) -> bool {
        self.i == self.s.len()
    }

    /// `uuuu-MM-dd` (ISO_LOCAL_DATE): 4-digit year, or a sign and 4-10 digits.
    #[inline]
    fn date(&mut self) -> Option<(i64, u32, u32)> {
        let year = match self.s.get(self.i) {
            Some(b'+') | Some(b'-') => {
                let negative = self.s[self.i] == b'-';
                self.i += 1;
                let start = self.i;
                while self.s.get(self.i).is_some_and(u8::is_ascii_digit) && self.i - start < 10 {
                    self.i += 1;
                }
                let len = self.i - start;
                if !(4..=10).contains(&len) {
                    return None;
                }
                let v: i64 = std::str::from_utf8(&self.s[start..self.i])
                    .ok()?
                    .parse()
                    .ok()?;
                // A '+' is only allowed (and then required) past 4 digits; no minus zero.
                if (!negative && len == 4) || (negative && v == 0) {
                    return None;
                }
                if negative { -v } else { v }
            }
            _ => i64::from(self.digits(4)?),
        };
        if !self.eat(b'-') {
            return None;
        }
        let month = self.digits(2)?;
        if !self.eat(b'-') {
            return None;
        }
        let day = self.digits(2)?;
        Some((year, month, day))
    }

    /// `HH:mm` then `:ss` (optional when `seconds_optional`) and `.` with 0-9 digits.
    #[inline]
    fn time(&mut self, seconds_optional: bool) -> Option<(u32, u32, u32, u32)> {
        let hour = self.digits(2)?;
        if !self.eat(b':') {
            return None;
        }
        let minute = self.digits(2)?;
        let mut second = 0;
        let mut nanos = 0;
        if self.eat(b':') {
            second = self.digits(2)?;
            if self.eat(b'.') {
                let start = self.i;
                while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                    self.i += 1;
                }
                let len = self.i - start;
                if len > 9 {
                    return None;
                }
                for k in 0..9 {
                    nanos = nanos * 10
                        + if k < len {
                            u32::from(self.s[start + k] - b'0')
                        } else {
                            0
                        };
                }
            }
        } else if !seconds_optional {
            return None;
        }
        Some((hour, minute, second, nanos))
    }
}

/// A local date-time as epoch milliseconds and nanoseconds within the millisecond.
pub type LocalTimestamp = (i64, u32);

/// A parsed timestamp (epoch millis, nanos of the millisecond) as a value of an Arrow timestamp
/// `unit`; fails when the unit cannot hold it: out of its range, or with fractional digits it
/// would drop (Flink keeps every digit it parsed, beyond the column's precision too).
pub fn timestamp_in_unit(
    unit: arrow::datatypes::TimeUnit,
    (millis, nanos): LocalTimestamp,
) -> Result<i64, String> {
    use arrow::datatypes::TimeUnit;
    let exact = match unit {
        TimeUnit::Second => millis.rem_euclid(1000) == 0 && nanos == 0,
        TimeUnit::Millisecond => nanos == 0,
        TimeUnit::Microsecond => nanos % 1000 == 0,
        TimeUnit::Nanosecond => true,
    };
    if !exact {
        return Err("it has more fractional digits than the column keeps".into());
    }
    let value = match unit {
        TimeUnit::Second => Some(millis.div_euclid(1000)),
        TimeUnit::Millisecond => Some(millis),
        TimeUnit::Microsecond => millis
            .checked_mul(1000)
            .and_then(|v| v.checked_add(i64::from(nanos / 1000))),
        TimeUnit::Nanosecond => millis
            .checked_mul(1_000_000)
            .and_then(|v| v.checked_add(i64::from(nanos))),
    };
    value.ok_or_else(|| format!("it is outside the range of {unit:?} timestamps"))
}

fn resolve(
    (year, month, day): (i64, u32, u32),
    (hour, minute, second, nanos): (u32, u32, u32, u32),
    resolver: Resolver,
) -> Option<LocalTimestamp> {
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let day = if day > days_in_month(year, month) {
        if resolver == Resolver::Strict {
            return None;
        }
        days_in_month(year, month)
    } else {
        day
    };
    let mut days = days_from_civil(year, month, day);
    let second_of_day = if hour == 24 && minute == 0 && second == 0 && nanos == 0 {
        if resolver == Resolver::Strict {
            return None;
        }
        days += 1;
        0
    } else {
        if hour > 23 || minute > 59 || second > 59 {
            return None;
        }
        i64::from(hour * 3600 + minute * 60 + second)
    };
    // Years past about 292 million are past the milliseconds' range: not a timestamp here (Flink
    // wraps them silently, or fails past a billion years; a decoder hands such a message back).
    let millis = days
        .checked_mul(86_400)?
        .checked_add(second_of_day)?
        .checked_mul(1000)?
        .checked_add(i64::from(nanos / 1_000_000))?;
    Some((millis, nanos % 1_000_000))
}

/// `yyyy-MM-dd`, strictly (no clamping), as days since the epoch.
pub fn parse_date(text: &str) -> Option<i32> {
    let mut c = Cursor {
        s: text.as_bytes(),
        i: 0,
    };
    let (year, month, day) = c.date()?;
    if !c.done() || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    i32::try_from(days_from_civil(year, month, day)).ok()
}

/// `HH:mm:ss[.fffffffff]` (seconds required), SMART; the fraction is read and dropped, as
/// Flink's JSON format does. Milliseconds of the day.
pub fn parse_sql_time_whole_seconds(text: &str) -> Option<i32> {
    let mut c = Cursor {
        s: text.as_bytes(),
        i: 0,
    };
    let (hour, minute, second, nanos) = c.time(false)?;
    if !c.done() {
        return None;
    }
    if hour == 24 && minute == 0 && second == 0 && nanos == 0 {
        return Some(0);
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    Some(((hour * 3600 + minute * 60 + second) * 1000) as i32)
}

/// `HH:mm[:ss[.fffffffff]]` (`ISO_LOCAL_TIME`, strict): nanoseconds of the day.
pub fn parse_iso_local_time(text: &str) -> Option<i64> {
    let mut c = Cursor {
        s: text.as_bytes(),
        i: 0,
    };
    let (hour, minute, second, nanos) = c.time(true)?;
    if !c.done() || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    Some(i64::from(hour * 3600 + minute * 60 + second) * 1_000_000_000 + i64::from(nanos))
}

/// Which text form timestamps take (`json.timestamp-format.standard`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampStandard {
    Sql,
    Iso8601,
}

/// A TIMESTAMP (no zone) in the given standard.
pub fn parse_timestamp(text: &str, standard: TimestampStandard) -> Option<LocalTimestamp> {
    parse_timestamp_impl(text, standard, false)
}

/// A TIMESTAMP_LTZ: the same text with a trailing `Z`, read as UTC.
pub fn parse_timestamp_ltz(text: &str, standard: TimestampStandard) -> Option<LocalTimestamp> {
    parse_timestamp_impl(text, standard, true)
}

/// A timestamp of the form nearly every one takes, read at fixed positions:
/// `yyyy-MM-dd HH:mm:ss` (`T` between them in ISO-8601) with 1-9 fraction digits or none, and
/// `Z` after it when `zoned`, of a day that exists and a time before 24:00. `None` for any other
/// text, which the general parse then reads (or refuses), with its resolver.
#[inline]
fn common_timestamp_form(
    text: &[u8],
    standard: TimestampStandard,
    zoned: bool,
) -> Option<LocalTimestamp> {
    let (head, rest) = text.split_first_chunk::<19>()?;
    let rest = if zoned {
        rest.strip_suffix(b"Z")?
    } else {
        rest
    };
    let separator = match standard {
        TimestampStandard::Sql => b' ',
        TimestampStandard::Iso8601 => b'T',
    };
    // Two words cover the first 16 bytes (`yyyy-MM-` and `dd?HH:mm`): in each, a separator
    // byte must equal its character, and a digit byte's high nibble must be 3 both as it is
    // and with 6 added (which no byte 0x3A-0x3F passes; the add carries into the next byte only
    // from a byte the first test already failed).
    const SEPARATOR_MASK: [u64; 2] = [0xFF00_00FF_0000_0000, 0xFF00_00FF_0000];
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    const SIXES: u64 = 0x0606_0606_0606_0606;
    const THREES: u64 = 0x3030_3030_3030_3030;
    let (first, second) = head.split_first_chunk::<8>()?;
    let second = second.first_chunk::<8>()?;
    let words = [u64::from_le_bytes(*first), u64::from_le_bytes(*second)];
    let separators = [
        u64::from_le_bytes(*b"0000-00-"),
        u64::from_le_bytes([b'0', b'0', separator, b'0', b'0', b':', b'0', b'0']),
    ];
    for n in 0..2 {
        let (w, digits) = (words[n], !SEPARATOR_MASK[n]);
        if w & (SEPARATOR_MASK[n] | HIGH_NIBBLES)
            != (separators[n] & SEPARATOR_MASK[n]) | (THREES & digits)
            || (w.wrapping_add(SIXES & digits)) & HIGH_NIBBLES & digits != THREES & digits
        {
            return None;
        }
    }
    let [.., b':', s1, s2] = *head else {
        return None;
    };
    if !s1.is_ascii_digit() || !s2.is_ascii_digit() {
        return None;
    }
    let two = |at: usize| u32::from(head[at] & 0x0F) * 10 + u32::from(head[at + 1] & 0x0F);
    let nanos = match rest {
        [] => 0,
        [b'.', fraction @ ..] if (1..=9).contains(&fraction.len()) => {
            const SCALE: [u32; 10] = [
                1_000_000_000,
                100_000_000,
                10_000_000,
                1_000_000,
                100_000,
                10_000,
                1_000,
                100,
                10,
                1,
            ];
            let mut value = 0u32;
            for b in fraction {
                let d = b.wrapping_sub(b'0');
                if d > 9 {
                    return None;
                }
                value = value * 10 + u32::from(d);
            }
            value * SCALE[fraction.len()]
        }
        _ => return None,
    };
    let (hour, minute, second) = (two(11), two(14), two(17));
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let days = epoch_day(words[0], [head[8], head[9]], || {
        (i64::from(two(0) * 100 + two(2)), two(5), two(8))
    })?;
    let second_of_day = i64::from(hour * 3600 + minute * 60 + second);
    let millis = (days * 86_400 + second_of_day) * 1000 + i64::from(nanos / 1_000_000);
    Some((millis, nanos % 1_000_000))
}

/// Days since the epoch of the valid date `yyyy-MM-dd` whose first 8 bytes are `head` (as a
/// word) and last 2 `day`, with `fields` its year, month and day; `None` for a month or day
/// that does not exist. The last date read on a thread is kept: the timestamps of one batch
/// mostly share their day.
#[inline]
fn epoch_day(head: u64, day: [u8; 2], fields: impl FnOnce() -> (i64, u32, u32)) -> Option<i64> {
    thread_local! {
        // No date's text has zero bytes, so the initial key matches none.
        static LAST: std::cell::Cell<(u64, [u8; 2], i64)> =
            const { std::cell::Cell::new((0, [0, 0], 0)) };
    }
    let (last_head, last_day, days) = LAST.get();
    if last_head == head && last_day == day {
        return Some(days);
    }
    let (year, month, day_of_month) = fields();
    if !(1..=12).contains(&month) || day_of_month == 0 || day_of_month > days_in_month(year, month)
    {
        return None;
    }
    let days = days_from_civil(year, month, day_of_month);
    LAST.set((head, day, days));
    Some(days)
}

fn parse_timestamp_impl(
    text: &str,
    standard: TimestampStandard,
    zoned: bool,
) -> Option<LocalTimestamp> {
    common_timestamp_form(text.as_bytes(), standard, zoned)
        .or_else(|| parse_any_timestamp_form(text, standard, zoned))
}

/// A timestamp of any form the standard admits, read field by field.
fn parse_any_timestamp_form(
    text: &str,
    standard: TimestampStandard,
    zoned: bool,
) -> Option<LocalTimestamp> {
    // ISO_LOCAL_DATE_TIME resolves strictly; Flink's SQL and zoned forms resolve smartly.
    let resolver = match standard {
        TimestampStandard::Iso8601 if !zoned => Resolver::Strict,
        _ => Resolver::Smart,
    };
    let mut c = Cursor {
        s: text.as_bytes(),
        i: 0,
    };
    let date = c.date()?;
    let time = match standard {
        TimestampStandard::Sql => {
            if !c.eat(b' ') {
                return None;
            }
            c.time(false)?
        }
        TimestampStandard::Iso8601 => {
            // ISO_LOCAL_DATE_TIME parses case-insensitively; the LTZ builder form does not.
            if !(c.eat(b'T') || (!zoned && c.eat(b't'))) {
                return None;
            }
            c.time(true)?
        }
    };
    if zoned && !c.eat(b'Z') {
        return None;
    }
    if !c.done() {
        return None;
    }
    resolve(date, time, resolver)
}

/// `yyyy-MM-dd` as `java.time` prints it (sign and more digits outside 0000-9999).
pub fn format_date(days: i64, out: &mut String) {
    let (year, month, day) = civil_from_days(days);
    push_year(year, out);
    out.push('-');
    push_padded(u64::from(month), 2, out);
    out.push('-');
    push_padded(u64::from(day), 2, out);
}

fn push_year(year: i64, out: &mut String) {
    if year > 9999 {
        out.push('+');
    } else if year < 0 {
        out.push('-');
    }
    push_padded(year.unsigned_abs(), 4, out);
}

/// `value` in decimal, zero-padded to at least `width` digits, written in place.
fn push_padded(value: u64, width: usize, out: &mut String) {
    let mut buffer = itoa::Buffer::new();
    let digits = buffer.format(value);
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(digits);
}

/// `HH:mm:ss` then the fraction with trailing zeros trimmed (none when zero).
pub fn format_time_of_day(nanos_of_day: i64, out: &mut String) {
    let seconds = nanos_of_day.unsigned_abs() / 1_000_000_000;
    let mut nanos = nanos_of_day.unsigned_abs() % 1_000_000_000;
    push_padded(seconds / 3600, 2, out);
    out.push(':');
    push_padded(seconds / 60 % 60, 2, out);
    out.push(':');
    push_padded(seconds % 60, 2, out);
    if nanos != 0 {
        // Nine digits of fraction, trailing zeros trimmed.
        let mut width = 9;
        while nanos % 10 == 0 {
            nanos /= 10;
            width -= 1;
        }
        out.push('.');
        push_padded(nanos, width, out);
    }
}

/// A timestamp as Flink's formatters print it: date, separator, time with trimmed fraction,
/// and `Z` for LTZ.
pub fn format_timestamp(
    millis: i64,
    nanos_of_milli: u32,
    standard: TimestampStandard,
    zoned: bool,
    out: &mut String,
) {
    let days = millis.div_euclid(86_400_000);
    let millis_of_day = millis.rem_euclid(86_400_000);
    format_date(days, out);
    out.push(match standard {
        TimestampStandard::Sql => ' ',
        TimestampStandard::Iso8601 => 'T',
    });
    format_time_of_day(millis_of_day * 1_000_000 + i64::from(nanos_of_milli), out);
    if zoned {
        out.push('Z');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for days in [-719_528, -1, 0, 1, 18_262, 2_932_896, -100_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn dates_are_strict() {
        assert_eq!(parse_date("1970-01-02"), Some(1));
        assert_eq!(parse_date("2020-02-29"), Some(18_321));
        assert_eq!(parse_date("2021-02-29"), None);
        assert_eq!(parse_date("2020-1-02"), None);
        assert_eq!(parse_date("12020-01-01"), None);
        assert!(parse_date("+12020-01-01").is_some());
        assert!(parse_date("-0001-01-01").is_some());
        assert_eq!(parse_date(" 2020-01-01"), None);
    }

    /// The fixed-position read of the common form gives what the general read gives, on that
    /// form and on texts one edit away from it (every byte position replaced by each character
    /// that matters there, a byte cut or added, fractions of 0-10 digits, `Z` or none).
    #[test]
    fn the_common_form_reads_as_the_general_parse_reads_it() {
        let bases = [
            "2023-11-14 22:13:20",
            "2020-02-29 23:59:59",
            "2021-02-29 24:00:00",
            "1999-12-31 24:00:00",
            "0000-01-01 00:00:00",
            "9999-12-31 23:59:59",
            "2023-04-31 12:00:00",
            "2023-13-01 00:60:61",
        ];
        let fractions = [
            "",
            ".",
            ".1",
            ".123",
            ".000000001",
            ".123456789",
            ".1234567890",
        ];
        let replacements = b"0159:- .TtZz+/a";
        let mut texts = Vec::new();
        for base in bases {
            for fraction in fractions {
                for zone in ["", "Z"] {
                    for separator in [" ", "T", "t"] {
                        let text =
                            format!("{}{separator}{}{fraction}{zone}", &base[..10], &base[11..]);
                        let bytes = text.as_bytes();
                        texts.push(text.clone());
                        texts.push(text[..text.len() - 1].to_string());
                        texts.push(format!("{text}0"));
                        for at in 0..bytes.len() {
                            for &r in replacements {
                                let mut edited = bytes.to_vec();
                                edited[at] = r;
                                texts.push(String::from_utf8(edited).unwrap_or_default());
                            }
                        }
                    }
                }
            }
        }
        let mut common = 0;
        for text in &texts {
            for standard in [TimestampStandard::Sql, TimestampStandard::Iso8601] {
                for zoned in [false, true] {
                    let general = parse_any_timestamp_form(text, standard, zoned);
                    assert_eq!(
                        parse_timestamp_impl(text, standard, zoned),
                        general,
                        "{text:?} {standard:?} zoned {zoned}"
                    );
                    if common_timestamp_form(text.as_bytes(), standard, zoned).is_some() {
                        common += 1;
                    }
                }
            }
        }
        // The fixed-position read took a share of the readings (most edits break the form, and
        // days that do not exist and 24:00 are left to the general read), so it was tested on
        // both sides of its edge.
        assert!(common > texts.len() / 40, "{common} of {}", texts.len() * 4);
        let sql = TimestampStandard::Sql;
        assert_eq!(
            common_timestamp_form(b"2023-11-14 22:13:20.123", sql, false),
            Some((1_700_000_000_123, 0))
        );
        assert_eq!(
            common_timestamp_form(b"1969-12-31 23:59:59.999999999", sql, false),
            Some((-1, 999_999))
        );
        assert_eq!(
            common_timestamp_form(b"2021-02-29 00:00:00", sql, false),
            None
        );
    }

    #[test]
    fn sql_timestamps_resolve_smartly() {
        let sql = TimestampStandard::Sql;
        assert_eq!(parse_timestamp("1970-01-01 00:00:00", sql), Some((0, 0)));
        assert_eq!(
            parse_timestamp("1970-01-01 00:00:01.123456789", sql),
            Some((1123, 456_789))
        );
        assert_eq!(
            parse_timestamp("2020-02-30 00:00:00", sql),
            parse_timestamp("2020-02-29 00:00:00", sql)
        );
        assert_eq!(
            parse_timestamp("2020-01-02 24:00:00", sql),
            parse_timestamp("2020-01-03 00:00:00", sql)
        );
        assert_eq!(parse_timestamp("2020-01-02 03:04", sql), None);
        // Past the milliseconds' range: not a timestamp (never an overflow).
        assert_eq!(parse_timestamp("+300000000-01-01 00:00:00", sql), None);
        assert_eq!(parse_timestamp("-9999999999-01-01 00:00:00", sql), None);
        assert!(parse_timestamp("+200000000-01-01 00:00:00", sql).is_some());
        // java.time refuses a negative year zero.
        assert_eq!(parse_timestamp("-0000-01-01 00:00:00", sql), None);
        assert_eq!(parse_date("-0000-01-01"), None);
        assert!(parse_date("-0001-01-01").is_some());
        assert_eq!(parse_timestamp("2020-01-02T03:04:05", sql), None);
        assert_eq!(
            parse_timestamp("1969-12-31 23:59:59.999", sql),
            Some((-1, 0))
        );
        assert_eq!(
            parse_timestamp_ltz("1970-01-01 00:00:00Z", sql),
            Some((0, 0))
        );
        assert_eq!(parse_timestamp_ltz("1970-01-01 00:00:00", sql), None);
    }

    #[test]
    fn iso_timestamps() {
        let iso = TimestampStandard::Iso8601;
        assert_eq!(parse_timestamp("1970-01-01T00:01", iso), Some((60_000, 0)));
        assert_eq!(parse_timestamp("2020-02-30T00:00:00", iso), None);
        assert_eq!(parse_timestamp("2020-01-02T24:00", iso), None);
        assert_eq!(
            parse_timestamp_ltz("1970-01-01T00:00:00.5Z", iso),
            Some((500, 0))
        );
    }

    #[test]
    fn printing_trims_fractions() {
        let mut s = String::new();
        format_timestamp(1_577_934_245_120, 0, TimestampStandard::Sql, false, &mut s);
        assert_eq!(s, "2020-01-02 03:04:05.12");
        s.clear();
        format_timestamp(-1, 999_999, TimestampStandard::Iso8601, true, &mut s);
        assert_eq!(s, "1969-12-31T23:59:59.999999999Z");
        s.clear();
        format_date(days_from_civil(-1, 1, 1), &mut s);
        assert_eq!(s, "-0001-01-01");
    }
}
