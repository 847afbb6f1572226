//! Arrow batches written as Parquet data files of an Iceberg table, fanned out by partition and
//! rolled at a target size; what each file holds (metrics, bounds, partition values) handed back
//! for Iceberg Java to commit. A table written with equality fields takes changelogs: deleted and
//! replaced rows become position and equality delete files ([`crate::delta`]).

use std::sync::Arc;

use std::collections::HashMap;

use arrow::array::{Array, ArrayRef, AsArray, Date32Array, RecordBatch, StructArray, UInt32Array};
use arrow::buffer::NullBuffer;
use arrow::compute::{CastOptions, cast, cast_with_options, take_record_batch};
use arrow::datatypes::{
    DataType, Schema as ArrowSchema, SchemaRef, TimeUnit, TimestampMicrosecondType,
    TimestampNanosecondType,
};
use iceberg::arrow::{PartitionValueCalculator, arrow_struct_to_literal, schema_to_arrow_schema};
use iceberg::io::FileIO;
use iceberg::spec::{
    DataContentType, DataFile, DataFileFormat, Literal, PartitionKey, PartitionSpec,
    PrimitiveLiteral, PrimitiveType, Schema, SchemaRef as IcebergSchemaRef, Struct, StructType,
    Type, UnboundPartitionSpec,
};
use iceberg::writer::base_writer::data_file_writer::{DataFileWriter, DataFileWriterBuilder};
use iceberg::writer::file_writer::location_generator::{
    DefaultFileNameGenerator, LocationGenerator,
};
use iceberg::writer::file_writer::rolling_writer::RollingFileWriterBuilder;
use iceberg::writer::{CurrentFileStatus, IcebergWriter, IcebergWriterBuilder};
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::delta::{Deltas, PartitionDeletes};
use crate::parquet_files::ParquetFiles;
use crate::runtime::{error_chain, runtime};
use crate::storage::{FileAccess, file_io};

/// Why data files could not be written; the message names the table's data location.
#[derive(Debug, thiserror::Error)]
pub enum IcebergWriteError {
    /// The writer description or the batches do not fit the table.
    #[error("invalid Iceberg write: {0}")]
    Config(String),
    /// Writing a file failed.
    #[error("cannot write Iceberg data files under {location}: {reason}")]
    Write { location: String, reason: String },
    /// The runtime that drives writes could not start.
    #[error("the Iceberg write runtime cannot start: {0}")]
    Runtime(String),
}

/// Where and how a writer writes, as Java describes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct WriterDescription {
    /// The table's schema (Iceberg JSON); batches have its top-level columns, in order.
    pub schema: Value,
    /// The table's partition spec (Iceberg JSON).
    pub spec: Value,
    /// The directory data files go under (partition paths below it).
    pub data_location: String,
    /// Unique among the table's writers: file names start with it.
    pub file_prefix: String,
    pub target_file_size: u64,
    /// `write.parquet.compression-codec`: zstd, snappy, gzip, lz4, brotli or uncompressed.
    pub compression: String,
    #[serde(default)]
    pub compression_level: Option<i32>,
    /// `write.parquet.row-group-size-bytes`: a row group is closed once it holds this much.
    #[serde(default)]
    pub row_group_size: Option<u64>,
    /// `write.parquet.page-size-bytes`.
    #[serde(default)]
    pub page_size: Option<u64>,
    /// `write.parquet.page-row-limit`.
    #[serde(default)]
    pub page_row_limit: Option<u64>,
    /// `write.parquet.dict-size-bytes`.
    #[serde(default)]
    pub dict_size: Option<u64>,
    /// The equality fields (top-level field ids) of a table written from a changelog; empty for
    /// an append-only write.
    #[serde(default)]
    pub equality_ids: Vec<i32>,
    /// Upsert: an inserted row replaces the row of its key, and an `UPDATE_BEFORE` row is ignored.
    #[serde(default)]
    pub upsert: bool,
}

/// The kinds of changelog rows, as Flink's `RowKind.toByteValue()` numbers them.
pub const INSERT: u8 = 0;
/// See [`INSERT`].
pub const UPDATE_BEFORE: u8 = 1;
/// See [`INSERT`].
pub const UPDATE_AFTER: u8 = 2;
/// See [`INSERT`].
pub const DELETE: u8 = 3;

type FileWriter = DataFileWriter<ParquetFiles, PartitionLocations, DefaultFileNameGenerator>;
type FileWriterBuilder =
    DataFileWriterBuilder<ParquetFiles, PartitionLocations, DefaultFileNameGenerator>;

/// Microseconds in a day.
const MICROS_PER_DAY: i64 = 86_400_000_000;

/// Writes batches of a table's columns as data files, one open file per partition.
pub struct DataFilesWriter {
    location: String,
    /// The table's Arrow schema (field ids attached), batches are converted to.
    table_arrow: SchemaRef,
    partitioner: Option<Partitioner>,
    builder: FileWriterBuilder,
    /// How deletes are written, for a table written from a changelog.
    deltas: Option<Deltas>,
    /// Open files by partition, in the order the partitions were opened: by the partition's
    /// values, not its path, which writes a NULL and the text "null" alike (one entry, `None`, for
    /// an unpartitioned table).
    partitions: Vec<PartitionFiles>,
    /// The index in `partitions` of each partition's files.
    partition_index: HashMap<PartitionIdentity, usize>,
    rows: u64,
    /// The FLOAT and DOUBLE fields inside structs, whose counts Iceberg Java keeps differently.
    nested_floats: Vec<NestedFloat>,
    /// By data file path: for each of `nested_floats`, the rows written to the file where one of
    /// its structs is NULL.
    absent: HashMap<String, HashMap<i32, u64>>,
}

/// A FLOAT or DOUBLE field inside one or more structs (none of them in a list or a map): its field
/// id, and the child indexes leading to it from the batch's columns.
///
/// Iceberg Java's Parquet writer counts the values and NULLs of these fields with its own counter,
/// which runs only where every enclosing struct is present; Parquet's statistics (what
/// iceberg-rust's writer reports) count a row whose struct is NULL as one more value and one more
/// NULL. The writer takes those rows off, so both record the same metrics.
#[derive(Debug, Clone, PartialEq)]
struct NestedFloat {
    id: i32,
    path: Vec<usize>,
}

impl NestedFloat {
    /// The FLOAT and DOUBLE fields of `schema` inside structs.
    fn of(schema: &Schema) -> Vec<NestedFloat> {
        fn visit(
            fields: &[iceberg::spec::NestedFieldRef],
            path: &mut Vec<usize>,
            out: &mut Vec<NestedFloat>,
        ) {
            for (i, field) in fields.iter().enumerate() {
                path.push(i);
                match field.field_type.as_ref() {
                    Type::Struct(inner) => visit(inner.fields(), path, out),
                    Type::Primitive(PrimitiveType::Float | PrimitiveType::Double)
                        if path.len() > 1 =>
                    {
                        out.push(NestedFloat {
                            id: field.id,
                            path: path.clone(),
                        });
                    }
                    _ => {}
                }
                path.pop();
            }
        }
        let mut out = Vec::new();
        visit(schema.as_struct().fields(), &mut Vec::new(), &mut out);
        out
    }

    /// The rows of `batch` (the table's Arrow columns) where one of the field's structs is NULL.
    fn absent_rows(&self, batch: &RecordBatch) -> Result<u64, IcebergWriteError> {
        let Some((&top, inner)) = self.path.split_first() else {
            return Ok(0);
        };
        let unexpected = || {
            IcebergWriteError::Config(format!(
                "field {} is not inside structs of the batch",
                self.id
            ))
        };
        let mut array = batch.columns().get(top).ok_or_else(unexpected)?;
        let mut nulls: Option<NullBuffer> = None;
        // Every index but the last leads from a struct to its child.
        for &child in inner {
            let structs = array.as_struct_opt().ok_or_else(unexpected)?;
            nulls = NullBuffer::union(nulls.as_ref(), structs.nulls());
            array = structs.columns().get(child).ok_or_else(unexpected)?;
        }
        Ok(nulls.map_or(0, |n| n.null_count() as u64))
    }
}

/// The files open in one partition.
struct PartitionFiles {
    key: Option<PartitionKey>,
    data: FileWriter,
    deletes: Option<PartitionDeletes>,
}

/// A partition as Iceberg Java tells partitions apart: by their values, where a -0.0 and a 0.0
/// (equal in iceberg-rust's `Struct`, whose floats are ordered) are two partitions, as
/// `Float.equals` makes them in Java's partition keys.
#[derive(Clone, PartialEq, Eq, Hash)]
struct PartitionIdentity {
    values: Option<Struct>,
    /// The fields holding -0.0, by position.
    negative_zeros: Vec<usize>,
}

