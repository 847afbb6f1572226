//! Text cast to DECIMAL as Flink casts it: `BinaryStringDataUtil.toDecimal`, which reads the text
//! one of two ways, and fails with `For input string: '<text>'. Overflow.` wherever its reading
//! gives no value.
//!
//! * **Short text into a compact DECIMAL** (precision up to 18 and text of up to 18 UTF-8 bytes)
//!   is read byte by byte, leniently ([`compact`]):
//!   - spaces, `\n` and `\t` are skipped at the start and allowed at the end;
//!   - an optional sign, then ASCII digits with at most one point. The first other character ends
//!     the number and is itself ignored, so `1x` reads as 1, `x` and `.` as 0;
//!   - after an `e` or `E` that is not the last character, an optional sign and digits. Here, too,
//!     one character after them is ignored, and the exponent stops growing past 40;
//!   - the digit count (leading zeros included) plus the shift to the scale must not exceed the
//!     precision. The value is then shifted to the scale, rounded half away from zero, and kept
//!     as it is: `9.99` as DECIMAL(2, 1) is the unscaled 100, as in Flink;
//!   - a shift of more than 18 digits down fails as Flink's table of powers of ten does, with
//!     `ArrayIndexOutOfBoundsException` (`Index 27 out of bounds for length 19`).
//! * **Any other text or precision** is trimmed of spaces, `\n` and `\t` at both ends and read by
//!   Java's `BigDecimal(char[], int, int)` ([`big`]): an optional sign, decimal digits (any
//!   Unicode decimal digit, as `Character.isDigit` has them) with at most one point, and an
//!   optional exponent of at most ten significant digits. Text that is not one fails with Java's
//!   `NumberFormatException` and its message, as JDK 17's parser words it (which depends on
//!   whether the text has more than 18 characters after its sign). The value is rounded half up to
//!   the scale (`DecimalData.fromBigDecimal`) and must fit the precision.
//!
//! What differs from Flink, all on text no one writes as a number:
//! * a character outside Unicode's Basic Multilingual Plane that `BigDecimal` names in its message
//!   (Java names one half of its surrogate pair) is named here as U+FFFD;
//! * a rescale by more than 2^29 digits fails here with `BigInteger would overflow supported
//!   range`, as JDK 17's `BigInteger` fails from a few digits more on (below that, Flink computes
//!   the power of ten, slowly for the largest, and both give the same answer);
//! * ASCII text of 32,768 bytes or more that ends in an `e` (or `e` and a sign) fails with a
//!   `NumberFormatException` without a message in Flink, whose parser reads past the end of its
//!   buffer there; here its message is `No exponent digits.`, as for shorter text;
//! * exponents at the ends of `int`'s range: JDK 17's messages are kept (later JDKs word some of
//!   them differently).

use std::sync::Arc;

use arrow::array::{ArrayRef, Decimal128Array};

use crate::calc::CalcError;
use crate::cast::texts;
use crate::decimal::fits;

