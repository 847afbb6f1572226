//! The options of Flink's `json` format, parsed and checked: [`JsonDecodeOptions`] for reading,
//! [`JsonEncodeOptions`] for writing.

use crate::error::{FormatError, Result};
use crate::options::FormatOptions;
use crate::temporal::TimestampStandard;

/// Every option key of Flink's `json` format (without the `json.` prefix).
pub const JSON_OPTION_KEYS: &[&str] = &[
    "fail-on-missing-field",
    "ignore-parse-errors",
    "timestamp-format.standard",
    "map-null-key.mode",
    "map-null-key.literal",
    "encode.decimal-as-plain-number",
    "encode.ignore-null-fields",
    "decode.json-parser.enabled",
];

/// What the decoder reads of the `json` options.
#[derive(Debug, Clone, Copy)]
pub struct JsonDecodeOptions {
    pub fail_on_missing_field: bool,
    pub ignore_parse_errors: bool,
    pub timestamp_standard: TimestampStandard,
}

impl JsonDecodeOptions {
    pub fn parse(options: &FormatOptions) -> Result<Self> {
        options.check_keys(JSON_OPTION_KEYS)?;
        let fail_on_missing_field = options.boolean("fail-on-missing-field", false)?;
        let ignore_parse_errors = options.boolean("ignore-parse-errors", false)?;
        if fail_on_missing_field && ignore_parse_errors {
            return Err(FormatError::config(
                "fail-on-missing-field and ignore-parse-errors shouldn't both be true.",
            ));
        }
        // With it off, Flink reads through Jackson's tree model, which spells some values
        // differently (a number read as STRING as Java prints it, a FLOAT through a double).
        if !options.boolean("decode.json-parser.enabled", true)? {
            return Err(FormatError::config(
                "'json.decode.json-parser.enabled' = 'false' (Flink's tree-model decoder) is not decoded natively",
            ));
        }
        Ok(Self {
            fail_on_missing_field,
            ignore_parse_errors,
            timestamp_standard: timestamp_standard(options)?,
        })
    }
}

pub(crate) fn timestamp_standard(options: &FormatOptions) -> Result<TimestampStandard> {
    match options.string("timestamp-format.standard") {
        None | Some("SQL") => Ok(TimestampStandard::Sql),
        Some("ISO-8601") => Ok(TimestampStandard::Iso8601),
        Some(other) => Err(FormatError::config(format!(
            "Unsupported value '{other}' for timestamp-format.standard. Supported values are [SQL, ISO-8601]."
        ))),
    }
}

/// How a NULL map key is written (`json.map-null-key.mode`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapNullKeyMode {
    Fail,
    Drop,
    Literal(String),
}

/// What the encoder reads of the `json` options.
#[derive(Debug, Clone)]
pub struct JsonEncodeOptions {
    pub timestamp_standard: TimestampStandard,
    pub map_null_key: MapNullKeyMode,
    pub decimal_as_plain_number: bool,
    pub ignore_null_fields: bool,
}

impl JsonEncodeOptions {
    pub fn parse(options: &FormatOptions) -> Result<Self> {
        options.check_keys(JSON_OPTION_KEYS)?;
        let literal = options.string("map-null-key.literal").unwrap_or("null");
        let map_null_key = match options
            .string("map-null-key.mode")
            .unwrap_or("FAIL")
            .to_uppercase()
            .as_str()
        {
            "FAIL" => MapNullKeyMode::Fail,
            "DROP" => MapNullKeyMode::Drop,
            "LITERAL" => MapNullKeyMode::Literal(literal.to_string()),
            _ => {
                return Err(FormatError::config(format!(
                    "Unsupported value '{}' for option map-null-key.mode. Supported values are [LITERAL, FAIL, DROP].",
                    options.string("map-null-key.mode").unwrap_or_default()
                )));
            }
        };
        Ok(Self {
            timestamp_standard: timestamp_standard(options)?,
            map_null_key,
            decimal_as_plain_number: options.boolean("encode.decimal-as-plain-number", false)?,
            ignore_null_fields: options.boolean("encode.ignore-null-fields", false)?,
        })
    }
}