impl PartitionIdentity {
    fn of(values: Option<Struct>) -> Self {
        let negative_zeros = values.as_ref().map_or_else(Vec::new, |values| {
            values
                .iter()
                .enumerate()
                .filter(|(_, value)| match value {
                    Some(Literal::Primitive(PrimitiveLiteral::Float(v))) => {
                        v.0 == 0.0 && v.0.is_sign_negative()
                    }
                    Some(Literal::Primitive(PrimitiveLiteral::Double(v))) => {
                        v.0 == 0.0 && v.0.is_sign_negative()
                    }
                    _ => false,
                })
                .map(|(at, _)| at)
                .collect()
        });
        PartitionIdentity {
            values,
            negative_zeros,
        }
    }
}

/// Assigns rows to partitions: the partition spec's transforms applied to a batch's columns.
struct Partitioner {
    schema: IcebergSchemaRef,
    spec: PartitionSpec,
    transforms: SpecTransforms,
    partition_type: StructType,
}

impl Partitioner {
    /// The rows of `batch` by partition, in the order partitions first appear, each partition's
    /// rows in their order.
    fn groups(&self, batch: &RecordBatch) -> iceberg::Result<Vec<(PartitionKey, Vec<u32>)>> {
        let values = self.transforms.calculate(batch)?;
        let values = arrow_struct_to_literal(&values, &self.partition_type)?;
        let mut index: HashMap<PartitionIdentity, usize> = HashMap::new();
        let mut groups: Vec<(Struct, Vec<u32>)> = Vec::new();
        for (row, value) in values.into_iter().enumerate() {
            let Some(Literal::Struct(value)) = value else {
                return Err(iceberg::Error::new(
                    iceberg::ErrorKind::DataInvalid,
                    "a row's partition value is not a struct",
                ));
            };
            let row = u32::try_from(row)
                .map_err(|e| iceberg::Error::new(iceberg::ErrorKind::DataInvalid, e.to_string()))?;
            let identity = PartitionIdentity::of(Some(value));
            match index.get(&identity) {
                Some(&at) => groups[at].1.push(row),
                None => {
                    index.insert(identity.clone(), groups.len());
                    if let Some(value) = identity.values {
                        groups.push((value, vec![row]));
                    }
                }
            }
        }
        Ok(groups
            .into_iter()
            .map(|(value, rows)| {
                (
                    PartitionKey::new(self.spec.clone(), Arc::clone(&self.schema), value),
                    rows,
                )
            })
            .collect())
    }
}

/// A partition spec's transforms over batches of the table's columns, with the values Iceberg
/// Java computes. Iceberg Java transforms a nanosecond timestamp (but for `identity`) as its
/// microseconds, rounded toward the earlier instant (`DateTimeUtil.nanosToMicros` for `bucket`;
/// `year`, `month`, `day` and `hour` round down alike). iceberg-rust 0.10.1 has no `hour` of
/// nanoseconds and buckets them as microseconds rounded toward zero, which differs before 1970.
/// So a top-level nanosecond column that only such transforms read is handed to iceberg-rust as
/// microseconds, rounded down. One that `identity` reads too keeps its nanoseconds; then a
/// bucket of a value iceberg-rust would round otherwise fails, naming the column, and an `hour`
/// of it is refused when the writer opens.
struct SpecTransforms {
    calculator: PartitionValueCalculator,
    /// The columns handed over as microseconds, by position.
    as_micros: Vec<usize>,
    /// The columns kept in nanoseconds that a bucket reads: (position, column name, field name).
    bucketed_nanos: Vec<(usize, String, String)>,
    /// The day partitions of timestamp columns: (partition field, column position).
    timestamp_days: Vec<(usize, usize)>,
}

impl SpecTransforms {
    fn try_new(spec: &PartitionSpec, schema: &Schema) -> iceberg::Result<Self> {
        let mut as_micros = Vec::new();
        let mut bucketed_nanos = Vec::new();
        let mut fields = Vec::with_capacity(schema.as_struct().fields().len());
        for (at, field) in schema.as_struct().fields().iter().enumerate() {
            let micros = match field.field_type.as_ref() {
                Type::Primitive(PrimitiveType::TimestampNs) => PrimitiveType::Timestamp,
                Type::Primitive(PrimitiveType::TimestamptzNs) => PrimitiveType::Timestamptz,
                _ => {
                    fields.push(Arc::clone(field));
                    continue;
                }
            };
            let readers: Vec<_> = spec
                .fields()
                .iter()
                .filter(|f| f.source_id == field.id)
                .collect();
            let identity = readers
                .iter()
                .any(|f| f.transform == iceberg::spec::Transform::Identity);
            if identity
                && let Some(hour) = readers
                    .iter()
                    .find(|f| f.transform == iceberg::spec::Transform::Hour)
            {
                // iceberg-rust has no hour of nanoseconds, and the column stays in them here.
                return Err(iceberg::Error::new(
                    iceberg::ErrorKind::FeatureUnsupported,
                    format!(
                        "column {} is partitioned both by identity and by hour ({}), which the \
                         native writer does not compute together for nanosecond timestamps",
                        field.name, hour.name
                    ),
                ));
            }
            if readers.is_empty() || identity {
                if let Some(bucket) = readers
                    .iter()
                    .find(|f| matches!(f.transform, iceberg::spec::Transform::Bucket(_)))
                {
                    bucketed_nanos.push((at, field.name.clone(), bucket.name.clone()));
                }
                fields.push(Arc::clone(field));
            } else {
                as_micros.push(at);
                let mut field = field.as_ref().clone();
                field.field_type = Box::new(Type::Primitive(micros));
                fields.push(Arc::new(field));
            }
        }
        let calculator = if as_micros.is_empty() {
            PartitionValueCalculator::try_new(spec, schema)?
        } else {
            let transformed = Schema::builder()
                .with_schema_id(schema.schema_id())
                .with_fields(fields)
                .build()?;
            PartitionValueCalculator::try_new(spec, &transformed)?
        };
        let mut timestamp_days = Vec::new();
        for (partition_field, field) in spec.fields().iter().enumerate() {
            let column = schema.as_struct().fields().iter().position(|c| {
                c.id == field.source_id
                    && matches!(
                        c.field_type.as_ref(),
                        Type::Primitive(
                            PrimitiveType::Timestamp
                                | PrimitiveType::Timestamptz
                                | PrimitiveType::TimestampNs
                                | PrimitiveType::TimestamptzNs
                        )
                    )
            });
            if let (iceberg::spec::Transform::Day, Some(column)) = (field.transform, column) {
                timestamp_days.push((partition_field, column));
            }
        }
        Ok(SpecTransforms {
            calculator,
            as_micros,
            bucketed_nanos,
            timestamp_days,
        })
    }

    /// The partition values of the rows of `batch` (the table's columns in its Arrow types), a
    /// struct array.
    fn calculate(&self, batch: &RecordBatch) -> iceberg::Result<ArrayRef> {
        self.check_nanosecond_buckets(batch)?;
        let batch = self.with_micros(batch)?;
        let values = self.calculator.calculate(&batch)?;
        self.with_floored_days(&batch, values)
    }

    /// `batch` with the columns of `as_micros` in microseconds.
    fn with_micros(&self, batch: &RecordBatch) -> iceberg::Result<RecordBatch> {
        if self.as_micros.is_empty() {
            return Ok(batch.clone());
        }
        let mut columns = batch.columns().to_vec();
        let mut fields: Vec<_> = batch.schema().fields().iter().cloned().collect();
        for &at in &self.as_micros {
            let (Some(column), Some(field)) = (columns.get(at), fields.get(at)) else {
                return Err(iceberg::Error::new(
                    iceberg::ErrorKind::DataInvalid,
                    format!("a batch of {} columns has no column {at}", columns.len()),
                ));
            };
            let DataType::Timestamp(arrow::datatypes::TimeUnit::Nanosecond, zone) =
                column.data_type()
            else {
                return Err(iceberg::Error::new(
                    iceberg::ErrorKind::DataInvalid,
                    format!(
                        "column {} is {}, not nanosecond timestamps",
                        field.name(),
                        column.data_type()
                    ),
                ));
            };
            let micros = floored_micros(column, zone);
            let field = field
                .as_ref()
                .clone()
                .with_data_type(micros.data_type().clone());
            columns[at] = Arc::new(micros);
            fields[at] = Arc::new(field);
        }
        RecordBatch::try_new(Arc::new(ArrowSchema::new(fields)), columns)
            .map_err(|e| iceberg::Error::new(iceberg::ErrorKind::DataInvalid, e.to_string()))
    }

