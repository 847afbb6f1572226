//! Parts of a file read through a caller's reader (a remote file system), each fetched whole,
//! once. parquet-rs reads a column chunk's pages one by one, each page header through a
//! sequential read of its own and each page body by range, and reads the footer once for every
//! look at it; over a remote file system each of those is a request, and a sequential read asks
//! for more than one header. Fetching the footer and the column chunks being read whole keeps
//! the bytes requested close to the bytes read.

use std::io::Read;
use std::sync::{Arc, Mutex};

use bytes::{Buf, Bytes};
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::{ChunkReader, Length};

/// A reader's bytes with some parts held in memory: the footer, and the column chunks of the
/// row groups and leaves being read, each fetched whole at its first byte asked for. parquet-rs
/// reads each column's row groups in order, so a column's chunk is dropped when the next chunk
/// of that column is fetched: about one row group's chunks are held at a time. A chunk's first
/// page is checked when it is fetched (see `check_first_page`). Other ranges (indexes, bloom
/// filters) go to the reader as asked.
#[derive(Clone)]
pub(crate) struct ChunkCache<R> {
    inner: R,
    state: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    parts: Vec<Part>,
    /// The metadata the chunks are of.
    metadata: Option<Arc<ParquetMetaData>>,
}

struct Part {
    start: u64,
    end: u64,
    /// The row group and leaf of a column chunk; `None` for the footer, which is kept.
    chunk: Option<(usize, usize)>,
    bytes: Option<Bytes>,
}

impl<R: std::fmt::Debug> std::fmt::Debug for ChunkCache<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkCache")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

fn poisoned<T>(_: T) -> ParquetError {
    ParquetError::General("a cache of file ranges was poisoned by a panic".into())
}

impl<R: ChunkReader> ChunkCache<R> {
    pub(crate) fn new(inner: R) -> Self {
        Self {
            inner,
            state: Arc::new(Mutex::new(State::default())),
        }
    }

    /// What the cache holds: see [`HeldBytes`].
    pub(crate) fn held_bytes(&self) -> HeldBytes {
        HeldBytes(self.state.clone())
    }

    /// Holds the footer (and the length and magic after it), read once from here on.
    pub(crate) fn hold_footer(&self) -> Result<()> {
        let length = self.inner.len();
        if length < 12 {
            return Ok(());
        }
        let tail = self.inner.get_bytes(length - 8, 8)?;
        // No magic, or a footer length past the file, is left to the checks after, which name it.
        let Some(footer) = crate::reader::footer_length(&tail) else {
            return Ok(());
        };
        let Some(start) = length.checked_sub(footer + 8) else {
            return Ok(());
        };
        let size = usize::try_from(footer + 8)
            .map_err(|_| ParquetError::General("a footer past memory".into()))?;
        let bytes = self.inner.get_bytes(start, size)?;
        self.state.lock().map_err(poisoned)?.parts.push(Part {
            start,
            end: length,
            chunk: None,
            bytes: Some(bytes),
        });
        Ok(())
    }

    /// Holds the column chunks of `leaves` in `row_groups` of `metadata` once they are read.
    pub(crate) fn hold_chunks(
        &self,
        metadata: &Arc<ParquetMetaData>,
        row_groups: &[usize],
        leaves: &[usize],
    ) -> Result<()> {
        let mut state = self.state.lock().map_err(poisoned)?;
        for &row_group in row_groups {
            let Some(group) = metadata.row_groups().get(row_group) else {
                continue;
            };
            for &leaf in leaves {
                let Some(column) = group.columns().get(leaf) else {
                    continue;
                };
                let (start, length) = column.byte_range();
                if let Some(end) = start.checked_add(length) {
                    state.parts.push(Part {
                        start,
                        end,
                        chunk: Some((row_group, leaf)),
                        bytes: None,
                    });
                }
            }
        }
        state.metadata = Some(metadata.clone());
        Ok(())
    }

    /// The bytes from `start` to the end of the part holding `start..end` (`end` past `start`),
    /// if one does: fetched first (its column's other chunks dropped, its first page checked).
    fn held(&self, start: u64, end: u64) -> Result<Option<Bytes>> {
        let mut state = self.state.lock().map_err(poisoned)?;
        let State { parts, metadata } = &mut *state;
        let Some(index) = parts
            .iter()
            .position(|part| part.start <= start && start < part.end && end <= part.end)
        else {
            return Ok(None);
        };
        if parts[index].bytes.is_none() {
            let chunk = parts[index].chunk;
            if let Some((_, leaf)) = chunk {
                for part in parts.iter_mut() {
                    if part.chunk.is_some_and(|(_, l)| l == leaf) {
                        part.bytes = None;
                    }
                }
            }
            let part = &parts[index];
            let length = usize::try_from(part.end - part.start)
                .map_err(|_| ParquetError::General("a column chunk past memory".into()))?;
            let bytes = self.inner.get_bytes(part.start, length)?;
            if let (Some((row_group, leaf)), Some(metadata)) = (chunk, metadata.as_ref()) {
                let column = metadata.row_group(row_group).column(leaf);
                crate::reader::check_first_page(&bytes, column, row_group, true)
                    .map_err(|reason| ParquetError::General(reason.unwrap_or_default()))?;
            }
            parts[index].bytes = Some(bytes);
        }
        let part = &parts[index];
        let from = usize::try_from(start - part.start)
            .map_err(|_| ParquetError::General("a column chunk past memory".into()))?;
        Ok(part.bytes.as_ref().map(|bytes| bytes.slice(from..)))
    }
}

/// The bytes a [`ChunkCache`] holds (its footer and the column chunks fetched and not yet
/// dropped), readable while the cache is in use elsewhere.
#[derive(Clone)]
pub(crate) struct HeldBytes(Arc<Mutex<State>>);

impl HeldBytes {
    /// Bytes held now; 0 when the cache was poisoned by a panic.
    pub(crate) fn bytes(&self) -> u64 {
        self.0.lock().map_or(0, |state| {
            state
                .parts
                .iter()
                .filter_map(|part| part.bytes.as_ref())
                .map(|bytes| u64::try_from(bytes.len()).unwrap_or(u64::MAX))
                .sum()
        })
    }
}

impl<R: ChunkReader> Length for ChunkCache<R> {
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl<R: ChunkReader> ChunkReader for ChunkCache<R>
where
    R::T: 'static,
{
    type T = Box<dyn Read>;

    fn get_read(&self, start: u64) -> Result<Self::T> {
        Ok(match self.held(start, start.saturating_add(1))? {
            // A page header is read within its chunk.
            Some(rest) => Box::new(rest.reader()),
            None => Box::new(self.inner.get_read(start)?),
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        if length == 0 {
            return Ok(Bytes::new());
        }
        let end = start.saturating_add(u64::try_from(length).unwrap_or(u64::MAX));
        match self.held(start, end)? {
            Some(mut rest) => Ok(rest.split_to(length)),
            None => self.inner.get_bytes(start, length),
        }
    }
}
