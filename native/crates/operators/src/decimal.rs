//! `DECIMAL` arithmetic as Flink's `DecimalDataUtils` computes it: exact, then NULL where the
//! result does not fit the result type's precision.
//!
//! Only the result types Flink derives without reducing a scale are admitted (precision at most
//! 38), so no sum, difference or product is ever rounded: `*` has precision `p1 + p2 + 1` and
//! scale `s1 + s2`; `+` and `-` have scale `max(s1, s2)` and precision
//! `max(p1 - s1, p2 - s2) + scale + 1`. Quotients are rounded as Flink rounds them ([`divide`]).

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Decimal128Array};
use arrow::datatypes::DataType;

use crate::calc::CalcError;

pub(crate) const MAX_PRECISION: u8 = 38;

/// The result type of `*` on two decimals, if Flink keeps every digit.
pub(crate) fn times_type(a: (u8, i8), b: (u8, i8)) -> Option<(u8, i8)> {
    let precision = a.0.checked_add(b.0)?.checked_add(1)?;
    (precision <= MAX_PRECISION).then_some((precision, a.1.checked_add(b.1)?))
}

/// The result type of `+` or `-` on two decimals, if Flink keeps every digit.
pub(crate) fn plus_type(a: (u8, i8), b: (u8, i8)) -> Option<(u8, i8)> {
    let scale = a.1.max(b.1);
    let integral = (i16::from(a.0) - i16::from(a.1)).max(i16::from(b.0) - i16::from(b.1));
    let precision = u8::try_from(integral + i16::from(scale) + 1).ok()?;
    (precision <= MAX_PRECISION).then_some((precision, scale))
}

/// The result type of `/` on two decimals (Flink: scale `max(6, s1 + p2 + 1)`, precision
/// `p1 - s1 + s2 + scale`), if Flink keeps it whole and the scaled dividend fits in 38 digits.
pub(crate) fn divide_type(a: (u8, i8), b: (u8, i8)) -> Option<(u8, i8)> {
    let scale = 6_i16.max(i16::from(a.1) + i16::from(b.0) + 1);
    let precision = i16::from(a.0) - i16::from(a.1) + i16::from(b.1) + scale;
    let shift = scale - i16::from(a.1) + i16::from(b.1);
    (precision <= i16::from(MAX_PRECISION) && i16::from(a.0) + shift <= i16::from(MAX_PRECISION))
        .then_some((u8::try_from(precision).ok()?, i8::try_from(scale).ok()?))
}

/// `a / b` row by row in the type [`divide_type`] gives, as Flink's `DecimalDataUtils.divide`:
/// the quotient rounded half up to 38 significant digits, then half up to the result's scale;
/// NULL where either is NULL or the quotient does not fit. A zero divisor fails as
/// `BigDecimal.divide` does: "Division by zero", or "Division undefined" for 0 / 0.
pub(crate) fn divide(a: &ArrayRef, b: &ArrayRef) -> Result<ArrayRef, CalcError> {
    let (ta, tb) = (
        precision_scale(a.as_ref()).map_err(CalcError::Spec)?,
        precision_scale(b.as_ref()).map_err(CalcError::Spec)?,
    );
    let (p, s) = divide_type(ta, tb).ok_or_else(|| {
        CalcError::Spec(format!(
            "DECIMAL division of {ta:?} and {tb:?} is not evaluated natively"
        ))
    })?;
    let shift = u32::try_from(i16::from(s) - i16::from(ta.1) + i16::from(tb.1))
        .map_err(|e| CalcError::Spec(e.to_string()))?;
    let factor = 10_i128
        .checked_pow(shift)
        .ok_or_else(|| CalcError::Spec("DECIMAL division overflows".into()))?;
    zip_decimals(a, b, (p, s), |x, d| quotient(x, d, factor))
}

