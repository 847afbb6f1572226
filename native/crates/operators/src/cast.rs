//! Flink's casts between numeric types that do not keep every value, row by row as its generated
//! code casts them (the casts that keep every value run on arrow-rs's cast kernel).
//!
//! * to an integer: from an integer, Java's narrowing (the low bits); from FLOAT or DOUBLE, Java's
//!   `(int)` / `(long)` (saturating, NaN to 0), then narrowed to TINYINT or SMALLINT as Java narrows
//!   an `int`; from a DECIMAL, `DecimalDataUtils.castToIntegral` (truncated toward zero, the low 64
//!   bits) narrowed as Java narrows a `long`.
//! * to FLOAT from DOUBLE: rounded to nearest, as Java's `(float)`.
//! * to FLOAT or DOUBLE from a DECIMAL: `DecimalDataUtils.doubleValue`: for a precision up to 18
//!   the unscaled value and the power of ten each rounded to a `double` and divided, otherwise the
//!   nearest `double`; to FLOAT, that `double` rounded again.
//! * to a DECIMAL from an integer or a DECIMAL: `DecimalData.fromBigDecimal`: rounded half up to
//!   the scale, NULL where the value does not fit the precision.
//! * to an integer from text: `BinaryStringDataUtil.toLong` / `toInt` (and `toShort` / `toByte`,
//!   which range-check an `int`) of the text without its leading and trailing spaces: an optional
//!   sign, ASCII digits, and an optional `.` followed by digits that are ignored; anything else
//!   fails with Flink's `NumberFormatException` message ([`CalcError::NumberFormat`]).
//! * to BOOLEAN from text: `BinaryStringDataUtil.toBoolean`: `true`, `t`, `yes`, `y` or `1` in any
//!   case is TRUE, `false`, `f`, `no`, `n` or `0` is FALSE (spaces are not trimmed); anything else
//!   fails with Flink's `TableException` message ([`CalcError::Table`]).
//! * to DOUBLE from text: `BinaryStringDataUtil.toDouble`, which is Java's `Double.parseDouble`:
//!   the text without leading and trailing characters up to U+0020, an optional sign, then `NaN`,
//!   `Infinity`, a decimal number (ASCII digits, an optional point, an optional exponent) or a
//!   hexadecimal one (`0x` digits `p` exponent), and an optional `f`, `F`, `d` or `D` after a
//!   number; rounded to the nearest `double`, ties to even. Anything else fails with Java's
//!   `NumberFormatException` message.
//! * to DECIMAL from text: `BinaryStringDataUtil.toDecimal`, in the crate's `text_decimal` module.
//! * to text from a TIMESTAMP whose precision is its Arrow unit's: [`functions::timestamp_text`].
//!
//! Casts from FLOAT or DOUBLE to DECIMAL (which go through Java's shortest decimal text of the
//! number and fail on NaN) and from text to FLOAT are not here. (Java 17's
//! `Float.parseFloat` is not correctly rounded on every input, so text to FLOAT would differ
//! between the JVMs Flink runs on.)

use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Decimal128Array, PrimitiveArray, StringArray,
};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type,
};

use crate::calc::{CalcError, is_integer, is_numeric};
use crate::decimal::fits;
use crate::functions;
use crate::text_decimal;

/// A row's value as the cast reads it.
#[derive(Clone, Copy)]
enum Number {
    /// An integer or DECIMAL: the unscaled value, its scale and its type's precision (19 for
    /// integers, whose values all have fewer digits).
    Exact(i128, i8, u8),
    /// FLOAT or DOUBLE (a FLOAT widened, which is exact).
    Approximate(f64),
}

fn is_number(data_type: &DataType) -> bool {
    is_numeric(data_type) || matches!(data_type, DataType::Decimal128(..))
}

/// Whether [`cast`] casts `from` to `to`.
pub(crate) fn supported(from: &DataType, to: &DataType) -> bool {
    let approximate = matches!(from, DataType::Float32 | DataType::Float64);
    (is_number(from) && is_number(to) && !(approximate && matches!(to, DataType::Decimal128(..))))
        || (*from == DataType::Utf8
            && (is_integer(to)
                || matches!(
                    to,
                    DataType::Boolean | DataType::Float64 | DataType::Decimal128(..)
                )))
        || (matches!(from, DataType::Timestamp(_, None)) && *to == DataType::Utf8)
}

