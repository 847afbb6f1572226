//! Arrow batches read from rows in Flink's binary layout: the way back of [`crate::binary_rows`],
//! for sinks handed Flink's `BinaryRowData`.
//!
//! Java copies each row's bytes (null bits, slots, variable-length section; the layout the
//! module [`crate::binary_rows`] describes) one after another into one buffer and passes the
//! start of each row and the end of the last. Each column is then built over all rows at once,
//! in the Arrow type the batch schema gives it (the bridge's mapping of the Flink type). Every
//! offset a row holds is checked against the row's own bytes: a row that points outside itself
//! is an error naming the row and column, never a read out of bounds.
//!
//! Flat types only: nested columns are transposed by the bridge's Java writer.

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BinaryBuilder, BooleanArray, BooleanBufferBuilder, PrimitiveArray, RecordBatch,
    StringBuilder,
};
use arrow::buffer::{NullBuffer, ScalarBuffer};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Decimal128Type, DurationMillisecondType, Float32Type,
    Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, IntervalYearMonthType, SchemaRef,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimeUnit,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};

use crate::binary_rows::{
    BinaryRowsError, FlinkType, MAX_COMPACT_DECIMAL_PRECISION, MAX_COMPACT_TIMESTAMP_PRECISION,
    null_bits_bytes,
};

type Result<T> = std::result::Result<T, BinaryRowsError>;

/// Bit of a slot that marks text or bytes held in the slot itself.
const INLINE_MARK: u64 = 0x80 << 56;

/// The reader of one row type's binary rows into batches of one Arrow schema.
#[derive(Debug)]
pub struct BinaryRowsToArrow {
    schema: SchemaRef,
    types: Vec<FlinkType>,
    null_bits: usize,
    fixed: usize,
}

/// A batch's rows: the bytes and the start of each row and the end of the last.
struct Rows<'a> {
    bytes: &'a [u8],
    starts: &'a [usize],
}

impl Rows<'_> {
    fn count(&self) -> usize {
        self.starts.len() - 1
    }

    fn row(&self, r: usize) -> &[u8] {
        &self.bytes[self.starts[r]..self.starts[r + 1]]
    }
}

impl BinaryRowsToArrow {
    /// A reader of rows whose fields have `types`, one column of `schema` each; fails naming a
    /// column whose Arrow type does not fit its Flink type.
    pub fn try_new(schema: SchemaRef, types: Vec<FlinkType>) -> Result<Self> {
        if schema.fields().len() != types.len() {
            return Err(BinaryRowsError(format!(
                "{} Flink types for a schema of {} columns",
                types.len(),
                schema.fields().len()
            )));
        }
        for (i, (field, flink_type)) in schema.fields().iter().zip(&types).enumerate() {
            if !flink_type.accepts(field.data_type()) {
                return Err(BinaryRowsError(format!(
                    "column {i} ({}): Arrow type {} cannot be read from Flink's {flink_type:?}",
                    field.name(),
                    field.data_type()
                )));
            }
        }
        let null_bits = null_bits_bytes(types.len());
        let fixed = null_bits + 8 * types.len();
        Ok(Self {
            schema,
            types,
            null_bits,
            fixed,
        })
    }

    /// The rows in `bytes`, row `r` from `starts[r]` to `starts[r + 1]`, as one batch.
    pub fn read(&self, bytes: &[u8], starts: &[i32]) -> Result<RecordBatch> {
        let starts = self.check_starts(bytes.len(), starts)?;
        let rows = Rows {
            bytes,
            starts: &starts,
        };
        let columns = self
            .types
            .iter()
            .enumerate()
            .map(|(c, flink_type)| self.column(&rows, c, *flink_type))
            .collect::<Result<Vec<_>>>()?;
        RecordBatch::try_new(self.schema.clone(), columns)
            .map_err(|e| BinaryRowsError(format!("the rows do not make a batch: {e}")))
    }

    fn check_starts(&self, length: usize, starts: &[i32]) -> Result<Vec<usize>> {
        if starts.is_empty() {
            return Err(BinaryRowsError("no row starts".into()));
        }
        let mut out = Vec::with_capacity(starts.len());
        let mut previous = 0usize;
        for (r, &start) in starts.iter().enumerate() {
            let start = usize::try_from(start)
                .map_err(|_| BinaryRowsError(format!("row {r} starts at {start}")))?;
            if start < previous || start > length {
                return Err(BinaryRowsError(format!(
                    "row {r} starts at {start}, outside the {length} bytes after {previous}"
                )));
            }
            if r > 0 && start - previous < self.fixed {
                return Err(BinaryRowsError(format!(
                    "row {} has {} bytes, fewer than the {} of its null bits and slots",
                    r - 1,
                    start - previous,
                    self.fixed
                )));
            }
            out.push(start);
            previous = start;
        }
        Ok(out)
    }