    /// `values` with each day of a timestamp floored, as Iceberg Java's `DateTimeUtil` floors
    /// it: iceberg-rust 0.10.1 gives the day after for a value in the last second before a
    /// midnight before 1970 (it truncates the seconds and floors their fraction).
    fn with_floored_days(
        &self,
        batch: &RecordBatch,
        values: ArrayRef,
    ) -> iceberg::Result<ArrayRef> {
        if self.timestamp_days.is_empty() {
            return Ok(values);
        }
        let invalid =
            |message: String| iceberg::Error::new(iceberg::ErrorKind::DataInvalid, message);
        let Some(values) = values.as_struct_opt() else {
            return Err(invalid("the partition values are not a struct".to_string()));
        };
        let (fields, mut children, nulls) = values.clone().into_parts();
        for &(field, at) in &self.timestamp_days {
            let Some(column) = batch.columns().get(at) else {
                return Err(invalid(format!(
                    "a batch of {} columns has no column {at}",
                    batch.num_columns()
                )));
            };
            let days: Date32Array = match column.data_type() {
                DataType::Timestamp(TimeUnit::Microsecond, _) => column
                    .as_primitive::<TimestampMicrosecondType>()
                    .unary(|v| v.div_euclid(MICROS_PER_DAY) as i32),
                DataType::Timestamp(TimeUnit::Nanosecond, _) => column
                    .as_primitive::<TimestampNanosecondType>()
                    .unary(|v| v.div_euclid(MICROS_PER_DAY * 1_000) as i32),
                other => return Err(invalid(format!("column {at} is {other}, not timestamps"))),
            };
            let Some(child) = children.get_mut(field) else {
                return Err(invalid(format!("no partition value {field}")));
            };
            *child = Arc::new(days);
        }
        let values =
            StructArray::try_new(fields, children, nulls).map_err(|e| invalid(e.to_string()))?;
        Ok(Arc::new(values))
    }