/// `array` cast to `to` as Flink casts it ([`supported`] casts only).
pub(crate) fn cast(array: &ArrayRef, to: &DataType) -> Result<ArrayRef, CalcError> {
    let values: Vec<Option<Number>> = match array.data_type() {
        DataType::Utf8 if *to == DataType::Boolean => return parse_booleans(array),
        DataType::Utf8 if *to == DataType::Float64 => return parse_doubles(array),
        DataType::Utf8 => {
            return match to {
                DataType::Decimal128(p, s) => text_decimal::parse_decimals(array, *p, *s),
                _ => parse_integers(array, to),
            };
        }
        DataType::Timestamp(_, None) if *to == DataType::Utf8 => {
            return functions::timestamp_text(array).map_err(CalcError::Spec);
        }
        DataType::Int8 => exact(array.as_primitive::<Int8Type>()),
        DataType::Int16 => exact(array.as_primitive::<Int16Type>()),
        DataType::Int32 => exact(array.as_primitive::<Int32Type>()),
        DataType::Int64 => exact(array.as_primitive::<Int64Type>()),
        DataType::Decimal128(p, s) => array
            .as_primitive::<Decimal128Type>()
            .iter()
            .map(|v| v.map(|v| Number::Exact(v, *s, *p)))
            .collect(),
        DataType::Float32 => array
            .as_primitive::<Float32Type>()
            .iter()
            .map(|v| v.map(|v| Number::Approximate(f64::from(v))))
            .collect(),
        DataType::Float64 => array
            .as_primitive::<Float64Type>()
            .iter()
            .map(|v| v.map(Number::Approximate))
            .collect(),
        other => {
            return Err(CalcError::Spec(format!(
                "CAST from {other} is not evaluated natively"
            )));
        }
    };
    let values = values.into_iter();
    Ok(match to {
        DataType::Int8 => collect::<Int8Type>(values.map(|v| v.map(|v| int(v) as i8))),
        DataType::Int16 => collect::<Int16Type>(values.map(|v| v.map(|v| int(v) as i16))),
        DataType::Int32 => collect::<Int32Type>(values.map(|v| v.map(int))),
        DataType::Int64 => collect::<Int64Type>(values.map(|v| v.map(long))),
        DataType::Float64 => collect::<Float64Type>(values.map(|v| v.map(double))),
        DataType::Float32 => collect::<Float32Type>(values.map(|v| v.map(|v| double(v) as f32))),
        DataType::Decimal128(p, s) => {
            let decimals: Decimal128Array = values
                .map(|v| match v {
                    Some(Number::Exact(v, scale, _)) => rescale(v, scale, *p, *s),
                    _ => None,
                })
                .collect();
            Arc::new(decimals.with_precision_and_scale(*p, *s)?)
        }
        other => {
            return Err(CalcError::Spec(format!(
                "CAST to {other} is not evaluated natively"
            )));
        }
    })
}

/// Text cast to an integer type as Flink's `BinaryStringDataUtil` parses it (see the module).
fn parse_integers(array: &ArrayRef, to: &DataType) -> Result<ArrayRef, CalcError> {
    let (min, max) = match to {
        DataType::Int8 => (i64::from(i8::MIN), i64::from(i8::MAX)),
        DataType::Int16 => (i64::from(i16::MIN), i64::from(i16::MAX)),
        DataType::Int32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
        DataType::Int64 => (i64::MIN, i64::MAX),
        other => {
            return Err(CalcError::Spec(format!(
                "CAST from text to {other} is not evaluated natively"
            )));
        }
    };
    // TINYINT and SMALLINT parse as INT, then fail where the value is out of their range.
    let parsed_as = if *to == DataType::Int64 {
        (i64::MIN, i64::MAX)
    } else {
        (i64::from(i32::MIN), i64::from(i32::MAX))
    };
    let strings = texts(array)?;
    let values = strings
        .iter()
        .map(|s| {
            s.map(|s| {
                let text = s.trim_matches(' ');
                parse_integer(text, parsed_as.0, parsed_as.1)
                    .and_then(|v| {
                        if (min..=max).contains(&v) {
                            Ok(v)
                        } else {
                            Err("Overflow.")
                        }
                    })
                    .map_err(|reason| {
                        CalcError::NumberFormat(format!("For input string: '{text}'. {reason}"))
                    })
            })
            .transpose()
        })
        .collect::<Result<Vec<Option<i64>>, CalcError>>()?;
    let values = values.into_iter();
    Ok(match to {
        DataType::Int8 => collect::<Int8Type>(values.map(|v| v.map(|v| v as i8))),
        DataType::Int16 => collect::<Int16Type>(values.map(|v| v.map(|v| v as i16))),
        DataType::Int32 => collect::<Int32Type>(values.map(|v| v.map(|v| v as i32))),
        _ => collect::<Int64Type>(values),
    })
}

