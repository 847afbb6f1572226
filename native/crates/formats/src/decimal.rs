//! Exact decimal text to Arrow `Decimal128`, with the rounding and overflow rules of Flink's
//! `DecimalData.fromBigDecimal`: round HALF_UP to the column's scale, and a value whose precision
//! then exceeds the column's is NULL, not an error.

/// The least power of ten Java's `BigInteger` refuses to compute (`BigInteger.pow` bounds its
/// result by the base's bit length times the exponent: 4 bits for ten).
const JAVA_TEN_POWER_LIMIT: u64 = 536_870_920;

/// Parses Java `BigDecimal` syntax (`[+-]digits[.digits][(e|E)[+-]digits]`, either side of the
/// point may be empty but not both). Returns `Ok(None)` for a value that does not fit
/// `DECIMAL(precision, scale)` after rounding, `Err` for text that is not a number.
pub fn parse_decimal(text: &str, precision: u8, scale: i8) -> Result<Option<i128>, String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let negative = match bytes.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    // At most one digit per byte: short text (every column's usual value) needs no allocation.
    let mut inline = [0u8; 64];
    let mut spilled = Vec::new();
    let room: &mut [u8] = if bytes.len() <= inline.len() {
        &mut inline[..bytes.len()]
    } else {
        spilled.resize(bytes.len(), 0);
        &mut spilled
    };
    let mut count = 0;
    let mut fraction_digits: i64 = 0;
    let mut seen_point = false;
    let mut seen_digit = false;
    while i < bytes.len() {
        match bytes[i] {
            b'0'..=b'9' => {
                room[count] = bytes[i] - b'0';
                count += 1;
                seen_digit = true;
                if seen_point {
                    fraction_digits += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            b'e' | b'E' => break,
            _ => {
                return Err(format!(
                    "Character {} is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark.",
                    bytes[i] as char
                ));
            }
        }
        i += 1;
    }
    if !seen_digit {
        return Err(format!("No digits found in '{text}'."));
    }
    let mut exponent: i64 = 0;
    if i < bytes.len() {
        // bytes[i] is 'e' or 'E'
        let exp_text = &text[i + 1..];
        exponent = exp_text
            .parse::<i64>()
            .ok()
            .filter(|_| !exp_text.is_empty() && !exp_text.starts_with("+-"))
            .ok_or_else(|| format!("Exponent '{exp_text}' of '{text}' is not a number."))?;
    }
    // Java's BigDecimal keeps an int exponent and an int scale (fraction digits less the
    // exponent), and fails on text whose exponent or scale does not fit one, zero or not.
    if i32::try_from(exponent).is_err() {
        return Err(format!("Exponent overflow in '{text}'."));
    }
    let java_scale = fraction_digits - exponent;
    if i32::try_from(java_scale).is_err() {
        return Err(format!("Scale out of range in '{text}'."));
    }
    let digits = &room[..count];
    let first_significant = digits.iter().position(|d| *d != 0);
    let Some(first) = first_significant else {
        return Ok(Some(0));
    };
    // value = D * 10^-java_scale; unscaled = value * 10^scale. Flink rescales a non-zero value
    // by a power of ten that Java's BigInteger builds, and fails where it cannot.
    let shift = i64::from(scale) - java_scale;
    if shift.unsigned_abs() >= JAVA_TEN_POWER_LIMIT {
        return Err(format!(
            "Rescaling '{text}' to scale {scale}: BigInteger would overflow supported range"
        ));
    }
    let significant = &digits[first..];
    let unscaled = if shift >= 0 {
        // Exact: append `shift` zeros; too many digits means it cannot fit.
        if significant.len() as i64 + shift > i64::from(precision) {
            return Ok(None);
        }
        // At most `precision` (38) digits in all, so neither step overflows.
        digits_value(significant) * 10i128.pow(shift as u32)
    } else {
        let drop = (-shift) as u64;
        let len = significant.len() as u64;
        let (kept, round_digit) = if drop > len {
            (&significant[..0], 0)
        } else {
            let keep = (len - drop) as usize;
            (&significant[..keep], significant[keep])
        };
        if kept.len() > usize::from(precision) {
            return Ok(None);
        }
        let mut v = digits_value(kept);
        // Rounding up can carry into one more digit (999.5 to 1000), the only way past the
        // precision here: the exact branch above cannot exceed it.
        if round_digit >= 5 {
            v += 1;
            if digit_count(v) > u32::from(precision) {
                return Ok(None);
            }
        }
        v
    };
    Ok(Some(if negative { -unscaled } else { unscaled }))
}

/// The exact value of decimal text as (unscaled, scale), or `None` when it has more than 38
/// significant digits or is not a number.
pub fn parse_decimal_exact(text: &str) -> Option<(i128, i32)> {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(p) => (&text[..p], text[p + 1..].parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int_part}{frac_part}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 38 {
        return None;
    }
    let unscaled: i128 = if significant.is_empty() {
        0
    } else {
        significant.parse().ok()?
    };
    let scale = i32::try_from(frac_part.len()).ok()?.checked_sub(exponent)?;
    Some((if negative { -unscaled } else { unscaled }, scale))
}

/// The value of at most 38 decimal digits (0 to 9 each): 18 at a time in 64-bit arithmetic,
/// as 128-bit multiplication is several times slower.
fn digits_value(digits: &[u8]) -> i128 {
    let mut value: i128 = 0;
    for chunk in digits.chunks(18) {
        let part = chunk.iter().fold(0u64, |v, d| v * 10 + u64::from(*d));
        value = value * 10i128.pow(chunk.len() as u32) + i128::from(part);
    }
    value
}

fn digit_count(v: i128) -> u32 {
    if v == 0 {
        1
    } else {
        v.unsigned_abs().ilog10() + 1
    }
}

/// Java `BigDecimal.toString()` of `unscaled * 10^-scale` (scientific when the exponent is
/// small), the text Flink's JSON writes by default after stripping trailing zeros when
/// `strip` is set.
pub fn decimal_to_java_string(unscaled: i128, scale: i32, strip: bool) -> String {
    let (mut unscaled, mut scale) = (unscaled, scale);
    if strip {
        if unscaled == 0 {
            scale = 0;
        } else {
            while unscaled % 10 == 0 {
                unscaled /= 10;
                scale -= 1;
            }
        }
    }
    let negative = unscaled < 0;
    let coefficient = unscaled.unsigned_abs().to_string();
    let adjusted = -i64::from(scale) + (coefficient.len() as i64 - 1);
    let mut out = String::with_capacity(coefficient.len() + 8);
    if negative {
        out.push('-');
    }
    if scale >= 0 && adjusted >= -6 {
        out.push_str(&plain(&coefficient, scale));
    } else {
        out.push_str(&coefficient[..1]);
        if coefficient.len() > 1 {
            out.push('.');
            out.push_str(&coefficient[1..]);
        }
        out.push('E');
        if adjusted >= 0 {
            out.push('+');
        }
        out.push_str(&adjusted.to_string());
    }
    out
}

/// Java `BigDecimal.toPlainString()`.
pub fn decimal_to_plain_string(unscaled: i128, scale: i32) -> String {
    let coefficient = unscaled.unsigned_abs().to_string();
    let body = if scale >= 0 {
        plain(&coefficient, scale)
    } else {
        let mut s = coefficient;
        for _ in 0..(-scale) {
            s.push('0');
        }
        s
    };
    if unscaled < 0 {
        format!("-{body}")
    } else {
        body
    }
}

fn plain(coefficient: &str, scale: i32) -> String {
    let scale = scale as usize;
    if scale == 0 {
        return coefficient.to_string();
    }
    if coefficient.len() > scale {
        let point = coefficient.len() - scale;
        format!("{}.{}", &coefficient[..point], &coefficient[point..])
    } else {
        format!("0.{}{}", "0".repeat(scale - coefficient.len()), coefficient)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_half_up_and_nulls_overflow() {
        assert_eq!(parse_decimal("1.235", 5, 2), Ok(Some(124)));
        assert_eq!(parse_decimal("-1.235", 5, 2), Ok(Some(-124)));
        assert_eq!(parse_decimal("-0.005", 5, 2), Ok(Some(-1)));
        assert_eq!(parse_decimal("2.5", 38, 0), Ok(Some(3)));
        assert_eq!(parse_decimal("1234.5", 5, 2), Ok(None));
        assert_eq!(parse_decimal("999.995", 5, 2), Ok(None));
        assert_eq!(parse_decimal("1", 10, 10), Ok(None));
        assert_eq!(parse_decimal("1.5E+2", 5, 1), Ok(Some(1500)));
        assert_eq!(parse_decimal(".5", 3, 1), Ok(Some(5)));
        assert_eq!(parse_decimal("5.", 3, 1), Ok(Some(50)));
        assert_eq!(parse_decimal("0.000", 3, 1), Ok(Some(0)));
        assert_eq!(parse_decimal("1e-400", 3, 1), Ok(Some(0)));
        assert!(parse_decimal("abc", 3, 1).is_err());
        assert!(parse_decimal("", 3, 1).is_err());
        assert!(parse_decimal("1e", 3, 1).is_err());
    }

    /// Each case as Java 17 gives it for `new BigDecimal(text).setScale(2, HALF_UP)`, Flink's
    /// `DecimalData.fromBigDecimal`: an exponent or scale past an int, or a rescale by a power
    /// of ten `BigInteger` refuses, fails; zero rescales to any scale.
    #[test]
    fn exponents_fail_where_javas_big_decimal_fails() {
        for text in [
            "0e2147483648",
            "0.0e2147483648",
            "0e-2147483648",
            "1e-2147483648",
            "0e99999999999",
            "1e2147483647",
            "1e2147483646",
            "1e-2147483647",
            "5e-2147483646",
            "1e-536870922",
            "1e536870918",
        ] {
            assert!(parse_decimal(text, 10, 2).is_err(), "{text}");
        }
        assert_eq!(parse_decimal("0e2147483647", 10, 2), Ok(Some(0)));
        assert_eq!(parse_decimal("0e-2147483647", 10, 2), Ok(Some(0)));
        assert_eq!(
            parse_decimal("1e00000000000000000001", 10, 2),
            Ok(Some(1000))
        );
        assert_eq!(parse_decimal("1e-536870921", 10, 2), Ok(Some(0)));
        assert_eq!(parse_decimal("1e536870917", 10, 2), Ok(None));
    }

    #[test]
    fn extremes_of_decimal_38_18_are_exact() {
        let max = "99999999999999999999.999999999999999999";
        assert_eq!(
            parse_decimal(max, 38, 18),
            Ok(Some(99_999_999_999_999_999_999_999_999_999_999_999_999))
        );
        assert_eq!(
            parse_decimal(&format!("-{max}"), 38, 18),
            Ok(Some(-99_999_999_999_999_999_999_999_999_999_999_999_999))
        );
        assert_eq!(parse_decimal("100000000000000000000", 38, 18), Ok(None));
    }

    #[test]
    fn java_text_forms() {
        assert_eq!(decimal_to_java_string(10000, 2, true), "1E+2");
        assert_eq!(decimal_to_java_string(150, 2, true), "1.5");
        assert_eq!(decimal_to_java_string(0, 2, true), "0");
        assert_eq!(decimal_to_java_string(-10, 2, true), "-0.1");
        assert_eq!(decimal_to_java_string(27, 9, true), "2.7E-8");
        assert_eq!(decimal_to_java_string(1, 6, true), "0.000001");
        assert_eq!(decimal_to_java_string(1, 7, true), "1E-7");
        assert_eq!(decimal_to_plain_string(10000, 2), "100.00");
        assert_eq!(decimal_to_plain_string(-27, 9), "-0.000000027");
    }
}
