//! Arrow batches read from rows in Flink's binary layout: the way back of [`crate::binary_rows`],
//! for sinks handed Flink's `BinaryRowData`.
//!
//! Java copies each row's bytes (null bits, slots, variable-length section; the layout the
//! module [`crate::binary_rows`] describes) one after another into one buffer and passes the
//! start of each row and the end of the last. Each column is then built over all rows at once,
//! in the Arrow type the batch schema gives it (the bridge's mapping of the Flink type). A nested
//! column is built the same way one level down: a ROW's fields over every row's nested row, an
//! ARRAY's elements over every row's `BinaryArrayData`, a MAP's keys and values over its two
//! arrays. Every offset and count a row holds is checked against the bytes of the row or array
//! it belongs to: a value that points outside them is an error naming the column, never a read
//! out of bounds. Rows Flink wrote never share bytes, so a column's nested values and its text
//! and bytes together never outnumber the bytes of the batch's rows: rows whose offsets point at
//! the same bytes over and over are an error too, before they could ask for more memory than the
//! rows themselves take.

use std::sync::Arc;

use arrow::array::{
    ArrayRef, BinaryBuilder, BooleanArray, BooleanBufferBuilder, FixedSizeBinaryBuilder, ListArray,
    MapArray, PrimitiveArray, RecordBatch, RecordBatchOptions, StringBuilder, StructArray,
};
use arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Decimal128Type, DecimalType, DurationMillisecondType,
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, IntervalYearMonthType,
    SchemaRef, Time32MillisecondType, Time32SecondType, Time64MicrosecondType,
    Time64NanosecondType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};

use crate::binary_rows::{
    BinaryRowsError, ColumnType, FlinkType, MAX_COMPACT_DECIMAL_PRECISION,
    MAX_COMPACT_TIMESTAMP_PRECISION, null_bits_bytes,
};
use streamfusion_formats::java_utf8::{self, InvalidText};

type Result<T> = std::result::Result<T, BinaryRowsError>;

/// Bit of a slot that marks text or bytes held in the slot itself.
const INLINE_MARK: u64 = 0x80 << 56;

/// The reader of one row type's binary rows into batches of one Arrow schema.
#[derive(Debug)]
pub struct BinaryRowsToArrow {
    schema: SchemaRef,
    types: Vec<ColumnType>,
    null_bits: usize,
    fixed: usize,
    invalid_text: InvalidText,
}

/// A batch's rows: the bytes and the start of each row and the end of the last.
struct Rows<'a> {
    bytes: &'a [u8],
    starts: &'a [usize],
}

impl<'a> Rows<'a> {
    fn count(&self) -> usize {
        self.starts.len() - 1
    }

    #[inline(always)]
    fn row(&self, r: usize) -> &'a [u8] {
        &self.bytes[self.starts[r]..self.starts[r + 1]]
    }
}

/// The values of one column, or of one field or element type within a nested column: for each
/// value, NULL, or the row or array it belongs to (what its offsets are relative to) and where in
/// that its slot is.
trait Slots<'a> {
    fn count(&self) -> usize;
    fn value(&self, i: usize) -> Option<Slot<'a>>;

    fn is_null(&self, i: usize) -> bool {
        self.value(i).is_none()
    }
}

/// Where a value that is not NULL is: its row or array, and its slot's position there.
#[derive(Clone, Copy)]
struct Slot<'a> {
    container: &'a [u8],
    at: usize,
}

impl<'a> Slot<'a> {
    /// The slot, little-endian; bytes past its container's end read as zeros (the last slots of
    /// a `BinaryArrayData` of 1, 2 or 4-byte elements end before 8 bytes do).
    #[inline(always)]
    fn word(&self) -> [u8; 8] {
        if let Some(Ok(word)) = self
            .container
            .get(self.at..self.at + 8)
            .map(<[u8; 8]>::try_from)
        {
            return word;
        }
        let mut word = [0u8; 8];
        if let Some(bytes) = self.container.get(self.at..) {
            word[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
        }
        word
    }

    /// The bytes the slot's `offset << 32 | size` points at: a nested value's row or array.
    fn pointed(&self, c: &Column) -> Result<&'a [u8]> {
        variable(self.container, u64::from_le_bytes(self.word()), c)
    }
}

/// The `i32` at the start of `bytes` (an array's element count, a map's key array size), where
/// there is one and it is not negative.
fn leading_size(bytes: &[u8]) -> Option<usize> {
    let four = bytes.get(..4)?;
    usize::try_from(i32::from_le_bytes([four[0], four[1], four[2], four[3]])).ok()
}

/// Field `c` of every row of a batch.
struct TopColumn<'r, 'a> {
    rows: &'r Rows<'a>,
    at: usize,
    c: usize,
}

impl<'a> Slots<'a> for TopColumn<'_, 'a> {
    fn count(&self) -> usize {
        self.rows.count()
    }

    #[inline(always)]
    fn value(&self, i: usize) -> Option<Slot<'a>> {
        let row = self.rows.row(i);
        (!null_bit(row, self.c + 8)).then_some(Slot {
            container: row,
            at: self.at,
        })
    }
}

/// The values of one field or element type of a nested column, gathered over all its rows.
struct Values<'a>(Vec<Option<Slot<'a>>>);

impl<'a> Slots<'a> for Values<'a> {
    fn count(&self) -> usize {
        self.0.len()
    }

    #[inline(always)]
    fn value(&self, i: usize) -> Option<Slot<'a>> {
        self.0[i]
    }
}

/// The batch column values belong to, named in errors, and the bytes of the batch's rows, which
/// bound how many nested values and how many bytes of text or binary values a column can hold.
struct Column<'n> {
    name: &'n str,
    limit: usize,
    invalid_text: InvalidText,
}

