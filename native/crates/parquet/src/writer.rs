//! Arrow batches encoded into one Parquet file whose bytes the caller drains.
//!
//! The caller (Flink's file sink, through JNI) owns the output stream, so the writer encodes into
//! an in-memory spool and hands its bytes out with [`ParquetFileWriter::drain`]. Row groups are
//! buffered, encoded, until `parquet.block.size` is reached, as parquet-java buffers them; only
//! then do their bytes reach the spool.
//!
//! Encoding runs off the caller's thread: [`ParquetFileWriter::write`] copies the batch and queues
//! it for the encoder threads ([`crate::encode`]), which take turns among writers, a batch a turn,
//! encode each writer's batches in order and a batch's columns in parallel. At most [`QUEUED`]
//! batches wait per writer, so the caller blocks when the encoder falls behind. Finishing,
//! closing a row group early and dropping the writer wait for its queue; an encoding error is
//! reported by the writer's next call.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use arrow::array::timezone::Tz;
use arrow::array::{
    Array, ArrayRef, AsArray, Int64Array, MutableArrayData, RecordBatch, make_array,
};
use arrow::compute::{CastOptions, cast, cast_with_options};
use arrow::datatypes::{DataType, Field, Int64Type, Schema, SchemaRef, TimeUnit};
use arrow::error::ArrowError;
use parquet::arrow::ArrowSchemaConverter;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::{ColumnPath, SchemaDescriptor};

use crate::FirstRows;
use crate::encode::{self, ColumnsWriter};

/// A writer option that is unknown or has a value it cannot take.
#[derive(Debug, thiserror::Error)]
#[error("'{key}' = '{value}': {reason}")]
pub struct WriterOptionError {
    pub key: String,
    pub value: String,
    pub reason: String,
}

/// Encoding failed; names the file being written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct WriteError {
    pub path: String,
    pub reason: String,
}

/// How timestamps are stored: Parquet INT64 with the TIMESTAMP logical type, in the unit of the
/// column's precision, or in one unit for all (`parquet.write.int64.timestamp` with
/// `parquet.timestamp.time.unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimestampUnit {
    OfPrecision,
    Fixed(TimeUnit),
}

/// Writer settings, under the names Flink's `parquet` format and parquet-java use.
#[derive(Debug)]
pub struct WriterSettings {
    properties: WriterProperties,
    timestamps: TimestampUnit,
    /// The zone whose wall-clock time timestamps are written as the instants of, or `None` to
    /// write them as UTC wall-clock time.
    zone: Option<Tz>,
}

/// The option naming the zone timestamps are wall-clock time of (the writing JVM's, under
/// `parquet.utc-timezone` = `false`), which the connector adds to the table's options.
pub const TIMESTAMP_ZONE_OPTION: &str = "streamfusion.timestamp-zone";

const BLOCK_SIZE_DEFAULT: usize = 128 * 1024 * 1024;
const PAGE_SIZE_DEFAULT: usize = 1024 * 1024;

impl WriterSettings {
    /// Settings from `parquet.*` options (keys with their prefix). Defaults are Flink's: SNAPPY,
    /// 128 MiB row groups, 1 MiB pages and dictionary pages, dictionaries on, format v1.
    pub fn from_options(options: &[(String, String)]) -> Result<Self, WriterOptionError> {
        let mut builder = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(None)
            .set_max_row_group_bytes(Some(BLOCK_SIZE_DEFAULT))
            .set_data_page_size_limit(PAGE_SIZE_DEFAULT)
            .set_dictionary_page_size_limit(PAGE_SIZE_DEFAULT)
            .set_writer_version(WriterVersion::PARQUET_1_0)
            .set_created_by(format!("StreamFusion {}", env!("CARGO_PKG_VERSION")));
        let mut codec = "SNAPPY".to_string();
        let mut zstd_level = 3;
        let mut int64_timestamps = false;
        let mut zone = None;
        let mut unit = TimeUnit::Microsecond;
        for (key, value) in options {
            let bad = |reason: &str| WriterOptionError {
                key: key.clone(),
                value: value.clone(),
                reason: reason.to_string(),
            };
            let size = || {
                value
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| bad("expected a positive number of bytes"))
            };
            let flag = || match value.trim().to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(bad("expected true or false")),
            };
            if let Some(column) = key.strip_prefix("parquet.bloom.filter.enabled#") {
                builder = builder.set_column_bloom_filter_enabled(column_path(column), flag()?);
                continue;
            }
            if let Some(column) = key.strip_prefix("parquet.bloom.filter.fpp#") {
                let fpp = value
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|p| *p > 0.0 && *p < 1.0)
                    .ok_or_else(|| bad("expected a probability between 0 and 1"))?;
                builder = builder.set_column_bloom_filter_fpp(column_path(column), fpp);
                continue;
            }
            if let Some(column) = key.strip_prefix("parquet.bloom.filter.expected.ndv#") {
                let ndv = value
                    .trim()
                    .parse::<u64>()
                    .map_err(|_| bad("expected a number of distinct values"))?;
                builder = builder.set_column_bloom_filter_ndv(column_path(column), ndv);
                continue;
            }
            match key.as_str() {
                "parquet.compression" => codec = value.trim().to_ascii_uppercase(),
                "parquet.compression.codec.zstd.level" => {
                    zstd_level = value
                        .trim()
                        .parse()
                        .map_err(|_| bad("expected a zstd level"))?
                }
                "parquet.block.size" => builder = builder.set_max_row_group_bytes(Some(size()?)),
                "parquet.page.size" => builder = builder.set_data_page_size_limit(size()?),
                "parquet.dictionary.page.size" => {
                    builder = builder.set_dictionary_page_size_limit(size()?)
                }
                "parquet.enable.dictionary" => builder = builder.set_dictionary_enabled(flag()?),
                "parquet.bloom.filter.enabled" => {
                    builder = builder.set_bloom_filter_enabled(flag()?)
                }
                "parquet.writer.version" => {
                    let version = match value.trim() {
                        "v1" | "PARQUET_1_0" => WriterVersion::PARQUET_1_0,
                        "v2" | "PARQUET_2_0" => WriterVersion::PARQUET_2_0,
                        _ => return Err(bad("expected v1, v2, PARQUET_1_0 or PARQUET_2_0")),
                    };
                    builder = builder.set_writer_version(version);
                }
                "parquet.write.int64.timestamp" => int64_timestamps = flag()?,
                "parquet.timestamp.time.unit" => {
                    unit = match value.trim().to_ascii_lowercase().as_str() {
                        "millis" => TimeUnit::Millisecond,
                        "micros" => TimeUnit::Microsecond,
                        "nanos" => TimeUnit::Nanosecond,
                        _ => return Err(bad("expected millis, micros or nanos")),
                    }
                }
                // Reading options, checked here too as a table is read and written with the same
                // options; padding for HDFS block alignment, which does not apply to a file
                // written as one stream.
                "parquet.utc-timezone" => {
                    flag()?;
                }
                "parquet.batch-size" => {
                    value
                        .trim()
                        .parse::<i32>()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| bad("expected a positive number of rows"))?;
                }
                "parquet.writer.max-padding" => {}
                TIMESTAMP_ZONE_OPTION => {
                    zone = match value.trim() {
                        "UTC" | "Z" | "GMT" | "Etc/UTC" => None,
                        id => Some(
                            id.parse::<Tz>()
                                .map_err(|e| bad(&format!("not a time zone: {e}")))?,
                        ),
                    }
                }
                _ => return Err(bad("not a Parquet option StreamFusion supports")),
            }
        }
        let compression = match codec.as_str() {
            "UNCOMPRESSED" | "NONE" => Compression::UNCOMPRESSED,
            "SNAPPY" => Compression::SNAPPY,
            "GZIP" => Compression::GZIP(GzipLevel::default()),
            "BROTLI" => Compression::BROTLI(BrotliLevel::default()),
            "LZ4" => Compression::LZ4,
            "LZ4_RAW" => Compression::LZ4_RAW,
            "ZSTD" => Compression::ZSTD(ZstdLevel::try_new(zstd_level).map_err(|e| {
                WriterOptionError {
                    key: "parquet.compression.codec.zstd.level".into(),
                    value: zstd_level.to_string(),
                    reason: e.to_string(),
                }
            })?),
            _ => {
                return Err(WriterOptionError {
                    key: "parquet.compression".into(),
                    value: codec,
                    reason: "expected UNCOMPRESSED, SNAPPY, GZIP, BROTLI, LZ4, LZ4_RAW or ZSTD"
                        .into(),
                });
            }
        };
        Ok(Self {
            properties: builder.set_compression(compression).build(),
            timestamps: if int64_timestamps {
                TimestampUnit::Fixed(unit)
            } else {
                TimestampUnit::OfPrecision
            },
            zone,
        })
    }
}

