//! The records of one poll, owned: the consumer's messages are released as soon as their bytes
//! are copied here, so nothing of librdkafka's stays borrowed between calls.

use crate::raw::RawMessage;

/// Which part of a record a decoder reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Value,
    Key,
}

/// Byte strings, each present or null, stored back to back.
#[derive(Debug, Default)]
struct Blobs {
    data: Vec<u8>,
    /// Per entry: its range in `data`, or `None` for a null entry.
    ranges: Vec<Option<(usize, usize)>>,
}

impl Blobs {
    fn push(&mut self, bytes: Option<&[u8]>) {
        self.ranges.push(bytes.map(|b| {
            let start = self.data.len();
            self.data.extend_from_slice(b);
            (start, self.data.len())
        }));
    }

    fn len(&self) -> usize {
        self.ranges.len()
    }

    fn get(&self, i: usize) -> Option<&[u8]> {
        let (start, end) = self.ranges.get(i).copied().flatten()?;
        self.data.get(start..end)
    }

    fn clear(&mut self) {
        self.data.clear();
        self.ranges.clear();
    }
}

/// One header of a record.
#[derive(Debug)]
pub struct Header {
    pub key: String,
    pub value: Option<Vec<u8>>,
}

/// The records of one poll. Until [`Poll::group`] they are in arrival order; after it, grouped by
/// split (in the order splits first appeared), each split's records in offset order.
#[derive(Debug, Default)]
pub struct Poll {
    splits: Vec<u32>,
    offsets: Vec<i64>,
    timestamps: Vec<i64>,
    timestamp_kinds: Vec<u8>,
    leader_epochs: Vec<i32>,
    values: Blobs,
    keys: Blobs,
    /// Per record, where its headers start in `headers`; one more entry than records.
    header_starts: Vec<usize>,
    headers: Vec<Header>,
    /// Record indices in split order.
    order: Vec<usize>,
    bytes: u64,
}

impl Poll {
    pub(crate) fn clear(&mut self) {
        self.splits.clear();
        self.offsets.clear();
        self.timestamps.clear();
        self.timestamp_kinds.clear();
        self.leader_epochs.clear();
        self.values.clear();
        self.keys.clear();
        self.header_starts.clear();
        self.headers.clear();
        self.order.clear();
        self.bytes = 0;
    }

    pub(crate) fn push(&mut self, split: u32, message: &RawMessage, keys: bool, headers: bool) {
        self.splits.push(split);
        self.offsets.push(message.offset());
        let (timestamp, kind) = message.timestamp();
        self.timestamps.push(timestamp);
        self.timestamp_kinds.push(kind as u8);
        self.leader_epochs.push(message.leader_epoch());
        let value = message.payload();
        self.bytes += value.map_or(0, |v| v.len() as u64);
        self.values.push(value);
        let key = message.key();
        self.bytes += key.map_or(0, |k| k.len() as u64);
        if keys {
            self.keys.push(key);
        }
        if headers {
            if self.header_starts.is_empty() {
                self.header_starts.push(0);
            }
            message.headers(|key, value| {
                self.headers.push(Header {
                    key: key.to_string(),
                    value: value.map(<[u8]>::to_vec),
                })
            });
            self.header_starts.push(self.headers.len());
        }
    }

    /// Orders the records by split, keeping each split's records in arrival (offset) order.
    pub(crate) fn group(&mut self) {
        let mut first_seen: Vec<(u32, usize)> = Vec::new();
        for (i, split) in self.splits.iter().enumerate() {
            if !first_seen.iter().any(|(s, _)| s == split) {
                first_seen.push((*split, i));
            }
        }
        let rank = |split: u32| {
            first_seen
                .iter()
                .position(|(s, _)| *s == split)
                .unwrap_or(usize::MAX)
        };
        self.order = (0..self.splits.len()).collect();
        self.order.sort_by_key(|&i| rank(self.splits[i]));
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Bytes of values and keys, as they came from the broker.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Consecutive runs of records of one split: `(split, count)`.
    pub fn runs(&self) -> Vec<(u32, usize)> {
        let mut runs: Vec<(u32, usize)> = Vec::new();
        for &i in &self.order {
            let split = self.splits[i];
            match runs.last_mut() {
                Some((s, count)) if *s == split => *count += 1,
                _ => runs.push((split, 1)),
            }
        }
        runs
    }

    pub fn offsets(&self) -> impl Iterator<Item = i64> + '_ {
        self.order.iter().map(|&i| self.offsets[i])
    }

    pub fn timestamps(&self) -> impl Iterator<Item = i64> + '_ {
        self.order.iter().map(|&i| self.timestamps[i])
    }

    pub fn timestamp_kinds(&self) -> impl Iterator<Item = u8> + '_ {
        self.order.iter().map(|&i| self.timestamp_kinds[i])
    }

    /// Leader epochs, -1 where the broker gave none.
    pub fn leader_epochs(&self) -> impl Iterator<Item = i32> + '_ {
        self.order.iter().map(|&i| self.leader_epochs[i])
    }

    /// The values or keys, `None` for a null one. Keys are empty unless the consumer reads them.
    pub fn messages(&self, part: Part) -> impl Iterator<Item = Option<&[u8]>> + '_ {
        let blobs = match part {
            Part::Value => &self.values,
            Part::Key => &self.keys,
        };
        self.order
            .iter()
            .filter(move |&&i| i < blobs.len())
            .map(move |&i| blobs.get(i))
    }

    /// The value or key of record `i` (in poll order), `None` for a null one or past the end.
    pub fn message(&self, part: Part, i: usize) -> Option<&[u8]> {
        let blobs = match part {
            Part::Value => &self.values,
            Part::Key => &self.keys,
        };
        self.order.get(i).and_then(|&i| blobs.get(i))
    }

    /// The headers of each record; empty unless the consumer reads them.
    pub fn headers(&self) -> impl Iterator<Item = &[Header]> + '_ {
        self.order.iter().filter_map(move |&i| {
            let start = *self.header_starts.get(i)?;
            let end = *self.header_starts.get(i + 1)?;
            Some(&self.headers[start..end])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_keep_nulls_and_empties_apart() {
        let mut blobs = Blobs::default();
        blobs.push(Some(b"ab"));
        blobs.push(None);
        blobs.push(Some(b""));
        blobs.push(Some(b"c"));
        assert_eq!(blobs.get(0), Some(&b"ab"[..]));
        assert_eq!(blobs.get(1), None);
        assert_eq!(blobs.get(2), Some(&b""[..]));
        assert_eq!(blobs.get(3), Some(&b"c"[..]));
    }
}
