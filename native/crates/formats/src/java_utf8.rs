//! Bytes read as text the way Java reads UTF-8.
//!
//! A Flink `STRING` is a run of bytes that need not be UTF-8: Flink's `raw` format in UTF-8, its
//! Parquet reader and user functions hand over a value's bytes as they are. Flink's formats write
//! such a value through `StringData.toString()`, which reads bytes that are not UTF-8 with
//! `new String(bytes, UTF_8)`: each malformed sequence becomes one U+FFFD, by the JDK's own rules
//! of where a malformed sequence ends (JDK 17's `String.decodeUTF8_UTF16`).
//!
//! They differ from Rust's `String::from_utf8_lossy` where a sequence would encode a surrogate:
//! its three bytes are one U+FFFD to Java and three to Rust, and its first two bytes, cut short by
//! a byte that cannot follow or by the end, one U+FFFD to Java and two to Rust.

use std::borrow::Cow;

use arrow::array::StringBuilder;

const REPLACEMENT: char = '\u{FFFD}';

/// What a reader of Java's bytes makes of a text value whose bytes are not UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidText {
    /// An error naming the column and value: for sinks that store text as UTF-8 and whose stock
    /// counterparts would store the bytes as they are.
    Refuse,
    /// The text Java reads from the bytes ([`decode`]), as Flink's formats write a `STRING`
    /// through `StringData.toString()`.
    AsJavaReadsIt,
}

impl InvalidText {
    /// [`InvalidText::AsJavaReadsIt`] where `as_java`, else [`InvalidText::Refuse`].
    pub fn as_java_if(as_java: bool) -> Self {
        if as_java {
            InvalidText::AsJavaReadsIt
        } else {
            InvalidText::Refuse
        }
    }
}

/// Appends `bytes` as Java reads them to `text`; `false` (nothing appended) where the column
/// would outgrow Arrow's 32-bit offsets, as each malformed byte can grow to three.
pub fn append_decoded(text: &mut StringBuilder, bytes: &[u8]) -> bool {
    let value = decode(bytes);
    if text.values_slice().len() + value.len() > i32::MAX as usize {
        return false;
    }
    text.append_value(value);
    true
}

/// `bytes` as Java's `new String(bytes, UTF_8)` reads them: borrowed where they are UTF-8.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(decode_malformed(bytes)),
    }
}

/// `bytes`, which are not UTF-8, as Java reads them.
fn decode_malformed(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() + 2);
    decode_as_java(bytes, &mut text);
    text
}

/// Whether `bytes` are UTF-8, found at once for ASCII (most short texts), which is checked a
/// word at a time.
pub fn is_utf8(bytes: &[u8]) -> bool {
    bytes.is_ascii() || std::str::from_utf8(bytes).is_ok()
}

/// The UTF-8 bytes of [`decode`]`(bytes)`: borrowed where they are UTF-8 ([`is_utf8`]).
pub fn decode_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    if is_utf8(bytes) {
        Cow::Borrowed(bytes)
    } else {
        Cow::Owned(decode_malformed(bytes).into_bytes())
    }
}

fn is_continuation(b: u8) -> bool {
    b & 0xc0 == 0x80
}

/// An `E0` lead followed by a byte that makes the sequence an overlong form.
fn overlong3(b1: u8, b2: u8) -> bool {
    b1 == 0xe0 && b2 & 0xe0 == 0x80
}

/// A four-byte lead followed by a byte that cannot follow it.
fn bad_second_of_four(b1: u8, b2: u8) -> bool {
    (b1 == 0xf0 && !(0x90..=0xbf).contains(&b2))
        || (b1 == 0xf4 && b2 & 0xf0 != 0x80)
        || !is_continuation(b2)
}

fn payload(b: u8) -> u32 {
    u32::from(b & 0x3f)
}