    fn is_null(&self, row: &[u8], c: usize) -> bool {
        let bit = c + 8;
        row[bit / 8] & (1 << (bit % 8)) != 0
    }

    fn slot(&self, row: &[u8], c: usize) -> [u8; 8] {
        let at = self.null_bits + 8 * c;
        let mut slot = [0u8; 8];
        slot.copy_from_slice(&row[at..at + 8]);
        slot
    }

    /// A primitive column from each valid row's slot; a NULL row's value is the default. Values
    /// and validity are read in one pass over the rows.
    fn primitive<T: ArrowPrimitiveType>(
        &self,
        rows: &Rows<'_>,
        c: usize,
        data_type: &DataType,
        value: impl Fn(&[u8], [u8; 8]) -> Result<T::Native>,
    ) -> Result<ArrayRef> {
        let mut values = Vec::with_capacity(rows.count());
        let mut valid = BooleanBufferBuilder::new(rows.count());
        for r in 0..rows.count() {
            let row = rows.row(r);
            let null = self.is_null(row, c);
            valid.append(!null);
            values.push(if null {
                T::Native::default()
            } else {
                value(row, self.slot(row, c))?
            });
        }
        let nulls = NullBuffer::new(valid.finish());
        let nulls = (nulls.null_count() > 0).then_some(nulls);
        // The caller picked `T` by `data_type`, so the type is one `T` takes.
        let array = PrimitiveArray::<T>::try_new(ScalarBuffer::from(values), nulls)
            .map_err(|e| BinaryRowsError(format!("column {c}: {e}")))?
            .with_data_type(data_type.clone());
        Ok(Arc::new(array))
    }

