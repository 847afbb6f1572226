//! Arrow batches written as Parquet data files of an Iceberg table, fanned out by partition and
//! rolled at a target size; what each file holds (metrics, bounds, partition values) handed back
//! for Iceberg Java to commit.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::compute::{CastOptions, cast_with_options};
use arrow::datatypes::{DataType, Schema as ArrowSchema, SchemaRef};
use iceberg::arrow::{RecordBatchPartitionSplitter, schema_to_arrow_schema};
use iceberg::io::FileIO;
use iceberg::spec::{
    DataFile, DataFileFormat, Literal, PartitionKey, PartitionSpec, PrimitiveLiteral, Schema,
    UnboundPartitionSpec,
};
use iceberg::writer::base_writer::data_file_writer::{DataFileWriter, DataFileWriterBuilder};
use iceberg::writer::file_writer::ParquetWriterBuilder;
use iceberg::writer::file_writer::location_generator::{
    DefaultFileNameGenerator, DefaultLocationGenerator,
};
use iceberg::writer::file_writer::rolling_writer::RollingFileWriterBuilder;
use iceberg::writer::{IcebergWriter, IcebergWriterBuilder};
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::runtime::{error_chain, runtime};

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
}

type FileWriter =
    DataFileWriter<ParquetWriterBuilder, DefaultLocationGenerator, DefaultFileNameGenerator>;
type FileWriterBuilder =
    DataFileWriterBuilder<ParquetWriterBuilder, DefaultLocationGenerator, DefaultFileNameGenerator>;

/// Writes batches of a table's columns as data files, one open file per partition.
pub struct DataFilesWriter {
    location: String,
    /// The table's Arrow schema (field ids attached), batches are converted to.
    table_arrow: SchemaRef,
    splitter: Option<RecordBatchPartitionSplitter>,
    builder: FileWriterBuilder,
    /// Open writers by partition path (one entry, "", for an unpartitioned table).
    writers: BTreeMap<String, (Option<PartitionKey>, FileWriter)>,
    rows: u64,
}

impl std::fmt::Debug for DataFilesWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataFilesWriter")
            .field("location", &self.location)
            .field("partitions", &self.writers.len())
            .finish()
    }
}

impl DataFilesWriter {
    /// A writer described by `json` (see [`WriterDescription`]).
    pub fn open(json: &str) -> Result<Self, IcebergWriteError> {
        let description: WriterDescription =
            serde_json::from_str(json).map_err(|e| IcebergWriteError::Config(e.to_string()))?;
        let config = |what: &str, e: &dyn std::fmt::Display| {
            IcebergWriteError::Config(format!("{what}: {e}"))
        };
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
        let splitter = if spec.is_unpartitioned() {
            None
        } else {
            Some(
                RecordBatchPartitionSplitter::try_new_with_computed_values(
                    Arc::clone(&schema),
                    Arc::new(spec.clone()),
                )
                .map_err(|e| config("spec", &e))?,
            )
        };
        let properties = WriterProperties::builder()
            .set_compression(compression(
                &description.compression,
                description.compression_level,
            )?)
            .build();
        let parquet = ParquetWriterBuilder::new(properties, Arc::clone(&schema));
        let location = description.data_location.trim_end_matches('/').to_string();
        let rolling = RollingFileWriterBuilder::new(
            parquet,
            usize::try_from(description.target_file_size).unwrap_or(usize::MAX),
            FileIO::new_with_fs(),
            DefaultLocationGenerator::with_data_location(location.clone()),
            DefaultFileNameGenerator::new(
                description.file_prefix.clone(),
                None,
                DataFileFormat::Parquet,
            ),
        );
        Ok(DataFilesWriter {
            location,
            table_arrow,
            splitter,
            builder: DataFileWriterBuilder::new(rolling),
            writers: BTreeMap::new(),
            rows: 0,
        })
    }

