//! Avro binary primitives read as Avro Java's `BinaryDecoder` reads them.

/// Bytes Avro Java's buffered binary decoder reads from its input at a time
/// (`DecoderFactory.DEFAULT_BUFFER_SIZE`).
const JAVA_DECODER_BUFFER: usize = 8192;

/// Reads one Avro binary datum, primitive by primitive as Avro Java's `BinaryDecoder` reads it.
///
/// A buffered reader also follows what that decoder holds in its buffer: Flink's formats keep one
/// decoder for every message, and bytes a datum leaves unread in its buffer are read as the start
/// of the next message's datum. The stream is those bytes followed by the message; `window` is
/// the end of what the decoder has loaded, which a primitive needing more than is left loaded
/// moves up to [`JAVA_DECODER_BUFFER`] bytes past the read position.
pub(crate) struct AvroReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The end of the loaded bytes, for a buffered reader; `None` reads `bytes` as one buffer.
    window: Option<usize>,
}

type Read<T> = std::result::Result<T, String>;

const END: &str = "unexpected end of the datum";

impl<'a> AvroReader<'a> {
    /// A reader of a datum alone (a file's, a test's).
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            window: None,
        }
    }

    /// A reader of `stream` as Java's buffered decoder reads it, holding its first `loaded` bytes
    /// (left from earlier messages) before it reads any of the rest.
    pub(crate) fn buffered(stream: &'a [u8], loaded: usize) -> Self {
        Self {
            bytes: stream,
            pos: 0,
            window: Some(loaded.min(stream.len())),
        }
    }

    pub(crate) fn is_at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The bytes loaded and not read: what the decoder holds for the next message.
    pub(crate) fn unread_loaded(&self) -> &'a [u8] {
        &self.bytes[self.pos..self.limit()]
    }

    fn limit(&self) -> usize {
        self.window.unwrap_or(self.bytes.len())
    }

    /// `ensureBounds(num)`: loads more when fewer than `num` bytes are left loaded.
    fn ensure(&mut self, num: usize) {
        if let Some(limit) = self.window
            && limit - self.pos < num
        {
            self.window = Some(
                self.pos
                    .saturating_add(JAVA_DECODER_BUFFER)
                    .min(self.bytes.len()),
            );
        }
    }

    fn byte(&mut self) -> Read<u8> {
        if self.pos >= self.limit() {
            return Err(END.into());
        }
        let b = self.bytes[self.pos];
        self.pos += 1;
        Ok(b)
    }

    /// `readLong`: a zig-zag varint of up to ten bytes (bits past 64 dropped).
    pub(crate) fn long(&mut self) -> Read<i64> {
        self.ensure(10);
        let mut value: u64 = 0;
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 63 {
                return Err("Invalid long encoding".into());
            }
        }
        Ok((value >> 1) as i64 ^ -((value & 1) as i64))
    }

    /// `readInt` (ints, enum symbols, union branches): a zig-zag varint of up to five bytes,
    /// bits past 32 dropped as Java drops them.
    pub(crate) fn int(&mut self) -> Read<i32> {
        self.ensure(5);
        let mut value: u32 = 0;
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            value |= u32::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 28 {
                return Err("Invalid int encoding".into());
            }
        }
        Ok((value >> 1) as i32 ^ -((value & 1) as i32))
    }

    /// `readBoolean`: one byte, true only when it is 1.
    pub(crate) fn boolean(&mut self) -> Read<bool> {
        if let Some(limit) = self.window
            && self.pos == limit
        {
            self.window = Some(
                self.pos
                    .saturating_add(JAVA_DECODER_BUFFER)
                    .min(self.bytes.len()),
            );
        }
        Ok(self.byte()? == 1)
    }

    /// `readFloat` and `readDouble`: `N` little-endian bytes.
    pub(crate) fn fixed<const N: usize>(&mut self) -> Read<[u8; N]> {
        self.ensure(N);
        let end = self.pos + N;
        if end > self.limit() {
            return Err(END.into());
        }
        let mut out = [0u8; N];
        out.copy_from_slice(&self.bytes[self.pos..end]);
        self.pos = end;
        Ok(out)
    }

    /// `doReadBytes` (strings, bytes, fixed): what is loaded, then the rest straight from the
    /// input, leaving nothing loaded.
    pub(crate) fn take(&mut self, n: usize) -> Read<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|e| *e <= self.bytes.len())
            .ok_or(END)?;
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        if let Some(limit) = self.window
            && end > limit
        {
            self.window = Some(end);
        }
        Ok(slice)
    }

    /// `doSkipBytes`: within what is loaded (a negative length moves back, as in Java), else on
    /// past it, leaving nothing loaded.
    pub(crate) fn skip_bytes(&mut self, n: i64) -> Read<()> {
        let remaining = self.limit() - self.pos;
        if n <= remaining as i64 {
            self.pos = usize::try_from(self.pos as i64 + n)
                .map_err(|_| format!("Malformed data. Length is negative: {n}"))?;
            return Ok(());
        }
        self.take(usize::try_from(n).map_err(|_| END.to_string())?)?;
        Ok(())
    }

    /// `doSkipItems`: the item count of the next array or map block to step over item by item,
    /// skipping whole the blocks that give their size in bytes (0 ends the value).
    pub(crate) fn skip_block(&mut self) -> Read<usize> {
        let mut count = self.int()?;
        while count < 0 {
            let bytes = self.long()?;
            self.skip_bytes(bytes)?;
            count = self.int()?;
        }
        usize::try_from(count).map_err(|_| "block too large".to_string())
    }

    pub(crate) fn length(&mut self) -> Read<usize> {
        let length = self.long()?;
        usize::try_from(length).map_err(|_| format!("Malformed data. Length is negative: {length}"))
    }

    /// Item count of the next array or map block (0 ends the value).
    pub(crate) fn block(&mut self) -> Read<usize> {
        let count = self.long()?;
        if count < 0 {
            self.long()?; // the block's size in bytes
        }
        usize::try_from(count.unsigned_abs()).map_err(|_| "block too large".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncated_datums_are_errors() {
        let mut r = AvroReader::new(&[0x80]);
        assert!(r.long().is_err());
        let mut r = AvroReader::new(&[0x0a, 1]);
        let n = r.length().unwrap();
        assert!(r.take(n).is_err());
    }

    #[test]
    fn ints_and_booleans_read_as_java_reads_them() {
        // Five bytes whose last one carries bits past 32: Java drops them.
        let mut r = AvroReader::new(&[0xfe, 0xff, 0xff, 0xff, 0x7f]);
        assert_eq!(r.int().unwrap(), i32::MAX);
        assert!(
            AvroReader::new(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01])
                .int()
                .is_err()
        );
        let mut r = AvroReader::new(&[1, 0, 2]);
        assert!(r.boolean().unwrap());
        assert!(!r.boolean().unwrap());
        assert!(!r.boolean().unwrap(), "only 1 is true");
    }

    #[test]
    fn a_buffered_reader_keeps_what_java_keeps_loaded() {
        // Three bytes held from before, then a message: a long loads the message (fewer than ten
        // bytes were loaded), and what is not read stays loaded for the next message.
        let stream = [2, 4, 6, 8, 10, 12];
        let mut r = AvroReader::buffered(&stream, 3);
        assert_eq!(r.long().unwrap(), 1);
        assert_eq!(r.unread_loaded(), &[4, 6, 8, 10, 12]);
        // An int needs five loaded bytes: with six held, the message is never loaded.
        let stream = [2, 4, 6, 8, 10, 12, 99];
        let mut r = AvroReader::buffered(&stream, 6);
        assert_eq!(r.int().unwrap(), 1);
        assert_eq!(r.unread_loaded(), &[4, 6, 8, 10, 12]);
    }
}