/// `x * factor / d` (unscaled values) rounded as [`divide`] describes; `None` where the scaled
/// dividend overflows.
fn quotient(x: i128, d: i128, factor: i128) -> Result<Option<i128>, CalcError> {
    if d == 0 {
        return Err(CalcError::Arithmetic(if x == 0 {
            "Division undefined"
        } else {
            "Division by zero"
        }));
    }
    let Some(n) = x.checked_mul(factor) else {
        return Ok(None);
    };
    let (q, r) = (n / d, n % d);
    let up = rounds_up(q.unsigned_abs(), r.unsigned_abs(), d.unsigned_abs())
        .ok_or_else(|| CalcError::Spec("DECIMAL division of a divisor over 36 digits".into()))?;
    Ok(Some(match (up, (n < 0) == (d < 0)) {
        (false, _) => q,
        (true, true) => q + 1,
        (true, false) => q - 1,
    }))
}

/// Whether `q + r / d` (magnitudes, `r < d`) rounds up at the result's scale when it is first
/// rounded half up to 38 significant digits and then half up to the scale, as `BigDecimal` does
/// with Flink's `MathContext`. The two roundings differ from one only when the digits after the
/// scale are a 4 and then 9s up to the 38th digit and the rest is at least half of it.
/// `None` only if `10 * r` overflows, which the admitted types (a divisor of at most 36 digits)
/// rule out.
fn rounds_up(q: u128, r: u128, d: u128) -> Option<bool> {
    let next = |r: u128| -> Option<(u128, u128)> {
        let ten_r = r.checked_mul(10)?;
        Some((ten_r / d, ten_r % d))
    };
    let (first, mut r) = next(r)?;
    if first != 4 {
        return Some(first >= 5);
    }
    // Significant digits kept after the scale: 38 less those of `q`, all 38 when `q` is 0 (the
    // 4 is then the first significant digit).
    let digits = if q == 0 { 0 } else { q.ilog10() + 1 };
    let kept = 38_u32.saturating_sub(digits);
    if kept == 0 {
        return Some(false);
    }
    for _ in 1..kept {
        let (digit, rest) = next(r)?;
        if digit != 9 {
            return Some(false);
        }
        r = rest;
    }
    Some(r.checked_mul(2)? >= d)
}

/// The unscaled value of decimal text (`-12.5`) at `scale`, if it fits `precision` exactly.
pub(crate) fn parse(text: &str, precision: u8, scale: i8) -> Result<i128, String> {
    let bad = || format!("{text:?} is not a DECIMAL({precision}, {scale})");
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let scale = usize::try_from(scale).map_err(|_| bad())?;
    if fraction.len() > scale
        || whole.is_empty() && fraction.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let mut value: i128 = 0;
    for b in whole
        .bytes()
        .chain(fraction.bytes())
        .chain(std::iter::repeat_n(b'0', scale - fraction.len()))
    {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(i128::from(b - b'0')))
            .ok_or_else(bad)?;
    }
    if !fits(value, precision) {
        return Err(bad());
    }
    Ok(if negative { -value } else { value })
}

/// Whether `value` (unscaled) has at most `precision` digits.
pub(crate) fn fits(value: i128, precision: u8) -> bool {
    10_i128
        .checked_pow(u32::from(precision))
        .is_none_or(|limit| value.unsigned_abs() < limit.unsigned_abs())
}

/// `f` of the unscaled values of `a` and `b`, row by row, as a DECIMAL of `result`: NULL where
/// either is NULL, where `f` gives none (an overflow), or where the value does not fit `result`;
/// the first error `f` gives fails the whole.
fn zip_decimals(
    a: &ArrayRef,
    b: &ArrayRef,
    result: (u8, i8),
    f: impl Fn(i128, i128) -> Result<Option<i128>, CalcError>,
) -> Result<ArrayRef, CalcError> {
    let (a, b) = (decimal_values(a)?, decimal_values(b)?);
    let values = a
        .iter()
        .zip(b.iter())
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Ok(f(x, y)?.filter(|value| fits(*value, result.0))),
            _ => Ok(None),
        })
        .collect::<Result<Decimal128Array, CalcError>>()?;
    Ok(Arc::new(
        values.with_precision_and_scale(result.0, result.1)?,
    ))
}