    /// Writes `batch` (the table's columns, in order, of the bridge's Arrow types).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), IcebergWriteError> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let batch = self.to_table_types(batch)?;
        let runtime = runtime().map_err(|e| IcebergWriteError::Runtime(e.to_string()))?;
        let parts = match &self.splitter {
            None => vec![(None, batch)],
            Some(splitter) => splitter
                .split(&batch)
                .map_err(|e| self.write_error(&e))?
                .into_iter()
                .map(|(key, part)| (Some(key), part))
                .collect(),
        };
        for (key, part) in parts {
            let path = key.as_ref().map(PartitionKey::to_path).unwrap_or_default();
            if !self.writers.contains_key(&path) {
                let writer = runtime
                    .block_on(self.builder.build(key.clone()))
                    .map_err(|e| self.write_error(&e))?;
                self.writers.insert(path.clone(), (key, writer));
            }
            let rows = part.num_rows() as u64;
            let location = self.location.clone();
            if let Some((_, writer)) = self.writers.get_mut(&path) {
                runtime
                    .block_on(writer.write(part))
                    .map_err(|e| write_error(&location, &e))?;
            }
            self.rows += rows;
        }
        Ok(())
    }

    /// Rows written since the last [`Self::finish`].
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Closes every open file; returns what each data file holds, as JSON (a list of the objects
    /// [`describe`] makes). The writer writes new files afterwards.
    pub fn finish(&mut self) -> Result<String, IcebergWriteError> {
        let runtime = runtime().map_err(|e| IcebergWriteError::Runtime(e.to_string()))?;
        let mut files = Vec::new();
        for (_, (key, mut writer)) in std::mem::take(&mut self.writers) {
            let written = runtime
                .block_on(writer.close())
                .map_err(|e| self.write_error(&e))?;
            for file in written {
                files.push(describe(&file, key.as_ref())?);
            }
        }
        self.rows = 0;
        Ok(Value::Array(files).to_string())
    }

    /// `batch` with the table's Arrow types and field ids: column `i` converted to the table's
    /// column `i`.
    fn to_table_types(&self, batch: &RecordBatch) -> Result<RecordBatch, IcebergWriteError> {
        let fields = self.table_arrow.fields();
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
                to_table_type(column, field.data_type()).map_err(|e| {
                    IcebergWriteError::Config(format!("column '{}': {e}", field.name()))
                })
            })
            .collect::<Result<Vec<ArrayRef>, _>>()?;
        let schema = Arc::new(ArrowSchema::new(fields.clone()));
        RecordBatch::try_new(schema, columns).map_err(|e| IcebergWriteError::Config(e.to_string()))
    }

    fn write_error(&self, e: &iceberg::Error) -> IcebergWriteError {
        write_error(&self.location, e)
    }
}

/// A column converted to a table column's type: fixed-length binaries (fixed, uuid) and the large
/// variants iceberg-rust writes binaries in by a cast, the rest as the reader conforms columns.
fn to_table_type(column: &ArrayRef, target: &DataType) -> Result<ArrayRef, String> {
    match target {
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

fn compression(codec: &str, level: Option<i32>) -> Result<Compression, IcebergWriteError> {
    let bad = |e: &dyn std::fmt::Display| {
        IcebergWriteError::Config(format!("write.parquet.compression-level {level:?}: {e}"))
    };
    Ok(match codec.to_ascii_lowercase().as_str() {
        "zstd" => Compression::ZSTD(match level {
            Some(l) => ZstdLevel::try_new(l).map_err(|e| bad(&e))?,
            None => ZstdLevel::default(),
        }),
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
/// each in the JSON form [`partition_value`] gives).
fn describe(file: &DataFile, key: Option<&PartitionKey>) -> Result<Value, IcebergWriteError> {
    let counts = |map: &std::collections::HashMap<i32, u64>| {
        Value::Object(
            map.iter()
                .map(|(id, n)| (id.to_string(), json!(n)))
                .collect::<Map<String, Value>>(),
        )
    };
    let bounds = |map: &std::collections::HashMap<i32, iceberg::spec::Datum>| {
        map.iter()
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
    Ok(json!({
        "path": file.file_path(),
        "file-size": file.file_size_in_bytes(),
        "record-count": file.record_count(),
        "split-offsets": file.split_offsets(),
        "column-sizes": counts(file.column_sizes()),
        "value-counts": counts(file.value_counts()),
        "null-value-counts": counts(file.null_value_counts()),
        "nan-value-counts": counts(file.nan_value_counts()),
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
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0xab, 0x7f]), "00ab7f");
    }
}
