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
//! * to text from a TIMESTAMP whose precision is its Arrow unit's: [`functions::timestamp_text`].
//!
//! Casts from FLOAT or DOUBLE to DECIMAL (which go through Java's shortest decimal text of the
//! number and fail on NaN) and from text to anything but integers are not here.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Decimal128Array, PrimitiveArray};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type,
    Int32Type, Int64Type,
};

use crate::calc::{CalcError, is_integer, is_numeric};
use crate::decimal::fits;
use crate::functions;

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
        || (*from == DataType::Utf8 && is_integer(to))
        || (matches!(from, DataType::Timestamp(_, None)) && *to == DataType::Utf8)
}

/// `array` cast to `to` as Flink casts it ([`supported`] casts only).
pub(crate) fn cast(array: &ArrayRef, to: &DataType) -> Result<ArrayRef, CalcError> {
    let values: Vec<Option<Number>> = match array.data_type() {
        DataType::Utf8 => return parse_integers(array, to),
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
    let strings = array
        .as_string_opt::<i32>()
        .ok_or_else(|| CalcError::Spec(format!("CAST of {} as text", array.data_type())))?;
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
        let input: ArrayRef = Arc::new(arrow::array::StringArray::from(vec![text]));
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
