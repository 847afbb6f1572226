//! Parquet files read through Java: byte ranges of `dev.streamfusion.parquet.internal.FileRanges`, which
//! reads any file system Flink supports. parquet-rs asks for the footer and for each column chunk
//! it decodes; each request is one call into Java, which copies the bytes straight into native
//! memory.

use std::io::Read;
use std::sync::Arc;

use bytes::Bytes;
use jni::objects::{JObject, JValue};
use jni::refs::Global;
use jni::{Env, JavaVM, jni_sig, jni_str};
use parquet::errors::ParquetError;
use parquet::file::reader::{ChunkReader, Length};

use crate::errors::{NativeError, NativeResult};

/// Largest range one sequential read asks for at a time.
const READ_AHEAD: usize = 1 << 20;

/// A Java `FileRanges` object, shared by the readers of one file.
#[derive(Clone)]
pub struct JavaRanges {
    inner: Arc<Inner>,
}

struct Inner {
    vm: JavaVM,
    ranges: Global<JObject<'static>>,
    len: u64,
}

impl std::fmt::Debug for JavaRanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JavaRanges")
            .field("len", &self.inner.len)
            .finish_non_exhaustive()
    }
}

impl JavaRanges {
    /// Wraps `ranges` (a `FileRanges`), asking it the file's length once.
    pub fn new(env: &mut Env<'_>, ranges: &JObject<'_>) -> NativeResult<Self> {
        let len = env
            .call_method(ranges, jni_str!("length"), jni_sig!("()J"), &[])?
            .j()?;
        let len = u64::try_from(len)
            .map_err(|_| NativeError::Io(format!("a file of negative length {len}")))?;
        Ok(Self {
            inner: Arc::new(Inner {
                vm: env.get_java_vm()?,
                ranges: env.new_global_ref(ranges)?,
                len,
            }),
        })
    }

    /// `length` bytes from `start`, read by Java into native memory.
    fn read(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        read_range(&self.inner.vm, &self.inner.ranges, start, length).map_err(ParquetError::General)
    }
}

/// `length` bytes from `start` of `ranges`, a Java object with a `read(long, ByteBuffer)` method
/// that fills the buffer (a direct one over native memory) from that position; a Java exception
/// comes back as its class and message.
pub(crate) fn read_range(
    vm: &JavaVM,
    ranges: &Global<JObject<'static>>,
    start: u64,
    length: usize,
) -> Result<Bytes, String> {
    let position = i64::try_from(start).map_err(|_| format!("position {start} out of range"))?;
    let mut buffer = vec![0u8; length];
    if length > 0 {
        let target = buffer.as_mut_ptr();
        vm.attach_current_thread(|env| -> jni::errors::Result<()> {
            // SAFETY: `buffer` outlives the call and is not touched meanwhile; Java writes at
            // most `length` bytes into it through the direct buffer.
            let direct = unsafe { env.new_direct_byte_buffer(target, length) }?;
            env.call_method(
                ranges,
                jni_str!("read"),
                jni_sig!("(JLjava/nio/ByteBuffer;)V"),
                &[JValue::Long(position), JValue::Object(&direct)],
            )?;
            Ok(())
        })
        .map_err(|e| java_failure(&e))?;
    }
    Ok(Bytes::from(buffer))
}

/// A failed upcall as text: a Java exception's class and message, or JNI's reason.
pub(crate) fn java_failure(e: &jni::errors::Error) -> String {
    match e {
        jni::errors::Error::CaughtJavaException { name, msg, .. } => format!("{name}: {msg}"),
        other => other.to_string(),
    }
}

impl Length for JavaRanges {
    fn len(&self) -> u64 {
        self.inner.len
    }
}

impl ChunkReader for JavaRanges {
    type T = SequentialRead;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(SequentialRead {
            ranges: self.clone(),
            position: start,
            buffered: Bytes::new(),
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.read(start, length)
    }
}

/// Reads a file from a position on, [`READ_AHEAD`] bytes per call into Java.
#[derive(Debug)]
pub struct SequentialRead {
    ranges: JavaRanges,
    position: u64,
    buffered: Bytes,
}

impl Read for SequentialRead {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.buffered.is_empty() {
            let left = self.ranges.len().saturating_sub(self.position);
            let want = usize::try_from(left).unwrap_or(usize::MAX).min(READ_AHEAD);
            if want == 0 {
                return Ok(0);
            }
            self.buffered = self
                .ranges
                .read(self.position, want)
                .map_err(std::io::Error::other)?;
            self.position += want as u64;
        }
        let n = out.len().min(self.buffered.len());
        out[..n].copy_from_slice(&self.buffered.split_to(n));
        Ok(n)
    }
}