/// Flink's table of powers of ten for compact decimals (`DecimalData.POW10`), 10^0 to 10^18.
const POW10: [i64; 19] = {
    let mut table = [1_i64; 19];
    let mut i = 1;
    while i < table.len() {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// The widest text (in UTF-8 bytes) and precision Flink reads as a compact decimal.
const COMPACT: usize = 18;

/// A rescale by more than this many digits fails (see the module).
const MAX_SHIFT: i64 = 1 << 29;

/// The first code unit of every run of ten Unicode decimal digits in the Basic Multilingual Plane
/// (`Character.isDigit` of a `char`; the same from JDK 11 to JDK 25). Digits beyond it arrive in
/// Java's `char[]` as surrogate pairs, which are not digits.
const DIGIT_ZEROS: [u32; 37] = [
    0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
    0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80,
    0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0,
    0xFF10,
];

/// `array` (text) cast to DECIMAL(`precision`, `scale`) as Flink casts it (see the module).
pub(crate) fn parse_decimals(
    array: &ArrayRef,
    precision: u8,
    scale: i8,
) -> Result<ArrayRef, CalcError> {
    // One buffer for the digits of every text read the wide way.
    let mut digits = Vec::new();
    let values = texts(array)?
        .iter()
        .map(|s| {
            s.map(|s| text_decimal(s, precision, scale, &mut digits))
                .transpose()
        })
        .collect::<Result<Vec<Option<i128>>, CalcError>>()?;
    Ok(Arc::new(
        Decimal128Array::from(values).with_precision_and_scale(precision, scale)?,
    ))
}

/// One text as `BinaryStringDataUtil.toDecimal` reads it: the unscaled value, or Flink's error;
/// `digits` is scratch space for the wide way.
fn text_decimal(
    text: &str,
    precision: u8,
    scale: i8,
    digits: &mut Vec<u8>,
) -> Result<i128, CalcError> {
    let value = if usize::from(precision) > COMPACT || text.len() > COMPACT {
        big(text, precision, scale, digits)?
    } else {
        compact(text.as_bytes(), precision, scale)?.map(i128::from)
    };
    value.ok_or_else(|| CalcError::NumberFormat(format!("For input string: '{text}'. Overflow.")))
}

fn blank(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\t')
}

/// `POW10[index]`, or the error Java's array access fails with.
fn power10(index: i32) -> Result<i64, CalcError> {
    usize::try_from(index)
        .ok()
        .and_then(|i| POW10.get(i).copied())
        .ok_or_else(|| {
            CalcError::IndexOutOfBounds(format!(
                "Index {index} out of bounds for length {}",
                POW10.len()
            ))
        })
}

/// Short text into a compact DECIMAL, byte by byte (see the module); `None` where Flink's reading
/// gives no value. The arithmetic wraps as Java's `long` does, though the digit limits keep it in
/// range.
fn compact(bytes: &[u8], precision: u8, scale: i8) -> Result<Option<i64>, CalcError> {
    let size = bytes.len();
    let mut i = 0;
    // The last byte read, as Flink's reading keeps it from one step to the next.
    let mut b = 0;
    while i < size {
        b = bytes[i];
        if !blank(b) {
            break;
        }
        i += 1;
    }
    if i == size {
        return Ok(None);
    }
    let negative = b == b'-';
    if negative || b == b'+' {
        i += 1;
        if i == size {
            return Ok(None);
        }
    }
    let mut significand: i64 = 0;
    let mut digits: i32 = 0;
    let mut point: Option<i32> = None;
    while i < size {
        b = bytes[i];
        i += 1;
        match b {
            b'0'..=b'9' => {
                significand = significand
                    .wrapping_mul(10)
                    .wrapping_add(i64::from(b - b'0'));
                digits += 1;
            }
            b'.' if point.is_some() => return Ok(None),
            b'.' => point = Some(digits),
            // The character that ends the number is not looked at again.
            _ => break,
        }
    }
    let point = point.unwrap_or(digits);
    if negative {
        significand = significand.wrapping_neg();
    }
    let mut exponent: i32 = 0;
    if matches!(b, b'e' | b'E') && i < size {
        b = bytes[i];
        let exponent_negative = b == b'-';
        if exponent_negative || b == b'+' {
            i += 1;
            if i == size {
                return Ok(None);
            }
        }
        while i < size {
            b = bytes[i];
            i += 1;
            if !b.is_ascii_digit() {
                break;
            }
            if exponent < 40 {
                exponent = exponent * 10 + i32::from(b - b'0');
            }
        }
        if exponent_negative {
            exponent = -exponent;
        }
    }
    exponent -= digits - point;
    if !bytes[i..].iter().all(|&b| blank(b)) {
        return Ok(None);
    }
    let change = exponent + i32::from(scale);
    if digits + change > i32::from(precision) {
        return Ok(None);
    }
    if change >= 0 {
        significand = significand.wrapping_mul(power10(change)?);
    } else {
        // Half away from zero: Flink adds half a unit with the text's sign and truncates. The
        // half's power of ten is looked up first, as Java evaluates it first.
        let half = power10(-change - 1)?;
        let unit = power10(-change)?;
        let k = if negative { -5 } else { 5 };
        significand = significand.wrapping_add(k * half) / unit;
    }
    Ok(Some(significand))
}

/// The value of `unit` as a decimal digit (`Character.digit(c, 10)`), if it is one.
fn java_digit(unit: u32) -> Option<u32> {
    if (0x30..=0x39).contains(&unit) {
        return Some(unit - 0x30);
    }
    let zero = DIGIT_ZEROS[DIGIT_ZEROS.partition_point(|&z| z <= unit).checked_sub(1)?];
    (unit - zero < 10).then_some(unit - zero)
}

fn number_format(message: &str) -> CalcError {
    CalcError::NumberFormat(message.to_string())
}

/// Text read by `BigDecimal`, then rounded half up to the scale (see the module): the unscaled
/// value, `None` where it does not fit the precision, or Java's error; its digits go to `digits`.
fn big(
    text: &str,
    precision: u8,
    scale: i8,
    digits: &mut Vec<u8>,
) -> Result<Option<i128>, CalcError> {
    // Flink trims blanks at both ends; text of blanks alone is kept whole.
    let trimmed = text.trim_matches(|c: char| c.is_ascii() && blank(c as u8));
    let trimmed = if trimmed.is_empty() { text } else { trimmed };
    // `BigDecimal` reads UTF-16 code units; ASCII text is read as its bytes.
    let number = if trimmed.is_ascii() {
        parse(trimmed.as_bytes(), digits)?
    } else {
        parse(&trimmed.encode_utf16().collect::<Vec<u16>>(), digits)?
    };
    number.rescale(precision, scale)
}

/// A number as `BigDecimal` holds it: its digits without leading zeros (none for zero), its sign
/// and its scale (the value is the digits times ten to minus the scale).
struct Number<'a> {
    digits: &'a [u8],
    negative: bool,
    scale: i64,
}

/// `units` as `BigDecimal(char[], int, int)` reads them, with its errors; the number's digits are
/// kept in `digits`.
fn parse<'a, T: Copy + Into<u32>>(
    units: &[T],
    digits: &'a mut Vec<u8>,
) -> Result<Number<'a>, CalcError> {
    let unit = |i: usize| -> Option<u32> { units.get(i).map(|&u| u.into()) };
    let (negative, start) = match unit(0) {
        Some(0x2D) => (true, 1),
        Some(0x2B) => (false, 1),
        _ => (false, 0),
    };
    let rest = &units[start..];
    // Up to 18 characters are parsed into a `long` and name a bad character; more are not.
    let compact = rest.len() <= COMPACT;
    digits.clear();
    let mut any_digit = false;
    let mut point = false;
    let mut fraction_digits: i64 = 0;
    let mut exponent: i64 = 0;
    for (at, &u) in rest.iter().enumerate() {
        let u: u32 = u.into();
        if let Some(d) = java_digit(u) {
            any_digit = true;
            if d != 0 || !digits.is_empty() {
                digits.push(d as u8);
            }
            if point {
                fraction_digits += 1;
            }
        } else if u == 0x2E {
            if point {
                return Err(number_format(
                    "Character array contains more than one decimal point.",
                ));
            }
            point = true;
        } else if u == 0x65 || u == 0x45 {
            exponent = java_exponent(&rest[at + 1..])?;
            if i32::try_from(exponent).is_err() {
                return Err(number_format("Exponent overflow."));
            }
            break;
        } else if compact {
            let c = char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER);
            return Err(CalcError::NumberFormat(format!(
                "Character {c} is neither a decimal digit number, decimal point, nor \"e\" \
                 notation exponential mark."
            )));
        } else {
            return Err(number_format(
                "Character array is missing \"e\" notation exponential mark.",
            ));
        }
    }
    if !any_digit {
        return Err(number_format("No digits found."));
    }
    let scale = fraction_digits - exponent;
    if exponent != 0 && i32::try_from(scale).is_err() {
        return Err(number_format("Scale out of range."));
    }
    Ok(Number {
        digits,
        negative,
        scale,
    })
}