fn decimal_values(array: &ArrayRef) -> Result<&Decimal128Array, CalcError> {
    array
        .as_primitive_opt::<arrow::datatypes::Decimal128Type>()
        .ok_or_else(|| CalcError::Spec(format!("expected DECIMAL, found {}", array.data_type())))
}

fn precision_scale(array: &dyn Array) -> Result<(u8, i8), String> {
    match array.data_type() {
        DataType::Decimal128(p, s) => Ok((*p, *s)),
        other => Err(format!("expected DECIMAL, found {other}")),
    }
}

/// The arithmetic of [`apply`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arithmetic {
    Plus,
    Minus,
    Times,
}

/// `a op b` row by row, in the result type Flink derives; NULL where either is NULL or the result
/// does not fit.
pub(crate) fn apply(op: Arithmetic, a: &ArrayRef, b: &ArrayRef) -> Result<ArrayRef, CalcError> {
    let (ta, tb) = (
        precision_scale(a.as_ref()).map_err(CalcError::Spec)?,
        precision_scale(b.as_ref()).map_err(CalcError::Spec)?,
    );
    let result = match op {
        Arithmetic::Times => times_type(ta, tb),
        Arithmetic::Plus | Arithmetic::Minus => plus_type(ta, tb),
    }
    .ok_or_else(|| {
        CalcError::Spec(format!(
            "DECIMAL arithmetic of {ta:?} and {tb:?} needs more than 38 digits"
        ))
    })?;
    // Operands of `+` and `-` are brought to the result's scale first; exact in i128, as both
    // have at most 38 digits and the scale grows by at most 38 - precision.
    let up = |scale: i8| 10_i128.checked_pow(u32::try_from(result.1 - scale).unwrap_or(0));
    let (fa, fb) = (up(ta.1), up(tb.1));
    let exact = |x: i128, y: i128| match op {
        Arithmetic::Times => x.checked_mul(y),
        Arithmetic::Plus => x.checked_mul(fa?)?.checked_add(y.checked_mul(fb?)?),
        Arithmetic::Minus => x.checked_mul(fa?)?.checked_sub(y.checked_mul(fb?)?),
    };
    zip_decimals(a, b, result, |x, y| Ok(exact(x, y)))
}

