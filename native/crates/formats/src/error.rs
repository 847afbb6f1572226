//! Errors of decoders and encoders.

use arrow::error::ArrowError;

/// A decode, encode or configuration failure, named in the user's terms.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// A format option or the table schema is not usable; the message names it.
    #[error("{0}")]
    Config(String),
    /// A message could not be decoded. `position` is its index among the messages fed since
    /// the last flush.
    #[error("{reason}")]
    Decode { position: usize, reason: String },
    /// A message that cannot be read, and that Flink's own format would not read either given
    /// the messages before it (state a format carries between messages), so it is never handed
    /// back to Flink's format; otherwise as `Decode`.
    #[error("{reason}")]
    Corrupt { position: usize, reason: String },
    /// A row could not be encoded; `row` is its index in the batch.
    #[error("row {row}: {reason}")]
    Encode { row: usize, reason: String },
    /// Arrow rejected the data built (a bug, or a batch too large for one array).
    #[error(transparent)]
    Arrow(#[from] ArrowError),
}

pub type Result<T> = std::result::Result<T, FormatError>;

impl FormatError {
    pub fn config(message: impl Into<String>) -> Self {
        FormatError::Config(message.into())
    }
}
