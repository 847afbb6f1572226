//! A check of the Thrift (compact protocol) structures a file holds (its footer, its column and
//! offset indexes) before parquet-rs decodes them: parquet-rs reserves room for as many elements
//! as a list claims, so a corrupt count would be an allocation of any size (and an abort when it
//! fails). Here every list, set and map must fit the bytes left, every field must be complete,
//! and nesting is bounded; the walk reads each byte once and allocates nothing.

/// Deeper nesting than any Parquet structure has.
const MAX_DEPTH: usize = 64;

/// Checks that `bytes` begin with one complete, plausible Thrift struct; returns its length.
pub(crate) fn check_struct(bytes: &[u8]) -> Result<usize, String> {
    let mut walk = Walk { bytes, at: 0 };
    walk.structure(0)?;
    Ok(walk.at)
}

struct Walk<'a> {
    bytes: &'a [u8],
    at: usize,
}

// Compact protocol type ids.
const BOOLEAN_TRUE: u8 = 1;
const BOOLEAN_FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;
const UUID: u8 = 13;

impl Walk<'_> {
    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    fn byte(&mut self) -> Result<u8, String> {
        let byte = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| format!("ends inside a structure at byte {}", self.at))?;
        self.at += 1;
        Ok(byte)
    }

    fn skip(&mut self, count: usize) -> Result<(), String> {
        if count > self.left() {
            return Err(format!(
                "a value of {count} bytes at byte {} runs past the end ({} bytes)",
                self.at,
                self.bytes.len()
            ));
        }
        self.at += count;
        Ok(())
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = self.byte()?;
            if shift == 63 && byte > 1 {
                break;
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(format!("a varint longer than 64 bits at byte {}", self.at))
    }

    /// The element count of a list, set or map, checked against the bytes left: each element
    /// takes at least `least` bytes.
    fn count(&mut self, count: u64, least: usize) -> Result<usize, String> {
        let fits = usize::try_from(count)
            .ok()
            .filter(|count| count.saturating_mul(least) <= self.left());
        fits.ok_or_else(|| {
            format!(
                "a collection at byte {} claims {count} elements, more than the {} bytes left hold",
                self.at,
                self.left()
            )
        })
    }

    fn structure(&mut self, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "structures nested deeper than {MAX_DEPTH} at byte {}",
                self.at
            ));
        }
        loop {
            let header = self.byte()?;
            let kind = header & 0x0f;
            if kind == 0 {
                return Ok(());
            }
            if header >> 4 == 0 {
                // A field id that is not a delta: an i16, zigzag varint.
                self.varint()?;
            }
            // Booleans carry their value in the field header.
            if kind != BOOLEAN_TRUE && kind != BOOLEAN_FALSE {
                self.value(kind, depth)?;
            }
        }
    }

    fn value(&mut self, kind: u8, depth: usize) -> Result<(), String> {
        match kind {
            BOOLEAN_TRUE | BOOLEAN_FALSE | BYTE => self.skip(1),
            I16 | I32 | I64 => self.varint().map(|_| ()),
            DOUBLE => self.skip(8),
            UUID => self.skip(16),
            BINARY => {
                let length = self.varint()?;
                let length = usize::try_from(length).unwrap_or(usize::MAX);
                self.skip(length)
            }
            LIST | SET => {
                let header = self.byte()?;
                let element = header & 0x0f;
                let claimed = match header >> 4 {
                    15 => self.varint()?,
                    small => u64::from(small),
                };
                let count = self.count(claimed, least_bytes(element)?)?;
                for _ in 0..count {
                    self.value(element, depth + 1)?;
                }
                Ok(())
            }
            MAP => {
                let claimed = self.varint()?;
                if claimed == 0 {
                    return Ok(());
                }
                let types = self.byte()?;
                let (key, value) = (types >> 4, types & 0x0f);
                let count = self.count(claimed, least_bytes(key)? + least_bytes(value)?)?;
                for _ in 0..count {
                    self.value(key, depth + 1)?;
                    self.value(value, depth + 1)?;
                }
                Ok(())
            }
            STRUCT => self.structure(depth + 1),
            other => Err(format!("an unknown type {other} at byte {}", self.at)),
        }
    }
}

/// The fewest bytes an element of `kind` takes in a collection.
fn least_bytes(kind: u8) -> Result<usize, String> {
    match kind {
        BOOLEAN_TRUE | BOOLEAN_FALSE | BYTE | I16 | I32 | I64 | BINARY | LIST | SET | MAP
        | STRUCT => Ok(1),
        DOUBLE => Ok(8),
        UUID => Ok(16),
        other => Err(format!("a collection of an unknown type {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_structures_pass_and_their_length_is_returned() {
        // field 1: i32 = 150 (zigzag 300), field 2: list of 3 i64, field 3: binary "ab", stop.
        let bytes = [
            0x15, 0xac, 0x02, 0x19, 0x36, 0x02, 0x04, 0x06, 0x18, 0x02, b'a', b'b', 0x00, 0xff,
        ];
        assert_eq!(check_struct(&bytes), Ok(13));
    }

    #[test]
    fn a_list_claiming_more_elements_than_bytes_left_fails() {
        // field 1: list of i64 claiming 2^31 elements (long form), then nothing.
        let bytes = [0x19, 0xf6, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00];
        let error = check_struct(&bytes).err().unwrap_or_default();
        assert!(error.contains("claims 2147483648 elements"), "{error}");
    }

    #[test]
    fn truncated_and_unknown_input_fails() {
        assert!(check_struct(&[0x18, 0x05, b'a']).is_err());
        assert!(check_struct(&[0x1e, 0x00]).is_err());
        assert!(check_struct(&[]).is_err());
        let deep = vec![0x1c; 200];
        assert!(check_struct(&deep).is_err());
    }
}
