//! Keyed exchanges of batches: the rows of a batch split by key into one batch per target subtask.
//!
//! A row's key (the values of some columns) is hashed, the hash spread into a key group as Flink's
//! `KeyGroupRangeAssignment` spreads a key's `hashCode()` (its murmur finalizer, modulo the max
//! parallelism), and the key group sent to the subtask whose key-group range holds it. So every
//! row of one key reaches one subtask, and a subtask owns whole key groups as Flink's keyed
//! operators do, which is what lets such operators rescale.
//!
//! The key's hash is computed over arrow-rs's row format of the key columns. That encoding is not
//! promised to stay the same across arrow-rs versions: the receivers of today's exchanges keep no
//! state by key, so a route only has to hold within a running job. Before keyed state sits behind
//! this exchange (and so must find its key group again after an upgrade), the hash has to move to
//! an encoding of the values that this crate owns.

use arrow::array::{ArrayRef, RecordBatch, UInt32Array};
use arrow::compute::take_record_batch;
use arrow::error::ArrowError;
use arrow::row::{RowConverter, SortField};

/// How a batch's rows are spread over the subtasks that receive them.
#[derive(Debug, Clone, Copy)]
pub struct KeyGroups {
    parallelism: u32,
    max_parallelism: u32,
}

/// The rows of one batch for one receiving subtask.
#[derive(Debug)]
pub struct Part {
    /// The receiving subtask, `0..parallelism`.
    pub channel: u32,
    /// The first key group of the channel's range: where the part goes when the receivers run at
    /// another parallelism than the one it was split for.
    pub key_group: u32,
    pub rows: RecordBatch,
}

impl KeyGroups {
    /// Routing to `parallelism` subtasks of `max_parallelism` key groups (Flink's rule: at least
    /// one subtask, and no more subtasks than key groups).
    pub fn try_new(parallelism: u32, max_parallelism: u32) -> Result<Self, ArrowError> {
        if parallelism == 0 || max_parallelism < parallelism {
            return Err(ArrowError::InvalidArgumentError(format!(
                "a keyed exchange needs 1 <= parallelism <= max parallelism, not {parallelism} and {max_parallelism}"
            )));
        }
        Ok(KeyGroups {
            parallelism,
            max_parallelism,
        })
    }

    /// The key group of a key whose hash is `hash`, as Flink computes it from a `hashCode()`.
    pub fn key_group(&self, hash: i32) -> u32 {
        murmur(hash) % self.max_parallelism
    }

    /// The subtask owning `key_group` (Flink's `computeOperatorIndexForKeyGroup`).
    pub fn channel(&self, key_group: u32) -> u32 {
        let channel =
            u64::from(key_group) * u64::from(self.parallelism) / u64::from(self.max_parallelism);
        // Below `parallelism` since `key_group < max_parallelism`.
        channel as u32
    }

    /// The first key group `channel` owns (Flink's `computeKeyGroupRangeForOperatorIndex`).
    pub fn first_key_group(&self, channel: u32) -> u32 {
        let p = u64::from(self.parallelism);
        let max = u64::from(self.max_parallelism);
        ((u64::from(channel) * max).div_ceil(p)) as u32
    }