    /// Fails for a value in a nanosecond column kept as such that iceberg-rust 0.10.1 would
    /// bucket differently from Iceberg Java: before 1970 and not a whole microsecond. Its
    /// partition value would be wrong, and readers pruning by it would skip its file.
    fn check_nanosecond_buckets(&self, batch: &RecordBatch) -> iceberg::Result<()> {
        for (at, column, bucket) in &self.bucketed_nanos {
            let Some(values) = batch.columns().get(*at) else {
                continue;
            };
            let Ok(nanos) = arrow::compute::cast(values, &DataType::Int64) else {
                continue;
            };
            let nanos = nanos.as_primitive::<arrow::datatypes::Int64Type>();
            if nanos.iter().flatten().any(|v| v < 0 && v % 1000 != 0) {
                return Err(iceberg::Error::new(
                    iceberg::ErrorKind::FeatureUnsupported,
                    format!(
                        "column {column} holds a timestamp before 1970 with nanoseconds past its \
                         microseconds, whose bucket ({bucket}) iceberg-rust 0.10.1 computes \
                         otherwise than Iceberg Java (the column is also an identity partition)"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A table's schema and partition spec as a writer description gives them, and the Arrow schema
/// (field ids attached) batches are converted to.
struct TableLayout {
    schema: IcebergSchemaRef,
    spec: PartitionSpec,
    table_arrow: SchemaRef,
}

impl TableLayout {
    fn of(description: &WriterDescription) -> Result<Self, IcebergWriteError> {
        let schema: Schema =
            serde_json::from_value(description.schema.clone()).map_err(|e| config("schema", &e))?;
        let schema = Arc::new(schema);
        let spec: UnboundPartitionSpec =
            serde_json::from_value(description.spec.clone()).map_err(|e| config("spec", &e))?;
        let spec: PartitionSpec = spec
            .bind(Arc::clone(&schema))
            .map_err(|e| config("spec", &e))?;
        let table_arrow =
            Arc::new(schema_to_arrow_schema(&schema).map_err(|e| config("schema", &e))?);
        Ok(TableLayout {
            schema,
            spec,
            table_arrow,
        })
    }
}

/// The partition values of a batch's rows, computed as the writers compute them: what routes a
/// partition's rows to one writer.
pub struct PartitionValues {
    table_arrow: SchemaRef,
    transforms: SpecTransforms,
}

impl std::fmt::Debug for PartitionValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartitionValues")
            .field("columns", &self.table_arrow.fields().len())
            .finish()
    }
}

impl PartitionValues {
    /// The partition values of the table `json` describes (see [`WriterDescription`]), or `None`
    /// when the table is not partitioned.
    pub fn open(json: &str) -> Result<Option<Self>, IcebergWriteError> {
        let description: WriterDescription =
            serde_json::from_str(json).map_err(|e| IcebergWriteError::Config(e.to_string()))?;
        let layout = TableLayout::of(&description)?;
        if layout.spec.is_unpartitioned() {
            return Ok(None);
        }
        let transforms = SpecTransforms::try_new(&layout.spec, &layout.schema)
            .map_err(|e| config("spec", &e))?;
        Ok(Some(PartitionValues {
            table_arrow: layout.table_arrow,
            transforms,
        }))
    }

    /// Each partition field's values for the rows of `batch` (the table's columns, in order, of
    /// the bridge's Arrow types).
    pub fn columns(&self, batch: &RecordBatch) -> Result<Vec<ArrayRef>, IcebergWriteError> {
        let batch = to_table_types(&self.table_arrow, batch)?;
        let values = self
            .transforms
            .calculate(&batch)
            .map_err(|e| config("partition values", &e))?;
        let values = values.as_struct_opt().ok_or_else(|| {
            IcebergWriteError::Config("partition values are not a struct".to_string())
        })?;
        Ok(values.columns().to_vec())
    }
}

impl std::fmt::Debug for DataFilesWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataFilesWriter")
            .field("location", &self.location)
            .field("partitions", &self.partitions.len())
            .finish()
    }
}

impl DataFilesWriter {
    /// A writer described by `json` (see [`WriterDescription`]). Its files are created here when
    /// `remote` is `None` (the data location is a `file:` URI or a plain path), and through
    /// `remote` otherwise.
    pub fn open(
        json: &str,
        remote: Option<Arc<dyn FileAccess>>,
    ) -> Result<Self, IcebergWriteError> {
        let description: WriterDescription =
            serde_json::from_str(json).map_err(|e| IcebergWriteError::Config(e.to_string()))?;
        let TableLayout {
            schema,
            spec,
            table_arrow,
        } = TableLayout::of(&description)?;
        let partitioner = if spec.is_unpartitioned() {
            None
        } else {
            Some(Partitioner {
                transforms: SpecTransforms::try_new(&spec, &schema)
                    .map_err(|e| config("spec", &e))?,
                partition_type: spec
                    .partition_type(&schema)
                    .map_err(|e| config("spec", &e))?,
                schema: Arc::clone(&schema),
                spec: spec.clone(),
            })
        };
        // Row groups close by size only, as parquet-java's do (no row count limit). Statistics
        // are kept whole, as parquet-java keeps them: iceberg-rust leaves a row group's truncated
        // (inexact) minimum or maximum out of the file's bounds, and bounds taken from the other
        // row groups alone would be too narrow, so readers pruning by them would skip the file
        // for values it holds. The bounds are cut to the table's metrics mode in Java.
        let mut properties = WriterProperties::builder()
            .set_compression(compression(
                &description.compression,
                description.compression_level,
            )?)
            .set_max_row_group_row_count(None)
            .set_statistics_truncate_length(None);
        let size = |value: Option<u64>| value.map(|v| usize::try_from(v).unwrap_or(usize::MAX));
        if let Some(bytes) = size(description.row_group_size) {
            properties = properties.set_max_row_group_bytes(Some(bytes));
        }
        if let Some(bytes) = size(description.page_size) {
            properties = properties.set_data_page_size_limit(bytes);
        }
        if let Some(rows) = size(description.page_row_limit) {
            // parquet-rs checks the limit between write batches: batches no larger than it keep it.
            let batch = parquet::file::properties::DEFAULT_WRITE_BATCH_SIZE.min(rows.max(1));
            properties = properties
                .set_data_page_row_count_limit(rows)
                .set_write_batch_size(batch);
        }
        if let Some(bytes) = size(description.dict_size) {
            properties = properties.set_dictionary_page_size_limit(bytes);
        }
        let properties = properties.build();
        let files = FileSettings {
            properties,
            location: description.data_location.trim_end_matches('/').to_string(),
            target_file_size: usize::try_from(description.target_file_size).unwrap_or(usize::MAX),
            prefix: description.file_prefix.clone(),
            file_io: file_io(remote),
        };
        let deltas = if description.equality_ids.is_empty() {
            None
        } else {
            Some(Deltas::new(
                &schema,
                &description.equality_ids,
                description.upsert,
                &files,
            )?)
        };
        Ok(DataFilesWriter {
            location: files.location.clone(),
            nested_floats: NestedFloat::of(&schema),
            absent: HashMap::new(),
            table_arrow,
            partitioner,
            builder: DataFileWriterBuilder::new(files.rolling(Arc::clone(&schema), None)),
            deltas,
            partitions: Vec::new(),
            partition_index: HashMap::new(),
            rows: 0,
        })
    }

    /// Writes `batch` (the table's columns, in order, of the bridge's Arrow types) as inserted
    /// rows.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), IcebergWriteError> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let batch = to_table_types(&self.table_arrow, batch)?;
        for (key, rows) in self.groups(&batch)? {
            let part = match rows {
                None => batch.clone(),
                Some(rows) => take_rows(&batch, &rows)?,
            };
            self.write_data(key, part)?;
        }
        Ok(())
    }

    /// Writes the changelog rows of `batch`, `kinds` holding each row's kind ([`INSERT`],
    /// [`UPDATE_BEFORE`], [`UPDATE_AFTER`] or [`DELETE`]), as iceberg-flink's delta writers do:
    /// inserted rows (and, upserting, the rows they replace) go to data files, deleted rows become
    /// position deletes when this writer wrote them since the last [`Self::finish`] and equality
    /// deletes otherwise.
    pub fn write_changes(
        &mut self,
        batch: &RecordBatch,
        kinds: &[u8],
    ) -> Result<(), IcebergWriteError> {
        if self.deltas.is_none() {
            return Err(IcebergWriteError::Config(
                "a changelog is written to a table without equality fields".to_string(),
            ));
        }
        if kinds.len() != batch.num_rows() {
            return Err(IcebergWriteError::Config(format!(
                "{} row kinds for {} rows",
                kinds.len(),
                batch.num_rows()
            )));
        }
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let batch = to_table_types(&self.table_arrow, batch)?;
        let count = u32::try_from(batch.num_rows()).map_err(|e| {
            IcebergWriteError::Config(format!("batch of {} rows: {e}", batch.num_rows()))
        })?;
        for (key, rows) in self.groups(&batch)? {
            let rows = rows.unwrap_or_else(|| (0..count).collect());
            let inserted: Vec<u32> = rows
                .iter()
                .copied()
                .filter(|&r| matches!(kinds[r as usize], INSERT | UPDATE_AFTER))
                .collect();
            let at = self.write_data(key, take_rows(&batch, &inserted)?)?;
            let location = self.location.clone();
            let (Some(deltas), Some(partition)) =
                (self.deltas.as_ref(), self.partitions.get_mut(at))
            else {
                continue;
            };
            let deletes = match partition.deletes.as_mut() {
                Some(deletes) => deletes,
                None => partition.deletes.insert(
                    deltas
                        .open(partition.key.clone())
                        .map_err(|e| write_error(&location, &e))?,
                ),
            };
            let written = if inserted.is_empty() {
                None
            } else {
                Some((
                    partition.data.current_file_path(),
                    partition.data.current_row_num() as u64 - inserted.len() as u64,
                ))
            };
            deltas
                .apply(deletes, &batch, &rows, kinds, written)
                .map_err(|e| write_error(&location, &e))?;
        }
        Ok(())
    }

    /// The rows of `batch` by partition: `None` for all rows of an unpartitioned table.
    #[allow(clippy::type_complexity)]
    fn groups(
        &self,
        batch: &RecordBatch,
    ) -> Result<Vec<(Option<PartitionKey>, Option<Vec<u32>>)>, IcebergWriteError> {
        match &self.partitioner {
            None => Ok(vec![(None, None)]),
            Some(partitioner) => Ok(partitioner
                .groups(batch)
                .map_err(|e| self.write_error(&e))?
                .into_iter()
                .map(|(key, rows)| (Some(key), Some(rows)))
                .collect()),
        }
    }

    /// Writes `part` to the data file open for the partition `key` (opening one when there is
    /// none); the partition's index in `partitions`.
    fn write_data(
        &mut self,
        key: Option<PartitionKey>,
        part: RecordBatch,
    ) -> Result<usize, IcebergWriteError> {
        let runtime = runtime().map_err(|e| IcebergWriteError::Runtime(e.to_string()))?;
        let values = PartitionIdentity::of(key.as_ref().map(|k| k.data().clone()));
        let at = match self.partition_index.get(&values) {
            Some(&at) => at,
            None => {
                let data = runtime
                    .block_on(self.builder.build(key.clone()))
                    .map_err(|e| self.write_error(&e))?;
                self.partitions.push(PartitionFiles {
                    key,
                    data,
                    deletes: None,
                });
                self.partition_index
                    .insert(values, self.partitions.len() - 1);
                self.partitions.len() - 1
            }
        };
        let rows = part.num_rows() as u64;
        if rows == 0 {
            return Ok(at);
        }
        let location = self.location.clone();
        let absent = self
            .nested_floats
            .iter()
            .map(|field| Ok((field.id, field.absent_rows(&part)?)))
            .collect::<Result<Vec<_>, IcebergWriteError>>()?;
        if let Some(partition) = self.partitions.get_mut(at) {
            runtime
                .block_on(partition.data.write(part))
                .map_err(|e| write_error(&location, &e))?;
            // The rolling writer puts a whole batch into one file: the one open after the write.
            if absent.iter().any(|&(_, rows)| rows > 0) {
                let file = self
                    .absent
                    .entry(partition.data.current_file_path())
                    .or_default();
                for (id, rows) in absent {
                    *file.entry(id).or_default() += rows;
                }
            }
        }
        self.rows += rows;
        Ok(at)
    }

    /// Rows written since the last [`Self::finish`].
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Closes every open file; returns what each data and delete file holds, as JSON (a list of
    /// the objects [`describe`] makes). The writer writes new files afterwards.
    pub fn finish(&mut self) -> Result<String, IcebergWriteError> {
        let runtime = runtime().map_err(|e| IcebergWriteError::Runtime(e.to_string()))?;
        let mut files = Vec::new();
        self.partition_index.clear();
        for mut partition in std::mem::take(&mut self.partitions) {
            let key = partition.key.as_ref();
            let mut written = runtime
                .block_on(partition.data.close())
                .map_err(|e| self.write_error(&e))?;
            if let (Some(deltas), Some(deletes)) = (self.deltas.as_ref(), partition.deletes) {
                written.extend(
                    deltas
                        .close(deletes, partition.key.clone())
                        .map_err(|e| self.write_error(&e))?,
                );
            }
            for file in written {
                let absent = self.absent.remove(file.file_path());
                files.push(describe(&file, key, absent.as_ref())?);
            }
        }
        self.rows = 0;
        self.absent.clear();
        Ok(Value::Array(files).to_string())
    }

    fn write_error(&self, e: &iceberg::Error) -> IcebergWriteError {
        write_error(&self.location, e)
    }
}

/// Where and how the writer's files (data and deletes) are written.
pub(crate) struct FileSettings {
    properties: WriterProperties,
    location: String,
    target_file_size: usize,
    prefix: String,
    file_io: FileIO,
}

/// The rolling Parquet writers of files of the given schema.
pub(crate) type RollingBuilder =
    RollingFileWriterBuilder<ParquetFiles, PartitionLocations, DefaultFileNameGenerator>;

/// Where a data or delete file goes: `<data location>/<partition path>/<file name>`, the partition
/// path `name=value/...` with each field's name and value (iceberg-rust's human string of it)
/// escaped as Iceberg Java's `PartitionSpec.partitionToPath` escapes them (`java.net.URLEncoder`).
/// iceberg-rust's own generator writes them raw, so a value holding `/`, `?` or `#` would make
/// other directories or, through an object store's URI, one object for many files. The values'
/// spelling may differ from Iceberg Java's (a year transform's offset rather than the year, say):
/// nothing reads a partition back from a path.
#[derive(Clone, Debug)]
pub(crate) struct PartitionLocations {
    data_location: String,
}

impl PartitionLocations {
    pub(crate) fn new(data_location: String) -> Self {
        Self { data_location }
    }

    /// The partition's path: `name=value` for each field, escaped, joined by `/`.
    fn partition_path(key: &iceberg::spec::PartitionKey) -> String {
        let escaped =
            |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
        let types = key.spec().partition_type(key.schema()).ok();
        key.spec()
            .fields()
            .iter()
            .enumerate()
            .map(|(i, field)| {
                let value = key.data().iter().nth(i).flatten();
                let human = match types.as_ref().and_then(|t| t.fields().get(i)) {
                    Some(partition) => field
                        .transform
                        .to_human_string(&partition.field_type, value),
                    None => "null".to_string(),
                };
                format!("{}={}", escaped(&field.name), escaped(&human))
            })
            .collect::<Vec<_>>()
            .join("/")
    }
}

impl LocationGenerator for PartitionLocations {
    fn generate_location(
        &self,
        partition_key: Option<&iceberg::spec::PartitionKey>,
        file_name: &str,
    ) -> String {
        match partition_key {
            Some(key) if !key.spec().is_unpartitioned() => format!(
                "{}/{}/{}",
                self.data_location,
                Self::partition_path(key),
                file_name
            ),
            _ => format!("{}/{}", self.data_location, file_name),
        }
    }
}

impl FileSettings {
    /// Rolling writers of Parquet files of `schema`, named from the writer's prefix and `suffix`.
    pub(crate) fn rolling(&self, schema: IcebergSchemaRef, suffix: Option<&str>) -> RollingBuilder {
        RollingFileWriterBuilder::new(
            ParquetFiles::new(self.properties.clone(), schema),
            self.target_file_size,
            self.file_io.clone(),
            PartitionLocations::new(self.location.clone()),
            DefaultFileNameGenerator::new(
                self.prefix.clone(),
                suffix.map(str::to_string),
                DataFileFormat::Parquet,
            ),
        )
    }
}

/// `batch` with the table's Arrow types and field ids (`table_arrow`): column `i` converted to
/// the table's column `i`.
fn to_table_types(
    table_arrow: &SchemaRef,
    batch: &RecordBatch,
) -> Result<RecordBatch, IcebergWriteError> {
    let fields = table_arrow.fields();
    if batch.num_columns() != fields.len() {
        return Err(IcebergWriteError::Config(format!(
            "{} columns written to a table of {}",
            batch.num_columns(),
            fields.len()
        )));
    }
    let columns = batch
        .columns()
        .iter()
        .zip(fields)
        .map(|(column, field)| {
            to_table_type(column, field.data_type())
                .map_err(|e| IcebergWriteError::Config(format!("column '{}': {e}", field.name())))
        })
        .collect::<Result<Vec<ArrayRef>, _>>()?;
    let schema = Arc::new(ArrowSchema::new(fields.clone()));
    RecordBatch::try_new(schema, columns).map_err(|e| IcebergWriteError::Config(e.to_string()))
}

/// A part of the writer description that does not fit the table.
fn config(what: &str, e: &dyn std::fmt::Display) -> IcebergWriteError {
    IcebergWriteError::Config(format!("{what}: {e}"))
}

/// The rows `rows` of `batch`, in that order.
fn take_rows(batch: &RecordBatch, rows: &[u32]) -> Result<RecordBatch, IcebergWriteError> {
    take_record_batch(batch, &UInt32Array::from(rows.to_vec()))
        .map_err(|e| IcebergWriteError::Config(e.to_string()))
}

/// A column converted to a table column's type: fixed-length binaries (fixed, uuid) and the large
/// variants iceberg-rust writes binaries in by a cast, the rest as the reader conforms columns.
fn to_table_type(column: &ArrayRef, target: &DataType) -> Result<ArrayRef, String> {
    match target {
        // Flink's nanoseconds into a microsecond column, rounded down as iceberg-flink's writer
        // rounds them (arrow's cast rounds toward zero, moving instants before 1970 forward).
        DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, zone)
            if matches!(
                column.data_type(),
                DataType::Timestamp(arrow::datatypes::TimeUnit::Nanosecond, _)
            ) =>
        {
            Ok(Arc::new(floored_micros(column, zone)))
        }
        // Promotions Iceberg allows a write (INT, and Flink's narrower integers, into a long;
        // FLOAT into a double): every value keeps its exact value.
        DataType::Int64
            if matches!(
                column.data_type(),
                DataType::Int8 | DataType::Int16 | DataType::Int32
            ) =>
        {
            cast(column, target).map_err(|e| e.to_string())
        }
        DataType::Float64 if column.data_type() == &DataType::Float32 => {
            cast(column, target).map_err(|e| e.to_string())
        }
        DataType::FixedSizeBinary(_) | DataType::LargeBinary | DataType::LargeUtf8
            if column.data_type() != target =>
        {
            let options = CastOptions {
                safe: false,
                ..CastOptions::default()
            };
            cast_with_options(column, target, &options).map_err(|e| e.to_string())
        }
        _ => streamfusion_parquet::conform_column(column, target),
    }
}

/// Nanosecond timestamps as microseconds in `zone`, rounded down (Iceberg Java's
/// `DateTimeUtil.nanosToMicros`).
fn floored_micros(
    column: &ArrayRef,
    zone: &Option<Arc<str>>,
) -> arrow::array::TimestampMicrosecondArray {
    column
        .as_primitive::<arrow::datatypes::TimestampNanosecondType>()
        .unary::<_, arrow::datatypes::TimestampMicrosecondType>(|v| v.div_euclid(1000))
        .with_timezone_opt(zone.clone())
}

/// The zstd level parquet-java compresses at when none is configured.
const PARQUET_JAVA_ZSTD_LEVEL: i32 = 3;

fn compression(codec: &str, level: Option<i32>) -> Result<Compression, IcebergWriteError> {
    let bad = |e: &dyn std::fmt::Display| {
        IcebergWriteError::Config(format!("write.parquet.compression-level {level:?}: {e}"))
    };
    Ok(match codec.to_ascii_lowercase().as_str() {
        // Without a level, parquet-java (iceberg-flink's writer) compresses at zstd's level 3;
        // parquet-rs's own default is 1.
        "zstd" => Compression::ZSTD(
            ZstdLevel::try_new(level.unwrap_or(PARQUET_JAVA_ZSTD_LEVEL)).map_err(|e| bad(&e))?,
        ),
        "gzip" => Compression::GZIP(match level {
            Some(l) => {
                GzipLevel::try_new(u32::try_from(l).map_err(|e| bad(&e))?).map_err(|e| bad(&e))?
            }
            None => GzipLevel::default(),
        }),
        "snappy" => Compression::SNAPPY,
        "lz4" => Compression::LZ4_RAW,
        "brotli" => Compression::BROTLI(Default::default()),
        "uncompressed" | "none" => Compression::UNCOMPRESSED,
        other => {
            return Err(IcebergWriteError::Config(format!(
                "write.parquet.compression-codec '{other}' is not one of zstd, snappy, gzip, lz4, brotli, uncompressed"
            )));
        }
    })
}

fn write_error(location: &str, e: &iceberg::Error) -> IcebergWriteError {
    IcebergWriteError::Write {
        location: location.to_string(),
        reason: error_chain(e),
    }
}

/// A data file as Java rebuilds it: path, size, rows, split offsets, column metrics (bounds in
/// Iceberg's single-value binary form, hex), and the partition's values (one per partition field,
/// each in the JSON form [`partition_value`] gives). `absent` holds, by field id, the rows to take
/// off the value and NULL counts of a [`NestedFloat`].
fn describe(
    file: &DataFile,
    key: Option<&PartitionKey>,
    absent: Option<&HashMap<i32, u64>>,
) -> Result<Value, IcebergWriteError> {
    let counts = |map: &HashMap<i32, u64>, off: Option<&HashMap<i32, u64>>| {
        Value::Object(
            map.iter()
                .map(|(id, n)| {
                    let off = off.and_then(|a| a.get(id)).copied().unwrap_or(0);
                    (id.to_string(), json!(n.saturating_sub(off)))
                })
                .collect::<Map<String, Value>>(),
        )
    };
    // A position delete file's path bounds would name the one data file it deletes from when
    // they are equal, and Parquet statistics may truncate them: the deletes apply by partition.
    let positional = file.content_type() == DataContentType::PositionDeletes;
    let bounds = |map: &HashMap<i32, iceberg::spec::Datum>| {
        map.iter()
            .filter(|(id, _)| !(positional && **id == crate::delta::DELETE_FILE_PATH_ID))
            .map(|(id, datum)| {
                datum
                    .to_bytes()
                    .map(|bytes| (id.to_string(), json!(hex(&bytes))))
                    .map_err(|e| IcebergWriteError::Config(format!("bound of field {id}: {e}")))
            })
            .collect::<Result<Map<String, Value>, _>>()
            .map(Value::Object)
    };
    let partition = match key {
        None => Value::Array(vec![]),
        Some(key) => Value::Array(
            key.data()
                .iter()
                .map(|value| partition_value(value))
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    let content = match file.content_type() {
        DataContentType::Data => "data",
        DataContentType::PositionDeletes => "position-deletes",
        DataContentType::EqualityDeletes => "equality-deletes",
    };
    Ok(json!({
        "content": content,
        "equality-ids": file.equality_ids(),
        "path": file.file_path(),
        "file-size": file.file_size_in_bytes(),
        "record-count": file.record_count(),
        "split-offsets": file.split_offsets(),
        "column-sizes": counts(file.column_sizes(), None),
        "value-counts": counts(file.value_counts(), absent),
        "null-value-counts": counts(file.null_value_counts(), absent),
        "nan-value-counts": counts(file.nan_value_counts(), None),
        "lower-bounds": bounds(file.lower_bounds())?,
        "upper-bounds": bounds(file.upper_bounds())?,
        "partition": partition,
    }))
}

/// A partition value as JSON: null, a boolean, a number (integers, dates, times and timestamps as
/// their integer), a string, or `{"hex": ...}` for binary, decimal (unscaled, big-endian two's
/// complement) and uuid values.
fn partition_value(value: Option<&Literal>) -> Result<Value, IcebergWriteError> {
    let Some(value) = value else {
        return Ok(Value::Null);
    };
    let Literal::Primitive(primitive) = value else {
        return Err(IcebergWriteError::Config(format!(
            "partition value {value:?} is not primitive"
        )));
    };
    Ok(match primitive {
        PrimitiveLiteral::Boolean(v) => json!(v),
        PrimitiveLiteral::Int(v) => json!(v),
        PrimitiveLiteral::Long(v) => json!(v),
        PrimitiveLiteral::Float(v) => number(f64::from(v.0)),
        PrimitiveLiteral::Double(v) => number(v.0),
        PrimitiveLiteral::String(v) => json!(v),
        PrimitiveLiteral::Binary(v) => json!({ "hex": hex(v) }),
        PrimitiveLiteral::Int128(v) => json!({ "hex": hex(&minimal_twos_complement(*v)) }),
        PrimitiveLiteral::UInt128(v) => json!({ "hex": hex(&v.to_be_bytes()) }),
        PrimitiveLiteral::AboveMax | PrimitiveLiteral::BelowMin => {
            return Err(IcebergWriteError::Config(
                "a partition value is out of its type's range".to_string(),
            ));
        }
    })
}

/// A floating-point value as JSON: a number, or `{"non-finite": "NaN" | "Infinity" | "-Infinity"}`
/// (JSON numbers have no such values).
fn number(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else if v.is_nan() {
        json!({ "non-finite": "NaN" })
    } else if v > 0.0 {
        json!({ "non-finite": "Infinity" })
    } else {
        json!({ "non-finite": "-Infinity" })
    }
}

/// The shortest big-endian two's complement bytes of `v`.
fn minimal_twos_complement(v: i128) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let mut start = 0;
    while start < bytes.len() - 1 {
        let sign_only = (bytes[start] == 0x00 && bytes[start + 1] & 0x80 == 0)
            || (bytes[start] == 0xff && bytes[start + 1] & 0x80 != 0);
        if !sign_only {
            break;
        }
        start += 1;
    }
    bytes[start..].to_vec()
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_the_shortest_twos_complement() {
        assert_eq!(minimal_twos_complement(0), vec![0]);
        assert_eq!(minimal_twos_complement(127), vec![0x7f]);
        assert_eq!(minimal_twos_complement(128), vec![0x00, 0x80]);
        assert_eq!(minimal_twos_complement(-1), vec![0xff]);
        assert_eq!(minimal_twos_complement(-129), vec![0xff, 0x7f]);
    }

    /// Codecs without `write.parquet.compression-level` compress as parquet-java's do: zstd at
    /// level 3 (parquet-rs alone would take 1), gzip at zlib's 6.
    #[test]
    fn codecs_without_a_level_take_parquet_javas_levels() -> Result<(), IcebergWriteError> {
        assert_eq!(
            compression("zstd", None)?,
            Compression::ZSTD(ZstdLevel::try_new(3).map_err(|e| config("zstd", &e))?)
        );
        assert_eq!(
            compression("ZSTD", Some(9))?,
            Compression::ZSTD(ZstdLevel::try_new(9).map_err(|e| config("zstd", &e))?)
        );
        assert_eq!(
            compression("gzip", None)?,
            Compression::GZIP(GzipLevel::try_new(6).map_err(|e| config("gzip", &e))?)
        );
        assert!(compression("zstd", Some(99)).is_err());
        Ok(())
    }

    /// Partition paths escaped as Iceberg Java's `PartitionSpec.partitionToPath` escapes them
    /// (`URLEncoder`), a NULL spelled `null`.
    #[test]
    fn partition_paths_are_escaped_as_iceberg_java_escapes_them()
    -> Result<(), Box<dyn std::error::Error>> {
        use iceberg::spec::{Literal, NestedField, PartitionKey, Struct, Transform};
        let schema = Arc::new(
            Schema::builder()
                .with_fields(vec![
                    Arc::new(NestedField::optional(
                        1,
                        "lang",
                        Type::Primitive(PrimitiveType::String),
                    )),
                    Arc::new(NestedField::optional(
                        2,
                        "n",
                        Type::Primitive(PrimitiveType::Int),
                    )),
                ])
                .build()?,
        );
        let spec = UnboundPartitionSpec::builder()
            .add_partition_field(1, "lang", Transform::Identity)?
            .add_partition_field(2, "n b", Transform::Identity)?
            .build()
            .bind(Arc::clone(&schema))?;
        let locations = PartitionLocations::new("file:/t/data".to_string());
        let key = |lang: Option<&str>| {
            PartitionKey::new(
                spec.clone(),
                Arc::clone(&schema),
                Struct::from_iter([lang.map(Literal::string), Some(Literal::int(7))]),
            )
        };
        assert_eq!(
            locations.generate_location(Some(&key(Some("C#?/ x:y*ü-._~"))), "f.parquet"),
            "file:/t/data/lang=C%23%3F%2F+x%3Ay*%C3%BC-._%7E/n+b=7/f.parquet"
        );
        assert_eq!(
            locations.generate_location(Some(&key(None)), "f.parquet"),
            "file:/t/data/lang=null/n+b=7/f.parquet"
        );
        assert_eq!(
            locations.generate_location(None, "f.parquet"),
            "file:/t/data/f.parquet"
        );
        Ok(())
    }

    #[test]
    fn non_finite_partition_values_are_spelled_out() {
        assert_eq!(number(f64::NAN), json!({ "non-finite": "NaN" }));
        assert_eq!(
            number(f64::NEG_INFINITY),
            json!({ "non-finite": "-Infinity" })
        );
        assert_eq!(number(1.5), json!(1.5));
    }

    #[test]
    fn floats_inside_structs_count_the_rows_where_a_struct_is_null()
    -> Result<(), Box<dyn std::error::Error>> {
        use arrow::array::{Float32Array, Float64Array, Int32Array, Int64Array, StructArray};
        use arrow::buffer::NullBuffer;
        use iceberg::spec::NestedField;

        let inner = StructType::new(vec![
            Arc::new(NestedField::optional(
                5,
                "y",
                Type::Primitive(PrimitiveType::Double),
            )),
            Arc::new(NestedField::optional(
                6,
                "z",
                Type::Primitive(PrimitiveType::Int),
            )),
        ]);
        let pt = StructType::new(vec![
            Arc::new(NestedField::required(
                3,
                "x",
                Type::Primitive(PrimitiveType::Float),
            )),
            Arc::new(NestedField::optional(4, "inner", Type::Struct(inner))),
        ]);
        let schema = Schema::builder()
            .with_fields(vec![
                Arc::new(NestedField::required(
                    1,
                    "id",
                    Type::Primitive(PrimitiveType::Long),
                )),
                Arc::new(NestedField::optional(2, "pt", Type::Struct(pt))),
                Arc::new(NestedField::optional(
                    7,
                    "d",
                    Type::Primitive(PrimitiveType::Double),
                )),
            ])
            .build()?;
        let fields = NestedFloat::of(&schema);
        assert_eq!(
            fields,
            vec![
                NestedFloat {
                    id: 3,
                    path: vec![1, 0]
                },
                NestedFloat {
                    id: 5,
                    path: vec![1, 1, 0]
                },
            ]
        );

        // Row 0: pt NULL; row 1: inner NULL; row 2: y NULL itself; row 3: all present.
        let arrow = schema_to_arrow_schema(&schema)?;
        let DataType::Struct(pt_fields) = arrow.field(1).data_type().clone() else {
            return Err("pt is not a struct".into());
        };
        let DataType::Struct(inner_fields) = pt_fields[1].data_type().clone() else {
            return Err("inner is not a struct".into());
        };
        let inner = StructArray::try_new(
            inner_fields,
            vec![
                Arc::new(Float64Array::from(vec![
                    Some(1.0),
                    Some(2.0),
                    None,
                    Some(4.0),
                ])),
                Arc::new(Int32Array::from(vec![1, 2, 3, 4])),
            ],
            Some(NullBuffer::from(vec![true, false, true, true])),
        )?;
        let pt = StructArray::try_new(
            pt_fields,
            vec![
                Arc::new(Float32Array::from(vec![0.0, 1.0, 2.0, 3.0])),
                Arc::new(inner),
            ],
            Some(NullBuffer::from(vec![false, true, true, true])),
        )?;
        let batch = RecordBatch::try_new(
            Arc::new(arrow),
            vec![
                Arc::new(Int64Array::from(vec![1, 2, 3, 4])),
                Arc::new(pt),
                Arc::new(Float64Array::from(vec![None, None, Some(1.0), Some(2.0)])),
            ],
        )?;
        assert_eq!(fields[0].absent_rows(&batch)?, 1);
        assert_eq!(fields[1].absent_rows(&batch)?, 2);
        // A slice counts its own rows.
        assert_eq!(fields[1].absent_rows(&batch.slice(1, 3))?, 1);
        Ok(())
    }

    fn text_table(dir: &std::path::Path, spec: Value, row_group_size: u64) -> DataFilesWriter {
        let description = json!({
            "schema": {"type": "struct", "schema-id": 0, "fields": [
                {"id": 1, "name": "k", "required": true, "type": "int"},
                {"id": 2, "name": "v", "required": false, "type": "string"}]},
            "spec": spec,
            "data-location": dir.to_string_lossy(),
            "file-prefix": "test",
            "target-file-size": 1 << 30,
            "compression": "zstd",
            "row-group-size": row_group_size,
        });
        DataFilesWriter::open(&description.to_string(), None)
            .unwrap_or_else(|e| panic!("a writer of the description: {e}"))
    }

    fn text_batch(keys: &[i32], values: &[Option<&str>]) -> RecordBatch {
        let schema = ArrowSchema::new(vec![
            arrow::datatypes::Field::new("k", DataType::Int32, false),
            arrow::datatypes::Field::new("v", DataType::Utf8, true),
        ]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(arrow::array::Int32Array::from(keys.to_vec())),
                Arc::new(arrow::array::StringArray::from(values.to_vec())),
            ],
        )
        .unwrap_or_else(|e| panic!("a batch of the test schema: {e}"))
    }

    fn written(json: &str) -> Vec<Value> {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("JSON of written files: {e}"))
    }

    /// Finishes `writer`, which must have written one file; that file's description.
    fn only_file(writer: &mut DataFilesWriter) -> Value {
        let mut files = written(
            &writer
                .finish()
                .unwrap_or_else(|e| panic!("files closed: {e}")),
        );
        assert_eq!(files.len(), 1, "{files:?}");
        files.remove(0)
    }

    #[test]
    fn a_null_partition_value_and_the_text_null_are_two_partitions() {
        let dir =
            std::env::temp_dir().join(format!("streamfusion-null-part-{}", std::process::id()));
        let spec = json!({"spec-id": 0, "fields": [
            {"source-id": 2, "field-id": 1000, "name": "v", "transform": "identity"}]});
        let mut writer = text_table(&dir, spec, 128 << 20);
        writer
            .write(&text_batch(&[1, 2, 3], &[None, Some("null"), None]))
            .unwrap_or_else(|e| panic!("rows written: {e}"));
        let files = written(
            &writer
                .finish()
                .unwrap_or_else(|e| panic!("files closed: {e}")),
        );
        let mut partitions: Vec<(Value, Value)> = files
            .iter()
            .map(|f| (f["partition"].clone(), f["record-count"].clone()))
            .collect();
        partitions.sort_by_key(|(p, _)| p.to_string());
        assert_eq!(
            partitions,
            vec![(json!(["null"]), json!(1)), (json!([null]), json!(2))],
            "{files:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bounds_of_long_text_hold_every_row_group() {
        let dir = std::env::temp_dir().join(format!("streamfusion-bounds-{}", std::process::id()));
        // A row group per write: the second holds text longer than parquet-rs's default
        // statistics cut (64 bytes).
        let mut writer = text_table(&dir, json!({"spec-id": 0, "fields": []}), 1);
        let long = "z".repeat(100);
        writer
            .write(&text_batch(&[1, 2], &[Some("a"), Some("b")]))
            .unwrap_or_else(|e| panic!("rows written: {e}"));
        writer
            .write(&text_batch(&[3], &[Some(&long)]))
            .unwrap_or_else(|e| panic!("rows written: {e}"));
        let described = only_file(&mut writer);
        let path = described["path"].as_str().unwrap_or_default();
        let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let metadata = parquet::file::reader::FileReader::metadata(
            &parquet::file::reader::SerializedFileReader::new(file)
                .unwrap_or_else(|e| panic!("{path}: {e}")),
        )
        .clone();
        assert_eq!(metadata.num_row_groups(), 2, "one row group per write");
        assert_eq!(described["upper-bounds"]["2"], json!(hex(long.as_bytes())));
        assert_eq!(described["lower-bounds"]["2"], json!(hex(b"a")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Reads a written file's rows back, and says which of its columns have a dictionary page.
    fn read_back(path: &str) -> (Vec<(i32, Option<String>)>, Vec<String>) {
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let dictionaries = builder.metadata().row_groups()[0]
            .columns()
            .iter()
            .filter(|c| c.dictionary_page_offset().is_some())
            .map(|c| c.column_path().string())
            .collect();
        let mut rows = Vec::new();
        for batch in builder.build().unwrap_or_else(|e| panic!("{path}: {e}")) {
            let batch = batch.unwrap_or_else(|e| panic!("{path}: {e}"));
            let keys = batch
                .column(0)
                .as_primitive::<arrow::datatypes::Int32Type>();
            let values = batch.column(1).as_string::<i32>();
            for i in 0..batch.num_rows() {
                let value = values.is_valid(i).then(|| values.value(i).to_string());
                rows.push((keys.value(i), value));
            }
        }
        (rows, dictionaries)
    }

    /// A file's first 20,000 rows (parquet-java's first page) decide which columns keep a
    /// dictionary, as parquet-java decides: distinct keys are written plain, ten repeated texts
    /// with a dictionary. Rows kept while deciding are written first, in order, whether the file
    /// reaches 20,000 rows or closes before.
    #[test]
    fn a_file_has_a_dictionary_only_for_the_columns_where_it_pays() {
        let dir = std::env::temp_dir().join(format!("streamfusion-dict-{}", std::process::id()));
        let text = |i: i32| (i % 7 != 0).then(|| format!("text {}", i % 10));
        for rows in [5, 20_000, 45_000] {
            let mut writer = text_table(&dir, json!({"spec-id": 0, "fields": []}), 128 << 20);
            let expected: Vec<(i32, Option<String>)> = (0..rows).map(|i| (i, text(i))).collect();
            for chunk in expected.chunks(4_096) {
                let keys: Vec<i32> = chunk.iter().map(|(k, _)| *k).collect();
                let values: Vec<Option<&str>> = chunk.iter().map(|(_, v)| v.as_deref()).collect();
                writer
                    .write(&text_batch(&keys, &values))
                    .unwrap_or_else(|e| panic!("rows written: {e}"));
            }
            let file = only_file(&mut writer);
            assert_eq!(file["record-count"], json!(rows));
            let (read, dictionaries) = read_back(file["path"].as_str().unwrap_or_default());
            assert_eq!(read, expected, "{rows} rows");
            // Five rows hold four texts, each once: no dictionary pays for them.
            let expected: &[&str] = if rows == 5 { &[] } else { &["v"] };
            assert_eq!(dictionaries, expected, "{rows} rows");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_nanosecond_bucket_iceberg_rust_would_compute_otherwise_fails() {
        let dir =
            std::env::temp_dir().join(format!("streamfusion-ns-bucket-{}", std::process::id()));
        // The column is also an identity partition, so it stays in nanoseconds.
        let description = nanosecond_table(
            &dir,
            json!([
                {"source-id": 1, "field-id": 1000, "name": "ts", "transform": "identity"},
                {"source-id": 1, "field-id": 1001, "name": "ts_bucket", "transform": "bucket[4]"}]),
        );
        let mut writer = DataFilesWriter::open(&description.to_string(), None)
            .unwrap_or_else(|e| panic!("a writer of the description: {e}"));
        // Whole microseconds, before 1970 or not, bucket alike in both.
        assert!(
            writer
                .write(&nanosecond_batch(vec![
                    Some(-1000),
                    Some(0),
                    Some(1),
                    Some(1_700_000_000_000_000_001)
                ]))
                .is_ok()
        );
        let error = writer
            .write(&nanosecond_batch(vec![Some(5), Some(-1)]))
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(error.contains("column ts"), "{error}");
        let _ = writer.finish();
        // An hour of it too: refused when the writer opens.
        let hours = nanosecond_table(
            &dir,
            json!([
                {"source-id": 1, "field-id": 1000, "name": "ts", "transform": "identity"},
                {"source-id": 1, "field-id": 1001, "name": "ts_hour", "transform": "hour"}]),
        );
        let refused = DataFilesWriter::open(&hours.to_string(), None)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(refused.contains("identity and by hour"), "{refused}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn nanosecond_table(dir: &std::path::Path, spec_fields: Value) -> Value {
        json!({
            "schema": {"type": "struct", "schema-id": 0, "fields": [
                {"id": 1, "name": "ts", "required": false, "type": "timestamp_ns"}]},
            "spec": {"spec-id": 0, "fields": spec_fields},
            "data-location": dir.to_string_lossy(),
            "file-prefix": "test",
            "target-file-size": 1 << 30,
            "compression": "zstd",
        })
    }

    fn nanosecond_batch(values: Vec<Option<i64>>) -> RecordBatch {
        let schema = ArrowSchema::new(vec![arrow::datatypes::Field::new(
            "ts",
            DataType::Timestamp(arrow::datatypes::TimeUnit::Nanosecond, None),
            true,
        )]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![Arc::new(arrow::array::TimestampNanosecondArray::from(
                values,
            ))],
        )
        .unwrap_or_else(|e| panic!("a batch: {e}"))
    }

    /// Iceberg Java's `hour` and `bucket` of a nanosecond timestamp are those of its microseconds
    /// rounded down (`DateTimeUtil.nanosToHours`, `nanosToMicros`).
    #[test]
    fn nanosecond_transforms_are_those_of_the_microseconds_rounded_down() {
        let dir = std::env::temp_dir().join("streamfusion-ns-transforms");
        let description = nanosecond_table(
            &dir,
            json!([
                {"source-id": 1, "field-id": 1000, "name": "ts_hour", "transform": "hour"},
                {"source-id": 1, "field-id": 1001, "name": "ts_bucket", "transform": "bucket[16]"}]),
        );
        let values = PartitionValues::open(&description.to_string())
            .unwrap_or_else(|e| panic!("partition values of the description: {e}"))
            .unwrap_or_else(|| panic!("a partitioned table"));
        const HOUR: i64 = 3_600_000_000_000;
        let nanos = vec![
            Some(-1),
            Some(5),
            Some(-HOUR - 1),
            Some(HOUR),
            Some(-24 * HOUR),
            Some(-1999),
            None,
        ];
        let columns = values
            .columns(&nanosecond_batch(nanos.clone()))
            .unwrap_or_else(|e| panic!("partition values: {e}"));
        let hours: Vec<_> = columns[0]
            .as_primitive::<arrow::datatypes::Int32Type>()
            .iter()
            .collect();
        assert_eq!(
            hours,
            vec![
                Some(-1),
                Some(0),
                Some(-2),
                Some(1),
                Some(-24),
                Some(-1),
                None
            ]
        );
        // The bucket of the microseconds rounded down, as iceberg-rust buckets microseconds.
        let micros: ArrayRef = Arc::new(arrow::array::TimestampMicrosecondArray::from(
            nanos
                .iter()
                .map(|v| v.map(|v| v.div_euclid(1000)))
                .collect::<Vec<_>>(),
        ));
        let expected =
            iceberg::transform::create_transform_function(&iceberg::spec::Transform::Bucket(16))
                .and_then(|bucket| bucket.transform(micros))
                .unwrap_or_else(|e| panic!("buckets of microseconds: {e}"));
        assert_eq!(columns[1].as_ref(), expected.as_ref());
        // Iceberg's specification: the bucket hash of the timestamp 2017-11-16T22:31:08 is
        // -2047944441, whatever nanoseconds follow.
        let specified = values
            .columns(&nanosecond_batch(vec![
                Some(1_510_871_468_000_000_000),
                Some(1_510_871_468_000_000_999),
            ]))
            .unwrap_or_else(|e| panic!("partition values: {e}"));
        let bucket = (-2047944441_i32 & i32::MAX) % 16;
        let buckets: Vec<_> = specified[1]
            .as_primitive::<arrow::datatypes::Int32Type>()
            .iter()
            .collect();
        assert_eq!(buckets, vec![Some(bucket), Some(bucket)]);
    }

    /// The day of a timestamp is its value floored to days, as Iceberg Java's `DateTimeUtil`
    /// takes it, also in the last second before a midnight before 1970 (iceberg-rust 0.10.1 gives
    /// the day after there), from microseconds and from nanoseconds kept as such.
    #[test]
    fn days_of_timestamps_before_1970_are_floored() {
        const DAY: i64 = 86_400_000_000_000;
        let nanos = vec![
            Some(-DAY - 500_000_000),
            Some(-DAY),
            Some(-DAY + 1),
            Some(-1),
            Some(0),
            Some(DAY - 1),
            Some(-3 * DAY - 1),
            None,
        ];
        let expected = vec![
            Some(-2),
            Some(-1),
            Some(-1),
            Some(-1),
            Some(0),
            Some(0),
            Some(-4),
            None,
        ];
        let dir = std::env::temp_dir().join("streamfusion-days");
        for spec in [
            json!([{"source-id": 1, "field-id": 1000, "name": "ts_day", "transform": "day"}]),
            // With an identity of the column, it stays in nanoseconds.
            json!([
                {"source-id": 1, "field-id": 1000, "name": "ts_day", "transform": "day"},
                {"source-id": 1, "field-id": 1001, "name": "ts", "transform": "identity"}]),
        ] {
            let values = PartitionValues::open(&nanosecond_table(&dir, spec.clone()).to_string())
                .unwrap_or_else(|e| panic!("partition values of the description: {e}"))
                .unwrap_or_else(|| panic!("a partitioned table"));
            let columns = values
                .columns(&nanosecond_batch(nanos.clone()))
                .unwrap_or_else(|e| panic!("partition values: {e}"));
            let days: Vec<_> = columns[0]
                .as_primitive::<arrow::datatypes::Date32Type>()
                .iter()
                .collect();
            assert_eq!(days, expected, "{spec}");
        }
    }

    /// Iceberg Java's partition keys compare floats with `Float.equals`: -0.0 and 0.0 are two
    /// partitions, each with its own value.
    #[test]
    fn negative_and_positive_zero_are_two_partitions() {
        let dir = std::env::temp_dir().join(format!("streamfusion-zeros-{}", std::process::id()));
        let description = json!({
            "schema": {"type": "struct", "schema-id": 0, "fields": [
                {"id": 1, "name": "k", "required": true, "type": "int"},
                {"id": 2, "name": "f", "required": false, "type": "double"}]},
            "spec": {"spec-id": 0, "fields": [
                {"source-id": 2, "field-id": 1000, "name": "f", "transform": "identity"}]},
            "data-location": dir.to_string_lossy(),
            "file-prefix": "test",
            "target-file-size": 1 << 30,
            "compression": "zstd",
        });
        let mut writer = DataFilesWriter::open(&description.to_string(), None)
            .unwrap_or_else(|e| panic!("a writer of the description: {e}"));
        let schema = ArrowSchema::new(vec![
            arrow::datatypes::Field::new("k", DataType::Int32, false),
            arrow::datatypes::Field::new("f", DataType::Float64, true),
        ]);
        let batch = |keys: Vec<i32>, values: Vec<f64>| {
            RecordBatch::try_new(
                Arc::new(schema.clone()),
                vec![
                    Arc::new(arrow::array::Int32Array::from(keys)),
                    Arc::new(arrow::array::Float64Array::from(values)),
                ],
            )
            .unwrap_or_else(|e| panic!("a batch: {e}"))
        };
        // Across batches too: the open file of -0.0 takes no row of 0.0.
        for (keys, values) in [(vec![1, 2, 3], vec![-0.0, 0.0, -0.0]), (vec![4], vec![0.0])] {
            writer
                .write(&batch(keys, values))
                .unwrap_or_else(|e| panic!("rows written: {e}"));
        }
        let files = written(
            &writer
                .finish()
                .unwrap_or_else(|e| panic!("files closed: {e}")),
        );
        let mut partitions: Vec<(String, Value)> = files
            .iter()
            .map(|f| (f["partition"].to_string(), f["record-count"].clone()))
            .collect();
        partitions.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            partitions,
            vec![
                ("[-0.0]".to_string(), json!(2)),
                ("[0.0]".to_string(), json!(2))
            ],
            "{files:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Flink's nanosecond timestamps written into a microsecond column are rounded down, as
    /// iceberg-flink's writer rounds them (`millis * 1000 + nanoOfMillisecond / 1000`).
    #[test]
    fn nanoseconds_into_a_microsecond_column_are_rounded_down() {
        let nanos = nanosecond_batch(vec![
            Some(-1),
            Some(1_999),
            Some(-1_001),
            Some(-1_000),
            None,
        ]);
        let target = DataType::Timestamp(arrow::datatypes::TimeUnit::Microsecond, None);
        let micros = to_table_type(nanos.column(0), &target)
            .unwrap_or_else(|e| panic!("as microseconds: {e}"));
        assert_eq!(micros.data_type(), &target);
        let values: Vec<_> = micros
            .as_primitive::<arrow::datatypes::TimestampMicrosecondType>()
            .iter()
            .collect();
        assert_eq!(values, vec![Some(-1), Some(1), Some(-2), Some(-1), None]);
    }

    /// The promotions Iceberg allows a write keep every value: integers into a long column,
    /// FLOAT into a double column (Java's `float` to `double`, exact).
    #[test]
    fn promoted_columns_keep_every_value() -> Result<(), String> {
        use arrow::array::{Float32Array, Int8Array, Int32Array};
        use arrow::datatypes::{Float64Type, Int64Type};
        let ints: ArrayRef = Arc::new(Int32Array::from(vec![Some(i32::MIN), None, Some(i32::MAX)]));
        let longs = to_table_type(&ints, &DataType::Int64)?;
        let longs: Vec<_> = longs.as_primitive::<Int64Type>().iter().collect();
        assert_eq!(
            longs,
            vec![Some(i64::from(i32::MIN)), None, Some(i64::from(i32::MAX))]
        );
        let tiny: ArrayRef = Arc::new(Int8Array::from(vec![Some(-128), Some(127)]));
        let longs = to_table_type(&tiny, &DataType::Int64)?;
        assert_eq!(
            longs.as_primitive::<Int64Type>().values().to_vec(),
            vec![-128, 127]
        );
        let floats: ArrayRef =
            Arc::new(Float32Array::from(vec![Some(0.1f32), None, Some(f32::NAN)]));
        let doubles = to_table_type(&floats, &DataType::Float64)?;
        let doubles = doubles.as_primitive::<Float64Type>();
        assert_eq!(doubles.value(0), f64::from(0.1f32));
        assert!(doubles.is_null(1));
        assert!(doubles.value(2).is_nan());
        // Inside a struct only the table's own types are written: a promotion there fails.
        let fields = arrow::datatypes::Fields::from(vec![arrow::datatypes::Field::new(
            "n",
            DataType::Int32,
            true,
        )]);
        let row: ArrayRef = Arc::new(StructArray::new(fields, vec![ints], None));
        let target = DataType::Struct(arrow::datatypes::Fields::from(vec![
            arrow::datatypes::Field::new("n", DataType::Int64, true),
        ]));
        let refused = to_table_type(&row, &target).err().unwrap_or_default();
        assert!(refused.contains("field 'n'"), "{refused}");
        Ok(())
    }

    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0xab, 0x7f]), "00ab7f");
    }
}