fn column_path(column: &str) -> ColumnPath {
    ColumnPath::new(column.split('.').map(str::to_string).collect())
}

/// The most spool memory kept allocated once everything is drained.
const SPOOL_KEPT: usize = 1 << 20;

/// Bytes written and not yet drained: `bytes[drained..]`.
#[derive(Debug, Default)]
struct Spool {
    bytes: Vec<u8>,
    drained: usize,
    /// Bytes ever written, drained or not.
    written: usize,
    /// Keep no allocation once drained (set when memory is short), instead of up to `SPOOL_KEPT`.
    keep_none: bool,
}

impl Spool {
    fn pending(&self) -> &[u8] {
        &self.bytes[self.drained..]
    }

    fn consume(&mut self, n: usize) {
        self.drained += n;
        if self.drained >= self.bytes.len() {
            // A row group flushed at once (up to `parquet.block.size`) is not kept allocated
            // until the next one: a writer holds at most one row group besides the one it encodes.
            if self.keep_none || self.bytes.capacity() > SPOOL_KEPT {
                self.bytes = Vec::new();
            } else {
                self.bytes.clear();
            }
            self.drained = 0;
        }
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        self.written += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The spool the encoder writes row groups into while the caller drains it.
#[derive(Debug, Clone, Default)]
struct SharedSpool(Arc<Mutex<Spool>>);

impl SharedSpool {
    fn lock(&self) -> MutexGuard<'_, Spool> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Write for SharedSpool {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.lock().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Batches a writer queues for its encoder before the caller waits.
pub const QUEUED: usize = 2;

/// The encoding half of a writer: the parquet-rs writer and the batches queued for it.
struct Encoder {
    state: Mutex<EncoderState>,
    /// The spool the parquet-rs writer writes into. Locked after `state` when both are held.
    spool: SharedSpool,
    /// Signalled whenever the queue shrinks or the encoder stops.
    changed: Condvar,
}

struct EncoderState {
    /// Absent while an encoder thread encodes with it, and after it failed.
    writer: Option<FileEncoder>,
    queue: VecDeque<RecordBatch>,
    queued_bytes: usize,
    /// The writer's turn is in the pool's queue or running.
    scheduled: bool,
    /// The writer's turn is running.
    encoding: bool,
    /// The writer was dropped: queued batches are discarded.
    cancelled: bool,
    /// The first encoding failure.
    error: Option<String>,
    /// What the parquet-rs writer held after its last batch.
    encoder_bytes: usize,
    /// [`Spool::written`] when `encoder_bytes` was taken.
    spool_written: usize,
}

/// The file's parquet-rs writer, opened once the file's first rows (as many as parquet-java's
/// first page holds) have chosen which columns keep a dictionary
/// ([`crate::dictionaries_that_pay`]); until then, those rows.
enum FileEncoder {
    Deciding {
        out: SharedSpool,
        schema: SchemaRef,
        parquet_schema: SchemaDescriptor,
        properties: WriterProperties,
        first: FirstRows,
    },
    Encoding(ColumnsWriter<SharedSpool>),
    /// Left so only by a failure to open.
    Failed,
}

impl FileEncoder {
    fn write(&mut self, batch: &RecordBatch) -> parquet::errors::Result<()> {
        match self {
            FileEncoder::Deciding {
                first, properties, ..
            } => {
                if first.hold(batch.clone(), properties) {
                    self.open()?;
                }
                Ok(())
            }
            _ => self.open()?.write(batch),
        }
    }

    /// The parquet-rs writer, opened (with the rows kept written) if it is not yet.
    fn open(&mut self) -> parquet::errors::Result<&mut ColumnsWriter<SharedSpool>> {
        if let FileEncoder::Deciding { .. } = self {
            let FileEncoder::Deciding {
                out,
                schema,
                parquet_schema,
                properties,
                first,
            } = std::mem::replace(self, FileEncoder::Failed)
            else {
                return Err(ParquetError::General("the encoder is gone".to_string()));
            };
            let properties =
                crate::dictionaries_that_pay(first.batches(), &parquet_schema, properties);
            let max_bytes = properties.max_row_group_bytes();
            let options = ArrowWriterOptions::new()
                .with_properties(properties)
                .with_skip_arrow_metadata(true)
                .with_parquet_schema(parquet_schema);
            let mut writer = ColumnsWriter::new(out, schema, options, max_bytes)?;
            for batch in first.batches() {
                writer.write(batch)?;
            }
            *self = FileEncoder::Encoding(writer);
        }
        match self {
            FileEncoder::Encoding(writer) => Ok(writer),
            _ => Err(ParquetError::General(
                "the Parquet writer failed to open".to_string(),
            )),
        }
    }

    /// Bytes held: the rows kept, or the row group in progress.
    fn memory_size(&self) -> usize {
        match self {
            FileEncoder::Deciding { first, .. } => first.bytes(),
            FileEncoder::Encoding(writer) => writer.memory_size(),
            FileEncoder::Failed => 0,
        }
    }
}

impl EncoderState {
    /// Takes what the parquet-rs writer holds now.
    fn measure(&mut self, writer_bytes: usize, spool: &SharedSpool) {
        self.encoder_bytes = writer_bytes;
        self.spool_written = spool.lock().written;
    }
}

impl Encoder {
    fn lock(&self) -> MutexGuard<'_, EncoderState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, EncoderState>) -> MutexGuard<'a, EncoderState> {
        self.changed
            .wait(guard)
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// One turn on an encoder thread: encodes the batch at the head of the queue, then gives the
    /// thread to the next writer in line (taking another turn when more batches wait).
    fn turn(self: Arc<Self>) {
        let (batch, mut writer) = {
            let mut state = self.lock();
            let ready = !state.cancelled && state.error.is_none() && !state.queue.is_empty();
            let taken = if ready {
                state.writer.take().zip(state.queue.pop_front())
            } else {
                None
            };
            let Some((writer, batch)) = taken else {
                state.queue.clear();
                state.queued_bytes = 0;
                state.scheduled = false;
                self.changed.notify_all();
                return;
            };
            state.encoding = true;
            (batch, writer)
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            writer.write(&batch).map(|()| writer)
        }));
        let mut state = self.lock();
        state.encoding = false;
        state.queued_bytes = state
            .queued_bytes
            .saturating_sub(batch.get_array_memory_size());
        match result {
            Ok(Ok(writer)) => {
                state.measure(writer.memory_size(), &self.spool);
                state.writer = Some(writer);
            }
            Ok(Err(e)) => state.error = Some(e.to_string()),
            Err(_) => state.error = Some("the Parquet encoder panicked".to_string()),
        }
        let more = !state.queue.is_empty() && state.error.is_none() && !state.cancelled;
        state.scheduled = more;
        drop(state);
        self.changed.notify_all();
        if more {
            let next = Arc::clone(&self);
            if encode::threads()
                .submit(Box::new(move || next.turn()))
                .is_err()
            {
                // No thread to give the turn to: encode here.
                self.turn();
            }
        }
    }
}

/// `leaf`'s timestamps in `unit`, as Flink converts them for `parquet.timestamp.time.unit`: to a
/// coarser unit rounded down (towards the past, also before 1970), to a finer one failing where
/// the value does not fit in 64 bits. Any other leaf as it is.
fn timestamps_in_unit(leaf: &ArrayRef, unit: TimeUnit) -> Result<ArrayRef, String> {
    let DataType::Timestamp(from, zone) = leaf.data_type() else {
        return Ok(leaf.clone());
    };
    if *from == unit {
        return Ok(leaf.clone());
    }
    let nanos = |unit: &TimeUnit| -> i64 {
        match unit {
            TimeUnit::Second => 1_000_000_000,
            TimeUnit::Millisecond => 1_000_000,
            TimeUnit::Microsecond => 1_000,
            TimeUnit::Nanosecond => 1,
        }
    };
    let (from_nanos, to_nanos) = (nanos(from), nanos(&unit));
    let values = cast(leaf, &DataType::Int64).map_err(|e| e.to_string())?;
    let values = values.as_primitive::<Int64Type>();
    let converted: Int64Array = if from_nanos < to_nanos {
        let factor = to_nanos / from_nanos;
        values.unary(|v| v.div_euclid(factor))
    } else {
        let factor = from_nanos / to_nanos;
        values
            .try_unary(|v| {
                v.checked_mul(factor).ok_or_else(|| {
                    ArrowError::ComputeError(format!(
                        "the timestamp {v} ({from:?}) does not fit in 64 bits in {unit:?}"
                    ))
                })
            })
            .map_err(|e| e.to_string())?
    };
    cast(&converted, &DataType::Timestamp(unit, zone.clone())).map_err(|e| e.to_string())
}

/// Whether a column of `data_type` holds timestamps, at any depth.
fn holds_timestamps(data_type: &DataType) -> bool {
    match data_type {
        DataType::Timestamp(_, _) => true,
        DataType::Struct(fields) => fields.iter().any(|f| holds_timestamps(f.data_type())),
        DataType::List(f) | DataType::LargeList(f) | DataType::Map(f, _) => {
            holds_timestamps(f.data_type())
        }
        _ => false,
    }
}

/// `column` copied into memory of its own, for a writer that keeps it after the call that handed
/// it over: the caller may reuse or free the batch's buffers once [`ParquetFileWriter::write`]
/// returns, while the encoder reads the copy later.
pub fn owned(column: &ArrayRef) -> ArrayRef {
    let data = column.to_data();
    let mut copy = MutableArrayData::new(vec![&data], false, data.len());
    copy.extend(0, 0, data.len());
    make_array(copy.freeze())
}

/// One Parquet file being written from batches of one schema.
pub struct ParquetFileWriter {
    path: String,
    input: SchemaRef,
    file_schema: SchemaRef,
    /// [`WriterSettings::zone`].
    zone: Option<Tz>,
    /// The one unit every timestamp is written in, if the settings fix one.
    unit: Option<TimeUnit>,
    encoder: Arc<Encoder>,
    spool: SharedSpool,
    finished: bool,
}

impl std::fmt::Debug for ParquetFileWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetFileWriter")
            .field("path", &self.path)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl Drop for ParquetFileWriter {
    /// Discards the queued batches and waits for a batch being encoded, so that nothing of the
    /// writer outlives it.
    fn drop(&mut self) {
        let mut state = self.encoder.lock();
        state.cancelled = true;
        state.queue.clear();
        state.queued_bytes = 0;
        while state.encoding {
            state = self.encoder.wait(state);
        }
        state.writer = None;
    }
}

/// The Parquet schema of the file: parquet-rs's, with every DECIMAL stored as Flink's writer
/// stores it, in the fewest fixed-length bytes that hold its precision (parquet-rs picks INT32 or
/// INT64 up to 18 digits). Flink's reader takes INT32 and INT64 decimals only into a table of the
/// same band of precision (up to 9, up to 18), so a file of them would stop being readable by it
/// once the table's precision is widened; fixed-length bytes read at any precision.
fn parquet_schema(
    file_schema: &SchemaRef,
) -> parquet::errors::Result<parquet::schema::types::SchemaDescriptor> {
    use parquet::schema::types::{SchemaDescriptor, Type};
    fn fix(field: &Arc<Type>) -> parquet::errors::Result<Arc<Type>> {
        let info = field.get_basic_info();
        match (field.as_ref(), info.logical_type_ref()) {
            (
                Type::PrimitiveType {
                    physical_type: parquet::basic::Type::INT32 | parquet::basic::Type::INT64,
                    ..
                },
                Some(parquet::basic::LogicalType::Decimal { precision, scale }),
            ) => {
                let mut builder = Type::primitive_type_builder(
                    info.name(),
                    parquet::basic::Type::FIXED_LEN_BYTE_ARRAY,
                )
                .with_repetition(info.repetition())
                .with_logical_type(info.logical_type_ref().cloned())
                .with_length(decimal_bytes(*precision))
                .with_precision(*precision)
                .with_scale(*scale);
                if info.has_id() {
                    builder = builder.with_id(Some(info.id()));
                }
                Ok(Arc::new(builder.build()?))
            }
            (Type::PrimitiveType { .. }, _) => Ok(Arc::clone(field)),
            (Type::GroupType { fields, .. }, _) => {
                let children = fields
                    .iter()
                    .map(fix)
                    .collect::<parquet::errors::Result<Vec<_>>>()?;
                let mut builder = Type::group_type_builder(info.name())
                    .with_fields(children)
                    .with_logical_type(info.logical_type_ref().cloned())
                    .with_converted_type(info.converted_type());
                if info.has_repetition() {
                    builder = builder.with_repetition(info.repetition());
                }
                if info.has_id() {
                    builder = builder.with_id(Some(info.id()));
                }
                Ok(Arc::new(builder.build()?))
            }
        }
    }
    // With the names the Parquet specification prescribes (a map's `key_value` group of `key`
    // and `value`, a list's `element`), as Flink's writer names them.
    let converted = ArrowSchemaConverter::new()
        .with_coerce_types(true)
        .convert(file_schema)?;
    Ok(SchemaDescriptor::new(fix(&converted.root_schema_ptr())?))
}

/// The fewest bytes whose two's complement holds every unscaled value of `precision` digits, as
/// Flink's `ParquetSchemaConverter.computeMinBytesForDecimalPrecision` counts them.
fn decimal_bytes(precision: i32) -> i32 {
    let mut bytes = 1;
    while 2f64.powi(8 * bytes - 1) < 10f64.powi(precision) {
        bytes += 1;
    }
    bytes
}

impl ParquetFileWriter {
    /// A writer of batches of `input` into the file at `path` (named in errors only).
    pub fn new(path: &str, input: SchemaRef, settings: WriterSettings) -> Result<Self, WriteError> {
        let file_schema = file_schema(&input, settings.timestamps);
        let zone = settings.zone;
        let unit = match settings.timestamps {
            TimestampUnit::Fixed(unit) => Some(unit),
            TimestampUnit::OfPrecision => None,
        };
        let spool = SharedSpool::default();
        let writer = FileEncoder::Deciding {
            out: spool.clone(),
            schema: file_schema.clone(),
            parquet_schema: parquet_schema(&file_schema).map_err(|e| write_error(path, e))?,
            properties: settings.properties,
            first: FirstRows::default(),
        };
        let encoder = Arc::new(Encoder {
            state: Mutex::new(EncoderState {
                writer: Some(writer),
                queue: VecDeque::new(),
                queued_bytes: 0,
                scheduled: false,
                encoding: false,
                cancelled: false,
                error: None,
                encoder_bytes: 0,
                spool_written: 0,
            }),
            spool: spool.clone(),
            changed: Condvar::new(),
        });
        Ok(Self {
            path: path.to_string(),
            input,
            file_schema,
            zone,
            unit,
            encoder,
            spool,
            finished: false,
        })
    }

    /// Queues a copy of a batch of the input schema for encoding (waiting while [`QUEUED`]
    /// batches wait). Its bytes reach the spool when its row group is full.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), WriteError> {
        if self.finished {
            return Err(write_error(&self.path, "the file is already finished"));
        }
        let columns = batch
            .columns()
            .iter()
            .zip(self.file_schema.fields())
            .map(|(column, field)| {
                let zoned = match &self.zone {
                    Some(zone) if holds_timestamps(column.data_type()) => Some(
                        crate::reader::map_leaves(column, &mut 0, &mut |_, leaf| {
                            crate::reader::instants_of_wall_clock(leaf, zone)
                        })
                        .map_err(|e| {
                            write_error(&self.path, format!("column '{}': {e}", field.name()))
                        })?,
                    ),
                    _ => None,
                };
                let column = zoned.as_ref().unwrap_or(column);
                let column_error = |e: &dyn std::fmt::Display| {
                    write_error(&self.path, format!("column '{}': {e}", field.name()))
                };
                let rescaled = match self.unit {
                    Some(unit) if holds_timestamps(column.data_type()) => Some(
                        crate::reader::map_leaves(column, &mut 0, &mut |_, leaf| {
                            timestamps_in_unit(leaf, unit)
                        })
                        .map_err(|e| column_error(&e))?,
                    ),
                    _ => None,
                };
                let column = rescaled.as_ref().unwrap_or(column);
                if column.data_type() == field.data_type() {
                    Ok(owned(column))
                } else {
                    // What is left to cast converts exactly (TIME in milliseconds), or fails.
                    let strict = CastOptions {
                        safe: false,
                        ..CastOptions::default()
                    };
                    cast_with_options(column, field.data_type(), &strict)
                        .map(|c| owned(&c))
                        .map_err(|e| column_error(&e))
                }
            })
            .collect::<Result<Vec<ArrayRef>, _>>()?;
        let batch = RecordBatch::try_new(self.file_schema.clone(), columns)
            .map_err(|e| write_error(&self.path, e))?;
        let bytes = batch.get_array_memory_size();
        let mut state = self.encoder.lock();
        while state.queue.len() >= QUEUED && state.error.is_none() {
            state = self.encoder.wait(state);
        }
        if let Some(error) = &state.error {
            return Err(write_error(&self.path, error));
        }
        state.queue.push_back(batch);
        state.queued_bytes += bytes;
        if !state.scheduled {
            state.scheduled = true;
            drop(state);
            let encoder = Arc::clone(&self.encoder);
            if encode::threads()
                .submit(Box::new(move || encoder.turn()))
                .is_err()
            {
                // No encoder thread: encode here.
                Arc::clone(&self.encoder).turn();
            }
        }
        Ok(())
    }

    /// Waits until every queued batch is encoded, then runs `f` on the parquet-rs writer.
    fn when_idle<T>(
        &mut self,
        f: impl FnOnce(&mut FileEncoder) -> parquet::errors::Result<T>,
    ) -> Result<T, WriteError> {
        let mut state = self.encoder.lock();
        while state.scheduled {
            state = self.encoder.wait(state);
        }
        if let Some(error) = &state.error {
            return Err(write_error(&self.path, error));
        }
        let Some(writer) = state.writer.as_mut() else {
            return Err(write_error(&self.path, "the encoder is gone"));
        };
        let result = f(writer).map_err(|e| write_error(&self.path, e));
        let writer_bytes = writer.memory_size();
        state.measure(writer_bytes, &self.spool);
        if let Err(e) = &result {
            state.error = Some(e.reason.clone());
        }
        result
    }

    /// Closes the row group in progress early (its bytes reach the spool), as when it is full,
    /// and from then on keeps no spool allocated once drained: for when memory is short.
    pub fn flush_row_group(&mut self) -> Result<(), WriteError> {
        if self.finished {
            return Err(write_error(&self.path, "the file is already finished"));
        }
        self.spool.lock().keep_none = true;
        self.when_idle(|writer| writer.open()?.flush())
    }

    /// Writes the last row group and the footer into the spool.
    pub fn finish(&mut self) -> Result<(), WriteError> {
        if !self.finished {
            self.finished = true;
            self.when_idle(|writer| writer.open()?.finish().map(|_| ()))?;
        }
        Ok(())
    }

    /// Hands up to `max` spooled bytes to `sink` in one slice and forgets them once `sink`
    /// succeeds; returns how many (0 when nothing is spooled).
    pub fn drain<E>(
        &mut self,
        max: usize,
        sink: impl FnOnce(&[u8]) -> Result<(), E>,
    ) -> Result<usize, E> {
        let mut spool = self.spool.lock();
        let pending = spool.pending();
        let n = max.min(pending.len());
        if n > 0 {
            sink(&pending[..n])?;
            spool.consume(n);
        }
        Ok(n)
    }

    /// Encoded bytes waiting to be drained.
    pub fn spooled_bytes(&mut self) -> usize {
        self.spool.lock().pending().len()
    }

    /// Bytes this writer holds: the batches queued, the row group it encodes and the spool's
    /// allocation. While a batch is being encoded, the row group is taken as it was before that
    /// batch, less what the encoder has since flushed into the spool (a row group closed during
    /// the turn is counted once, in the spool).
    pub fn memory_bytes(&mut self) -> usize {
        let state = self.encoder.lock();
        let spool = self.spool.lock();
        let encoder = match (&state.writer, state.encoding) {
            (Some(writer), false) => writer.memory_size(),
            _ => state
                .encoder_bytes
                .saturating_sub(spool.written - state.spool_written),
        };
        state.queued_bytes + encoder + spool.bytes.capacity()
    }

    /// The schema of the batches this writer takes.
    pub fn input_schema(&self) -> &SchemaRef {
        &self.input
    }
}

fn write_error(path: &str, reason: impl std::fmt::Display) -> WriteError {
    WriteError {
        path: path.to_string(),
        reason: reason.to_string(),
    }
}

/// The schema as written: timestamps in the unit the settings choose, and no field metadata (the
/// Flink type hints of the bridge mean nothing to other readers).
fn file_schema(input: &Schema, timestamps: TimestampUnit) -> SchemaRef {
    let fields: Vec<Field> = input
        .fields()
        .iter()
        .map(|f| {
            Field::new(
                f.name(),
                file_type(f.data_type(), timestamps),
                f.is_nullable(),
            )
        })
        .collect();
    Arc::new(Schema::new(fields))
}

fn file_type(data_type: &DataType, timestamps: TimestampUnit) -> DataType {
    match (data_type, timestamps) {
        // Every timestamp, TIMESTAMP_LTZ too, is annotated as not adjusted to UTC, as Flink's
        // writer annotates its INT64 timestamps: the values are wall-clock time (of UTC or of the
        // writing JVM's zone, by `parquet.utc-timezone`), which other readers then take as such.
        (DataType::Timestamp(_, _), TimestampUnit::Fixed(unit)) => DataType::Timestamp(unit, None),
        (DataType::Timestamp(unit, Some(_)), TimestampUnit::OfPrecision) => {
            DataType::Timestamp(*unit, None)
        }
        // As Flink writes every TIME: INT32 milliseconds (all a Flink TIME holds), which its
        // reader needs.
        (DataType::Time64(_), _) => DataType::Time32(TimeUnit::Millisecond),
        (DataType::List(element), _) => DataType::List(Arc::new(file_field(element, timestamps))),
        (DataType::Struct(fields), _) => DataType::Struct(
            fields
                .iter()
                .map(|f| file_field(f, timestamps))
                .collect::<Vec<_>>()
                .into(),
        ),
        (DataType::Map(entries, sorted), _) => {
            DataType::Map(Arc::new(file_field(entries, timestamps)), *sorted)
        }
        (other, _) => other.clone(),
    }
}

fn file_field(field: &Field, timestamps: TimestampUnit) -> Field {
    Field::new(
        field.name(),
        file_type(field.data_type(), timestamps),
        field.is_nullable(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int32Array, StringArray, TimestampMillisecondArray};
    use bytes::Bytes;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::basic::Compression;

    fn options(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn write_all(settings: WriterSettings, batches: &[RecordBatch]) -> Result<Vec<u8>, WriteError> {
        let mut writer = ParquetFileWriter::new("t.parquet", batches[0].schema(), settings)?;
        let mut out = Vec::new();
        let mut drain_all = |writer: &mut ParquetFileWriter| {
            while writer.drain(7, |bytes| {
                out.extend_from_slice(bytes);
                Ok::<_, WriteError>(())
            })? > 0
            {}
            Ok::<_, WriteError>(())
        };
        for batch in batches {
            writer.write(batch)?;
            drain_all(&mut writer)?;
        }
        writer.finish()?;
        drain_all(&mut writer)?;
        Ok(out)
    }

    fn batch(ids: Vec<Option<i32>>, names: Vec<Option<&str>>, ts: Vec<Option<i64>>) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("name", DataType::Utf8, true),
            Field::new("ts", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(ids)),
            Arc::new(StringArray::from(names)),
            Arc::new(TimestampMillisecondArray::from(ts)),
        ];
        RecordBatch::try_new(schema, columns).expect("test batch")
    }

    #[test]
    fn writes_a_file_that_reads_back_equal() -> Result<(), Box<dyn std::error::Error>> {
        let input = batch(
            vec![Some(1), None, Some(3)],
            vec![Some("a"), Some("b"), None],
            vec![Some(1_700_000_000_123), None, Some(-5)],
        );
        let bytes = write_all(
            WriterSettings::from_options(&[])?,
            std::slice::from_ref(&input),
        )?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))?;
        let meta = builder.metadata().clone();
        assert_eq!(
            meta.row_group(0).column(0).compression(),
            Compression::SNAPPY
        );
        let read: Vec<RecordBatch> = builder.build()?.collect::<Result<_, _>>()?;
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].columns(), input.columns());
        Ok(())
    }

    /// Every decimal is fixed-length bytes of Flink's width for its precision, as Flink's writer
    /// stores it, and reads back equal, nested ones too.
    #[test]
    fn decimals_are_fixed_length_bytes_as_flink_writes_them()
    -> Result<(), Box<dyn std::error::Error>> {
        use arrow::array::{AsArray, Decimal128Array, ListArray};
        use parquet::basic::Type as PhysicalType;
        let widths: Vec<i32> = [1, 2, 3, 4, 9, 10, 18, 19, 38]
            .iter()
            .map(|&p| decimal_bytes(p))
            .collect();
        assert_eq!(widths, vec![1, 1, 2, 2, 4, 5, 8, 9, 16]);

        let precisions: [(u8, i8); 4] = [(1, 0), (9, 2), (18, 4), (30, 2)];
        let mut fields = Vec::new();
        let mut columns: Vec<ArrayRef> = Vec::new();
        for (precision, scale) in precisions {
            let top = 10i128.pow(u32::from(precision)) - 1;
            let values =
                Decimal128Array::from(vec![Some(top), None, Some(-top), Some(0), Some(-1)])
                    .with_precision_and_scale(precision, scale)?;
            fields.push(Field::new(
                format!("d{precision}"),
                values.data_type().clone(),
                true,
            ));
            columns.push(Arc::new(values));
        }
        let element =
            Decimal128Array::from(vec![Some(12_345), Some(-99_999), None, Some(1), Some(7)])
                .with_precision_and_scale(5, 1)?;
        let element_field = Arc::new(Field::new("element", element.data_type().clone(), true));
        let list = ListArray::try_new(
            Arc::clone(&element_field),
            arrow::buffer::OffsetBuffer::from_lengths([1, 0, 2, 1, 1]),
            Arc::new(element),
            None,
        )?;
        fields.push(Field::new("nested", list.data_type().clone(), true));
        columns.push(Arc::new(list));
        let input = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)?;

        let bytes = write_all(
            WriterSettings::from_options(&[])?,
            std::slice::from_ref(&input),
        )?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))?;
        let schema = builder.metadata().file_metadata().schema_descr_ptr();
        let stored: Vec<(PhysicalType, i32)> = schema
            .columns()
            .iter()
            .map(|c| (c.physical_type(), c.type_length()))
            .collect();
        assert_eq!(
            stored,
            vec![
                (PhysicalType::FIXED_LEN_BYTE_ARRAY, 1),
                (PhysicalType::FIXED_LEN_BYTE_ARRAY, 4),
                (PhysicalType::FIXED_LEN_BYTE_ARRAY, 8),
                (PhysicalType::FIXED_LEN_BYTE_ARRAY, 13),
                (PhysicalType::FIXED_LEN_BYTE_ARRAY, 3),
            ]
        );
        let read: Vec<RecordBatch> = builder.build()?.collect::<Result<_, _>>()?;
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].columns()[..4], input.columns()[..4]);
        assert_eq!(
            read[0].column(4).as_list::<i32>().values(),
            input.column(4).as_list::<i32>().values()
        );
        Ok(())
    }

    /// The file's first 20,000 rows (parquet-java's first page) decide which columns keep a
    /// dictionary, as in Flink's writer: distinct ids and texts are written plain, ten repeated
    /// texts with a dictionary, and `parquet.enable.dictionary` = `false` turns every one off.
    /// Files shorter than that decide when they finish; every row reads back in order.
    #[test]
    fn a_column_keeps_a_dictionary_only_where_it_pays() -> Result<(), Box<dyn std::error::Error>> {
        let text = |i: i32| format!("text number {i}");
        let rows = |from: i32, to: i32| {
            let distinct: Vec<String> = (from..to).map(text).collect();
            let repeated: Vec<String> = (from..to).map(|i| text(i % 10)).collect();
            let columns: Vec<(&str, ArrayRef)> = vec![
                (
                    "id",
                    Arc::new(arrow::array::Int32Array::from_iter_values(from..to)),
                ),
                (
                    "distinct",
                    Arc::new(arrow::array::StringArray::from_iter_values(distinct)),
                ),
                (
                    "repeated",
                    Arc::new(arrow::array::StringArray::from_iter_values(repeated)),
                ),
            ];
            RecordBatch::try_from_iter(columns)
        };
        for (total, pairs) in [
            (3, vec![]),
            (30_000, vec![]),
            (30_000, vec![("parquet.enable.dictionary", "false")]),
        ] {
            let batches = (0..total)
                .step_by(4_096)
                .map(|from| rows(from, (from + 4_096).min(total)))
                .collect::<Result<Vec<_>, _>>()?;
            let bytes = write_all(WriterSettings::from_options(&options(&pairs))?, &batches)?;
            let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))?;
            let with_dictionary: Vec<String> = builder
                .metadata()
                .row_group(0)
                .columns()
                .iter()
                .filter(|c| c.dictionary_page_offset().is_some())
                .map(|c| c.column_path().string())
                .collect();
            // Three rows hold three texts, each once: no dictionary pays for them.
            let expected: &[&str] = if total == 30_000 && pairs.is_empty() {
                &["repeated"]
            } else {
                &[]
            };
            assert_eq!(with_dictionary, expected, "{total} rows, {pairs:?}");
            let read: Vec<RecordBatch> = builder.build()?.collect::<Result<_, _>>()?;
            let read = arrow::compute::concat_batches(&read[0].schema(), &read)?;
            let written = arrow::compute::concat_batches(&batches[0].schema(), &batches)?;
            assert_eq!(read.columns(), written.columns());
        }
        Ok(())
    }

    /// Maps and lists take the names Flink's writer gives them (the specification's): a map's
    /// repeated group `key_value` of `key` and `value`, a list's `list` of `element`; the
    /// values read back as written.
    #[test]
    fn maps_and_lists_take_flinks_names() -> Result<(), Box<dyn std::error::Error>> {
        use arrow::array::{Int64Builder, ListBuilder, MapBuilder, StringBuilder};
        let mut map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());
        map.keys().append_value("a");
        map.values().append_value(1);
        map.append(true)?;
        map.append(false)?;
        let mut list = ListBuilder::new(Int64Builder::new()).with_field(Arc::new(Field::new(
            "element",
            DataType::Int64,
            true,
        )));
        list.values().append_value(7);
        list.append(true);
        list.append(true);
        let map = map.finish();
        let list = list.finish();
        let schema = Arc::new(Schema::new(vec![
            Field::new("m", map.data_type().clone(), true),
            Field::new("l", list.data_type().clone(), true),
        ]));
        let input = RecordBatch::try_new(schema, vec![Arc::new(map), Arc::new(list)])?;
        let bytes = write_all(
            WriterSettings::from_options(&options(&[]))?,
            std::slice::from_ref(&input),
        )?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))?;
        let descriptor = builder.metadata().file_metadata().schema_descr();
        let paths: Vec<String> = (0..descriptor.num_columns())
            .map(|c| descriptor.column(c).path().string())
            .collect();
        assert_eq!(
            paths,
            ["m.key_value.key", "m.key_value.value", "l.list.element"]
        );
        let read: Vec<RecordBatch> = builder.build()?.collect::<Result<_, _>>()?;
        let read_map = read[0].column(0).as_map();
        assert_eq!(read_map.len(), 2);
        assert!(read_map.is_null(1));
        assert_eq!(read_map.keys().as_string::<i32>().value(0), "a");
        assert_eq!(read_map.values().as_primitive::<Int64Type>().value(0), 1);
        assert_eq!(read[0].column(1).as_list::<i32>().value(0).len(), 1);
        Ok(())
    }

    /// A `TIMESTAMP_LTZ` column is annotated `isAdjustedToUTC = false`, as Flink's writer
    /// annotates every INT64 timestamp, with the unit of its precision or the configured one.
    #[test]
    fn zoned_timestamps_are_not_annotated_as_adjusted_to_utc()
    -> Result<(), Box<dyn std::error::Error>> {
        let schema = Arc::new(Schema::new(vec![
            Field::new(
                "ltz",
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                true,
            ),
            Field::new("ts", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        ]));
        let input = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(
                    arrow::array::TimestampMicrosecondArray::from(vec![Some(1_234_567)])
                        .with_timezone("UTC"),
                ),
                Arc::new(arrow::array::TimestampMillisecondArray::from(vec![Some(
                    1_234,
                )])),
            ],
        )?;
        for pairs in [
            vec![],
            vec![
                ("parquet.write.int64.timestamp", "true"),
                ("parquet.timestamp.time.unit", "millis"),
            ],
        ] {
            let bytes = write_all(
                WriterSettings::from_options(&options(&pairs))?,
                std::slice::from_ref(&input),
            )?;
            let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))?;
            let descriptor = builder.metadata().file_metadata().schema_descr();
            for column in 0..2 {
                assert!(
                    matches!(
                        descriptor.column(column).logical_type_ref(),
                        Some(parquet::basic::LogicalType::Timestamp {
                            is_adjusted_to_u_t_c: false,
                            ..
                        })
                    ),
                    "{pairs:?}, column {column}: {:?}",
                    descriptor.column(column).logical_type_ref()
                );
            }
            let read: Vec<RecordBatch> = builder.build()?.collect::<Result<_, _>>()?;
            let ltz = read[0].column(0);
            assert_eq!(
                arrow::compute::cast(ltz, &DataType::Int64)?
                    .as_primitive::<Int64Type>()
                    .value(0),
                if pairs.is_empty() { 1_234_567 } else { 1_234 }
            );
        }
        Ok(())
    }

    #[test]
    fn int64_timestamps_take_the_configured_unit() -> Result<(), Box<dyn std::error::Error>> {
        let input = batch(vec![Some(1)], vec![Some("a")], vec![Some(1_234)]);
        let settings = WriterSettings::from_options(&options(&[
            ("parquet.write.int64.timestamp", "true"),
            ("parquet.timestamp.time.unit", "nanos"),
            ("parquet.compression", "zstd"),
        ]))?;
        let bytes = write_all(settings, &[input])?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))?;
        assert!(matches!(
            builder.metadata().row_group(0).column(0).compression(),
            Compression::ZSTD(_)
        ));
        let read: Vec<RecordBatch> = builder.build()?.collect::<Result<_, _>>()?;
        assert_eq!(
            read[0].schema().field(2).data_type(),
            &DataType::Timestamp(TimeUnit::Nanosecond, None)
        );
        let expected: ArrayRef =
            Arc::new(arrow::array::TimestampNanosecondArray::from(vec![Some(
                1_234_000_000,
            )]));
        assert_eq!(read[0].column(2), &expected);
        Ok(())
    }

    #[test]
    fn timestamps_in_a_coarser_unit_round_down_and_in_a_finer_one_fail_past_64_bits()
    -> Result<(), Box<dyn std::error::Error>> {
        let micros = |values: Vec<Option<i64>>| -> Result<RecordBatch, ArrowError> {
            let field = Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), true);
            RecordBatch::try_new(
                Arc::new(Schema::new(vec![field])),
                vec![Arc::new(arrow::array::TimestampMicrosecondArray::from(
                    values,
                ))],
            )
        };
        let unit = |unit: &str| {
            WriterSettings::from_options(&options(&[
                ("parquet.write.int64.timestamp", "true"),
                ("parquet.timestamp.time.unit", unit),
            ]))
        };
        // 1969-12-31 23:59:59.999500 is -1 ms as Flink writes it (rounded down, not towards 0).
        let input = micros(vec![Some(-500), Some(1_500), None, Some(-1_000)])?;
        let bytes = write_all(unit("millis")?, &[input])?;
        let read: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))?
            .build()?
            .collect::<Result<_, _>>()?;
        let expected: ArrayRef = Arc::new(TimestampMillisecondArray::from(vec![
            Some(-1),
            Some(1),
            None,
            Some(-1),
        ]));
        assert_eq!(read[0].column(0), &expected);

        // Past April 2262 there is no 64-bit nanosecond count: the write fails naming the column.
        let far = micros(vec![Some(9_300_000_000_000_000)])?;
        let error = write_all(unit("nanos")?, &[far])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("column 'ts'"), "{error}");
        assert!(error.contains("does not fit in 64 bits"), "{error}");
        Ok(())
    }

    #[test]
    fn small_block_size_makes_several_row_groups() -> Result<(), Box<dyn std::error::Error>> {
        let batches: Vec<RecordBatch> = (0..20)
            .map(|b| {
                let ids: Vec<Option<i32>> = (0..1000).map(|i| Some(b * 1000 + i)).collect();
                let names: Vec<Option<&str>> = vec![Some("some text"); 1000];
                batch(ids, names, vec![Some(1); 1000])
            })
            .collect();
        let settings = WriterSettings::from_options(&options(&[
            ("parquet.block.size", "20000"),
            ("parquet.enable.dictionary", "false"),
        ]))?;
        let bytes = write_all(settings, &batches)?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))?;
        assert!(builder.metadata().num_row_groups() > 1);
        let rows: usize = builder
            .build()?
            .map(|b| b.map(|b| b.num_rows()))
            .sum::<Result<usize, _>>()?;
        assert_eq!(rows, 20_000);
        Ok(())
    }

    /// A writer holds the row group it encodes, up to `parquet.block.size`, the batches queued for
    /// its encoder, and once a flushed row group is drained, at most `SPOOL_KEPT` of spool: never
    /// the flushed row group's bytes. Measured while the encoder runs, as a caller measures it.
    #[test]
    fn a_writer_holds_about_one_row_group() -> Result<(), Box<dyn std::error::Error>> {
        let block = 2 << 20;
        let settings = WriterSettings::from_options(&options(&[
            ("parquet.block.size", &block.to_string()),
            ("parquet.enable.dictionary", "false"),
            ("parquet.compression", "UNCOMPRESSED"),
        ]))?;
        let batch_of = |b: i32| {
            let ids: Vec<Option<i32>> = (0..1000).map(|i| Some(b * 1000 + i)).collect();
            let names: Vec<String> = (0..1000).map(|i| format!("text {b} {i}")).collect();
            let names = names.iter().map(|n| Some(n.as_str())).collect();
            batch(ids, names, vec![Some(1); 1000])
        };
        let mut writer = ParquetFileWriter::new("t.parquet", batch_of(0).schema(), settings)?;
        // The queue counts the batch being encoded until its turn ends.
        let queue = (QUEUED + 1) * batch_of(199).get_array_memory_size();
        let mut most = 0;
        let mut drained = 0;
        for b in 0..200 {
            writer.write(&batch_of(b))?;
            most = most.max(writer.memory_bytes());
            while let n @ 1.. = writer.drain(1 << 16, |_| Ok::<_, WriteError>(()))? {
                drained += n;
            }
            let held = writer.memory_bytes();
            assert!(
                held <= block + SPOOL_KEPT + queue,
                "{held} bytes held after batch {b}, more than a row group of {block}, \
                 {SPOOL_KEPT} of spool and {queue} queued"
            );
        }
        assert!(drained > block, "only {drained} bytes flushed");
        assert!(most > block / 2, "at most {most} bytes held");
        Ok(())
    }

    fn five_thousand_rows() -> RecordBatch {
        batch(
            (0..5000).map(Some).collect(),
            vec![Some("some text"); 5000],
            vec![Some(7); 5000],
        )
    }

    /// A row group closed early lets go of its encoded rows once drained, and the file reads
    /// back whole with one row group more.
    #[test]
    fn a_row_group_closed_early_frees_its_rows() -> Result<(), Box<dyn std::error::Error>> {
        let input = five_thousand_rows();
        let mut writer = ParquetFileWriter::new(
            "t.parquet",
            input.schema(),
            WriterSettings::from_options(&[])?,
        )?;
        let mut bytes = Vec::new();
        let mut drain = |writer: &mut ParquetFileWriter| -> Result<(), WriteError> {
            while writer.drain(1 << 16, |b| {
                bytes.extend_from_slice(b);
                Ok::<_, WriteError>(())
            })? > 0
            {}
            Ok(())
        };
        writer.write(&input)?;
        let holding = writer.memory_bytes();
        writer.flush_row_group()?;
        drain(&mut writer)?;
        let held_after = writer.memory_bytes();
        assert!(
            held_after * 4 < holding,
            "{held_after} bytes held after closing the row group, {holding} before"
        );
        writer.flush_row_group()?;
        writer.write(&input)?;
        writer.finish()?;
        drain(&mut writer)?;
        assert!(writer.flush_row_group().is_err());
        let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))?;
        assert_eq!(builder.metadata().num_row_groups(), 2);
        let read: Vec<RecordBatch> = builder.build()?.collect::<Result<_, _>>()?;
        assert_eq!(
            read.iter().map(RecordBatch::num_rows).sum::<usize>(),
            10_000
        );
        Ok(())
    }

    /// Writers outnumbering the encoder threads, fed from several threads at once, each get
    /// their own rows in their order; a writer dropped with batches queued lets go of them.
    #[test]
    fn writers_share_the_encoder_threads() -> Result<(), Box<dyn std::error::Error>> {
        let files: Vec<std::thread::JoinHandle<Result<Vec<i32>, String>>> = (0..12)
            .map(|w| {
                std::thread::spawn(move || {
                    let batches: Vec<RecordBatch> = (0..30)
                        .map(|b| {
                            let ids = (0..500)
                                .map(|i| Some(w * 1_000_000 + b * 1000 + i))
                                .collect();
                            batch(ids, vec![Some("text"); 500], vec![Some(1); 500])
                        })
                        .collect();
                    let settings =
                        WriterSettings::from_options(&options(&[("parquet.block.size", "50000")]))
                            .map_err(|e| e.to_string())?;
                    let bytes = write_all(settings, &batches).map_err(|e| e.to_string())?;
                    let read = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))
                        .and_then(|b| b.build())
                        .map_err(|e| e.to_string())?;
                    let mut ids = Vec::new();
                    for b in read {
                        let b = b.map_err(|e| e.to_string())?;
                        let column = b
                            .column(0)
                            .as_any()
                            .downcast_ref::<Int32Array>()
                            .ok_or("not INT")?;
                        ids.extend(column.iter().flatten());
                    }
                    Ok(ids)
                })
            })
            .collect();
        for (w, file) in files.into_iter().enumerate() {
            let ids = file.join().map_err(|_| "writer thread panicked")??;
            let w = i32::try_from(w)?;
            let expected: Vec<i32> = (0..30)
                .flat_map(|b| (0..500).map(move |i| w * 1_000_000 + b * 1000 + i))
                .collect();
            assert_eq!(ids, expected, "writer {w}");
        }

        let input = five_thousand_rows();
        let mut dropped = ParquetFileWriter::new(
            "t.parquet",
            input.schema(),
            WriterSettings::from_options(&[])?,
        )?;
        for _ in 0..QUEUED + 2 {
            dropped.write(&input)?;
        }
        let encoder = Arc::clone(&dropped.encoder);
        drop(dropped);
        let state = encoder.lock();
        assert!(state.queue.is_empty() && state.writer.is_none() && !state.encoding);
        Ok(())
    }

    #[test]
    fn bad_options_are_named() {
        for (key, value) in [
            ("parquet.compression", "LZO"),
            ("parquet.block.size", "-1"),
            ("parquet.writer.version", "v3"),
            ("parquet.no.such.option", "1"),
            ("parquet.timestamp.time.unit", "seconds"),
        ] {
            let err = WriterSettings::from_options(&options(&[(key, value)]))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.contains(key), "{key}: {err}");
        }
    }
}