/// `array` as the text column a parsing cast reads.
pub(crate) fn texts(array: &ArrayRef) -> Result<&StringArray, CalcError> {
    array
        .as_string_opt::<i32>()
        .ok_or_else(|| CalcError::Spec(format!("CAST of {} as text", array.data_type())))
}

/// Text cast to BOOLEAN as Flink's `BinaryStringDataUtil.toBoolean` reads it (see the module).
fn parse_booleans(array: &ArrayRef) -> Result<ArrayRef, CalcError> {
    const TRUE: [&str; 5] = ["t", "true", "y", "yes", "1"];
    const FALSE: [&str; 5] = ["f", "false", "n", "no", "0"];
    let strings = texts(array)?;
    let booleans = strings
        .iter()
        .map(|s| {
            s.map(|s| {
                // Java lowers the case of non-ASCII text too, but no such letter lowers to one of
                // these words' letters, so comparing ASCII letters alone gives the same answer.
                let is = |words: &[&str]| words.iter().any(|w| w.eq_ignore_ascii_case(s));
                if is(&TRUE) {
                    Ok(true)
                } else if is(&FALSE) {
                    Ok(false)
                } else {
                    Err(CalcError::Table(format!("Cannot parse '{s}' as BOOLEAN.")))
                }
            })
            .transpose()
        })
        .collect::<Result<BooleanArray, CalcError>>()?;
    Ok(Arc::new(booleans))
}

/// Text cast to DOUBLE as Java's `Double.parseDouble` parses it (see the module).
fn parse_doubles(array: &ArrayRef) -> Result<ArrayRef, CalcError> {
    let strings = texts(array)?;
    let doubles = strings
        .iter()
        .map(|s| s.map(java_double).transpose())
        .collect::<Result<Vec<Option<f64>>, CalcError>>()?;
    Ok(collect::<Float64Type>(doubles.into_iter()))
}