/// A DECIMAL(`p`, `s`) column of unscaled `values`, for tests.
#[cfg(test)]
pub(crate) fn decimals(values: Vec<Option<i128>>, p: u8, s: i8) -> ArrayRef {
    Arc::new(
        Decimal128Array::from(values)
            .with_precision_and_scale(p, s)
            .unwrap(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_rounds_half_up_in_flinks_type() {
        // DECIMAL(10, 2) / DECIMAL(1, 0): scale max(6, 2 + 1 + 1) = 6, precision 10 - 2 + 0 + 6.
        let a = decimals(vec![Some(100), Some(-100), Some(200), None], 10, 2);
        let three = decimals(vec![Some(3); 4], 1, 0);
        let out = divide(&a, &three).unwrap();
        assert_eq!(out.data_type(), &DataType::Decimal128(14, 6));
        // 1.00 / 3 = 0.333333; -1.00 / 3 = -0.333333; 2.00 / 3 = 0.666667 (half up).
        assert_eq!(
            out.as_primitive::<arrow::datatypes::Decimal128Type>()
                .iter()
                .collect::<Vec<_>>(),
            vec![Some(333_333), Some(-333_333), Some(666_667), None]
        );
        let minus_two_thirds = divide(
            &decimals(vec![Some(-200)], 10, 2),
            &decimals(vec![Some(3)], 1, 0),
        )
        .unwrap();
        assert_eq!(
            minus_two_thirds
                .as_primitive::<arrow::datatypes::Decimal128Type>()
                .value(0),
            -666_667
        );
        assert!(divide_type((38, 0), (1, 0)).is_none());
    }

    #[test]
    fn division_rounds_twice_as_flinks_math_context_does() {
        // 8995500000000000030 / 300000000000000001 = 29.98500000000000000049999999999999999983...:
        // Java's BigDecimal rounds it half up to 38 digits (...0000500000) and then to scale 19,
        // up; one rounding to scale 19 would round down.
        let a = decimals(
            vec![
                Some(8_995_500_000_000_000_030),
                Some(-8_995_500_000_000_000_030),
            ],
            19,
            0,
        );
        let b = decimals(vec![Some(300_000_000_000_000_001); 2], 18, 0);
        let out = divide(&a, &b).unwrap();
        assert_eq!(out.data_type(), &DataType::Decimal128(38, 19));
        assert_eq!(
            out.as_primitive::<arrow::datatypes::Decimal128Type>()
                .iter()
                .collect::<Vec<_>>(),
            vec![
                Some(299_850_000_000_000_000_001),
                Some(-299_850_000_000_000_000_001)
            ]
        );
    }

    #[test]
    fn division_by_zero_fails_with_javas_message_unless_a_side_is_null() {
        let zero = decimals(vec![Some(0), None], 5, 2);
        let message = |a: Option<i128>| {
            divide(&decimals(vec![a, Some(1)], 10, 2), &zero)
                .err()
                .map(|e| e.to_string())
        };
        assert_eq!(message(Some(100)).as_deref(), Some("Division by zero"));
        assert_eq!(message(Some(0)).as_deref(), Some("Division undefined"));
        // NULL divided by zero, and anything by NULL, is NULL.
        let nulls = divide(&decimals(vec![None, Some(5)], 10, 2), &zero).unwrap();
        assert_eq!(nulls.null_count(), 2);
    }

    #[test]
    fn literals_parse_at_their_scale() {
        assert_eq!(parse("0.908", 3, 3), Ok(908));
        assert_eq!(parse("-12.5", 5, 2), Ok(-1250));
        assert_eq!(parse("1000000", 19, 0), Ok(1_000_000));
        assert!(parse("1.234", 5, 2).is_err());
        assert!(parse("1000", 3, 0).is_err());
        assert!(parse("1e3", 5, 0).is_err());
    }

    #[test]
    fn times_keeps_every_digit_and_overflow_is_null() {
        // 0.908 * price: the literal is DECIMAL(4, 3), price BIGINT as DECIMAL(19, 0), the product
        // DECIMAL(24, 3).
        let rate = decimals(vec![Some(908); 3], 4, 3);
        let price = decimals(vec![Some(1), Some(i64::MAX as i128), None], 19, 0);
        let out = apply(Arithmetic::Times, &rate, &price).unwrap();
        assert_eq!(out.data_type(), &DataType::Decimal128(24, 3));
        let out = out.as_primitive::<arrow::datatypes::Decimal128Type>();
        assert_eq!(
            out.iter().collect::<Vec<_>>(),
            vec![Some(908), Some(908 * i64::MAX as i128), None]
        );
        // DECIMAL(2, 0) + DECIMAL(3, 1) is DECIMAL(4, 1); 99 + 99.9 = 198.9 fits.
        let a = decimals(vec![Some(99), Some(-99)], 2, 0);
        let b = decimals(vec![Some(999), Some(-999)], 3, 1);
        let sum = apply(Arithmetic::Plus, &a, &b).unwrap();
        assert_eq!(sum.data_type(), &DataType::Decimal128(4, 1));
        assert_eq!(
            sum.as_primitive::<arrow::datatypes::Decimal128Type>()
                .value(1),
            -1989
        );
        // 37 digits times 1 digit would need 39: refused, not rounded.
        let big = decimals(vec![Some(1)], 37, 0);
        let one = decimals(vec![Some(1)], 1, 0);
        assert!(apply(Arithmetic::Times, &big, &one).is_err());
    }
}