    fn column(&self, rows: &Rows<'_>, c: usize, flink_type: FlinkType) -> Result<ArrayRef> {
        let data_type = self.schema.field(c).data_type();
        let low4 = |s: [u8; 8]| [s[0], s[1], s[2], s[3]];
        match (flink_type, data_type) {
            (FlinkType::Boolean, _) => {
                let values = (0..rows.count())
                    .map(|r| {
                        let row = rows.row(r);
                        (!self.is_null(row, c)).then(|| self.slot(row, c)[0] != 0)
                    })
                    .collect::<BooleanArray>();
                Ok(Arc::new(values))
            }
            (FlinkType::TinyInt, _) => {
                self.primitive::<Int8Type>(rows, c, data_type, |_, s| Ok(s[0] as i8))
            }
            (FlinkType::SmallInt, _) => self.primitive::<Int16Type>(rows, c, data_type, |_, s| {
                Ok(i16::from_le_bytes([s[0], s[1]]))
            }),
            (FlinkType::Int, _) => self
                .primitive::<Int32Type>(rows, c, data_type, |_, s| Ok(i32::from_le_bytes(low4(s)))),
            (FlinkType::Date, _) => self.primitive::<Date32Type>(rows, c, data_type, |_, s| {
                Ok(i32::from_le_bytes(low4(s)))
            }),
            (FlinkType::IntervalYearMonth, _) => {
                self.primitive::<IntervalYearMonthType>(rows, c, data_type, |_, s| {
                    Ok(i32::from_le_bytes(low4(s)))
                })
            }
            (FlinkType::BigInt, _) => {
                self.primitive::<Int64Type>(rows, c, data_type, |_, s| Ok(i64::from_le_bytes(s)))
            }
            (FlinkType::IntervalDayTime, _) => {
                self.primitive::<DurationMillisecondType>(rows, c, data_type, |_, s| {
                    Ok(i64::from_le_bytes(s))
                })
            }
            (FlinkType::Float, _) => self.primitive::<Float32Type>(rows, c, data_type, |_, s| {
                Ok(f32::from_le_bytes(low4(s)))
            }),
            (FlinkType::Double, _) => {
                self.primitive::<Float64Type>(rows, c, data_type, |_, s| Ok(f64::from_le_bytes(s)))
            }
            (FlinkType::Decimal(precision), _) => {
                self.primitive::<Decimal128Type>(rows, c, data_type, |row, s| {
                    if precision <= MAX_COMPACT_DECIMAL_PRECISION {
                        return Ok(i128::from(i64::from_le_bytes(s)));
                    }
                    let bytes = variable(row, u64::from_le_bytes(s), c)?;
                    big_integer(bytes).ok_or_else(|| {
                        BinaryRowsError(format!(
                            "column {c}: a DECIMAL of {} bytes does not fit 128 bits",
                            bytes.len()
                        ))
                    })
                })
            }
            (FlinkType::Time, DataType::Time32(TimeUnit::Millisecond)) => self
                .primitive::<Time32MillisecondType>(rows, c, data_type, |_, s| {
                    Ok(i32::from_le_bytes(low4(s)))
                }),
            (FlinkType::Time, DataType::Time32(_)) => {
                self.primitive::<Time32SecondType>(rows, c, data_type, |_, s| {
                    Ok(i32::from_le_bytes(low4(s)) / 1000)
                })
            }
            (FlinkType::Time, DataType::Time64(TimeUnit::Microsecond)) => self
                .primitive::<Time64MicrosecondType>(rows, c, data_type, |_, s| {
                    Ok(i64::from(i32::from_le_bytes(low4(s))) * 1_000)
                }),
            (FlinkType::Time, _) => {
                self.primitive::<Time64NanosecondType>(rows, c, data_type, |_, s| {
                    Ok(i64::from(i32::from_le_bytes(low4(s))) * 1_000_000)
                })
            }
            (FlinkType::Timestamp(precision), DataType::Timestamp(unit, _)) => {
                let parts = move |row: &[u8], s: [u8; 8]| -> Result<(i64, i64)> {
                    let word = u64::from_le_bytes(s);
                    if precision <= MAX_COMPACT_TIMESTAMP_PRECISION {
                        return Ok((word as i64, 0));
                    }
                    let offset = usize::try_from(word >> 32).unwrap_or(usize::MAX);
                    let millis = row.get(offset..offset.saturating_add(8)).ok_or_else(|| {
                        BinaryRowsError(format!(
                            "column {c}: a TIMESTAMP at byte {offset}, outside its row of {} bytes",
                            row.len()
                        ))
                    })?;
                    let mut eight = [0u8; 8];
                    eight.copy_from_slice(millis);
                    Ok((i64::from_le_bytes(eight), i64::from(word as u32 as i32)))
                };
                match unit {
                    TimeUnit::Second => {
                        self.primitive::<TimestampSecondType>(rows, c, data_type, |row, s| {
                            Ok(parts(row, s)?.0.div_euclid(1000))
                        })
                    }
                    TimeUnit::Millisecond => {
                        self.primitive::<TimestampMillisecondType>(rows, c, data_type, |row, s| {
                            Ok(parts(row, s)?.0)
                        })
                    }
                    TimeUnit::Microsecond => {
                        self.primitive::<TimestampMicrosecondType>(rows, c, data_type, |row, s| {
                            let (millis, nanos) = parts(row, s)?;
                            Ok(millis.wrapping_mul(1_000).wrapping_add(nanos / 1_000))
                        })
                    }
                    TimeUnit::Nanosecond => {
                        self.primitive::<TimestampNanosecondType>(rows, c, data_type, |row, s| {
                            let (millis, nanos) = parts(row, s)?;
                            millis
                                .checked_mul(1_000_000)
                                .and_then(|n| n.checked_add(nanos))
                                .ok_or_else(|| {
                                    BinaryRowsError(format!(
                                        "column {c}: the TIMESTAMP of {millis} ms is outside the \
                                         range of Arrow nanosecond timestamps"
                                    ))
                                })
                        })
                    }
                }
            }
            (FlinkType::Bytes, DataType::Utf8) => {
                let mut builder = StringBuilder::with_capacity(rows.count(), 0);
                for r in 0..rows.count() {
                    let row = rows.row(r);
                    if self.is_null(row, c) {
                        builder.append_null();
                        continue;
                    }
                    let bytes = self.bytes(row, c)?;
                    let text = std::str::from_utf8(bytes).map_err(|e| {
                        BinaryRowsError(format!("column {c}, row {r}: text is not UTF-8: {e}"))
                    })?;
                    builder.append_value(text);
                }
                Ok(Arc::new(builder.finish()))
            }
            (FlinkType::Bytes, _) => {
                let mut builder = BinaryBuilder::with_capacity(rows.count(), 0);
                for r in 0..rows.count() {
                    let row = rows.row(r);
                    if self.is_null(row, c) {
                        builder.append_null();
                    } else {
                        builder.append_value(self.bytes(row, c)?);
                    }
                }
                Ok(Arc::new(builder.finish()))
            }
            (FlinkType::Timestamp(_), other) => Err(BinaryRowsError(format!(
                "column {c}: a TIMESTAMP cannot be read as {other}"
            ))),
        }
    }