/// `text` as Java's `Double.parseDouble` reads it, or its `NumberFormatException` message.
fn java_double(text: &str) -> Result<f64, CalcError> {
    // Java's `String.trim`: every character up to U+0020 goes.
    let text = text.trim_matches(|c: char| c <= ' ');
    if text.is_empty() {
        return Err(CalcError::NumberFormat("empty String".to_string()));
    }
    let bad = || CalcError::NumberFormat(format!("For input string: \"{text}\""));
    let (negative, body) = match text.as_bytes()[0] {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = match body {
        "NaN" => return Ok(f64::NAN),
        "Infinity" => f64::INFINITY,
        _ => {
            let number = match body.as_bytes().last() {
                Some(b'f' | b'F' | b'd' | b'D') => &body[..body.len() - 1],
                _ => body,
            };
            match number.get(..2) {
                Some("0x" | "0X") => hex_double(&number[2..]).ok_or_else(bad)?,
                _ if is_decimal_number(number) => number.parse::<f64>().map_err(|_| bad())?,
                _ => return Err(bad()),
            }
        }
    };
    Ok(if negative { -magnitude } else { magnitude })
}

/// Whether `text` is digits with at most one point and at least one digit, then optionally `e`
/// or `E`, a sign and at least one digit: the decimal numbers Java reads (and Rust reads alike).
fn is_decimal_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    let mut point = false;
    while i < bytes.len() {
        match bytes[i] {
            b'0'..=b'9' => digits += 1,
            b'.' if !point => point = true,
            _ => break,
        }
        i += 1;
    }
    if digits == 0 {
        return false;
    }
    if i == bytes.len() {
        return true;
    }
    if !matches!(bytes[i], b'e' | b'E') {
        return false;
    }
    i += 1;
    if matches!(bytes.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    i < bytes.len() && bytes[i..].iter().all(u8::is_ascii_digit)
}

/// A hexadecimal floating-point number after its `0x` (and before any type suffix), as Java reads
/// it: hex digits with at most one point (at least one digit), `p` or `P`, a signed decimal
/// binary exponent; rounded to the nearest `double`, ties to even. `None` where it is not one.
fn hex_double(text: &str) -> Option<f64> {
    let (significand, exponent) = text.split_once(['p', 'P'])?;
    let (whole, fraction) = significand.split_once('.').unwrap_or((significand, ""));
    let hex = |part: &str| part.bytes().all(|b| b.is_ascii_hexdigit());
    if whole.len() + fraction.len() == 0 || !hex(whole) || !hex(fraction) {
        return None;
    }
    let (exponent_negative, exponent_digits) = match exponent.as_bytes().first()? {
        b'-' => (true, &exponent[1..]),
        b'+' => (false, &exponent[1..]),
        _ => (false, exponent),
    };
    if exponent_digits.is_empty() || !exponent_digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Far beyond any double's range either way; saturating keeps the arithmetic in range.
    let exponent: i64 = exponent_digits
        .bytes()
        .fold(0i64, |e, b| (e * 10 + i64::from(b - b'0')).min(1 << 40));
    let exponent = if exponent_negative {
        -exponent
    } else {
        exponent
    };
    // The significand's first 16 significant hex digits (64 bits) and whether any later one is
    // non-zero; its value is `bits * 2^scale` (plus the sticky part).
    let mut bits: u64 = 0;
    let mut taken = 0;
    let mut sticky = false;
    let mut scale = exponent - 4 * fraction.len() as i64;
    for b in whole.bytes().chain(fraction.bytes()) {
        let digit = u64::from(char::from(b).to_digit(16)?);
        if taken == 0 && digit == 0 {
            continue;
        }
        if taken < 16 {
            bits = bits << 4 | digit;
            taken += 1;
        } else {
            sticky |= digit != 0;
            scale += 4;
        }
    }
    if bits == 0 {
        return Some(0.0);
    }
    Some(round_to_double(bits, scale, sticky))
}

/// `bits * 2^scale`, plus less than one unit of `bits` where `sticky`, rounded to the nearest
/// `double` (ties to even; subnormals and overflow to infinity as IEEE 754 has them).
fn round_to_double(bits: u64, scale: i64, sticky: bool) -> f64 {
    let width = 64 - i64::from(bits.leading_zeros());
    let top = scale + width - 1;
    if top > 1023 {
        return f64::INFINITY;
    }
    // The exponent of the last bit the double keeps: 53 bits, or fewer below the normal range.
    let last = (top - 52).max(-1074);
    let dropped = last - scale;
    let (mut kept, round_up) = if dropped <= 0 {
        (u128::from(bits) << -dropped, false)
    } else if dropped > 64 {
        (0, false)
    } else {
        let wide = u128::from(bits);
        let kept = wide >> dropped;
        let half = 1u128 << (dropped - 1);
        let rest = wide & ((1u128 << dropped) - 1);
        let above = rest > half || (rest == half && sticky);
        let tie = rest == half && !sticky;
        (kept, above || (tie && kept & 1 == 1))
    };
    if round_up {
        kept += 1;
    }
    let mut last = last;
    if kept == 1 << 53 {
        kept >>= 1;
        last += 1;
    }
    if last + 52 > 1023 {
        return f64::INFINITY;
    }
    // `kept` has at most 53 bits: 53 for a normal double, fewer for a subnormal (`last` -1074).
    let kept = kept as u64;
    if kept >> 52 == 1 {
        let biased = (last + 52 + 1023) as u64;
        f64::from_bits(biased << 52 | (kept & ((1 << 52) - 1)))
    } else {
        f64::from_bits(kept)
    }
}

/// One text as `BinaryStringDataUtil.toLong` (`min`, `max` of `long`) or `toInt` (of `int`)
/// parses it, or the reason it does not: the value is accumulated negatively, so the smallest
/// value parses, and overflows where Java's arithmetic would leave the range.
fn parse_integer(text: &str, min: i64, max: i64) -> Result<i64, &'static str> {
    let bytes = text.as_bytes();
    let Some(&first) = bytes.first() else {
        return Err("Input is empty.");
    };
    let negative = first == b'-';
    let mut digits = bytes.iter();
    if negative || first == b'+' {
        digits.next();
        if bytes.len() == 1 {
            return Err("Input has only positive or negative symbol.");
        }
    }
    let stop = i128::from(min / 10);
    let mut result: i128 = 0;
    for &b in digits.by_ref() {
        if b == b'.' {
            break;
        }
        if !b.is_ascii_digit() {
            return Err("Invalid character found.");
        }
        if result < stop {
            return Err("Overflow.");
        }
        result = result * 10 - i128::from(b - b'0');
        if result < i128::from(min) {
            return Err("Overflow.");
        }
    }
    // The digits after the point are checked and dropped.
    if digits.any(|b| !b.is_ascii_digit()) {
        return Err("Invalid character found.");
    }
    if !negative {
        result = -result;
        if result > i128::from(max) {
            return Err("Overflow.");
        }
    }
    i64::try_from(result).map_err(|_| "Overflow.")
}

