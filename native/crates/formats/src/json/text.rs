//! Java's number syntax for values given as JSON strings (`Integer.parseInt`,
//! `Double.parseDouble` and friends, after the `trim()` Flink applies).

/// Java `String.trim()`: strips every char <= U+0020 from both ends.
pub fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= '\u{20}')
}

/// `Long.parseLong` (ASCII digits, one optional sign).
pub fn parse_java_long(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// `Double.parseDouble` for decimal text: surrounding whitespace, `NaN`, `[+-]Infinity`, an
/// optional `f`/`F`/`d`/`D` suffix. Hexadecimal floats are not accepted.
pub fn parse_java_double(s: &str) -> Option<f64> {
    let t = java_trim(s);
    match t {
        "NaN" => return Some(f64::NAN),
        "Infinity" | "+Infinity" => return Some(f64::INFINITY),
        "-Infinity" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    let body = t.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(t);
    if !is_decimal_float(body) {
        return None;
    }
    body.parse::<f64>().ok()
}

/// `Float.parseFloat`, rounded straight to f32 (not through f64).
pub fn parse_java_float(s: &str) -> Option<f32> {
    let t = java_trim(s);
    match t {
        "NaN" => return Some(f32::NAN),
        "Infinity" | "+Infinity" => return Some(f32::INFINITY),
        "-Infinity" => return Some(f32::NEG_INFINITY),
        _ => {}
    }
    let body = t.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(t);
    if !is_decimal_float(body) {
        return None;
    }
    body.parse::<f32>().ok()
}

/// `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`
fn is_decimal_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - frac_start;
    }
    if digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_number_syntax() {
        assert_eq!(parse_java_long(" 12 ".trim()), Some(12));
        assert_eq!(parse_java_long("+7"), Some(7));
        assert_eq!(parse_java_long("1.5"), None);
        assert_eq!(parse_java_long(""), None);
        assert_eq!(parse_java_double(" 1.5 "), Some(1.5));
        assert_eq!(parse_java_double("2.5f"), Some(2.5));
        assert!(parse_java_double("NaN").is_some_and(f64::is_nan));
        assert_eq!(parse_java_double("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_java_double("inf"), None);
        assert_eq!(parse_java_double("nan"), None);
        assert_eq!(parse_java_double("1e"), None);
        assert_eq!(parse_java_double(".5"), Some(0.5));
        assert_eq!(
            parse_java_float("1.00000017881393432617187499"),
            Some(1.000_000_1)
        );
    }
}