    /// `batch` split by the key `keys` gives each of its rows (columns of the batch's length): one
    /// part per subtask that receives rows, in subtask order, each holding its rows in their order.
    /// A batch whose rows all go to one subtask is that part whole, not copied.
    pub fn split(&self, batch: &RecordBatch, keys: &[ArrayRef]) -> Result<Vec<Part>, ArrowError> {
        let rows = batch.num_rows();
        if rows == 0 {
            return Ok(Vec::new());
        }
        let channels = self.channels(keys, rows)?;
        let mut counts = vec![0usize; self.parallelism as usize];
        for &c in &channels {
            counts[c as usize] += 1;
        }
        let part = |channel: u32, rows: RecordBatch| Part {
            channel,
            key_group: self.first_key_group(channel),
            rows,
        };
        if let Some(only) = counts.iter().position(|&n| n == rows) {
            return Ok(vec![part(only as u32, batch.clone())]);
        }
        let mut indices: Vec<Vec<u32>> = counts.iter().map(|&n| Vec::with_capacity(n)).collect();
        for (row, &c) in channels.iter().enumerate() {
            let row = u32::try_from(row).map_err(|_| {
                ArrowError::InvalidArgumentError(format!("a batch of {rows} rows is split"))
            })?;
            indices[c as usize].push(row);
        }
        indices
            .into_iter()
            .enumerate()
            .filter(|(_, rows)| !rows.is_empty())
            .map(|(channel, rows)| {
                take_record_batch(batch, &UInt32Array::from(rows))
                    .map(|rows| part(channel as u32, rows))
            })
            .collect()
    }

    /// Each row's subtask, from the hash of its key.
    fn channels(&self, keys: &[ArrayRef], rows: usize) -> Result<Vec<u32>, ArrowError> {
        if keys.is_empty() {
            return Err(ArrowError::InvalidArgumentError(
                "a keyed exchange needs at least one key column".to_string(),
            ));
        }
        if let Some(key) = keys.iter().find(|key| key.len() != rows) {
            return Err(ArrowError::InvalidArgumentError(format!(
                "a key column of {} rows for a batch of {rows}",
                key.len()
            )));
        }
        let converter = RowConverter::new(
            keys.iter()
                .map(|key| SortField::new(key.data_type().clone()))
                .collect(),
        )?;
        let encoded = converter.convert_columns(keys)?;
        Ok(encoded
            .iter()
            .map(|row| self.channel(self.key_group(fnv1a(row.as_ref()))))
            .collect())
    }
}

/// FNV-1a over `bytes`, as a Java `int`.
fn fnv1a(bytes: &[u8]) -> i32 {
    let mut hash: u32 = 0x811c_9dc5;
    for &b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash as i32
}

