//! A batch of messages decoded at once, as a connector hands over a poll: one Arrow batch of
//! their rows, where each message's rows start in it, and which messages the decoder handed back.

use arrow::array::RecordBatch;

use crate::decoder::Decoder;
use crate::error::{FormatError, Result};

/// What [`decode_messages`] made of a batch of messages.
#[derive(Debug)]
pub struct DecodedMessages {
    /// Every row the messages gave, in message order.
    pub rows: RecordBatch,
    /// Message `i`'s rows are `row_starts[i]` up to `row_starts[i + 1]` of `rows`; one entry more
    /// than there were messages.
    pub row_starts: Vec<usize>,
    /// The messages handed back, by index: they gave no rows.
    pub deferred: Vec<usize>,
}

/// Decodes `messages` into one batch. A message the decoder fails on fails the whole batch, or,
/// when `defer` is set and the failure is the message's own (a decode error, not corrupt state),
/// gives no rows and is listed in [`DecodedMessages::deferred`] for the caller to decode another
/// way. The decoder is flushed even when a message fails, so a failed batch leaves no rows behind
/// for the next one; the error's position is the failing message's index.
pub fn decode_messages<'m>(
    decoder: &mut dyn Decoder,
    messages: impl IntoIterator<Item = Option<&'m [u8]>>,
    defer: bool,
) -> Result<DecodedMessages> {
    let mut row_starts = Vec::new();
    let mut deferred = Vec::new();
    let mut failure = None;
    for (index, message) in messages.into_iter().enumerate() {
        row_starts.push(decoder.pending_rows());
        match decoder.decode(message) {
            Err(FormatError::Decode { .. }) if defer => deferred.push(index),
            Err(e) => {
                failure = Some(e);
                break;
            }
            Ok(()) => {}
        }
    }
    row_starts.push(decoder.pending_rows());
    let rows = decoder.flush()?;
    match failure {
        Some(e) => Err(e),
        None => Ok(DecodedMessages {
            rows,
            row_starts,
            deferred,
        }),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::datatypes::{DataType, Field, Schema};

    use super::*;
    use crate::options::FormatOptions;
    use crate::registry::create_decoder;

    fn decoder(ignore_parse_errors: bool) -> Box<dyn Decoder> {
        let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
        let options = if ignore_parse_errors {
            FormatOptions::new(
                "json",
                [("ignore-parse-errors".to_string(), "true".to_string())],
            )
        } else {
            FormatOptions::default()
        };
        create_decoder("json", schema.clone(), schema, &options).expect("a json decoder")
    }

    #[test]
    fn rows_start_where_each_message_begins_and_deferred_messages_give_none() -> Result<()> {
        let mut json = decoder(false);
        let messages: [Option<&[u8]>; 4] = [
            Some(br#"{"id": 1}"#),
            None,
            Some(b"{not json"),
            Some(br#"{"id": 4}"#),
        ];
        let decoded = decode_messages(&mut *json, messages, true)?;
        assert_eq!(decoded.rows.num_rows(), 2);
        assert_eq!(decoded.row_starts, vec![0, 1, 1, 1, 2]);
        assert_eq!(decoded.deferred, vec![2]);
        Ok(())
    }

    #[test]
    fn a_failing_message_fails_the_batch_and_leaves_nothing_behind() -> Result<()> {
        let mut json = decoder(false);
        let messages: [Option<&[u8]>; 3] = [
            Some(br#"{"id": 1}"#),
            Some(b"{not json"),
            Some(br#"{"id": 3}"#),
        ];
        match decode_messages(&mut *json, messages, false) {
            Err(FormatError::Decode { position, .. }) => assert_eq!(position, 1),
            other => panic!("expected the second message to fail, got {other:?}"),
        }
        assert_eq!(json.pending_rows(), 0);
        let next = decode_messages(&mut *json, [Some(&br#"{"id": 5}"#[..])], false)?;
        assert_eq!(next.rows.num_rows(), 1);
        Ok(())
    }

    #[test]
    fn skipped_messages_are_the_decoders_business() -> Result<()> {
        let mut json = decoder(true);
        let messages: [Option<&[u8]>; 2] = [Some(b"{not json"), Some(br#"{"id": 2}"#)];
        let decoded = decode_messages(&mut *json, messages, true)?;
        assert_eq!(decoded.row_starts, vec![0, 0, 1]);
        assert!(decoded.deferred.is_empty());
        assert_eq!(json.skipped(), 1);
        Ok(())
    }
}