fn exact<T: ArrowPrimitiveType>(array: &PrimitiveArray<T>) -> Vec<Option<Number>>
where
    T::Native: Into<i64>,
{
    array
        .iter()
        .map(|v| v.map(|v| Number::Exact(i128::from(v.into()), 0, 19)))
        .collect()
}

fn collect<T: ArrowPrimitiveType>(values: impl Iterator<Item = Option<T::Native>>) -> ArrayRef {
    Arc::new(values.collect::<PrimitiveArray<T>>())
}

/// The value as Java's `(long)` takes it: a DECIMAL's integer part (truncated toward zero) to its
/// low 64 bits, as `BigInteger.longValue`; a `double` saturated, NaN to 0.
fn long(value: Number) -> i64 {
    match value {
        Number::Exact(v, scale, _) => (v / pow10(scale)) as i64,
        Number::Approximate(v) => v as i64,
    }
}

/// The value as Java's `(int)` takes it, which TINYINT and SMALLINT narrow further: an exact
/// value through `long` to its low 32 bits; a `double` saturated at `int`'s own bounds.
fn int(value: Number) -> i32 {
    match value {
        Number::Exact(..) => long(value) as i32,
        Number::Approximate(v) => v as i32,
    }
}

fn pow10(exponent: i8) -> i128 {
    10_i128.pow(u32::from(exponent.unsigned_abs()))
}

/// The value as Java's `double`: `DecimalDataUtils.doubleValue` for a DECIMAL (an integer is a
/// DECIMAL of scale 0, exact in both ways for the values that matter: `(double) long`).
fn double(value: Number) -> f64 {
    match value {
        Number::Approximate(v) => v,
        Number::Exact(v, 0, _) => v as f64,
        // A compact DecimalData divides two doubles.
        Number::Exact(v, scale, precision) if precision <= 18 => {
            v as i64 as f64 / pow10(scale) as i64 as f64
        }
        // `BigDecimal.doubleValue`: the nearest double, as Rust's parser gives it.
        Number::Exact(v, scale, _) => format!("{v}e-{scale}").parse().unwrap_or(f64::NAN),
    }
}

/// `v` (of scale `scale`) at scale `to_scale`, rounded half up, or `None` where it does not fit
/// `precision` digits.
fn rescale(v: i128, scale: i8, precision: u8, to_scale: i8) -> Option<i128> {
    let shift = i16::from(to_scale) - i16::from(scale);
    let value = if shift >= 0 {
        v.checked_mul(10_i128.checked_pow(u32::try_from(shift).ok()?)?)?
    } else {
        let factor = 10_i128.checked_pow(u32::try_from(-shift).ok()?)?;
        let (q, r) = (v / factor, v % factor);
        // Half up: away from zero at half or more.
        if r.unsigned_abs() * 2 >= factor.unsigned_abs() {
            q + v.signum()
        } else {
            q
        }
    };
    fits(value, precision).then_some(value)
}

