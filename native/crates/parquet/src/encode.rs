//! Encoding Parquet off the caller's thread, and a row group's columns in parallel.
//!
//! [`threads`] is a pool of encoder threads shared by every writer of the process (one per core
//! unless [`ENCODER_THREADS`] says otherwise). [`ColumnsWriter`] encodes each batch's leaf columns
//! as parallel work: the calling thread takes columns one at a time, and so do the pool's idle
//! threads it asks to help, so a batch is never waiting for a busy pool.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::{
    ArrowColumnWriter, ArrowLeafColumn, ArrowRowGroupWriterFactory, ArrowWriterOptions,
    compute_leaves,
};
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::writer::SerializedFileWriter;

/// The environment variable that sets how many encoder threads the process starts (one per core
/// unless set); 0 encodes every batch on the thread that writes it.
pub const ENCODER_THREADS: &str = "STREAMFUSION_PARQUET_ENCODER_THREADS";

/// Work for an encoder thread.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// The encoder threads.
pub(crate) struct Pool {
    jobs: Option<Sender<Job>>,
    threads: usize,
}

impl Pool {
    /// Queues `job`; gives it back when the pool has no thread.
    pub(crate) fn submit(&self, job: Job) -> std::result::Result<(), Job> {
        match &self.jobs {
            Some(jobs) => jobs.send(job).map_err(|e| e.0),
            None => Err(job),
        }
    }

    /// How many threads run the jobs.
    pub(crate) fn threads(&self) -> usize {
        self.threads
    }
}

/// The process's encoder threads, started on first use.
pub(crate) fn threads() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let wanted = std::env::var(ENCODER_THREADS)
            .ok()
            .and_then(|n| n.trim().parse::<usize>().ok())
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
        let (sender, receiver) = std::sync::mpsc::channel::<Job>();
        let receiver = Arc::new(Mutex::new(receiver));
        let mut started = 0;
        for i in 0..wanted {
            let receiver: Arc<Mutex<Receiver<Job>>> = Arc::clone(&receiver);
            let spawned = std::thread::Builder::new()
                .name(format!("streamfusion-parquet-encoder-{i}"))
                .spawn(move || {
                    loop {
                        let next = receiver
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .recv();
                        match next {
                            // A job catches its own panics; one that does not must not end the thread.
                            Ok(job) => drop(catch_unwind(AssertUnwindSafe(job))),
                            Err(_) => return,
                        }
                    }
                });
            if spawned.is_ok() {
                started += 1;
            }
        }
        Pool {
            jobs: (started > 0).then_some(sender),
            threads: started,
        }
    })
}

/// Parallel work over `0..count`: which index comes next, and how many are done.
struct Progress {
    count: usize,
    next: AtomicUsize,
    done: Mutex<(usize, Option<String>)>,
    all_done: Condvar,
}

impl Progress {
    /// Takes indexes and runs `work` on them until none is left.
    fn take_part(&self, work: &(dyn Fn(usize) -> Result<()> + Send + Sync)) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.count {
                return;
            }
            let result = match catch_unwind(AssertUnwindSafe(|| work(i))) {
                Ok(result) => result.map_err(|e| e.to_string()),
                Err(_) => Err("the Parquet encoder panicked".to_string()),
            };
            let mut done = self.done.lock().unwrap_or_else(PoisonError::into_inner);
            done.0 += 1;
            if let Err(e) = result {
                done.1.get_or_insert(e);
            }
            if done.0 == self.count {
                self.all_done.notify_all();
            }
        }
    }
}

/// Runs `work` for every index in `0..count`, on this thread and on idle encoder threads; the
/// first failure.
fn for_each_parallel(
    count: usize,
    work: Arc<dyn Fn(usize) -> Result<()> + Send + Sync>,
) -> Result<()> {
    let progress = Arc::new(Progress {
        count,
        next: AtomicUsize::new(0),
        done: Mutex::new((0, None)),
        all_done: Condvar::new(),
    });
    let helpers = threads().threads().min(count).saturating_sub(1);
    for _ in 0..helpers {
        let progress = Arc::clone(&progress);
        let work = Arc::clone(&work);
        if threads()
            .submit(Box::new(move || progress.take_part(&*work)))
            .is_err()
        {
            break;
        }
    }
    progress.take_part(&*work);
    // Only indexes other threads took and are encoding are left.
    let mut done = progress.done.lock().unwrap_or_else(PoisonError::into_inner);
    while done.0 < count {
        done = progress
            .all_done
            .wait(done)
            .unwrap_or_else(PoisonError::into_inner);
    }
    match done.1.take() {
        Some(e) => Err(ParquetError::General(e)),
        None => Ok(()),
    }
}