/// The exponent after an `e` (`BigDecimal.parseExp`): an optional sign, then at most ten digits
/// once leading zeros are skipped.
fn java_exponent<T: Copy + Into<u32>>(after: &[T]) -> Result<i64, CalcError> {
    let unit = |i: usize| -> Option<u32> { after.get(i).map(|&u| u.into()) };
    // Java counts the units left from the one after the `e`.
    let mut left = after.len() as i64;
    let mut at = 0;
    let negative = unit(0) == Some(0x2D);
    if negative || unit(0) == Some(0x2B) {
        at += 1;
        left -= 1;
    }
    if left <= 0 {
        return Err(number_format("No exponent digits."));
    }
    while left > 10 && unit(at).and_then(java_digit) == Some(0) {
        at += 1;
        left -= 1;
    }
    if left > 10 {
        return Err(number_format("Too many nonzero exponent digits."));
    }
    let mut exponent: i64 = 0;
    for i in at..after.len() {
        let digit = unit(i)
            .and_then(java_digit)
            .ok_or_else(|| number_format("Not a digit."))?;
        exponent = exponent * 10 + i64::from(digit);
    }
    Ok(if negative { -exponent } else { exponent })
}

impl Number<'_> {
    /// The number at `scale`, rounded half up (`BigDecimal.setScale(scale, HALF_UP)`), if it has
    /// at most `precision` digits.
    fn rescale(&self, precision: u8, scale: i8) -> Result<Option<i128>, CalcError> {
        if self.digits.is_empty() {
            return Ok(Some(0));
        }
        let shift = i64::from(scale) - self.scale;
        if shift > i64::from(i32::MAX) {
            // `BigDecimal.checkScale` of the new scale's distance.
            return Err(CalcError::Arithmetic("Underflow"));
        }
        if shift.abs() > MAX_SHIFT {
            return Err(CalcError::Arithmetic(
                "BigInteger would overflow supported range",
            ));
        }
        let count = self.digits.len() as i64;
        // The digits kept, and whether the first one dropped rounds them up.
        let (kept, round_up) = if shift >= 0 {
            (count, false)
        } else {
            let kept = count + shift;
            let first_dropped = usize::try_from(kept).ok().and_then(|k| self.digits.get(k));
            (kept.max(0), first_dropped.is_some_and(|&d| d >= 5))
        };
        // Past the precision before rounding, rounding cannot bring it back.
        if kept + shift.max(0) > i64::from(precision) {
            return Ok(None);
        }
        let mut value: i128 = 0;
        for &d in &self.digits[..kept as usize] {
            value = value * 10 + i128::from(d);
        }
        if round_up {
            value += 1;
        }
        // At most `precision` digits before the shift, so neither step leaves `i128`.
        value *= 10_i128.pow(shift.max(0) as u32);
        if !fits(value, precision) {
            return Ok(None);
        }
        Ok(Some(if self.negative { -value } else { value }))
    }
}