#[cfg(test)]
mod tests {
    use arrow::array::{Float64Array, Int64Array};

    use super::*;
    use crate::decimal::decimals;

    fn values<T: ArrowPrimitiveType>(array: &ArrayRef) -> Vec<Option<T::Native>> {
        array.as_primitive::<T>().iter().collect()
    }

    // Every expected value below is what Java computes for the same cast.

    #[test]
    fn integers_narrow_to_their_low_bits() {
        let longs: ArrayRef = Arc::new(Int64Array::from(vec![
            Some(300),
            Some(-129),
            Some(i64::MAX),
            None,
        ]));
        assert_eq!(
            values::<Int8Type>(&cast(&longs, &DataType::Int8).unwrap()),
            vec![Some(44), Some(127), Some(-1), None]
        );
        assert_eq!(
            values::<Int32Type>(&cast(&longs, &DataType::Int32).unwrap()),
            vec![Some(300), Some(-129), Some(-1), None]
        );
    }

    #[test]
    fn doubles_saturate_at_ints_bounds_before_narrowing() {
        let doubles: ArrayRef = Arc::new(Float64Array::from(vec![
            Some(1e10),
            Some(200.7),
            Some(-1e10),
            Some(f64::NAN),
            Some(-2.9),
            Some(1e19),
        ]));
        // (byte) (int) d, (short) (int) d, (int) d, (long) d.
        assert_eq!(
            values::<Int8Type>(&cast(&doubles, &DataType::Int8).unwrap()),
            vec![Some(-1), Some(-56), Some(0), Some(0), Some(-2), Some(-1)]
        );
        assert_eq!(
            values::<Int16Type>(&cast(&doubles, &DataType::Int16).unwrap()),
            vec![Some(-1), Some(200), Some(0), Some(0), Some(-2), Some(-1)]
        );
        assert_eq!(
            values::<Int32Type>(&cast(&doubles, &DataType::Int32).unwrap()),
            vec![
                Some(i32::MAX),
                Some(200),
                Some(i32::MIN),
                Some(0),
                Some(-2),
                Some(i32::MAX)
            ]
        );
        assert_eq!(
            values::<Int64Type>(&cast(&doubles, &DataType::Int64).unwrap()),
            vec![
                Some(10_000_000_000),
                Some(200),
                Some(-10_000_000_000),
                Some(0),
                Some(-2),
                Some(i64::MAX)
            ]
        );
    }

    #[test]
    fn decimals_truncate_to_the_low_64_bits_of_their_integer_part() {
        let wide = decimals(
            vec![Some(1_234_567_890_123_456_789_099), Some(-799), None],
            22,
            2,
        );
        assert_eq!(
            values::<Int64Type>(&cast(&wide, &DataType::Int64).unwrap()),
            vec![Some(-6_101_065_172_474_983_726), Some(-7), None]
        );
    }

    #[test]
    fn decimals_become_doubles_as_decimal_data_computes_them() {
        // Compact (precision up to 18): two doubles divided, which here is not the nearest
        // double to 123456789012345.67.
        let compact = decimals(vec![Some(12_345_678_901_234_567)], 17, 2);
        assert_eq!(
            values::<Float64Type>(&cast(&compact, &DataType::Float64).unwrap()),
            vec![Some(1.234_567_890_123_456_9E14)]
        );
        // Wider: the nearest double.
        let wide = decimals(vec![Some(12_345_678_901_234_567_891)], 20, 2);
        assert_eq!(
            values::<Float64Type>(&cast(&wide, &DataType::Float64).unwrap()),
            vec![Some(1.234_567_890_123_456_8E17)]
        );
        // FLOAT: the double rounded again (Java's bits for 1.23456784E16f).
        let float = decimals(vec![Some(1_234_567_890_123_456_789)], 19, 2);
        assert_eq!(
            values::<Float32Type>(&cast(&float, &DataType::Float32).unwrap()),
            vec![Some(f32::from_bits(0x5a2f_7151))]
        );
    }

