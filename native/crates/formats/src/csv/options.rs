//! The options of Flink's `csv` format, parsed and checked into [`CsvOptions`].

use crate::error::{FormatError, Result};
use crate::options::FormatOptions;

/// Every option key of Flink's `csv` format (without the `csv.` prefix).
pub const CSV_OPTION_KEYS: &[&str] = &[
    "field-delimiter",
    "disable-quote-character",
    "quote-character",
    "allow-comments",
    "ignore-parse-errors",
    "array-element-delimiter",
    "escape-character",
    "null-literal",
    "write-bigdecimal-in-scientific-notation",
];

/// The `csv` options, checked as Flink's `CsvCommons.validateFormatOptions` checks them.
#[derive(Debug, Clone)]
pub struct CsvOptions {
    pub field_delimiter: char,
    /// `None` when quoting is disabled.
    pub quote: Option<char>,
    pub allow_comments: bool,
    pub ignore_parse_errors: bool,
    pub array_element_delimiter: char,
    pub escape: Option<char>,
    pub null_literal: Option<String>,
    /// Flink applies this option only when it is set, and its writer defaults to plain decimals.
    pub scientific_decimals: bool,
}

impl CsvOptions {
    pub fn parse(options: &FormatOptions) -> Result<Self> {
        options.check_keys(CSV_OPTION_KEYS)?;
        let disable_quote = options.boolean("disable-quote-character", false)?;
        if disable_quote && options.string("quote-character").is_some() {
            return Err(FormatError::config(
                "Format cannot define a quote character and disabled quote character at the same time.",
            ));
        }
        let delimiter_text = options.string("field-delimiter").unwrap_or(",");
        let field_delimiter = single_char(
            "field-delimiter",
            &unescape_java(delimiter_text),
            delimiter_text,
        )?;
        let quote = if disable_quote {
            None
        } else {
            let q = options.string("quote-character").unwrap_or("\"");
            Some(single_char("quote-character", q, q)?)
        };
        let array_text = options.string("array-element-delimiter").unwrap_or(";");
        let array_element_delimiter =
            single_char("array-element-delimiter", array_text, array_text)?;
        let escape = match options.string("escape-character") {
            None => None,
            Some(e) => Some(single_char("escape-character", e, e)?),
        };
        Ok(Self {
            field_delimiter,
            quote,
            allow_comments: options.boolean("allow-comments", false)?,
            ignore_parse_errors: options.boolean("ignore-parse-errors", false)?,
            array_element_delimiter,
            escape,
            null_literal: options.string("null-literal").map(str::to_string),
            scientific_decimals: options
                .boolean("write-bigdecimal-in-scientific-notation", false)?,
        })
    }
}

fn single_char(key: &str, value: &str, raw: &str) -> Result<char> {
    let mut chars = value.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(FormatError::config(format!(
            "Option 'csv.{key}' must be a string with single character, but was: {raw}"
        ))),
    }
}

/// Java-style escapes in a delimiter (`\t`, `\n`, `\u0001`, ...), as Flink unescapes it.
fn unescape_java(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{0c}'),
            Some('b') => out.push('\u{08}'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}