#[cfg(test)]
mod tests {
    use arrow::array::{Array, AsArray, StringArray};
    use arrow::datatypes::Decimal128Type;

    use super::*;

    /// Each case: the text, then per (precision, scale) the unscaled value or Java's exception
    /// and message; all as Flink 2.2.1 on JDK 17 gives them.
    fn check<E: AsRef<str>>(precision: u8, scale: i8, cases: &[(&str, Result<i128, E>)]) {
        for (text, expected) in cases {
            let got = text_decimal(text, precision, scale, &mut Vec::new()).map_err(|e| match e {
                CalcError::NumberFormat(m) => format!("NumberFormatException: {m}"),
                CalcError::IndexOutOfBounds(m) => format!("ArrayIndexOutOfBoundsException: {m}"),
                CalcError::Arithmetic(m) => format!("ArithmeticException: {m}"),
                other => format!("unexpected: {other}"),
            });
            let expected = expected
                .as_ref()
                .copied()
                .map_err(|e| e.as_ref().to_string());
            assert_eq!(got, expected, "{text:?} as DECIMAL({precision}, {scale})");
        }
    }

    fn overflow(text: &str) -> String {
        format!("NumberFormatException: For input string: '{text}'. Overflow.")
    }

    #[test]
    fn short_text_reads_leniently_into_compact_decimals() {
        let cases: Vec<(&str, Result<i128, String>)> = vec![
            ("1x", Ok(100)),
            ("1e", Ok(100)),
            ("1ex", Ok(100)),
            ("1e5x", Ok(10_000_000)),
            ("x", Ok(0)),
            (".", Ok(0)),
            ("+.e", Ok(0)),
            ("e5", Ok(0)),
            ("1.5a", Ok(150)),
            ("1.5f", Ok(150)),
            (" 12.5 ", Ok(1250)),
            ("\t-3.14\n", Ok(-314)),
            ("-2.455", Ok(-246)),
            ("2.445", Ok(245)),
            (".5", Ok(50)),
            ("-.5", Ok(-50)),
            ("5.", Ok(500)),
            ("1E2", Ok(10_000)),
            ("1e-17", Ok(0)),
            ("5e-19", Ok(0)),
            ("0.0000000000000005", Ok(0)),
            ("abc", Err(overflow("abc"))),
            ("1.2.3", Err(overflow("1.2.3"))),
            ("-", Err(overflow("-"))),
            ("", Err(overflow(""))),
            ("   ", Err(overflow("   "))),
            ("1 x", Err(overflow("1 x"))),
            ("1e+", Err(overflow("1e+"))),
            ("1\u{a0}", Err(overflow("1\u{a0}"))),
            // Leading zeros count as digits.
            ("000000000000001", Err(overflow("000000000000001"))),
            ("1e999", Err(overflow("1e999"))),
            ("٣", Err(overflow("٣"))),
            (
                "1e-30",
                Err("ArrayIndexOutOfBoundsException: Index 27 out of bounds for length 19".into()),
            ),
            (
                "1e-400",
                Err("ArrayIndexOutOfBoundsException: Index 37 out of bounds for length 19".into()),
            ),
        ];
        check(10, 2, &cases);
        check(
            2,
            1,
            &[
                // Rounded up past the precision, and kept so.
                ("9.99", Ok(100)),
                (" 12.5 ", Err(overflow(" 12.5 ").as_str())),
                ("1x", Ok(10)),
            ],
        );
        check(
            18,
            0,
            &[
                (
                    "5e-19",
                    Err("ArrayIndexOutOfBoundsException: Index 19 out of bounds for length 19"),
                ),
                ("-2.5", Ok(-3)),
                ("000000000000001", Ok(1)),
            ],
        );
        check(
            18,
            18,
            &[
                ("0.0000000000000000005", Ok::<_, &str>(1)),
                (".5", Ok(500_000_000_000_000_000)),
            ],
        );
    }