/// The column writers of the row group in progress, shared with the threads that help encode.
type Columns = Arc<[Mutex<Option<ArrowColumnWriter>>]>;

fn lock(column: &Mutex<Option<ArrowColumnWriter>>) -> MutexGuard<'_, Option<ArrowColumnWriter>> {
    column.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A Parquet file written from Arrow batches as [`ArrowWriter`] writes it (the same schema,
/// properties and row groups, closed by `max_row_group_bytes` the same way), with each batch's
/// leaf columns encoded in parallel.
pub(crate) struct ColumnsWriter<W: std::io::Write + Send> {
    file: SerializedFileWriter<W>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    columns: Option<Columns>,
    rows: usize,
    max_bytes: Option<usize>,
}

impl<W: std::io::Write + Send> ColumnsWriter<W> {
    /// A writer of batches of `schema` into `out`, configured by `options` as an [`ArrowWriter`]
    /// would be (`max_bytes`: the properties' `max_row_group_bytes`).
    pub(crate) fn new(
        out: W,
        schema: SchemaRef,
        options: ArrowWriterOptions,
        max_bytes: Option<usize>,
    ) -> Result<Self> {
        let (file, factory) = ArrowWriter::try_new_with_options(out, Arc::clone(&schema), options)?
            .into_serialized_writer()?;
        Ok(Self {
            file,
            factory,
            schema,
            columns: None,
            rows: 0,
            max_bytes,
        })
    }

    /// Encodes `batch`, closing row groups where [`ArrowWriter::write`] would: before the batch
    /// when the row group is full, within it where the rows that fit end (by the row group's
    /// average encoded row), and after it when it filled the row group.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        if let (Some(max), true) = (self.max_bytes, self.rows > 0) {
            let current = self.in_progress_size();
            if current >= max {
                self.flush()?;
                return self.write(batch);
            }
            let per_row = current / self.rows;
            if let Some(fit) = (max - current).checked_div(per_row) {
                if batch.num_rows() > fit {
                    if fit == 0 {
                        self.flush()?;
                        return self.write(batch);
                    }
                    self.write(&batch.slice(0, fit))?;
                    return self.write(&batch.slice(fit, batch.num_rows() - fit));
                }
            }
        }
        self.encode(batch)?;
        if self
            .max_bytes
            .is_some_and(|max| self.in_progress_size() >= max)
        {
            self.flush()?;
        }
        Ok(())
    }

    fn encode(&mut self, batch: &RecordBatch) -> Result<()> {
        let columns = match &self.columns {
            Some(columns) => Arc::clone(columns),
            None => {
                let writers = self
                    .factory
                    .create_column_writers(self.file.flushed_row_groups().len())?;
                let columns: Columns = writers.into_iter().map(|w| Mutex::new(Some(w))).collect();
                self.columns = Some(Arc::clone(&columns));
                columns
            }
        };
        let mut leaves: Vec<ArrowLeafColumn> = Vec::with_capacity(columns.len());
        for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
            leaves.extend(compute_leaves(field, column)?);
        }
        if leaves.len() != columns.len() {
            return Err(ParquetError::General(format!(
                "{} leaf columns for {} column writers",
                leaves.len(),
                columns.len()
            )));
        }
        let leaves = Arc::new(leaves);
        let count = leaves.len();
        let work_columns = Arc::clone(&columns);
        for_each_parallel(
            count,
            Arc::new(move |i| match lock(&work_columns[i]).as_mut() {
                Some(writer) => writer.write(&leaves[i]),
                None => Err(ParquetError::General(format!("column {i} is closed"))),
            }),
        )?;
        self.rows += batch.num_rows();
        Ok(())
    }

    /// The encoded size the row group in progress is expected to have.
    fn in_progress_size(&self) -> usize {
        self.columns.as_ref().map_or(0, |columns| {
            columns
                .iter()
                .map(|c| {
                    lock(c)
                        .as_ref()
                        .map_or(0, |w| w.get_estimated_total_bytes())
                })
                .sum()
        })
    }

    /// Bytes the row group in progress holds.
    pub(crate) fn memory_size(&self) -> usize {
        self.columns.as_ref().map_or(0, |columns| {
            columns
                .iter()
                .map(|c| lock(c).as_ref().map_or(0, |w| w.memory_size()))
                .sum()
        })
    }

    /// Closes the row group in progress, writing it out.
    pub(crate) fn flush(&mut self) -> Result<()> {
        let Some(columns) = self.columns.take() else {
            return Ok(());
        };
        self.rows = 0;
        let mut row_group = self.file.next_row_group()?;
        for (i, column) in columns.iter().enumerate() {
            let writer = lock(column)
                .take()
                .ok_or_else(|| ParquetError::General(format!("column {i} is closed")))?;
            writer.close()?.append_to_row_group(&mut row_group)?;
        }
        row_group.close()?;
        Ok(())
    }

    /// Writes the last row group and the footer.
    pub(crate) fn finish(&mut self) -> Result<ParquetMetaData> {
        self.flush()?;
        self.file.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{
        Array, ArrayRef, Int32Array, Int64Builder, ListBuilder, MapBuilder, StringArray,
        StringBuilder, StructArray,
    };
    use arrow::datatypes::{DataType, Field, Fields, Schema};
    use parquet::file::properties::WriterProperties;

    fn batches(
        schema: &SchemaRef,
    ) -> std::result::Result<Vec<RecordBatch>, Box<dyn std::error::Error>> {
        (0..12)
            .map(|b| {
                let ids: Int32Array = (0..700)
                    .map(|i| (i % 9 != 0).then_some(b * 700 + i))
                    .collect();
                let names: StringArray = (0..700)
                    .map(|i| (i % 5 != 0).then(|| format!("name {} of batch {b}", i * 31 % 97)))
                    .collect();
                let point = StructArray::new(
                    Fields::from(vec![
                        Field::new("x", DataType::Int32, true),
                        Field::new("label", DataType::Utf8, true),
                    ]),
                    vec![Arc::new(ids.clone()) as ArrayRef, Arc::new(names.clone())],
                    Some((0..700).map(|i| i % 7 != 0).collect()),
                );
                let mut list = ListBuilder::new(Int64Builder::new());
                let mut map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
                for i in 0..700_i64 {
                    for j in 0..(i % 4) {
                        list.values().append_value(i * j);
                        map.keys().append_value(format!("k{j}"));
                        map.values().append_value(j);
                    }
                    list.append(i % 11 != 0);
                    map.append(i % 13 != 0)?;
                }
                Ok(RecordBatch::try_new(
                    Arc::clone(schema),
                    vec![
                        Arc::new(ids),
                        Arc::new(names),
                        Arc::new(point),
                        Arc::new(list.finish()),
                        Arc::new(map.finish()),
                    ],
                )?)
            })
            .collect()
    }

    /// The same batches give the same bytes as parquet-rs's own writer: the same row groups
    /// (closed by size, batches split where they are) and the same pages, nested columns too.
    #[test]
    fn files_equal_arrow_writers_byte_for_byte()
    -> std::result::Result<(), Box<dyn std::error::Error>> {
        let map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new()).finish();
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("name", DataType::Utf8, true),
            Field::new(
                "point",
                DataType::Struct(Fields::from(vec![
                    Field::new("x", DataType::Int32, true),
                    Field::new("label", DataType::Utf8, true),
                ])),
                true,
            ),
            Field::new(
                "values",
                DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
                true,
            ),
            Field::new("tags", map.data_type().clone(), true),
        ]));
        let input = batches(&schema)?;
        let properties = || {
            WriterProperties::builder()
                .set_max_row_group_row_count(None)
                .set_max_row_group_bytes(Some(30_000))
                .build()
        };
        let mut expected = Vec::new();
        let mut stock = ArrowWriter::try_new_with_options(
            &mut expected,
            Arc::clone(&schema),
            ArrowWriterOptions::new().with_properties(properties()),
        )?;
        for batch in &input {
            stock.write(batch)?;
        }
        stock.close()?;

        let mut written = Vec::new();
        let mut ours = ColumnsWriter::new(
            &mut written,
            Arc::clone(&schema),
            ArrowWriterOptions::new().with_properties(properties()),
            Some(30_000),
        )?;
        for batch in &input {
            ours.write(batch)?;
        }
        let metadata = ours.finish()?;
        drop(ours);
        assert!(
            metadata.num_row_groups() > 3,
            "{} row groups",
            metadata.num_row_groups()
        );
        assert_eq!(written, expected);
        Ok(())
    }
}
