//! Format options as Flink spells them: one typed parser per format reads the table's option
//! map (keys without the format prefix, such as `ignore-parse-errors`), applies Flink's defaults,
//! and rejects unknown keys and bad values with Flink's messages.

use std::collections::BTreeMap;

use crate::error::{FormatError, Result};

/// Options of one format, keyed without the format's prefix.
#[derive(Debug, Clone, Default)]
pub struct FormatOptions {
    format: String,
    values: BTreeMap<String, String>,
}

impl FormatOptions {
    pub fn new(format: &str, pairs: impl IntoIterator<Item = (String, String)>) -> Self {
        Self {
            format: format.to_string(),
            values: pairs.into_iter().collect(),
        }
    }

    /// Fails on a key this format does not know.
    pub fn check_keys(&self, known: &[&str]) -> Result<()> {
        for key in self.values.keys() {
            if !known.contains(&key.as_str()) {
                return Err(FormatError::config(format!(
                    "Unsupported option '{}.{}' for format '{}'. Supported options: {}.",
                    self.format,
                    key,
                    self.format,
                    known
                        .iter()
                        .map(|k| format!("{}.{k}", self.format))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        Ok(())
    }

    pub fn string(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }

    /// A boolean option, `true`/`false` in any case, as Flink's configuration parses it.
    pub fn boolean(&self, key: &str, default: bool) -> Result<bool> {
        match self.values.get(key) {
            None => Ok(default),
            Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
            Some(v) => Err(FormatError::config(format!(
                "Invalid value for option '{key}'. Could not parse value '{v}' for key '{key}': \
                 expected either true or false (case insensitive)."
            ))),
        }
    }
}
