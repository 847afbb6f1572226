//! Base64 text of a BYTES value, as Flink's JSON and CSV formats read it through Jackson
//! (`JsonParser.getBinaryValue`, `JsonNode.binaryValue`): whitespace may stand between the
//! four-character units of the encoding, not inside one.

use base64::Engine;

/// The bytes `text` encodes, or why Jackson would not read it. Whitespace (ASCII, as Jackson skips
/// characters up to U+0020 there) is allowed only where a unit begins; elsewhere the value is
/// refused, as Jackson refuses it.
pub(crate) fn decode(text: &str) -> Result<Vec<u8>, String> {
    let mut compact = String::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        if c.is_ascii_whitespace() {
            if compact.len() % 4 != 0 {
                return Err(format!(
                    "illegal white space character (code 0x{:x}) at {at} inside a 4-character \
                     base64 unit",
                    c as u32
                ));
            }
        } else {
            compact.push(c);
        }
    }
    base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .map_err(|e| format!("invalid base64 value: {e}"))
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn whitespace_is_read_between_units_only() {
        assert_eq!(decode("AQID").unwrap(), vec![1, 2, 3]);
        assert_eq!(decode(" AQID\nBA==\t").unwrap(), vec![1, 2, 3, 4]);
        for inside in ["AQ ID", "AQ\tI=", "Q\nU\nJ\nD", "QUI =", "QUJD B A=="] {
            assert!(
                decode(inside).unwrap_err().contains("inside a 4-character"),
                "{inside}"
            );
        }
        assert!(decode("AQ!D").is_err());
    }
}
