//! The order in which a `java.util.HashMap` iterates its keys, reproduced so that map entries are
//! written in the order Flink's protobuf serializer writes them (it collects a row's map into a
//! `new HashMap<>()` before handing it to the message builder, which keeps that order).
//!
//! The table starts with 16 buckets and doubles when it holds more than three quarters of its
//! capacity, or when one bucket collects a ninth key while the table is smaller than 64 buckets.
//! A bucket is `spread(hashCode) & (capacity - 1)` and keeps its keys in insertion order through
//! every resize; a repeated key keeps its place and takes the new value. Iteration is bucket by
//! bucket. One case is not reproduced: a bucket that turns into a tree (nine colliding keys in a
//! table of 64 buckets or more) orders some of its keys by the tree's shape; its keys are still
//! all written, in insertion order.

/// A map key as Java holds it: `Integer`, `Long`, `Boolean` or `String`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JavaKey<'a> {
    Int(i32),
    Long(i64),
    Boolean(bool),
    String(&'a str),
}

impl JavaKey<'_> {
    /// `hashCode()` of the boxed key.
    fn hash_code(&self) -> i32 {
        match self {
            JavaKey::Int(v) => *v,
            JavaKey::Long(v) => (*v ^ ((*v as u64) >> 32) as i64) as i32,
            JavaKey::Boolean(true) => 1231,
            JavaKey::Boolean(false) => 1237,
            JavaKey::String(s) => s.encode_utf16().fold(0i32, |h, unit| {
                h.wrapping_mul(31).wrapping_add(i32::from(unit))
            }),
        }
    }

    /// `HashMap.hash(key)`: the high half folded into the low one.
    fn spread(&self) -> u32 {
        let h = self.hash_code() as u32;
        h ^ (h >> 16)
    }
}

const INITIAL_CAPACITY: usize = 16;
/// A bucket this long becomes a tree, or makes a smaller table grow.
const TREEIFY_LENGTH: usize = 9;
const MIN_TREEIFY_CAPACITY: usize = 64;

/// Puts `keys` into a simulated `HashMap` in order and returns, in iteration order, each distinct
/// key's first index and the index of its last occurrence (whose value the map keeps).
pub(super) fn iteration_order(keys: &[JavaKey<'_>]) -> Vec<(usize, usize)> {
    // Entries are (spread hash, first index, last index); buckets hold entry indices.
    let mut entries: Vec<(u32, usize, usize)> = Vec::with_capacity(keys.len());
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); INITIAL_CAPACITY];
    for (index, key) in keys.iter().enumerate() {
        let hash = key.spread();
        let bucket = hash as usize & (buckets.len() - 1);
        let found = buckets[bucket]
            .iter()
            .copied()
            .find(|&e| entries[e].0 == hash && keys[entries[e].1] == *key);
        if let Some(e) = found {
            entries[e].2 = index;
            continue;
        }
        buckets[bucket].push(entries.len());
        entries.push((hash, index, index));
        if buckets[bucket].len() >= TREEIFY_LENGTH && buckets.len() < MIN_TREEIFY_CAPACITY {
            buckets = resized(&buckets, &entries);
        }
        if entries.len() > buckets.len() / 4 * 3 {
            buckets = resized(&buckets, &entries);
        }
    }
    buckets
        .iter()
        .flatten()
        .map(|&e| (entries[e].1, entries[e].2))
        .collect()
}

/// The table at twice the capacity: each bucket splits into itself and its partner `capacity`
/// higher, keeping the order of its keys.
fn resized(buckets: &[Vec<usize>], entries: &[(u32, usize, usize)]) -> Vec<Vec<usize>> {
    let capacity = buckets.len() * 2;
    let mut grown = vec![Vec::new(); capacity];
    for bucket in buckets {
        for &e in bucket {
            grown[entries[e].0 as usize & (capacity - 1)].push(e);
        }
    }
    grown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order_of(keys: &[JavaKey<'_>]) -> Vec<usize> {
        iteration_order(keys).into_iter().map(|(k, _)| k).collect()
    }

    #[test]
    fn hash_codes_are_javas() {
        assert_eq!(JavaKey::String("").hash_code(), 0);
        assert_eq!(JavaKey::String("hello").hash_code(), 99_162_322);
        // Supplementary characters hash as their two UTF-16 units.
        assert_eq!(JavaKey::String("😀").hash_code(), 1_772_899);
        assert_eq!(JavaKey::Long(-1).hash_code(), 0);
        assert_eq!(JavaKey::Long(1 << 32).hash_code(), 1);
        assert_eq!(JavaKey::Int(-5).hash_code(), -5);
    }

    #[test]
    fn strings_iterate_as_java_hash_map_does() {
        // new HashMap<>() with zz, a, mm, b put in that order iterates zz, mm, a, b.
        let keys = ["zz", "a", "mm", "b"].map(JavaKey::String);
        assert_eq!(order_of(&keys), vec![0, 2, 1, 3]);
    }

    #[test]
    fn repeated_keys_keep_their_place_and_take_the_last_value() {
        let keys = [JavaKey::Int(3), JavaKey::Int(1), JavaKey::Int(3)];
        assert_eq!(iteration_order(&keys), vec![(1, 1), (0, 2)]);
    }

    #[test]
    fn growth_reorders_by_the_larger_table() {
        // 13 keys exceed 16 * 0.75: in 32 buckets 32 shares bucket 0 and 36 bucket 4, where
        // 16 buckets would have put 16, 32 and 48 together in bucket 0.
        let keys: Vec<JavaKey<'_>> = (0..13).map(|i| JavaKey::Int(i * 4)).collect();
        let values: Vec<i32> = order_of(&keys).iter().map(|&i| i as i32 * 4).collect();
        assert_eq!(
            values,
            vec![0, 32, 4, 36, 8, 40, 12, 44, 16, 48, 20, 24, 28]
        );
        let small: Vec<JavaKey<'_>> = [40, 1, 33].map(JavaKey::Int).to_vec();
        // 16 buckets: 40 -> 8, 1 -> 1, 33 -> 1.
        assert_eq!(order_of(&small), vec![1, 2, 0]);
    }

    #[test]
    fn a_crowded_bucket_grows_a_small_table() {
        // Nine keys in bucket 0 of 16 grow the table to 32 (0, 32, 64, ... stay in bucket 0;
        // 16, 48, ... move to bucket 16).
        let keys: Vec<JavaKey<'_>> = (0..9).map(|i| JavaKey::Int(i * 16)).collect();
        let values: Vec<i32> = order_of(&keys).iter().map(|&i| i as i32 * 16).collect();
        assert_eq!(values, vec![0, 32, 64, 96, 128, 16, 48, 80, 112]);
    }
}