/// Flink's `MathUtils.murmurHash(int)`: a non-negative spread of `code`.
fn murmur(code: i32) -> u32 {
    let mut code = code as u32;
    code = code.wrapping_mul(0xcc9e_2d51);
    code = code.rotate_left(15);
    code = code.wrapping_mul(0x1b87_3593);
    code = code.rotate_left(13);
    code = code.wrapping_mul(5).wrapping_add(0xe654_6b64);
    code ^= 4;
    code ^= code >> 16;
    code = code.wrapping_mul(0x85eb_ca6b);
    code ^= code >> 13;
    code = code.wrapping_mul(0xc2b2_ae35);
    code ^= code >> 16;
    let signed = code as i32;
    if signed >= 0 {
        signed as u32
    } else if signed != i32::MIN {
        signed.unsigned_abs()
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Arc;

    use arrow::array::{Array, AsArray, Int32Array, StringArray};
    use arrow::datatypes::{DataType, Field, Int32Type, Schema};

    use super::*;

    #[test]
    fn murmur_is_flinks() {
        // MathUtils.murmurHash of Flink 2.2.1 for the same inputs.
        assert_eq!(murmur(0), 593_689_054);
        assert_eq!(murmur(42), 1_134_849_565);
        assert_eq!(murmur(-1), 1_982_413_648);
        assert_eq!(murmur(i32::MIN), 1_718_298_732);
        assert_eq!(murmur(123_456_789), 1_088_346_449);
    }

    #[test]
    fn key_group_ranges_are_flinks() {
        let groups = KeyGroups::try_new(3, 128).unwrap();
        // KeyGroupRangeAssignment: subtask 1 of 3 owns key groups 43..=85.
        assert_eq!(groups.first_key_group(1), 43);
        assert_eq!(groups.channel(42), 0);
        assert_eq!(groups.channel(43), 1);
        assert_eq!(groups.channel(85), 1);
        assert_eq!(groups.channel(86), 2);
        for channel in 0..3 {
            assert_eq!(groups.channel(groups.first_key_group(channel)), channel);
        }
    }

    #[test]
    fn bad_parallelisms_are_refused() {
        assert!(KeyGroups::try_new(0, 128).is_err());
        assert!(KeyGroups::try_new(4, 2).is_err());
    }

    fn batch() -> RecordBatch {
        let keys: Vec<Option<&str>> = (0..200)
            .map(|i| match i % 7 {
                0 => None,
                k => Some(["a", "b", "c", "d", "e", "f"][k - 1]),
            })
            .collect();
        RecordBatch::try_new(
            Arc::new(Schema::new(vec![
                Field::new("id", DataType::Int32, false),
                Field::new("key", DataType::Utf8, true),
            ])),
            vec![
                Arc::new(Int32Array::from_iter_values(0..200)),
                Arc::new(StringArray::from(keys)),
            ],
        )
        .unwrap()
    }

    #[test]
    fn each_key_goes_to_one_subtask_and_every_row_once_in_order() {
        let batch = batch();
        let groups = KeyGroups::try_new(3, 128).unwrap();
        let parts = groups
            .split(&batch, &[Arc::clone(batch.column(1))])
            .unwrap();
        assert!(parts.len() > 1, "seven keys over three subtasks");
        let mut seen = vec![false; batch.num_rows()];
        let mut owner: HashMap<Option<String>, u32> = HashMap::new();
        let mut channels = Vec::new();
        for part in &parts {
            channels.push(part.channel);
            assert_eq!(part.key_group, groups.first_key_group(part.channel));
            let ids = part.rows.column(0).as_primitive::<Int32Type>();
            let keys = part.rows.column(1).as_string::<i32>();
            let mut last = -1;
            for i in 0..part.rows.num_rows() {
                let id = ids.value(i);
                assert!(id > last, "rows keep their order");
                last = id;
                assert!(!seen[id as usize], "row {id} twice");
                seen[id as usize] = true;
                let key = keys.is_valid(i).then(|| keys.value(i).to_string());
                let at = *owner.entry(key.clone()).or_insert(part.channel);
                assert_eq!(at, part.channel, "key {key:?} on two subtasks");
            }
        }
        assert!(seen.iter().all(|&s| s), "every row routed");
        assert!(
            channels.windows(2).all(|w| w[0] < w[1]),
            "parts in subtask order"
        );
        // The same keys reach the same subtasks from another batch (other rows, other order).
        let other: Vec<Option<&str>> = vec![Some("f"), None, Some("c"), Some("a"), Some("e")];
        let other = RecordBatch::try_new(
            batch.schema(),
            vec![
                Arc::new(Int32Array::from_iter_values(0..5)),
                Arc::new(StringArray::from(other)),
            ],
        )
        .unwrap();
        for part in groups
            .split(&other, &[Arc::clone(other.column(1))])
            .unwrap()
        {
            let keys = part.rows.column(1).as_string::<i32>();
            for i in 0..part.rows.num_rows() {
                let key = keys.is_valid(i).then(|| keys.value(i).to_string());
                assert_eq!(owner[&key], part.channel, "key {key:?} moved");
            }
        }
    }

    #[test]
    fn one_subtask_takes_the_batch_whole() {
        let batch = batch();
        let parts = KeyGroups::try_new(1, 128)
            .unwrap()
            .split(&batch, &[Arc::clone(batch.column(1))])
            .unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].channel, 0);
        assert_eq!(parts[0].rows, batch);
        let empty = batch.slice(0, 0);
        assert!(
            KeyGroups::try_new(2, 128)
                .unwrap()
                .split(&empty, &[Arc::clone(empty.column(1))])
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn keys_must_match_the_batch() {
        let batch = batch();
        let groups = KeyGroups::try_new(2, 128).unwrap();
        assert!(groups.split(&batch, &[]).is_err());
        let short = batch.column(1).slice(0, 3);
        assert!(groups.split(&batch, &[short]).is_err());
    }
}