    /// One text cast to TINYINT, SMALLINT, INT and BIGINT: each value, or Flink's message.
    fn parsed(text: &str) -> Vec<String> {
        let input: ArrayRef = Arc::new(StringArray::from(vec![text]));
        [
            DataType::Int8,
            DataType::Int16,
            DataType::Int32,
            DataType::Int64,
        ]
        .iter()
        .map(|to| match cast(&input, to) {
            Ok(out) => arrow::util::display::array_value_to_string(&out, 0).unwrap(),
            Err(e) => format!("E:{e}"),
        })
        .collect()
    }

    #[test]
    fn text_parses_as_flinks_binary_string_util_parses_it() {
        // What Flink 2.2's BinaryStringDataUtil gives for the same texts (after trim()).
        let overflow = |t: &str| format!("E:For input string: '{t}'. Overflow.");
        let invalid = |t: &str| format!("E:For input string: '{t}'. Invalid character found.");
        let all = |v: &str| vec![v.to_string(); 4];
        assert_eq!(parsed(" 12 "), all("12"));
        assert_eq!(parsed("+7"), all("7"));
        assert_eq!(parsed(".5"), all("0"));
        assert_eq!(parsed("-."), all("0"));
        assert_eq!(parsed("1.5"), all("1"));
        assert_eq!(parsed("00012"), all("12"));
        assert_eq!(
            parsed("-"),
            all("E:For input string: '-'. Input has only positive or negative symbol.")
        );
        assert_eq!(parsed("  "), all("E:For input string: ''. Input is empty."));
        for text in ["1.x", "1e3", "1..2", "\u{663}", "\t5"] {
            assert_eq!(parsed(text), vec![invalid(text); 4], "{text}");
        }
        assert_eq!(
            parsed("2147483647"),
            vec![
                overflow("2147483647"),
                overflow("2147483647"),
                "2147483647".into(),
                "2147483647".into()
            ]
        );
        assert_eq!(
            parsed("-2147483649"),
            vec![
                overflow("-2147483649"),
                overflow("-2147483649"),
                overflow("-2147483649"),
                "-2147483649".into()
            ]
        );
        assert_eq!(parsed("-9223372036854775808")[3], "-9223372036854775808");
        assert_eq!(
            parsed("9223372036854775808")[3],
            overflow("9223372036854775808")
        );
        assert_eq!(
            parsed("-129"),
            vec![
                overflow("-129"),
                "-129".into(),
                "-129".into(),
                "-129".into()
            ]
        );
    }

