//! Number text as Java reads and prints it: `Integer.parseInt`/`Double.parseDouble` for values
//! given as text (after the `trim()` Flink applies), and `Double.toString`/`Float.toString`, which
//! Flink's JSON and CSV formats write.
//!
//! Digits are the shortest that read back to the same value (what Java 19 and later print; Java
//! 17 occasionally prints one more digit, e.g. `9.999999999999999E22` for 1e23); of two shortest
//! equally close to the value, the one ending in an even digit, as in every Java. The layout is
//! Java's: plain for magnitudes in [1e-3, 1e7) with at least one fraction digit, otherwise
//! `d.dddE[-]n`.

/// Appends an integer in decimal, as `Long.toString` prints it, without a string of its own.
pub fn push_integer(value: impl itoa::Integer, out: &mut String) {
    out.push_str(itoa::Buffer::new().format(value));
}

/// Appends `Double.toString(value)`; non-finite values as `NaN`/`Infinity`/`-Infinity`, quoted
/// when `quote_non_finite` (as Jackson writes them).
pub fn push_java_double(value: f64, out: &mut String, quote_non_finite: bool) {
    if !value.is_finite() {
        push_non_finite(value.is_nan(), value > 0.0, out, quote_non_finite);
        return;
    }
    let shortest = even_of_a_tie(
        format!("{value:e}"),
        fraction_bits(value.to_bits(), 52, 11, 1075),
        value.abs(),
        || format!("{value:.800e}"),
        |text| text.parse::<f64>().is_ok_and(|v| v == value),
    );
    push_layout(
        &two_digits(shortest, || format!("{value:.1e}")),
        value == 0.0,
        value.abs(),
        out,
    );
}

/// The number of binary digits after the point of a finite float's exact value (0 for an
/// integer): the mantissa's bits without its trailing zeros, placed by the exponent. `bits` is the
/// value's bit pattern, `mantissa_bits` and `exponent_bits` its stored widths, `bias` what turns
/// the stored exponent into the power of two of the mantissa's last bit.
fn fraction_bits(bits: u64, mantissa_bits: u32, exponent_bits: u32, bias: i64) -> u32 {
    let stored = ((bits >> mantissa_bits) & ((1 << exponent_bits) - 1)) as i64;
    let fraction = bits & ((1 << mantissa_bits) - 1);
    let (mantissa, exponent) = if stored == 0 {
        (fraction, 1 - bias)
    } else {
        (fraction | (1 << mantissa_bits), stored - bias)
    };
    if mantissa == 0 {
        return 0;
    }
    let lowest = exponent + i64::from(mantissa.trailing_zeros());
    u32::try_from(-lowest).unwrap_or(0)
}

/// Java's choice where Rust's differs: of the shortest decimals that read back as the value, Java
/// takes the closest, and of two equally close the one whose last digit is even; Rust's formatter
/// may take the other. Two are equally close only when the value's exact decimal expansion is one
/// digit longer than them and ends in 5, so `shortest` (Rust's `{:e}`) is checked against the
/// exact digits (`exact`, asked only when the expansion can be that short: its significant digits
/// are the binary fraction digits plus the integer digits of `magnitude`) and replaced by its even
/// neighbour when that neighbour `reads_back`.
fn even_of_a_tie(
    shortest: String,
    fraction_bits: u32,
    magnitude: f64,
    exact: impl FnOnce() -> String,
    reads_back: impl Fn(&str) -> bool,
) -> String {
    let Some((mantissa, exponent)) = shortest.split_once('e') else {
        return shortest;
    };
    let negative = mantissa.starts_with('-');
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let odd = digits.last().is_some_and(|d| (d - b'0') % 2 == 1);
    // A tie ends the exact expansion in 5, after the point: only a value with a binary fraction.
    if !odd || fraction_bits == 0 {
        return shortest;
    }
    let significant = i64::from(fraction_bits) + magnitude.log10().floor() as i64 + 1;
    if (significant - digits.len() as i64 - 1).abs() > 1 {
        return shortest;
    }
    let exact = exact();
    let Some((exact_mantissa, exact_exponent)) = exact.split_once('e') else {
        return shortest;
    };
    let mut exact_digits: Vec<u8> = exact_mantissa.bytes().filter(u8::is_ascii_digit).collect();
    while exact_digits.last() == Some(&b'0') {
        exact_digits.pop();
    }
    if exact_exponent != exponent
        || exact_digits.len() != digits.len() + 1
        || exact_digits.last() != Some(&b'5')
    {
        return shortest;
    }
    let below = &exact_digits[..digits.len()];
    // The neighbour: one up from the digits below the tie, or those digits.
    let (mut other, mut other_exponent) = (below.to_vec(), exponent.parse::<i32>().unwrap_or(0));
    if digits == below {
        let mut at = other.len();
        loop {
            if at == 0 {
                other.insert(0, b'1');
                other.pop();
                other_exponent += 1;
                break;
            }
            at -= 1;
            if other[at] == b'9' {
                other[at] = b'0';
            } else {
                other[at] += 1;
                break;
            }
        }
    }
    let mut text = String::with_capacity(other.len() + 8);
    if negative {
        text.push('-');
    }
    text.push(char::from(other[0]));
    if other.len() > 1 {
        text.push('.');
        text.extend(other[1..].iter().map(|&d| char::from(d)));
    }
    text.push('e');
    text.push_str(&other_exponent.to_string());
    if reads_back(&text) { text } else { shortest }
}