impl Column<'_> {
    /// Fails unless `more` values or bytes can be added to `held` within the rows' bytes.
    fn hold(&self, held: usize, more: usize, what: &str) -> Result<()> {
        if held.checked_add(more).is_some_and(|n| n <= self.limit) {
            return Ok(());
        }
        Err(BinaryRowsError(format!(
            "column {self}: more {what} than the {} bytes of the rows hold (values that share \
             their bytes)",
            self.limit
        )))
    }
}

impl std::fmt::Display for Column<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

#[inline(always)]
fn null_bit(bytes: &[u8], bit: usize) -> bool {
    bytes[bit / 8] & (1 << (bit % 8)) != 0
}

impl BinaryRowsToArrow {
    /// A reader of rows whose fields have `types`, one column of `schema` each; fails naming a
    /// column whose Arrow type does not fit its Flink type.
    pub fn try_new(schema: SchemaRef, types: Vec<ColumnType>) -> Result<Self> {
        if schema.fields().len() != types.len() {
            return Err(BinaryRowsError(format!(
                "{} Flink types for a schema of {} columns",
                types.len(),
                schema.fields().len()
            )));
        }
        for (i, (field, column_type)) in schema.fields().iter().zip(&types).enumerate() {
            if !column_type.accepts(field.data_type()) {
                return Err(BinaryRowsError(format!(
                    "column {i} ({}): Arrow type {} cannot be read from Flink's {column_type:?}",
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
            invalid_text: InvalidText::Refuse,
        })
    }

    /// This reader, making `invalid_text` of text that is not UTF-8 (by default it refuses it).
    pub fn with_invalid_text(mut self, invalid_text: InvalidText) -> Self {
        self.invalid_text = invalid_text;
        self
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
            .map(|(c, column_type)| {
                let slots = TopColumn {
                    rows: &rows,
                    at: self.null_bits + 8 * c,
                    c,
                };
                let field = self.schema.field(c);
                let column_of = Column {
                    name: field.name(),
                    limit: bytes.len(),
                    invalid_text: self.invalid_text,
                };
                column(&slots, &column_of, column_type, field.data_type())
            })
            .collect::<Result<Vec<_>>>()?;
        let options = RecordBatchOptions::new().with_row_count(Some(rows.count()));
        RecordBatch::try_new_with_options(self.schema.clone(), columns, &options)
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
}

/// The column of `slots`' values, of Flink type `column_type` and Arrow type `data_type`;
/// errors name column `c` (the name of the batch's column the values belong to).
fn column<'a>(
    slots: &impl Slots<'a>,
    c: &Column,
    column_type: &ColumnType,
    data_type: &DataType,
) -> Result<ArrayRef> {
    match (column_type, data_type) {
        (ColumnType::Flat(flat), _) => flat_column(slots, c, *flat, data_type),
        (ColumnType::Row(fields), DataType::Struct(children)) => {
            let arity = fields.len();
            let fixed = null_bits_bytes(arity) + 8 * arity;
            let rows = (0..slots.count())
                .map(|i| {
                    let Some(slot) = slots.value(i) else {
                        return Ok(None);
                    };
                    let row = slot.pointed(c)?;
                    if row.len() < fixed {
                        return Err(BinaryRowsError(format!(
                            "column {c}: a ROW of {} bytes, fewer than the {fixed} of its null \
                             bits and slots",
                            row.len()
                        )));
                    }
                    Ok(Some(row))
                })
                .collect::<Result<Vec<_>>>()?;
            let columns = fields
                .iter()
                .zip(children.iter())
                .enumerate()
                .map(|(f, (field_type, child))| {
                    let at = null_bits_bytes(arity) + 8 * f;
                    let values = rows.iter().map(|row| {
                        row.filter(|row| !null_bit(row, f + 8))
                            .map(|row| Slot { container: row, at })
                    });
                    column(&Values(values.collect()), c, field_type, child.data_type())
                })
                .collect::<Result<Vec<_>>>()?;
            let array = StructArray::try_new_with_length(
                children.clone(),
                columns,
                nulls(slots),
                rows.len(),
            )
            .map_err(|e| BinaryRowsError(format!("column {c}: {e}")))?;
            Ok(Arc::new(array))
        }
        (ColumnType::Array(element), DataType::List(field)) => {
            let mut elements = Vec::new();
            let mut offsets = Vec::with_capacity(slots.count() + 1);
            offsets.push(0i32);
            for i in 0..slots.count() {
                if let Some(slot) = slots.value(i) {
                    let array = slot.pointed(c)?;
                    array_elements(array, element, c, &mut elements)?;
                }
                offsets.push(offset(elements.len(), c)?);
            }
            let values = column(&Values(elements), c, element, field.data_type())?;
            let array = ListArray::try_new(
                field.clone(),
                OffsetBuffer::new(ScalarBuffer::from(offsets)),
                values,
                nulls(slots),
            )
            .map_err(|e| BinaryRowsError(format!("column {c}: {e}")))?;
            Ok(Arc::new(array))
        }
        (ColumnType::Map(key, value), DataType::Map(entries, sorted)) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return Err(BinaryRowsError(format!(
                    "column {c}: map entries of type {}",
                    entries.data_type()
                )));
            };
            let (mut keys, mut values) = (Vec::new(), Vec::new());
            let mut offsets = Vec::with_capacity(slots.count() + 1);
            offsets.push(0i32);
            for i in 0..slots.count() {
                if let Some(slot) = slots.value(i) {
                    let map = slot.pointed(c)?;
                    let key_bytes = leading_size(map)
                        .filter(|&n| 4 + n <= map.len())
                        .ok_or_else(|| {
                            BinaryRowsError(format!(
                                "column {c}: a MAP of {} bytes without the size of its keys",
                                map.len()
                            ))
                        })?;
                    let (key_array, value_array) = map[4..].split_at(key_bytes);
                    let count = array_elements(key_array, key, c, &mut keys)?;
                    if array_elements(value_array, value, c, &mut values)? != count {
                        return Err(BinaryRowsError(format!(
                            "column {c}: a MAP of {count} keys and another number of values"
                        )));
                    }
                    if keys[keys.len() - count..].iter().any(Option::is_none) {
                        return Err(BinaryRowsError(format!(
                            "column {c}: a MAP key is NULL, which Arrow maps cannot hold"
                        )));
                    }
                }
                offsets.push(offset(keys.len(), c)?);
            }
            let entries_array = StructArray::try_new(
                kv.clone(),
                vec![
                    column(&Values(keys), c, key, kv[0].data_type())?,
                    column(&Values(values), c, value, kv[1].data_type())?,
                ],
                None,
            )
            .map_err(|e| BinaryRowsError(format!("column {c}: {e}")))?;
            let array = MapArray::try_new(
                entries.clone(),
                OffsetBuffer::new(ScalarBuffer::from(offsets)),
                entries_array,
                nulls(slots),
                *sorted,
            )
            .map_err(|e| BinaryRowsError(format!("column {c}: {e}")))?;
            Ok(Arc::new(array))
        }
        (nested, other) => Err(BinaryRowsError(format!(
            "column {c}: a {nested:?} cannot be read as {other}"
        ))),
    }
}

/// Adds the elements of the `BinaryArrayData` `array`, of type `element`, to `out`; returns
/// their count.
fn array_elements<'a>(
    array: &'a [u8],
    element: &ColumnType,
    c: &Column,
    out: &mut Vec<Option<Slot<'a>>>,
) -> Result<usize> {
    let count = leading_size(array).ok_or_else(|| {
        BinaryRowsError(format!(
            "column {c}: an ARRAY of {} bytes without its element count",
            array.len()
        ))
    })?;
    let header = 4 + count.div_ceil(32) * 4;
    let size = element.element_size();
    if count
        .checked_mul(size)
        .and_then(|n| n.checked_add(header))
        .is_none_or(|n| n > array.len())
    {
        return Err(BinaryRowsError(format!(
            "column {c}: an ARRAY of {count} elements of {size} bytes in {} bytes",
            array.len()
        )));
    }
    c.hold(out.len(), count, "nested values")?;
    out.extend((0..count).map(|k| {
        (!null_bit(&array[4..], k)).then_some(Slot {
            container: array,
            at: header + size * k,
        })
    }));
    Ok(count)
}