    #[test]
    fn other_text_reads_as_big_decimal_does() {
        let char_message = |c: &str| {
            format!(
                "NumberFormatException: Character {c} is neither a decimal digit number, decimal \
                 point, nor \"e\" notation exponential mark."
            )
        };
        let cases: Vec<(&str, Result<i128, String>)> = vec![
            ("1x", Err(char_message("x"))),
            ("x", Err(char_message("x"))),
            ("   ", Err(char_message(" "))),
            ("-\t5", Err(char_message("\t"))),
            ("\r", Err(char_message("\r"))),
            ("1😀", Err(char_message("\u{fffd}"))),
            (
                "1234567890123456789x",
                Err(
                    "NumberFormatException: Character array is missing \"e\" notation \
                     exponential mark."
                        .into(),
                ),
            ),
            (".", Err("NumberFormatException: No digits found.".into())),
            ("", Err("NumberFormatException: No digits found.".into())),
            ("e5", Err("NumberFormatException: No digits found.".into())),
            (
                "1e",
                Err("NumberFormatException: No exponent digits.".into()),
            ),
            (
                "1e+",
                Err("NumberFormatException: No exponent digits.".into()),
            ),
            (
                "+.e",
                Err("NumberFormatException: No exponent digits.".into()),
            ),
            ("1ex", Err("NumberFormatException: Not a digit.".into())),
            ("1e5e5", Err("NumberFormatException: Not a digit.".into())),
            (
                "1..",
                Err(
                    "NumberFormatException: Character array contains more than one decimal \
                     point."
                        .into(),
                ),
            ),
            (
                "1e12345678901",
                Err("NumberFormatException: Too many nonzero exponent digits.".into()),
            ),
            // Eleven UTF-16 units after the `e`.
            (
                "1e123456789😀",
                Err("NumberFormatException: Too many nonzero exponent digits.".into()),
            ),
            (
                "1e2147483648",
                Err("NumberFormatException: Exponent overflow.".into()),
            ),
            (
                "1e-2147483648",
                Err("NumberFormatException: Scale out of range.".into()),
            ),
            ("1e2147483647", Err("ArithmeticException: Underflow".into())),
            (
                "1e-2147483647",
                Err("ArithmeticException: BigInteger would overflow supported range".into()),
            ),
            ("1e00000000000000012", Ok(100_000_000_000_000)),
            ("1.5e٣", Ok(150_000)),
            ("١٢.٥", Ok(1250)),
            ("１２.５", Ok(1250)),
            (" 12.5 ", Ok(1250)),
            ("\t-3.14\n", Ok(-314)),
            ("-2.455", Ok(-246)),
            ("0.049999999999", Ok(5)),
            ("0e2147483647", Ok(0)),
            ("-0", Ok(0)),
            ("1e-30", Ok(0)),
            ("1e-400", Ok(0)),
            (
                "99999999999999999999.5",
                Err(overflow("99999999999999999999.5")),
            ),
            ("1e18", Err(overflow("1e18"))),
        ];
        check(20, 2, &cases);
        check(
            38,
            0,
            &[
                ("99999999999999999999.5", Ok(100_000_000_000_000_000_000)),
                (
                    "12345678901234567890123456789012345678.5",
                    Ok(12_345_678_901_234_567_890_123_456_789_012_345_679),
                ),
                (
                    "99999999999999999999999999999999999999.5",
                    Err(overflow("99999999999999999999999999999999999999.5").as_str()),
                ),
                ("-0.5", Ok(-1)),
                ("0.05", Ok(0)),
            ],
        );
        check(
            38,
            38,
            &[(
                "0.049999999999",
                Ok::<_, &str>(4_999_999_999_900_000_000_000_000_000_000_000_000),
            )],
        );
        // Long text into a compact DECIMAL reads as BigDecimal does too.
        check(
            10,
            2,
            &[
                ("   12.5          ", Ok(1250)),
                ("0.123456789012345678", Ok(12)),
                ("00000000000000000000001", Ok(100)),
                (
                    "1234567890123456789x",
                    Err(
                        "NumberFormatException: Character array is missing \"e\" notation \
                         exponential mark.",
                    ),
                ),
            ],
        );
        check(19, 19, &[("-1e-19", Ok::<_, &str>(-1)), ("1e-17", Ok(100))]);
    }