/// Appends `bytes` as Java decodes them, one step of JDK 17's decoder per sequence.
fn decode_as_java(bytes: &[u8], out: &mut String) {
    let end = bytes.len();
    let mut at = 0;
    while at < end {
        let b1 = bytes[at];
        at += 1;
        match b1 {
            0x00..=0x7f => out.push(char::from(b1)),
            0xc2..=0xdf => {
                let Some(&b2) = bytes.get(at) else {
                    out.push(REPLACEMENT);
                    break;
                };
                if is_continuation(b2) {
                    at += 1;
                    let c = (u32::from(b1 & 0x1f) << 6) | payload(b2);
                    out.push(char::from_u32(c).unwrap_or(REPLACEMENT));
                } else {
                    // The byte after the lead starts the next sequence.
                    out.push(REPLACEMENT);
                }
            }
            0xe0..=0xef => {
                if at + 1 < end {
                    let (b2, b3) = (bytes[at], bytes[at + 1]);
                    if overlong3(b1, b2) || !is_continuation(b2) || !is_continuation(b3) {
                        out.push(REPLACEMENT);
                        // The malformed sequence is the lead alone, or the lead and its second
                        // byte where that one could follow it.
                        if !overlong3(b1, b2) && is_continuation(b2) {
                            at += 1;
                        }
                    } else {
                        at += 2;
                        let c = (u32::from(b1 & 0x0f) << 12) | (payload(b2) << 6) | payload(b3);
                        // A surrogate's three bytes are one malformed sequence.
                        out.push(char::from_u32(c).unwrap_or(REPLACEMENT));
                    }
                    continue;
                }
                out.push(REPLACEMENT);
                match bytes.get(at) {
                    Some(&b2) if overlong3(b1, b2) || !is_continuation(b2) => {}
                    // Cut short by the end: the rest is one malformed sequence.
                    _ => break,
                }
            }
            0xf0..=0xf7 => {
                if at + 2 < end {
                    let (b2, b3, b4) = (bytes[at], bytes[at + 1], bytes[at + 2]);
                    let c = (u32::from(b1 & 0x07) << 18)
                        | (payload(b2) << 12)
                        | (payload(b3) << 6)
                        | payload(b4);
                    let malformed = !is_continuation(b2)
                        || !is_continuation(b3)
                        || !is_continuation(b4)
                        || !(0x1_0000..=0x10_ffff).contains(&c);
                    if malformed {
                        out.push(REPLACEMENT);
                        // The lead alone; the lead and its second byte; or those and the third,
                        // as far as they could go on.
                        if b1 <= 0xf4 && !bad_second_of_four(b1, b2) {
                            at += if is_continuation(b3) { 2 } else { 1 };
                        }
                    } else {
                        at += 3;
                        out.push(char::from_u32(c).unwrap_or(REPLACEMENT));
                    }
                    continue;
                }
                out.push(REPLACEMENT);
                if b1 > 0xf4 || bytes.get(at).is_some_and(|&b2| bad_second_of_four(b1, b2)) {
                    continue;
                }
                // The lead and its second byte, cut short by the end (or by a third byte that
                // cannot go on, which starts the next sequence).
                at += 1;
                match bytes.get(at) {
                    Some(&b3) if !is_continuation(b3) => {}
                    _ => break,
                }
            }
            // A continuation byte without its lead, an overlong two-byte lead, or a lead of more
            // than four bytes.
            _ => out.push(REPLACEMENT),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn java(bytes: &[u8]) -> String {
        decode(bytes).into_owned()
    }

    const R: &str = "\u{FFFD}";

    #[test]
    fn utf8_is_borrowed_as_it_is() {
        let text = "plain, é, 中, 😀";
        assert!(matches!(decode(text.as_bytes()), Cow::Borrowed(t) if t == text));
        assert!(matches!(decode(b""), Cow::Borrowed("")));
        for text in [text, "ascii only, a little longer than one word", ""] {
            assert!(is_utf8(text.as_bytes()));
            assert!(
                matches!(decode_bytes(text.as_bytes()), Cow::Borrowed(b) if b == text.as_bytes())
            );
        }
    }

    #[test]
    fn malformed_sequences_end_where_java_ends_them() {
        let cases: &[(&[u8], String)] = &[
            // Stray bytes: each one.
            (b"a\x80b", format!("a{R}b")),
            (b"\xbf\xbf", format!("{R}{R}")),
            (b"\xc0\x80", format!("{R}{R}")),
            (b"\xc1\xbf", format!("{R}{R}")),
            (b"\xf8\x88\x80\x80\x80", R.repeat(5)),
            (b"\xff", R.to_string()),
            // Two bytes: the lead alone where the next cannot follow; cut short at the end.
            (b"\xc3x", format!("{R}x")),
            (b"\xc3\xc3\xa9", format!("{R}é")),
            (b"x\xc3", format!("x{R}")),
            // Three bytes.
            (b"\xe0\x80\x80", R.repeat(3)),
            (b"\xe0\xa0\x80", "\u{800}".to_string()),
            (b"\xe4\xb8x", format!("{R}x")),
            (b"\xe4x\xad", format!("{R}x{R}")),
            (b"\xed\xa0\x80", R.to_string()),
            (b"\xed\xbf\xbfz", format!("{R}z")),
            // A surrogate's first two bytes: one malformed sequence to Java, two to Rust.
            (b"\xed\xa0A", format!("{R}A")),
            (b"\xed\xa0", R.to_string()),
            (b"\xe4\xb8", R.to_string()),
            (b"\xe4", R.to_string()),
            (b"\xe4x", format!("{R}x")),
            (b"\xe0\x9f", format!("{R}{R}")),
            // Four bytes.
            (b"\xf0\x9f\x98\x80", "😀".to_string()),
            (b"\xf0\x8f\xbf\xbf", R.repeat(4)),
            (b"\xf4\x90\x80\x80", R.repeat(4)),
            (b"\xf5\x80\x80\x80", R.repeat(4)),
            (b"\xf0\x9f\x98x", format!("{R}x")),
            (b"\xf0\x9fxx", format!("{R}xx")),
            (b"\xf0\x9f\x98", R.to_string()),
            (b"\xf0\x9f", R.to_string()),
            (b"\xf0\x9fx", format!("{R}x")),
            (b"\xf0\x8f", format!("{R}{R}")),
            (b"\xf5\x80", format!("{R}{R}")),
            (b"\xf0", R.to_string()),
        ];
        for (bytes, expected) in cases {
            assert_eq!(&java(bytes), expected, "{bytes:x?}");
            assert!(!is_utf8(bytes) || std::str::from_utf8(bytes).is_ok());
            assert_eq!(&*decode_bytes(bytes), expected.as_bytes(), "{bytes:x?}");
        }
    }
}