    /// The text or bytes of field `c` of `row`: in the slot, or where the slot points.
    fn bytes<'r>(&self, row: &'r [u8], c: usize) -> Result<&'r [u8]> {
        let at = self.null_bits + 8 * c;
        let word = u64::from_le_bytes(self.slot(row, c));
        if word & INLINE_MARK != 0 {
            let length = ((word >> 56) & 0x7F) as usize;
            return row
                .get(at..at + length)
                .filter(|_| length < 8)
                .ok_or_else(|| {
                    BinaryRowsError(format!(
                        "column {c}: {length} bytes held in a slot of 8 (of which 1 is the length)"
                    ))
                });
        }
        variable(row, word, c)
    }
}

/// The bytes `offset << 32 | size` points at within `row`.
fn variable(row: &[u8], word: u64, c: usize) -> Result<&[u8]> {
    let offset = usize::try_from(word >> 32).unwrap_or(usize::MAX);
    let size = (word & 0xFFFF_FFFF) as usize;
    row.get(offset..offset.saturating_add(size)).ok_or_else(|| {
        BinaryRowsError(format!(
            "column {c}: {size} bytes at byte {offset}, outside their row of {} bytes",
            row.len()
        ))
    })
}

/// Java's `BigInteger#toByteArray` bytes (big-endian two's complement) as an `i128`, or `None`
/// when they do not fit.
fn big_integer(bytes: &[u8]) -> Option<i128> {
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xFF } else { 0 };
    let mut word = [fill; 16];
    word[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(word))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binary_rows::tests::writer;
    use arrow::array::{
        Array, BinaryArray, Date32Array, Decimal128Array, Float64Array, Int16Array, Int32Array,
        Int64Array, StringArray, Time32MillisecondArray, Time64MicrosecondArray,
        TimestampMicrosecondArray, TimestampMillisecondArray, TimestampNanosecondArray,
    };
    use arrow::datatypes::{Field, Schema};

    /// `batch` written as binary rows by [`crate::binary_rows::BinaryRows`]: the buffer and its
    /// row starts.
    fn written(batch: &RecordBatch, types: &[FlinkType]) -> (Vec<u8>, Vec<i32>) {
        let out = writer(batch, types).write(batch).unwrap();
        let starts = (0..=batch.num_rows())
            .map(|r| i32::from_le_bytes(out[4 * r..4 * r + 4].try_into().unwrap()))
            .collect();
        (out, starts)
    }

    fn round_trip(batch: &RecordBatch, types: &[FlinkType]) -> RecordBatch {
        let (bytes, starts) = written(batch, types);
        BinaryRowsToArrow::try_new(batch.schema(), types.to_vec())
            .unwrap()
            .read(&bytes, &starts)
            .unwrap()
    }

    fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
        let fields = columns
            .iter()
            .map(|(name, array)| Field::new(*name, array.data_type().clone(), true))
            .collect::<Vec<_>>();
        RecordBatch::try_new(
            Arc::new(Schema::new(fields)),
            columns.into_iter().map(|(_, a)| a).collect(),
        )
        .unwrap()
    }

    #[test]
    fn every_flat_type_reads_back_as_written_with_its_nulls() {
        let long_text = "a text longer than the seven bytes of a slot";
        let input = batch(vec![
            (
                "b",
                Arc::new(BooleanArray::from(vec![Some(true), None, Some(false)])),
            ),
            (
                "s",
                Arc::new(Int16Array::from(vec![Some(-3), Some(7), None])),
            ),
            (
                "i",
                Arc::new(Int32Array::from(vec![None, Some(i32::MIN), Some(42)])),
            ),
            (
                "l",
                Arc::new(Int64Array::from(vec![Some(i64::MAX), None, Some(-1)])),
            ),
            (
                "d",
                Arc::new(Float64Array::from(vec![Some(0.5), Some(f64::NAN), None])),
            ),
            (
                "small",
                Arc::new(
                    Decimal128Array::from(vec![Some(-12_345), None, Some(99)])
                        .with_precision_and_scale(10, 2)
                        .unwrap(),
                ),
            ),
            (
                "wide",
                Arc::new(
                    Decimal128Array::from(vec![Some(-(10i128.pow(30))), Some(1), None])
                        .with_precision_and_scale(38, 4)
                        .unwrap(),
                ),
            ),
            (
                "t",
                Arc::new(StringArray::from(vec![
                    Some("short"),
                    Some(long_text),
                    None,
                ])),
            ),
            (
                "bin",
                Arc::new(BinaryArray::from(vec![
                    None,
                    Some(&b"\x00\x01"[..]),
                    Some(&[7u8; 20][..]),
                ])),
            ),
            (
                "day",
                Arc::new(Date32Array::from(vec![Some(19_000), None, Some(-1)])),
            ),
            (
                "time",
                Arc::new(Time32MillisecondArray::from(vec![
                    Some(1),
                    Some(86_399_999),
                    None,
                ])),
            ),
            (
                "time6",
                Arc::new(Time64MicrosecondArray::from(vec![
                    Some(5_000),
                    None,
                    Some(0),
                ])),
            ),
            (
                "ts3",
                Arc::new(TimestampMillisecondArray::from(vec![
                    Some(-1),
                    None,
                    Some(1_700_000_000_123),
                ])),
            ),
            (
                "ts6",
                Arc::new(
                    TimestampMicrosecondArray::from(vec![
                        Some(-1),
                        Some(1_700_000_000_123_456),
                        None,
                    ])
                    .with_timezone("UTC"),
                ),
            ),
            (
                "ts9",
                Arc::new(TimestampNanosecondArray::from(vec![
                    None,
                    Some(-1_500),
                    Some(123_456_789),
                ])),
            ),
        ]);
        let types = [
            FlinkType::Boolean,
            FlinkType::SmallInt,
            FlinkType::Int,
            FlinkType::BigInt,
            FlinkType::Double,
            FlinkType::Decimal(10),
            FlinkType::Decimal(38),
            FlinkType::Bytes,
            FlinkType::Bytes,
            FlinkType::Date,
            FlinkType::Time,
            FlinkType::Time,
            FlinkType::Timestamp(3),
            FlinkType::Timestamp(6),
            FlinkType::Timestamp(9),
        ];
        let output = round_trip(&input, &types);
        // TIME keeps Flink's milliseconds of the day: microseconds below a millisecond are gone.
        for c in 0..input.num_columns() {
            let (expected, actual) = (input.column(c), output.column(c));
            if input.schema().field(c).name() == "time6" {
                assert_eq!(
                    actual.as_ref(),
                    &Time64MicrosecondArray::from(vec![Some(5_000), None, Some(0)]) as &dyn Array
                );
                continue;
            }
            if input.schema().field(c).name() == "d" {
                let (e, a) = (
                    expected.as_any().downcast_ref::<Float64Array>().unwrap(),
                    actual.as_any().downcast_ref::<Float64Array>().unwrap(),
                );
                assert_eq!(e.value(0), a.value(0));
                assert!(a.value(1).is_nan());
                assert!(a.is_null(2));
                continue;
            }
            assert_eq!(
                expected,
                actual,
                "column {}",
                input.schema().field(c).name()
            );
        }
    }

    #[test]
    fn an_empty_batch_reads_as_no_rows() {
        let input = batch(vec![("i", Arc::new(Int32Array::from(Vec::<i32>::new())))]);
        assert_eq!(round_trip(&input, &[FlinkType::Int]).num_rows(), 0);
    }

    #[test]
    fn rows_that_point_outside_themselves_are_errors_naming_the_column() {
        let input = batch(vec![(
            "t",
            Arc::new(StringArray::from(vec!["a text longer than a slot"])) as ArrayRef,
        )]);
        let (mut bytes, starts) = written(&input, &[FlinkType::Bytes]);
        let reader = BinaryRowsToArrow::try_new(input.schema(), vec![FlinkType::Bytes]).unwrap();
        // the slot's offset moved past the row's end
        let slot = starts[0] as usize + 8;
        bytes[slot + 4..slot + 8].copy_from_slice(&1_000u32.to_le_bytes());
        let error = reader.read(&bytes, &starts).unwrap_err();
        assert!(error.0.contains("column 0"), "{error}");
        // a row shorter than its slots, and starts that go backwards
        assert!(reader.read(&bytes, &[starts[0], starts[0] + 4]).is_err());
        assert!(reader.read(&bytes, &[starts[1], starts[0]]).is_err());
        assert!(reader.read(&bytes, &[]).is_err());
    }

    #[test]
    fn a_type_that_does_not_fit_is_refused_naming_the_column() {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Utf8, true)]));
        let error = BinaryRowsToArrow::try_new(schema, vec![FlinkType::Int]).unwrap_err();
        assert!(error.0.contains("column 0 (x)"), "{error}");
    }
}