    #[test]
    fn text_reads_as_flinks_booleans() {
        // BinaryStringDataUtil.toBoolean of Flink 2.2.1 for the same texts.
        let texts = [
            Some("true"),
            Some("TRUE"),
            Some("tRuE"),
            Some("t"),
            Some("T"),
            Some("yes"),
            Some("Y"),
            Some("1"),
            Some("0"),
            Some("no"),
            Some("N"),
            Some("f"),
            Some("false"),
            Some("FALSE"),
            None,
        ];
        let array: ArrayRef = Arc::new(StringArray::from(texts.to_vec()));
        let booleans = cast(&array, &DataType::Boolean).unwrap();
        let values: Vec<Option<bool>> = booleans.as_boolean().iter().collect();
        let t = Some(true);
        let f = Some(false);
        assert_eq!(values, [t, t, t, t, t, t, t, t, f, f, f, f, f, f, None]);
        for bad in [" true", "true ", "", "x", " 1", "2", "on"] {
            let array: ArrayRef = Arc::new(StringArray::from(vec![Some("yes"), Some(bad)]));
            match cast(&array, &DataType::Boolean) {
                Err(CalcError::Table(message)) => {
                    assert_eq!(message, format!("Cannot parse '{bad}' as BOOLEAN."));
                }
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn text_reads_as_javas_doubles() {
        // Double.parseDouble of Java 17 for the same texts (Flink's BinaryStringDataUtil.toDouble).
        let read = [
            ("1.5", 1.5),
            (" 1.5 ", 1.5),
            ("\t2\n", 2.0),
            ("+.5", 0.5),
            ("5.", 5.0),
            ("-0", -0.0),
            ("00", 0.0),
            ("0.0e0", 0.0),
            ("1e5", 100000.0),
            ("1E-5f", 1.0e-5),
            ("1.5d", 1.5),
            ("1.5F", 1.5),
            ("1e400", f64::INFINITY),
            ("-1e-400", -0.0),
            ("1e2147483648", f64::INFINITY),
            ("1e-2147483649", 0.0),
            ("Infinity", f64::INFINITY),
            ("-Infinity", f64::NEG_INFINITY),
            ("+Infinity", f64::INFINITY),
            ("0x1.8p1", 3.0),
            ("0x.8p1", 1.0),
            ("0X1P+2d", 4.0),
            ("0x1.p1", 2.0),
            ("0x1p-1074", 4.9e-324),
            ("0x1p-1075", 0.0),
            ("0x1.0000000000001p-1075", 4.9e-324),
            ("0x1.fffffffffffff8p1023", f64::INFINITY),
            ("0x1.fffffffffffff7ffp1023", f64::MAX),
            ("0x1p2147483648", f64::INFINITY),
            (
                "0x00000000000000000001.00000000000000000000000000001p0",
                1.0,
            ),
            ("0x1.00000000000008p0", 1.0),
            ("0x1.00000000000018p0", 1.0000000000000004),
            ("0x1.000000000000080000000001p0", 1.0000000000000002),
            ("0x0.0000000000000000000000000000000000000001p160", 1.0),
            ("2.4703282292062327e-324", 0.0),
            ("2.4703282292062328e-324", 4.9e-324),
            ("3.4028235677973366e38", 3.4028235677973366e38),
            (
                "1.00000017881393421514957253748434595763683319091796875001",
                1.0000001788139343,
            ),
        ];
        for (text, expected) in read {
            let value = java_double(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert_eq!(value.to_bits(), expected.to_bits(), "{text:?} gave {value}");
        }
        assert!(java_double("NaN").unwrap().is_nan());
        assert!(java_double("-NaN").unwrap().is_nan());
        for (text, message) in [
            ("abc", "For input string: \"abc\""),
            (" x ", "For input string: \"x\""),
            ("", "empty String"),
            ("  ", "empty String"),
            ("nan", "For input string: \"nan\""),
            ("inf", "For input string: \"inf\""),
            ("infinity", "For input string: \"infinity\""),
            ("NaNd", "For input string: \"NaNd\""),
            ("Infinityf", "For input string: \"Infinityf\""),
            ("0x10", "For input string: \"0x10\""),
            ("0x.p1", "For input string: \"0x.p1\""),
            ("0x1p", "For input string: \"0x1p\""),
            ("1_0", "For input string: \"1_0\""),
            ("١", "For input string: \"١\""),
            ("1.5 d", "For input string: \"1.5 d\""),
            ("1,5", "For input string: \"1,5\""),
            ("1e", "For input string: \"1e\""),
            ("1e+", "For input string: \"1e+\""),
            (".", "For input string: \".\""),
            ("+", "For input string: \"+\""),
            ("1.2.3", "For input string: \"1.2.3\""),
            ("1dd", "For input string: \"1dd\""),
        ] {
            match java_double(text) {
                Err(CalcError::NumberFormat(m)) => assert_eq!(m, message, "{text:?}"),
                other => panic!("{text:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn decimals_round_half_up_and_overflow_to_null() {
        let longs: ArrayRef = Arc::new(Int64Array::from(vec![Some(99), Some(100), Some(-99)]));
        let out = cast(&longs, &DataType::Decimal128(3, 1)).unwrap();
        assert_eq!(
            values::<Decimal128Type>(&out),
            vec![Some(990), None, Some(-990)]
        );
        let scaled = decimals(
            vec![Some(1235), Some(-1235), Some(1234), Some(99_999)],
            5,
            3,
        );
        let out = cast(&scaled, &DataType::Decimal128(3, 2)).unwrap();
        assert_eq!(
            values::<Decimal128Type>(&out),
            vec![Some(124), Some(-124), Some(123), None]
        );
        assert!(!supported(&DataType::Float64, &DataType::Decimal128(10, 2)));
        assert!(supported(&DataType::Decimal128(10, 2), &DataType::Float32));
    }
}