fn offset(n: usize, c: &Column) -> Result<i32> {
    i32::try_from(n).map_err(|_| {
        BinaryRowsError(format!(
            "column {c}: {n} nested values, more than an Arrow list holds"
        ))
    })
}

/// The validity of `slots`' values, or `None` where none is NULL.
fn nulls<'a>(slots: &impl Slots<'a>) -> Option<NullBuffer> {
    let mut valid = BooleanBufferBuilder::new(slots.count());
    for i in 0..slots.count() {
        valid.append(!slots.is_null(i));
    }
    let nulls = NullBuffer::new(valid.finish());
    (nulls.null_count() > 0).then_some(nulls)
}

/// A primitive column from each valid value's slot; a NULL value is the default. Values and
/// validity are read in one pass.
fn primitive<'a, T: ArrowPrimitiveType>(
    slots: &impl Slots<'a>,
    c: &Column,
    data_type: &DataType,
    value: impl Fn(&'a [u8], [u8; 8]) -> Result<T::Native>,
) -> Result<ArrayRef> {
    let mut values = Vec::with_capacity(slots.count());
    let mut valid = BooleanBufferBuilder::new(slots.count());
    for i in 0..slots.count() {
        let slot = slots.value(i);
        valid.append(slot.is_some());
        values.push(match slot {
            None => T::Native::default(),
            Some(slot) => value(slot.container, slot.word())?,
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

fn flat_column<'a>(
    slots: &impl Slots<'a>,
    c: &Column,
    flink_type: FlinkType,
    data_type: &DataType,
) -> Result<ArrayRef> {
    let low4 = |s: [u8; 8]| [s[0], s[1], s[2], s[3]];
    match (flink_type, data_type) {
        (FlinkType::Boolean, _) => {
            let values = (0..slots.count())
                .map(|i| slots.value(i).map(|slot| slot.word()[0] != 0))
                .collect::<BooleanArray>();
            Ok(Arc::new(values))
        }
        (FlinkType::TinyInt, _) => {
            primitive::<Int8Type>(slots, c, data_type, |_, s| Ok(s[0] as i8))
        }
        (FlinkType::SmallInt, _) => primitive::<Int16Type>(slots, c, data_type, |_, s| {
            Ok(i16::from_le_bytes([s[0], s[1]]))
        }),
        (FlinkType::Int, _) => {
            primitive::<Int32Type>(slots, c, data_type, |_, s| Ok(i32::from_le_bytes(low4(s))))
        }
        (FlinkType::Date, _) => {
            primitive::<Date32Type>(slots, c, data_type, |_, s| Ok(i32::from_le_bytes(low4(s))))
        }
        (FlinkType::IntervalYearMonth, _) => {
            primitive::<IntervalYearMonthType>(slots, c, data_type, |_, s| {
                Ok(i32::from_le_bytes(low4(s)))
            })
        }
        (FlinkType::BigInt, _) => {
            primitive::<Int64Type>(slots, c, data_type, |_, s| Ok(i64::from_le_bytes(s)))
        }
        (FlinkType::IntervalDayTime, _) => {
            primitive::<DurationMillisecondType>(slots, c, data_type, |_, s| {
                Ok(i64::from_le_bytes(s))
            })
        }
        (FlinkType::Float, _) => {
            primitive::<Float32Type>(slots, c, data_type, |_, s| Ok(f32::from_le_bytes(low4(s))))
        }
        (FlinkType::Double, _) => {
            primitive::<Float64Type>(slots, c, data_type, |_, s| Ok(f64::from_le_bytes(s)))
        }
        (FlinkType::Decimal(precision), _) => {
            let digits = match data_type {
                DataType::Decimal128(digits, _) => *digits,
                _ => Decimal128Type::MAX_PRECISION,
            };
            primitive::<Decimal128Type>(slots, c, data_type, |container, s| {
                // A compact value is kept as Flink holds it, even past its precision: Flink's own
                // text cast makes such values (`9.99` as DECIMAL(2, 1) is the unscaled 100), and
                // its sinks and the Java writer write them as they are.
                if precision <= MAX_COMPACT_DECIMAL_PRECISION {
                    return Ok(i128::from(i64::from_le_bytes(s)));
                }
                let unscaled = {
                    let bytes = variable(container, u64::from_le_bytes(s), c)?;
                    big_integer(bytes).ok_or_else(|| {
                        BinaryRowsError(format!(
                            "column {c}: a DECIMAL of {} bytes does not fit 128 bits",
                            bytes.len()
                        ))
                    })?
                };
                if !Decimal128Type::is_valid_decimal_precision(unscaled, digits) {
                    return Err(BinaryRowsError(format!(
                        "column {c}: the unscaled DECIMAL {unscaled} has more than {digits} digits"
                    )));
                }
                Ok(unscaled)
            })
        }
        (FlinkType::Time, DataType::Time32(TimeUnit::Millisecond)) => {
            primitive::<Time32MillisecondType>(slots, c, data_type, |_, s| {
                Ok(i32::from_le_bytes(low4(s)))
            })
        }
        (FlinkType::Time, DataType::Time32(_)) => {
            primitive::<Time32SecondType>(slots, c, data_type, |_, s| {
                Ok(i32::from_le_bytes(low4(s)) / 1000)
            })
        }
        (FlinkType::Time, DataType::Time64(TimeUnit::Microsecond)) => {
            primitive::<Time64MicrosecondType>(slots, c, data_type, |_, s| {
                Ok(i64::from(i32::from_le_bytes(low4(s))) * 1_000)
            })
        }
        (FlinkType::Time, _) => primitive::<Time64NanosecondType>(slots, c, data_type, |_, s| {
            Ok(i64::from(i32::from_le_bytes(low4(s))) * 1_000_000)
        }),
        (FlinkType::Timestamp(precision), DataType::Timestamp(unit, _)) => {
            let parts = move |container: &[u8], s: [u8; 8]| -> Result<(i64, i64)> {
                let word = u64::from_le_bytes(s);
                if precision <= MAX_COMPACT_TIMESTAMP_PRECISION {
                    return Ok((word as i64, 0));
                }
                let offset = usize::try_from(word >> 32).unwrap_or(usize::MAX);
                let millis = container
                    .get(offset..offset.saturating_add(8))
                    .ok_or_else(|| {
                        BinaryRowsError(format!(
                            "column {c}: a TIMESTAMP at byte {offset}, outside its row or array \
                             of {} bytes",
                            container.len()
                        ))
                    })?;
                let mut eight = [0u8; 8];
                eight.copy_from_slice(millis);
                let nanos = word & 0xFFFF_FFFF;
                if nanos > 999_999 {
                    return Err(BinaryRowsError(format!(
                        "column {c}: a TIMESTAMP {nanos} nanoseconds into its millisecond, \
                         where Flink holds 0 to 999,999"
                    )));
                }
                Ok((i64::from_le_bytes(eight), nanos as i64))
            };
            match unit {
                TimeUnit::Second => {
                    primitive::<TimestampSecondType>(slots, c, data_type, |container, s| {
                        Ok(parts(container, s)?.0.div_euclid(1000))
                    })
                }
                TimeUnit::Millisecond => {
                    primitive::<TimestampMillisecondType>(slots, c, data_type, |container, s| {
                        Ok(parts(container, s)?.0)
                    })
                }
                TimeUnit::Microsecond => {
                    primitive::<TimestampMicrosecondType>(slots, c, data_type, |container, s| {
                        let (millis, nanos) = parts(container, s)?;
                        Ok(millis.wrapping_mul(1_000).wrapping_add(nanos / 1_000))
                    })
                }
                TimeUnit::Nanosecond => {
                    primitive::<TimestampNanosecondType>(slots, c, data_type, |container, s| {
                        let (millis, nanos) = parts(container, s)?;
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
            let mut builder = StringBuilder::with_capacity(slots.count(), 0);
            let mut held = 0;
            for i in 0..slots.count() {
                let Some(slot) = slots.value(i) else {
                    builder.append_null();
                    continue;
                };
                let value = held_bytes(slot, c, &mut held, "bytes of text")?;
                match std::str::from_utf8(value) {
                    Ok(text) => builder.append_value(text),
                    Err(_) if c.invalid_text == InvalidText::AsJavaReadsIt => {
                        if !java_utf8::append_decoded(&mut builder, value) {
                            return Err(BinaryRowsError(format!(
                                "column {c}: more than 2 GiB of text"
                            )));
                        }
                    }
                    Err(e) => {
                        return Err(BinaryRowsError(format!(
                            "column {c}, value {i}: text is not UTF-8: {e}"
                        )));
                    }
                }
            }
            Ok(Arc::new(builder.finish()))
        }
        (FlinkType::Bytes, DataType::FixedSizeBinary(width)) => {
            let mut builder = FixedSizeBinaryBuilder::with_capacity(slots.count(), *width);
            for i in 0..slots.count() {
                match slots.value(i) {
                    None => builder.append_null(),
                    Some(slot) => builder.append_value(bytes(slot, c)?).map_err(|_| {
                        BinaryRowsError(format!(
                            "column {c}, value {i}: binary of another length than {width} bytes"
                        ))
                    })?,
                }
            }
            Ok(Arc::new(builder.finish()))
        }
        (FlinkType::Bytes, _) => {
            let mut builder = BinaryBuilder::with_capacity(slots.count(), 0);
            let mut held = 0;
            for i in 0..slots.count() {
                match slots.value(i) {
                    None => builder.append_null(),
                    Some(slot) => builder.append_value(held_bytes(
                        slot,
                        c,
                        &mut held,
                        "bytes of binary values",
                    )?),
                }
            }
            Ok(Arc::new(builder.finish()))
        }
        (FlinkType::Timestamp(_), other) => Err(BinaryRowsError(format!(
            "column {c}: a TIMESTAMP cannot be read as {other}"
        ))),
    }
}

/// The text or bytes at `slot`: in the slot itself, or where the slot points.
fn bytes<'a>(slot: Slot<'a>, c: &Column) -> Result<&'a [u8]> {
    let word = u64::from_le_bytes(slot.word());
    if word & INLINE_MARK != 0 {
        let length = ((word >> 56) & 0x7F) as usize;
        return slot
            .container
            .get(slot.at..slot.at + length)
            .filter(|_| length < 8)
            .ok_or_else(|| {
                BinaryRowsError(format!(
                    "column {c}: {length} bytes held in a slot of 8 (of which 1 is the length)"
                ))
            });
    }
    variable(slot.container, word, c)
}

/// [`bytes`] of a text or binary column that has `held` bytes so far, added to it; fails where the
/// column would hold more bytes than the rows (`what` names them).
fn held_bytes<'a>(slot: Slot<'a>, c: &Column, held: &mut usize, what: &str) -> Result<&'a [u8]> {
    let value = bytes(slot, c)?;
    c.hold(*held, value.len(), what)?;
    *held += value.len();
    Ok(value)
}

/// The bytes `offset << 32 | size` points at within `container`, the row or array whose slot
/// holds the word.
fn variable<'a>(container: &'a [u8], word: u64, c: &Column) -> Result<&'a [u8]> {
    let offset = usize::try_from(word >> 32).unwrap_or(usize::MAX);
    let size = (word & 0xFFFF_FFFF) as usize;
    container
        .get(offset..offset.saturating_add(size))
        .ok_or_else(|| {
            BinaryRowsError(format!(
                "column {c}: {size} bytes at byte {offset}, outside their row or array of {} \
                 bytes",
                container.len()
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
        Array, AsArray, BinaryArray, BooleanBuilder, Date32Array, Decimal128Array, Float64Array,
        Int16Array, Int16Builder, Int32Array, Int64Array, Int64Builder, ListBuilder, MapBuilder,
        StringArray, Time32MillisecondArray, Time64MicrosecondArray, TimestampMicrosecondArray,
        TimestampMillisecondArray, TimestampNanosecondArray,
    };
    use arrow::datatypes::{Field, Fields, Schema};

    /// `batch` written as binary rows by [`crate::binary_rows::BinaryRows`]: the buffer and its
    /// row starts.
    fn written(batch: &RecordBatch, types: &[ColumnType]) -> (Vec<u8>, Vec<i32>) {
        let out = writer(batch, types).write(batch).unwrap();
        let starts = (0..=batch.num_rows())
            .map(|r| i32::from_le_bytes(out[4 * r..4 * r + 4].try_into().unwrap()))
            .collect();
        (out, starts)
    }

    fn flat(types: &[FlinkType]) -> Vec<ColumnType> {
        types.iter().map(|t| ColumnType::Flat(*t)).collect()
    }

    fn round_trip(batch: &RecordBatch, types: &[ColumnType]) -> RecordBatch {
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
        let output = round_trip(&input, &flat(&types));
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
        assert_eq!(round_trip(&input, &flat(&[FlinkType::Int])).num_rows(), 0);
    }

    #[test]
    fn rows_that_point_outside_themselves_are_errors_naming_the_column() {
        let input = batch(vec![(
            "t",
            Arc::new(StringArray::from(vec!["a text longer than a slot"])) as ArrayRef,
        )]);
        let (mut bytes, starts) = written(&input, &flat(&[FlinkType::Bytes]));
        let reader = BinaryRowsToArrow::try_new(input.schema(), flat(&[FlinkType::Bytes])).unwrap();
        // the slot's offset moved past the row's end
        let slot = starts[0] as usize + 8;
        bytes[slot + 4..slot + 8].copy_from_slice(&1_000u32.to_le_bytes());
        let error = reader.read(&bytes, &starts).unwrap_err();
        assert!(error.0.contains("column t"), "{error}");
        // a row shorter than its slots, and starts that go backwards
        assert!(reader.read(&bytes, &[starts[0], starts[0] + 4]).is_err());
        assert!(reader.read(&bytes, &[starts[1], starts[0]]).is_err());
        assert!(reader.read(&bytes, &[]).is_err());
    }

    #[test]
    fn a_type_that_does_not_fit_is_refused_naming_the_column() {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Utf8, true)]));
        let error = BinaryRowsToArrow::try_new(schema, flat(&[FlinkType::Int])).unwrap_err();
        assert!(error.0.contains("column 0 (x)"), "{error}");
    }

    fn flat_type(t: FlinkType) -> Box<ColumnType> {
        Box::new(ColumnType::Flat(t))
    }

    /// A batch of nested columns, NULLs at every level, and their Flink types.
    fn nested_batch() -> (RecordBatch, Vec<ColumnType>) {
        let long = "a text longer than the seven bytes of a slot";
        // ROW<n INT, s STRING, ts TIMESTAMP(6)>: a NULL row, NULL fields
        let row_fields = Fields::from(vec![
            Field::new("n", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), true),
        ]);
        let row = StructArray::try_new(
            row_fields.clone(),
            vec![
                Arc::new(Int32Array::from(vec![Some(1), Some(99), None, Some(-4)])),
                Arc::new(StringArray::from(vec![
                    Some("x"),
                    None,
                    Some(long),
                    Some(""),
                ])),
                Arc::new(TimestampMicrosecondArray::from(vec![
                    Some(-1),
                    Some(0),
                    None,
                    Some(1_700_000_000_123_456),
                ])),
            ],
            Some(NullBuffer::from(vec![true, false, true, true])),
        )
        .unwrap();
        // ARRAY<STRING>: elements inline and not, a NULL element, an empty and a NULL array
        let mut texts = ListBuilder::new(StringBuilder::new());
        texts.values().append_value("ab");
        texts.values().append_null();
        texts.values().append_value(long);
        texts.append(true);
        texts.append(true);
        texts.append(false);
        texts.values().append_value("z");
        texts.append(true);
        // ARRAY<SMALLINT> and ARRAY<BOOLEAN>: elements narrower than a slot, the last ones
        // ending before 8 bytes do
        let mut shorts = ListBuilder::new(Int16Builder::new());
        let mut flags = ListBuilder::new(BooleanBuilder::new());
        for r in 0..4i16 {
            for k in 0..(2 * r + 1) {
                shorts
                    .values()
                    .append_option((k != 1).then_some(r * 100 - k));
                flags.values().append_option((k != 2).then_some(k % 2 == 0));
            }
            shorts.append(r != 2);
            flags.append(true);
        }
        // MAP<STRING, ARRAY<BIGINT>>: a NULL value, an empty and a NULL map
        let mut map = MapBuilder::new(
            None,
            StringBuilder::new(),
            ListBuilder::new(Int64Builder::new()),
        );
        map.keys().append_value("one");
        map.values().values().append_value(1);
        map.values().append(true);
        map.keys().append_value(long);
        map.values().append(false);
        map.append(true).unwrap();
        map.append(false).unwrap();
        map.append(true).unwrap();
        map.keys().append_value("k");
        map.values().values().append_value(i64::MIN);
        map.values().values().append_null();
        map.values().append(true);
        map.append(true).unwrap();
        // ARRAY<ROW<d DECIMAL(38, 2), w DECIMAL(10, 0)>>: wide decimals in rows in an array
        let decimals = Fields::from(vec![
            Field::new("d", DataType::Decimal128(38, 2), true),
            Field::new("w", DataType::Decimal128(10, 0), true),
        ]);
        let elements = StructArray::try_new(
            decimals.clone(),
            vec![
                Arc::new(
                    Decimal128Array::from(vec![Some(-(10i128.pow(35))), None, Some(5)])
                        .with_precision_and_scale(38, 2)
                        .unwrap(),
                ),
                Arc::new(
                    Decimal128Array::from(vec![Some(7), Some(-8), None])
                        .with_precision_and_scale(10, 0)
                        .unwrap(),
                ),
            ],
            Some(NullBuffer::from(vec![true, true, false])),
        )
        .unwrap();
        let element_field = Arc::new(Field::new(
            "element",
            DataType::Struct(decimals.clone()),
            true,
        ));
        let rows_of_decimals = ListArray::try_new(
            element_field,
            OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 2, 3, 3])),
            Arc::new(elements),
            None,
        )
        .unwrap();
        let input = batch(vec![
            ("row", Arc::new(row)),
            ("texts", Arc::new(texts.finish())),
            ("shorts", Arc::new(shorts.finish())),
            ("flags", Arc::new(flags.finish())),
            ("map", Arc::new(map.finish())),
            ("decimals", Arc::new(rows_of_decimals)),
        ]);
        let types = vec![
            ColumnType::Row(vec![
                ColumnType::Flat(FlinkType::Int),
                ColumnType::Flat(FlinkType::Bytes),
                ColumnType::Flat(FlinkType::Timestamp(6)),
            ]),
            ColumnType::Array(flat_type(FlinkType::Bytes)),
            ColumnType::Array(flat_type(FlinkType::SmallInt)),
            ColumnType::Array(flat_type(FlinkType::Boolean)),
            ColumnType::Map(
                flat_type(FlinkType::Bytes),
                Box::new(ColumnType::Array(flat_type(FlinkType::BigInt))),
            ),
            ColumnType::Array(Box::new(ColumnType::Row(vec![
                ColumnType::Flat(FlinkType::Decimal(38)),
                ColumnType::Flat(FlinkType::Decimal(10)),
            ]))),
        ];
        (input, types)
    }

    #[test]
    fn nested_columns_read_back_as_written_with_nulls_at_every_level() {
        let (input, types) = nested_batch();
        let output = round_trip(&input, &types);
        for c in 0..input.num_columns() {
            assert_eq!(
                input.column(c).as_ref(),
                output.column(c).as_ref(),
                "column {}",
                input.schema().field(c).name()
            );
        }
    }

    #[test]
    fn nested_values_that_point_outside_their_row_or_array_are_errors_naming_the_column() {
        let (input, types) = nested_batch();
        let reader = BinaryRowsToArrow::try_new(input.schema(), types.clone()).unwrap();
        let (bytes, starts) = written(&input, &types);
        let row = starts[0] as usize;
        let slot = |c: usize| row + 8 + 8 * c;
        let corrupt = |at: usize, value: &[u8]| {
            let mut bytes = bytes.clone();
            bytes[at..at + value.len()].copy_from_slice(value);
            reader.read(&bytes, &starts).unwrap_err()
        };
        // the texts array's size beyond the row
        let error = corrupt(slot(1), &60_000u32.to_le_bytes());
        assert!(error.0.contains("column texts"), "{error}");
        // the texts array's element count beyond its bytes
        let array =
            (u64::from_le_bytes(bytes[slot(1)..slot(1) + 8].try_into().unwrap()) >> 32) as usize;
        let error = corrupt(row + array, &1_000_000i32.to_le_bytes());
        assert!(
            error.0.contains("column texts: an ARRAY of 1000000"),
            "{error}"
        );
        let error = corrupt(row + array, &(-1i32).to_le_bytes());
        assert!(error.0.contains("column texts"), "{error}");
        // the map's key array larger than the map
        let map =
            (u64::from_le_bytes(bytes[slot(4)..slot(4) + 8].try_into().unwrap()) >> 32) as usize;
        let error = corrupt(row + map, &4_000i32.to_le_bytes());
        assert!(error.0.contains("column map"), "{error}");
        // the nested row shorter than its slots
        let nested = u64::from_le_bytes(bytes[slot(0)..slot(0) + 8].try_into().unwrap());
        let error = corrupt(slot(0), &((nested & !0xFFFF_FFFF) | 8).to_le_bytes());
        assert!(error.0.contains("column row: a ROW of 8 bytes"), "{error}");
    }

    #[test]
    fn a_null_map_key_is_an_error_naming_the_column() {
        let (input, types) = nested_batch();
        let reader = BinaryRowsToArrow::try_new(input.schema(), types.clone()).unwrap();
        let (mut bytes, starts) = written(&input, &types);
        let row = starts[0] as usize;
        let slot = row + 8 + 8 * 4;
        let map = (u64::from_le_bytes(bytes[slot..slot + 8].try_into().unwrap()) >> 32) as usize;
        // the key array follows the key array's size; its null bits follow its count
        bytes[row + map + 4 + 4] |= 1;
        let error = reader.read(&bytes, &starts).unwrap_err();
        assert!(error.0.contains("column map: a MAP key is NULL"), "{error}");
    }

    /// One row of a single field: its null bits (none set), its slot, then `tail`.
    fn single_field_row(slot: u64, tail: &[u8]) -> Vec<u8> {
        let mut row = vec![0u8; 8];
        row.extend_from_slice(&slot.to_le_bytes());
        row.extend_from_slice(tail);
        row
    }

    /// A `BinaryArrayData` of `count` 8-byte slots, all `slot`, then `tail`.
    fn array_of_slots(count: usize, slot: u64, tail: &[u8]) -> Vec<u8> {
        let mut array = (count as i32).to_le_bytes().to_vec();
        array.resize(4 + count.div_ceil(32) * 4, 0);
        for _ in 0..count {
            array.extend_from_slice(&slot.to_le_bytes());
        }
        array.extend_from_slice(tail);
        array
    }

    fn reader_of(name: &str, data_type: DataType, column_type: ColumnType) -> BinaryRowsToArrow {
        let schema = Arc::new(Schema::new(vec![Field::new(name, data_type, true)]));
        BinaryRowsToArrow::try_new(schema, vec![column_type]).unwrap()
    }

    #[test]
    fn values_that_share_their_bytes_are_an_error_before_they_outgrow_the_rows() {
        // ten elements of an ARRAY<STRING>, each pointing at the same 20 bytes after the slots
        let texts = reader_of(
            "texts",
            DataType::List(Arc::new(Field::new("element", DataType::Utf8, true))),
            ColumnType::Array(Box::new(ColumnType::Flat(FlinkType::Bytes))),
        );
        let array = array_of_slots(10, (88u64 << 32) | 20, &[b'x'; 20]);
        let row = single_field_row((16u64 << 32) | array.len() as u64, &array);
        let error = texts.read(&row, &[0, row.len() as i32]).unwrap_err();
        assert!(
            error
                .0
                .contains("column texts: more bytes of text than the 124 bytes"),
            "{error}"
        );
        // with each element its own text the same 124 bytes hold only 10 + 20 bytes: read
        let array = array_of_slots(10, 0x8300_0000_0000_0000 | 0x61_6263, &[b'x'; 20]);
        let row = single_field_row((16u64 << 32) | array.len() as u64, &array);
        let batch = texts.read(&row, &[0, row.len() as i32]).unwrap();
        assert_eq!(batch.column(0).as_list::<i32>().value(0).len(), 10);

        // ten slots of an ARRAY<ARRAY<BOOLEAN>>, each pointing at the same array of 40 booleans
        let nested = reader_of(
            "nested",
            DataType::List(Arc::new(Field::new(
                "element",
                DataType::List(Arc::new(Field::new("element", DataType::Boolean, true))),
                true,
            ))),
            ColumnType::Array(Box::new(ColumnType::Array(Box::new(ColumnType::Flat(
                FlinkType::Boolean,
            ))))),
        );
        let mut inner = 40i32.to_le_bytes().to_vec();
        inner.resize(4 + 8 + 40, 1);
        inner[4..12].fill(0);
        let outer = array_of_slots(10, (88u64 << 32) | inner.len() as u64, &inner);
        let row = single_field_row((16u64 << 32) | outer.len() as u64, &outer);
        let error = nested.read(&row, &[0, row.len() as i32]).unwrap_err();
        assert!(
            error
                .0
                .contains("column nested: more nested values than the 156 bytes"),
            "{error}"
        );
    }

    #[test]
    fn text_that_is_not_utf8_is_refused_naming_the_column_or_read_as_java_reads_it() {
        // "a", an encoded surrogate (one malformed sequence to Java), "b", a stray byte
        let bytes = b"a\xed\xa0\x80b\x80";
        let row = single_field_row((16u64 << 32) | bytes.len() as u64, bytes);
        let refusing = reader_of("s", DataType::Utf8, ColumnType::Flat(FlinkType::Bytes));
        let error = refusing.read(&row, &[0, row.len() as i32]).unwrap_err();
        assert!(
            error.0.contains("column s, value 0: text is not UTF-8"),
            "{error}"
        );
        let reading = reader_of("s", DataType::Utf8, ColumnType::Flat(FlinkType::Bytes))
            .with_invalid_text(InvalidText::AsJavaReadsIt);
        let batch = reading.read(&row, &[0, row.len() as i32]).unwrap();
        assert_eq!(
            batch.column(0).as_string::<i32>().value(0),
            "a\u{FFFD}b\u{FFFD}"
        );

        // within an ARRAY<STRING> too
        let texts = reader_of(
            "texts",
            DataType::List(Arc::new(Field::new("element", DataType::Utf8, true))),
            ColumnType::Array(Box::new(ColumnType::Flat(FlinkType::Bytes))),
        )
        .with_invalid_text(InvalidText::AsJavaReadsIt);
        // one element, its text after the array's slot: at 4 + 4 + 8 = 16 within the array
        let array = array_of_slots(1, (16u64 << 32) | 2, b"\xc3x");
        let row = single_field_row((16u64 << 32) | array.len() as u64, &array);
        let batch = texts.read(&row, &[0, row.len() as i32]).unwrap();
        let list = batch.column(0).as_list::<i32>().value(0);
        assert_eq!(list.as_string::<i32>().value(0), "\u{FFFD}x");
    }

    #[test]
    fn a_timestamps_nanoseconds_beyond_its_millisecond_are_an_error() {
        let reader = reader_of(
            "ts",
            DataType::Timestamp(TimeUnit::Nanosecond, None),
            ColumnType::Flat(FlinkType::Timestamp(9)),
        );
        let read = |nanos: u64| {
            let row = single_field_row((16u64 << 32) | nanos, &7i64.to_le_bytes());
            reader.read(&row, &[0, row.len() as i32])
        };
        let batch = read(999_999).unwrap();
        assert_eq!(
            batch
                .column(0)
                .as_primitive::<TimestampNanosecondType>()
                .value(0),
            7_999_999
        );
        let error = read(2_000_000).unwrap_err();
        assert!(
            error
                .0
                .contains("column ts: a TIMESTAMP 2000000 nanoseconds"),
            "{error}"
        );
        assert!(read(0xFFFF_FFFF).is_err(), "nanoseconds of -1");
    }

    #[test]
    fn a_wide_decimal_of_more_digits_than_its_precision_is_an_error() {
        let read = |precision: u8, slot: u64, tail: &[u8]| {
            let reader = reader_of(
                "d",
                DataType::Decimal128(precision, 0),
                ColumnType::Flat(FlinkType::Decimal(i32::from(precision))),
            );
            let row = single_field_row(slot, tail);
            reader.read(&row, &[0, row.len() as i32])
        };
        // A compact one is kept as Flink holds it, past its precision too (see the reader).
        for unscaled in [99_999, 100_000] {
            let batch = read(5, unscaled, &[]).unwrap();
            assert_eq!(
                batch.column(0).as_primitive::<Decimal128Type>().value(0),
                i128::from(unscaled)
            );
        }
        // 10^20 - 1 and 10^30 in BigInteger's bytes, declared DECIMAL(20, 0)
        let fits = (10i128.pow(20) - 1).to_be_bytes();
        let batch = read(20, (16u64 << 32) | 16, &fits).unwrap();
        assert_eq!(
            batch.column(0).as_primitive::<Decimal128Type>().value(0),
            10i128.pow(20) - 1
        );
        let big = 10i128.pow(30).to_be_bytes();
        let error = read(20, (16u64 << 32) | 16, &big).unwrap_err();
        assert!(
            error.0.contains(
                "column d: the unscaled DECIMAL 1000000000000000000000000000000 has more than 20 digits"
            ),
            "{error}"
        );
    }

    #[test]
    fn rows_and_nested_rows_without_fields_read_as_their_count() {
        let empty = BinaryRowsToArrow::try_new(Arc::new(Schema::empty()), vec![]).unwrap();
        let batch = empty.read(&[0u8; 16], &[0, 8, 16]).unwrap();
        assert_eq!((batch.num_rows(), batch.num_columns()), (2, 0));

        let reader = reader_of(
            "r",
            DataType::Struct(Fields::empty()),
            ColumnType::Row(vec![]),
        );
        let row = single_field_row((16u64 << 32) | 8, &[0u8; 8]);
        let batch = reader.read(&row, &[0, row.len() as i32]).unwrap();
        assert_eq!(batch.column(0).len(), 1);
        assert_eq!(batch.column(0).null_count(), 0);
    }

    #[test]
    fn bytes_read_into_a_fixed_size_binary_column_must_have_its_width() {
        let reader = reader_of(
            "f",
            DataType::FixedSizeBinary(3),
            ColumnType::Flat(FlinkType::Bytes),
        );
        // held in the slot: the mark and length in the top byte, the bytes from the bottom
        let inline = |bytes: &[u8]| {
            let mut slot = [0u8; 8];
            slot[..bytes.len()].copy_from_slice(bytes);
            slot[7] = 0x80 | bytes.len() as u8;
            single_field_row(u64::from_le_bytes(slot), &[])
        };
        let row = inline(b"abc");
        let batch = reader.read(&row, &[0, 16]).unwrap();
        assert_eq!(batch.column(0).as_fixed_size_binary().value(0), b"abc");
        let error = reader.read(&inline(b"ab"), &[0, 16]).unwrap_err();
        assert!(
            error
                .0
                .contains("column f, value 0: binary of another length than 3 bytes"),
            "{error}"
        );
    }
}