/// Java prints at least two significant digits, choosing the two-digit decimal closest to the
/// value when one digit would do (`4.9E-324`, not `5.0E-324`).
fn two_digits(shortest: String, closest_two: impl FnOnce() -> String) -> String {
    let mantissa = shortest.split('e').next().unwrap_or("");
    if mantissa.chars().filter(char::is_ascii_digit).count() == 1 {
        closest_two()
    } else {
        shortest
    }
}

/// Appends `Float.toString(value)` (shortest f32 digits).
pub fn push_java_float(value: f32, out: &mut String, quote_non_finite: bool) {
    if !value.is_finite() {
        push_non_finite(value.is_nan(), value > 0.0, out, quote_non_finite);
        return;
    }
    let shortest = even_of_a_tie(
        format!("{value:e}"),
        fraction_bits(u64::from(value.to_bits()), 23, 8, 150),
        f64::from(value.abs()),
        || format!("{value:.200e}"),
        |text| text.parse::<f32>().is_ok_and(|v| v == value),
    );
    push_layout(
        &two_digits(shortest, || format!("{value:.1e}")),
        value == 0.0,
        f64::from(value.abs()),
        out,
    );
}

fn push_non_finite(nan: bool, positive: bool, out: &mut String, quote: bool) {
    let text = if nan {
        "NaN"
    } else if positive {
        "Infinity"
    } else {
        "-Infinity"
    };
    if quote {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        out.push_str(text);
    }
}

/// Lays out Rust's shortest scientific text (`-1.5e-7`) the way Java does.
fn push_layout(scientific: &str, zero: bool, magnitude: f64, out: &mut String) {
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    if negative {
        out.push('-');
    }
    if zero {
        out.push_str("0.0");
        return;
    }
    if (1e-3..1e7).contains(&magnitude) {
        if exponent >= 0 {
            let point = exponent as usize + 1;
            if digits.len() <= point {
                out.push_str(&digits);
                out.push_str(&"0".repeat(point - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            }
        } else {
            out.push_str("0.");
            out.push_str(&"0".repeat((-exponent - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        if digits.len() > 1 {
            out.push_str(&digits[1..]);
        } else {
            out.push('0');
        }
        out.push('E');
        out.push_str(&exponent.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn double(v: f64) -> String {
        let mut s = String::new();
        push_java_double(v, &mut s, false);
        s
    }

    fn float(v: f32) -> String {
        let mut s = String::new();
        push_java_float(v, &mut s, false);
        s
    }

    #[test]
    fn java_layouts() {
        assert_eq!(double(100.0), "100.0");
        assert_eq!(double(9_999_999.0), "9999999.0");
        assert_eq!(double(1e7), "1.0E7");
        assert_eq!(double(0.001), "0.001");
        assert_eq!(double(9.99e-4), "9.99E-4");
        assert_eq!(double(1e21), "1.0E21");
        assert_eq!(double(-0.0), "-0.0");
        assert_eq!(double(4.9e-324), "4.9E-324");
        assert_eq!(double(1.5), "1.5");
        assert_eq!(double(f64::NAN), "NaN");
        assert_eq!(float(1.0e10), "1.0E10");
        assert_eq!(float(1.4e-45), "1.4E-45");
        assert_eq!(float(3.402_823_5e38), "3.4028235E38");
        assert_eq!(float(0.1), "0.1");
        // Two shortest decimals equally close: Java takes the one ending in an even digit.
        assert_eq!(float(55_649.0 / 32.0), "1739.0312");
        assert_eq!(float(196_949.0 / 32.0), "6154.6562");
        assert_eq!(float(532_293.0 / 16.0), "33268.312");
        assert_eq!(float(-55_649.0 / 32.0), "-1739.0312");
        assert_eq!(
            double(2_251_799_813_685_153.0 / 8.0),
            "2.8147497671064412E14"
        );
        assert_eq!(double(0.5), "0.5");
        assert_eq!(double(2.5), "2.5");
        assert_eq!(float(0.125), "0.125");
        let mut quoted = String::new();
        push_java_double(f64::NEG_INFINITY, &mut quoted, true);
        assert_eq!(quoted, "\"-Infinity\"");
    }
}

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
    parse_java_floating(s, f64::NAN, f64::INFINITY, f64::NEG_INFINITY)
}

/// `Float.parseFloat`, rounded straight to f32 (not through f64).
pub fn parse_java_float(s: &str) -> Option<f32> {
    parse_java_floating(s, f32::NAN, f32::INFINITY, f32::NEG_INFINITY)
}

fn parse_java_floating<T: std::str::FromStr>(
    s: &str,
    nan: T,
    infinity: T,
    negative: T,
) -> Option<T> {
    let t = java_trim(s);
    match t {
        "NaN" => return Some(nan),
        "Infinity" | "+Infinity" => return Some(infinity),
        "-Infinity" => return Some(negative),
        _ => {}
    }
    let body = t.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(t);
    if !is_decimal_float(body) {
        return None;
    }
    body.parse::<T>().ok()
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
mod parse_tests {
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