    #[test]
    fn every_unicode_digit_run_is_ten_long() {
        assert!(DIGIT_ZEROS.is_sorted());
        for &zero in &DIGIT_ZEROS {
            for d in 0..10 {
                assert_eq!(java_digit(zero + d), Some(d));
            }
            assert_eq!(
                java_digit(zero + 10).is_some(),
                DIGIT_ZEROS.contains(&(zero + 10))
            );
        }
        assert_eq!(java_digit(0x2F), None);
        assert_eq!(java_digit(0x065F), None);
        assert_eq!(java_digit(0xFFFF), None);
    }

    #[test]
    fn a_column_casts_with_nulls_kept_and_the_first_bad_text_failing() {
        let texts: ArrayRef = Arc::new(StringArray::from(vec![Some("1.25"), None, Some("-7")]));
        let cast = parse_decimals(&texts, 5, 1).unwrap();
        let cast = cast.as_primitive::<Decimal128Type>();
        assert_eq!(
            cast.data_type(),
            &arrow::datatypes::DataType::Decimal128(5, 1)
        );
        assert_eq!(
            cast.iter().collect::<Vec<_>>(),
            vec![Some(13), None, Some(-70)]
        );
        let bad: ArrayRef = Arc::new(StringArray::from(vec![Some("1"), Some("abc")]));
        assert_eq!(
            parse_decimals(&bad, 5, 1).unwrap_err().to_string(),
            "For input string: 'abc'. Overflow."
        );
    }
}
