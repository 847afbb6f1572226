//! Column builders that decoders append to, one row at a time.
//!
//! Unlike Arrow's own builders these can be truncated, so a message that fails half-way (or is
//! skipped under `ignore-parse-errors`) leaves no partial row behind: the decoder notes every
//! column's length before the message and truncates back to it.

use std::sync::Arc;

use arrow::array::NullBufferBuilder;
use arrow::array::{
    Array, ArrayRef, BooleanArray, Decimal128Array, FixedSizeBinaryArray, GenericByteArray,
    ListArray, MapArray, PrimitiveArray, StructArray, new_null_array,
};
use arrow::buffer::{BooleanBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{
    ArrowPrimitiveType, BinaryType, DataType, Date32Type, DurationMillisecondType, Field, FieldRef,
    Fields, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    IntervalYearMonthType, Time32MillisecondType, Time32SecondType, Time64MicrosecondType,
    Time64NanosecondType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, Utf8Type,
};

use crate::error::{FormatError, Result};

/// Validity bits that can be truncated: arrow's builder, which stores nothing per value until the
/// first null (a column without nulls, most of them, only counts its values).
#[derive(Debug)]
pub struct Validity(NullBufferBuilder);

impl Default for Validity {
    fn default() -> Self {
        Validity(NullBufferBuilder::new(0))
    }
}

impl Validity {
    #[inline]
    fn push(&mut self, valid: bool) {
        self.0.append(valid);
    }

    fn truncate(&mut self, len: usize) {
        if len < self.0.len() {
            self.0.truncate(len);
        }
    }

    /// Whether value `index` is NULL (never, while no NULL was pushed).
    #[inline]
    fn is_null(&self, index: usize) -> bool {
        !self.0.is_valid(index)
    }

    /// The batch's null buffer, `None` when no value is null (also after a truncation removed
    /// every null).
    fn finish(&mut self) -> Option<NullBuffer> {
        self.0.finish().filter(|nulls| nulls.null_count() > 0)
    }
}

/// The values of a finished batch, leaving an empty vector that can hold as many (the next
/// batch is most likely the same size) so it does not grow by reallocating.
fn take_sized<T>(values: &mut Vec<T>) -> Vec<T> {
    let capacity = values.len();
    std::mem::replace(values, Vec::with_capacity(capacity))
}

/// The offsets of a finished batch, leaving `[0]` with room for as many.
fn take_offsets(offsets: &mut Vec<i32>) -> Vec<i32> {
    let mut next = Vec::with_capacity(offsets.len());
    next.push(0);
    std::mem::replace(offsets, next)
}

/// Values of one Arrow primitive type.
#[derive(Debug)]
pub struct PrimitiveColumn<T: ArrowPrimitiveType> {
    values: Vec<T::Native>,
    validity: Validity,
}

impl<T: ArrowPrimitiveType> Default for PrimitiveColumn<T> {
    fn default() -> Self {
        Self {
            values: Vec::new(),
            validity: Validity::default(),
        }
    }
}

impl<T: ArrowPrimitiveType> PrimitiveColumn<T> {
    #[inline]
    pub fn push(&mut self, value: T::Native) {
        self.values.push(value);
        self.validity.push(true);
    }

    fn push_null(&mut self) {
        self.values.push(T::Native::default());
        self.validity.push(false);
    }

    fn truncate(&mut self, len: usize) {
        self.values.truncate(len);
        self.validity.truncate(len);
    }

    fn finish(&mut self, data_type: &DataType) -> ArrayRef {
        let values = ScalarBuffer::from(take_sized(&mut self.values));
        let nulls = self.validity.finish();
        Arc::new(PrimitiveArray::<T>::new(values, nulls).with_data_type(data_type.clone()))
    }
}

/// UTF-8 strings or binaries with 32-bit offsets.
#[derive(Debug)]
pub struct BytesColumn {
    offsets: Vec<i32>,
    bytes: Vec<u8>,
    validity: Validity,
}

impl Default for BytesColumn {
    fn default() -> Self {
        Self {
            offsets: vec![0],
            bytes: Vec::new(),
            validity: Validity::default(),
        }
    }
}

impl BytesColumn {
    /// Appends a value; fails when the column would pass Arrow's 2 GiB offset limit.
    #[inline]
    pub fn push(&mut self, value: &[u8]) -> Result<()> {
        self.bytes.extend_from_slice(value);
        let end = i32::try_from(self.bytes.len()).map_err(|_| {
            FormatError::config(
                "a string/binary column of one batch exceeds 2 GiB; lower the batch size",
            )
        })?;
        self.offsets.push(end);
        self.validity.push(true);
        Ok(())
    }

    fn push_null(&mut self) {
        self.offsets.push(self.offsets[self.offsets.len() - 1]);
        self.validity.push(false);
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn truncate(&mut self, len: usize) {
        if len < self.len() {
            self.offsets.truncate(len + 1);
            self.bytes.truncate(self.offsets[len] as usize);
            self.validity.truncate(len);
        }
    }

    fn finish(&mut self, data_type: &DataType) -> Result<ArrayRef> {
        let offsets = OffsetBuffer::new(ScalarBuffer::from(take_offsets(&mut self.offsets)));
        let values = take_sized(&mut self.bytes).into();
        let nulls = self.validity.finish();
        Ok(match data_type {
            DataType::Utf8 => Arc::new(GenericByteArray::<Utf8Type>::try_new(
                offsets, values, nulls,
            )?),
            DataType::Binary => Arc::new(GenericByteArray::<BinaryType>::try_new(
                offsets, values, nulls,
            )?),
            DataType::FixedSizeBinary(width) => {
                let len = offsets.len() - 1;
                let values: arrow::buffer::Buffer = values;
                Arc::new(FixedSizeBinaryArray::try_new(
                    *width,
                    values.slice_with_length(0, len * (*width as usize)),
                    nulls,
                )?)
            }
            other => {
                return Err(FormatError::config(format!(
                    "bytes column cannot produce {other}"
                )));
            }
        })
    }
}

/// One column being built, shaped like its Arrow type.
#[derive(Debug)]
pub enum ColumnBuilder {
    Boolean(Vec<bool>, Validity),
    Int8(PrimitiveColumn<Int8Type>),
    Int16(PrimitiveColumn<Int16Type>),
    Int32(PrimitiveColumn<Int32Type>),
    Int64(PrimitiveColumn<Int64Type>),
    Float32(PrimitiveColumn<Float32Type>),
    Float64(PrimitiveColumn<Float64Type>),
    Decimal128(PrimitiveColumn<arrow::datatypes::Decimal128Type>),
    Date32(PrimitiveColumn<Date32Type>),
    Time32Second(PrimitiveColumn<Time32SecondType>),
    Time32Millisecond(PrimitiveColumn<Time32MillisecondType>),
    Time64Microsecond(PrimitiveColumn<Time64MicrosecondType>),
    Time64Nanosecond(PrimitiveColumn<Time64NanosecondType>),
    TimestampSecond(PrimitiveColumn<TimestampSecondType>),
    TimestampMillisecond(PrimitiveColumn<TimestampMillisecondType>),
    TimestampMicrosecond(PrimitiveColumn<TimestampMicrosecondType>),
    TimestampNanosecond(PrimitiveColumn<TimestampNanosecondType>),
    IntervalYearMonth(PrimitiveColumn<IntervalYearMonthType>),
    DurationMillisecond(PrimitiveColumn<DurationMillisecondType>),
    Bytes(BytesColumn),
    List {
        offsets: Vec<i32>,
        validity: Validity,
        element: Box<ColumnBuilder>,
    },
    Map {
        offsets: Vec<i32>,
        validity: Validity,
        keys: Box<ColumnBuilder>,
        values: Box<ColumnBuilder>,
    },
    Struct {
        len: usize,
        validity: Validity,
        fields: Vec<ColumnBuilder>,
    },
}

impl ColumnBuilder {
    /// An empty builder for `data_type`.
    pub fn new(data_type: &DataType) -> Result<Self> {
        use ColumnBuilder as B;
        Ok(match data_type {
            DataType::Boolean => B::Boolean(Vec::new(), Validity::default()),
            DataType::Int8 => B::Int8(Default::default()),
            DataType::Int16 => B::Int16(Default::default()),
            DataType::Int32 => B::Int32(Default::default()),
            DataType::Int64 => B::Int64(Default::default()),
            DataType::Float32 => B::Float32(Default::default()),
            DataType::Float64 => B::Float64(Default::default()),
            DataType::Decimal128(_, _) => B::Decimal128(Default::default()),
            DataType::Date32 => B::Date32(Default::default()),
            DataType::Time32(TimeUnit::Second) => B::Time32Second(Default::default()),
            DataType::Time32(TimeUnit::Millisecond) => B::Time32Millisecond(Default::default()),
            DataType::Time64(TimeUnit::Microsecond) => B::Time64Microsecond(Default::default()),
            DataType::Time64(TimeUnit::Nanosecond) => B::Time64Nanosecond(Default::default()),
            DataType::Timestamp(TimeUnit::Second, _) => B::TimestampSecond(Default::default()),
            DataType::Timestamp(TimeUnit::Millisecond, _) => {
                B::TimestampMillisecond(Default::default())
            }
            DataType::Timestamp(TimeUnit::Microsecond, _) => {
                B::TimestampMicrosecond(Default::default())
            }
            DataType::Timestamp(TimeUnit::Nanosecond, _) => {
                B::TimestampNanosecond(Default::default())
            }
            DataType::Interval(arrow::datatypes::IntervalUnit::YearMonth) => {
                B::IntervalYearMonth(Default::default())
            }
            DataType::Duration(TimeUnit::Millisecond) => B::DurationMillisecond(Default::default()),
            DataType::Utf8 | DataType::Binary | DataType::FixedSizeBinary(_) => {
                B::Bytes(Default::default())
            }
            DataType::List(element) => B::List {
                offsets: vec![0],
                validity: Validity::default(),
                element: Box::new(Self::new(element.data_type())?),
            },
            DataType::Map(entries, _) => {
                let (key, value) = map_fields(entries)?;
                B::Map {
                    offsets: vec![0],
                    validity: Validity::default(),
                    keys: Box::new(Self::new(key.data_type())?),
                    values: Box::new(Self::new(value.data_type())?),
                }
            }
            DataType::Struct(fields) => B::Struct {
                len: 0,
                validity: Validity::default(),
                fields: fields
                    .iter()
                    .map(|f| Self::new(f.data_type()))
                    .collect::<Result<_>>()?,
            },
            other => {
                return Err(FormatError::config(format!(
                    "the Arrow type {other} has no column builder"
                )));
            }
        })
    }

    /// Number of values appended.
    pub fn len(&self) -> usize {
        use ColumnBuilder as B;
        match self {
            B::Boolean(v, _) => v.len(),
            B::Int8(c) => c.values.len(),
            B::Int16(c) => c.values.len(),
            B::Int32(c) => c.values.len(),
            B::Int64(c) => c.values.len(),
            B::Float32(c) => c.values.len(),
            B::Float64(c) => c.values.len(),
            B::Decimal128(c) => c.values.len(),
            B::Date32(c) => c.values.len(),
            B::Time32Second(c) => c.values.len(),
            B::Time32Millisecond(c) => c.values.len(),
            B::Time64Microsecond(c) => c.values.len(),
            B::Time64Nanosecond(c) => c.values.len(),
            B::TimestampSecond(c) => c.values.len(),
            B::TimestampMillisecond(c) => c.values.len(),
            B::TimestampMicrosecond(c) => c.values.len(),
            B::TimestampNanosecond(c) => c.values.len(),
            B::IntervalYearMonth(c) => c.values.len(),
            B::DurationMillisecond(c) => c.values.len(),
            B::Bytes(c) => c.len(),
            B::List { offsets, .. } | B::Map { offsets, .. } => offsets.len() - 1,
            B::Struct { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The validity of this column's own values.
    fn validity(&self) -> &Validity {
        use ColumnBuilder as B;
        match self {
            B::Boolean(_, validity) => validity,
            B::Int8(c) => &c.validity,
            B::Int16(c) => &c.validity,
            B::Int32(c) => &c.validity,
            B::Int64(c) => &c.validity,
            B::Float32(c) => &c.validity,
            B::Float64(c) => &c.validity,
            B::Decimal128(c) => &c.validity,
            B::Date32(c) => &c.validity,
            B::Time32Second(c) => &c.validity,
            B::Time32Millisecond(c) => &c.validity,
            B::Time64Microsecond(c) => &c.validity,
            B::Time64Nanosecond(c) => &c.validity,
            B::TimestampSecond(c) => &c.validity,
            B::TimestampMillisecond(c) => &c.validity,
            B::TimestampMicrosecond(c) => &c.validity,
            B::TimestampNanosecond(c) => &c.validity,
            B::IntervalYearMonth(c) => &c.validity,
            B::DurationMillisecond(c) => &c.validity,
            B::Bytes(c) => &c.validity,
            B::List { validity, .. } | B::Map { validity, .. } | B::Struct { validity, .. } => {
                validity
            }
        }
    }

    /// The path of the first field declared NOT NULL (`field` or one nested in it) that value
    /// `index` holds a NULL for, where its parent is not NULL itself.
    fn null_in_required(&self, field: &Field, index: usize) -> Option<String> {
        use ColumnBuilder as B;
        if self.validity().is_null(index) {
            return (!field.is_nullable()).then(|| field.name().clone());
        }
        let nested = |child: &ColumnBuilder, child_field: &Field, at: usize| {
            child
                .null_in_required(child_field, at)
                .map(|path| format!("{}.{path}", field.name()))
        };
        match (self, field.data_type()) {
            (B::Struct { fields, .. }, DataType::Struct(struct_fields)) => fields
                .iter()
                .zip(struct_fields.iter())
                .find_map(|(child, f)| nested(child, f, index)),
            (
                B::List {
                    offsets, element, ..
                },
                DataType::List(element_field),
            ) => (offsets[index] as usize..offsets[index + 1] as usize)
                .find_map(|at| nested(element, element_field, at)),
            (
                B::Map {
                    offsets,
                    keys,
                    values,
                    ..
                },
                DataType::Map(entries, _),
            ) => {
                let (key_field, value_field) = map_fields(entries).ok()?;
                (offsets[index] as usize..offsets[index + 1] as usize).find_map(|at| {
                    nested(keys, key_field, at).or_else(|| nested(values, value_field, at))
                })
            }
            _ => None,
        }
    }

    /// Appends a NULL (a struct NULL also appends NULLs to its fields).
    pub fn push_null(&mut self) {
        use ColumnBuilder as B;
        match self {
            B::Boolean(v, validity) => {
                v.push(false);
                validity.push(false);
            }
            B::Int8(c) => c.push_null(),
            B::Int16(c) => c.push_null(),
            B::Int32(c) => c.push_null(),
            B::Int64(c) => c.push_null(),
            B::Float32(c) => c.push_null(),
            B::Float64(c) => c.push_null(),
            B::Decimal128(c) => c.push_null(),
            B::Date32(c) => c.push_null(),
            B::Time32Second(c) => c.push_null(),
            B::Time32Millisecond(c) => c.push_null(),
            B::Time64Microsecond(c) => c.push_null(),
            B::Time64Nanosecond(c) => c.push_null(),
            B::TimestampSecond(c) => c.push_null(),
            B::TimestampMillisecond(c) => c.push_null(),
            B::TimestampMicrosecond(c) => c.push_null(),
            B::TimestampNanosecond(c) => c.push_null(),
            B::IntervalYearMonth(c) => c.push_null(),
            B::DurationMillisecond(c) => c.push_null(),
            B::Bytes(c) => c.push_null(),
            B::List {
                offsets, validity, ..
            }
            | B::Map {
                offsets, validity, ..
            } => {
                offsets.push(offsets[offsets.len() - 1]);
                validity.push(false);
            }
            B::Struct {
                len,
                validity,
                fields,
            } => {
                *len += 1;
                validity.push(false);
                for field in fields {
                    field.push_null();
                }
            }
        }
    }

    /// Appends a boolean (the builder must be boolean).
    #[inline]
    pub fn push_bool(&mut self, value: bool) {
        if let ColumnBuilder::Boolean(v, validity) = self {
            v.push(value);
            validity.push(true);
        }
    }

    /// Closes a list or map value whose elements were just appended to its children.
    pub fn end_nested_value(&mut self) {
        use ColumnBuilder as B;
        match self {
            B::List {
                offsets,
                validity,
                element,
            } => {
                offsets.push(element.len() as i32);
                validity.push(true);
            }
            B::Map {
                offsets,
                validity,
                keys,
                ..
            } => {
                offsets.push(keys.len() as i32);
                validity.push(true);
            }
            B::Struct { len, validity, .. } => {
                *len += 1;
                validity.push(true);
            }
            _ => {}
        }
    }

    /// Drops values so that `len` remain (children follow their parents' offsets).
    pub fn truncate(&mut self, len: usize) {
        use ColumnBuilder as B;
        match self {
            B::Boolean(v, validity) => {
                v.truncate(len);
                validity.truncate(len);
            }
            B::Int8(c) => c.truncate(len),
            B::Int16(c) => c.truncate(len),
            B::Int32(c) => c.truncate(len),
            B::Int64(c) => c.truncate(len),
            B::Float32(c) => c.truncate(len),
            B::Float64(c) => c.truncate(len),
            B::Decimal128(c) => c.truncate(len),
            B::Date32(c) => c.truncate(len),
            B::Time32Second(c) => c.truncate(len),
            B::Time32Millisecond(c) => c.truncate(len),
            B::Time64Microsecond(c) => c.truncate(len),
            B::Time64Nanosecond(c) => c.truncate(len),
            B::TimestampSecond(c) => c.truncate(len),
            B::TimestampMillisecond(c) => c.truncate(len),
            B::TimestampMicrosecond(c) => c.truncate(len),
            B::TimestampNanosecond(c) => c.truncate(len),
            B::IntervalYearMonth(c) => c.truncate(len),
            B::DurationMillisecond(c) => c.truncate(len),
            B::Bytes(c) => c.truncate(len),
            B::List {
                offsets,
                validity,
                element,
            } => {
                if len + 1 < offsets.len() {
                    offsets.truncate(len + 1);
                    validity.truncate(len);
                    element.truncate(offsets[len] as usize);
                } else {
                    element.truncate(offsets[offsets.len() - 1] as usize);
                }
            }
            B::Map {
                offsets,
                validity,
                keys,
                values,
            } => {
                if len + 1 < offsets.len() {
                    offsets.truncate(len + 1);
                    validity.truncate(len);
                }
                let end = offsets[offsets.len() - 1] as usize;
                keys.truncate(end);
                values.truncate(end);
            }
            B::Struct {
                len: count,
                validity,
                fields,
            } => {
                if len < *count {
                    *count = len;
                    validity.truncate(len);
                }
                for field in fields {
                    field.truncate(*count);
                }
            }
        }
    }

    /// Builds the Arrow array of `data_type` and resets the builder.
    pub fn finish(&mut self, data_type: &DataType) -> Result<ArrayRef> {
        use ColumnBuilder as B;
        Ok(match self {
            B::Boolean(v, validity) => {
                // Packed into bits: the flags are copied, and their vector kept for the next batch.
                let values = BooleanBuffer::from(&v[..]);
                v.clear();
                Arc::new(BooleanArray::new(values, validity.finish()))
            }
            B::Int8(c) => c.finish(data_type),
            B::Int16(c) => c.finish(data_type),
            B::Int32(c) => c.finish(data_type),
            B::Int64(c) => c.finish(data_type),
            B::Float32(c) => c.finish(data_type),
            B::Float64(c) => c.finish(data_type),
            B::Decimal128(c) => {
                let array = c.finish(data_type);
                let typed: &Decimal128Array = array
                    .as_any()
                    .downcast_ref()
                    .ok_or_else(|| FormatError::config("decimal column is not Decimal128"))?;
                Arc::new(typed.clone())
            }
            B::Date32(c) => c.finish(data_type),
            B::Time32Second(c) => c.finish(data_type),
            B::Time32Millisecond(c) => c.finish(data_type),
            B::Time64Microsecond(c) => c.finish(data_type),
            B::Time64Nanosecond(c) => c.finish(data_type),
            B::TimestampSecond(c) => c.finish(data_type),
            B::TimestampMillisecond(c) => c.finish(data_type),
            B::TimestampMicrosecond(c) => c.finish(data_type),
            B::TimestampNanosecond(c) => c.finish(data_type),
            B::IntervalYearMonth(c) => c.finish(data_type),
            B::DurationMillisecond(c) => c.finish(data_type),
            B::Bytes(c) => c.finish(data_type)?,
            B::List {
                offsets,
                validity,
                element,
            } => {
                let DataType::List(field) = data_type else {
                    return Err(mismatch("list", data_type));
                };
                let values = element.finish(field.data_type())?;
                let offsets = OffsetBuffer::new(ScalarBuffer::from(take_offsets(offsets)));
                Arc::new(ListArray::try_new(
                    field.clone(),
                    offsets,
                    values,
                    validity.finish(),
                )?)
            }
            B::Map {
                offsets,
                validity,
                keys,
                values,
            } => {
                let DataType::Map(entries, sorted) = data_type else {
                    return Err(mismatch("map", data_type));
                };
                let (key_field, value_field) = map_fields(entries)?;
                let key_array = keys.finish(key_field.data_type())?;
                let value_array = values.finish(value_field.data_type())?;
                let entry_fields = Fields::from(vec![key_field.clone(), value_field.clone()]);
                let entry_array =
                    StructArray::try_new(entry_fields, vec![key_array, value_array], None)?;
                let offsets = OffsetBuffer::new(ScalarBuffer::from(take_offsets(offsets)));
                Arc::new(MapArray::try_new(
                    entries.clone(),
                    offsets,
                    entry_array,
                    validity.finish(),
                    *sorted,
                )?)
            }
            B::Struct {
                len,
                validity,
                fields,
            } => {
                let DataType::Struct(struct_fields) = data_type else {
                    return Err(mismatch("struct", data_type));
                };
                let rows = std::mem::take(len);
                let nulls = validity.finish();
                if struct_fields.is_empty() {
                    return Ok(new_null_array(data_type, rows));
                }
                let children = fields
                    .iter_mut()
                    .zip(struct_fields.iter())
                    .map(|(b, f)| b.finish(f.data_type()))
                    .collect::<Result<Vec<_>>>()?;
                Arc::new(StructArray::try_new(
                    struct_fields.clone(),
                    children,
                    nulls,
                )?)
            }
        })
    }
}

fn mismatch(kind: &str, data_type: &DataType) -> FormatError {
    FormatError::config(format!("a {kind} builder cannot produce {data_type}"))
}

/// The key and value fields of a map's entries field.
pub fn map_fields(entries: &FieldRef) -> Result<(&FieldRef, &FieldRef)> {
    match entries.data_type() {
        DataType::Struct(fields) if fields.len() == 2 => Ok((&fields[0], &fields[1])),
        other => Err(FormatError::config(format!(
            "map entries must be a struct of key and value, not {other}"
        ))),
    }
}

/// Ends one message's row: counts it if `result` is `Ok`, else rolls every column back to the
/// `rows` it held before the message, so a failed message leaves nothing behind.
fn end_row<E>(
    columns: &mut [ColumnBuilder],
    rows: &mut usize,
    result: std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    match result {
        Ok(()) => {
            *rows += 1;
            Ok(())
        }
        Err(e) => {
            for column in columns {
                column.truncate(*rows);
            }
            Err(e)
        }
    }
}

/// The NOT NULL constraints of a schema's columns, checked on the rows a message appended. Arrow
/// cannot hold a NULL where a field says NOT NULL, so a decoder makes a failed check its
/// message's error, as malformed as a value that does not parse.
#[derive(Debug)]
pub struct NotNullCheck {
    fields: Fields,
    /// The columns a constraint applies to: declared NOT NULL themselves, or holding a field that
    /// is (in a row, an array's elements, a map's keys or values).
    constrained: Vec<usize>,
}

impl NotNullCheck {
    pub fn new(fields: &Fields) -> Self {
        fn constrained(field: &Field) -> bool {
            !field.is_nullable()
                || match field.data_type() {
                    DataType::Struct(children) => children.iter().any(|c| constrained(c)),
                    DataType::List(element) => constrained(element),
                    DataType::Map(entries, _) => constrained(entries),
                    _ => false,
                }
        }
        Self {
            fields: fields.clone(),
            constrained: (0..fields.len())
                .filter(|&i| constrained(&fields[i]))
                .collect(),
        }
    }

    /// Fails when rows `from..to` of `columns` (built for the check's fields) hold a NULL where
    /// a field says NOT NULL, naming the field's path.
    pub fn check(
        &self,
        columns: &[ColumnBuilder],
        from: usize,
        to: usize,
    ) -> std::result::Result<(), String> {
        for &c in &self.constrained {
            for row in from..to {
                if let Some(path) = columns[c].null_in_required(&self.fields[c], row) {
                    return Err(format!(
                        "the column '{path}' is NOT NULL, but the record gives it no value (NULL)"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Finishes one builder per field of `schema` into a batch of `rows` rows (which may have no
/// columns at all), resetting the builders.
pub fn finish_batch(
    schema: &arrow::datatypes::SchemaRef,
    columns: &mut [ColumnBuilder],
    rows: usize,
) -> Result<arrow::array::RecordBatch> {
    let arrays = columns
        .iter_mut()
        .zip(schema.fields().iter())
        .map(|(b, f)| b.finish(f.data_type()))
        .collect::<Result<Vec<ArrayRef>>>()?;
    Ok(arrow::array::RecordBatch::try_new_with_options(
        schema.clone(),
        arrays,
        &arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
    )?)
}

/// The rows a decoder builds between flushes: a builder per column of the schema it produces, the
/// rows ended so far, the messages seen since the last flush (a message's position in errors) and
/// the messages skipped as malformed since the decoder was made.
#[derive(Debug)]
pub struct Rows {
    schema: arrow::datatypes::SchemaRef,
    columns: Vec<ColumnBuilder>,
    not_null: NotNullCheck,
    rows: usize,
    messages: usize,
    skipped: usize,
}

impl Rows {
    /// No rows yet, of `schema`'s columns.
    pub fn try_new(schema: arrow::datatypes::SchemaRef) -> Result<Self> {
        Ok(Self {
            columns: builders_for(schema.fields())?,
            not_null: NotNullCheck::new(schema.fields()),
            schema,
            rows: 0,
            messages: 0,
            skipped: 0,
        })
    }

    /// Counts a message in; returns its position since the last flush.
    pub fn next_message(&mut self) -> usize {
        self.messages += 1;
        self.messages - 1
    }

    /// The column builders the current message's row is appended to.
    pub fn columns(&mut self) -> &mut [ColumnBuilder] {
        &mut self.columns
    }

    /// Ends the current message's row: see [`end_row`]. A row with a NULL where its schema says
    /// NOT NULL fails as the message's error ([`NotNullCheck`]).
    pub fn end_row(
        &mut self,
        result: std::result::Result<(), String>,
    ) -> std::result::Result<(), String> {
        let result =
            result.and_then(|()| self.not_null.check(&self.columns, self.rows, self.rows + 1));
        end_row(&mut self.columns, &mut self.rows, result)
    }

    /// Counts a message skipped as malformed.
    pub fn skip(&mut self) {
        self.skipped += 1;
    }

    /// Rows ended since the last flush.
    pub fn pending(&self) -> usize {
        self.rows
    }

    /// Messages skipped as malformed since the decoder was made.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// The rows ended since the last flush, as one batch; the next message is position 0 again.
    pub fn flush(&mut self) -> Result<arrow::array::RecordBatch> {
        self.messages = 0;
        let rows = std::mem::take(&mut self.rows);
        finish_batch(&self.schema, &mut self.columns, rows)
    }
}

/// A nullable field's builder for every field of a schema.
pub fn builders_for(fields: &Fields) -> Result<Vec<ColumnBuilder>> {
    fields
        .iter()
        .map(|f| ColumnBuilder::new(f.data_type()))
        .collect()
}

/// A field with the given name and type, nullable.
pub fn nullable(name: &str, data_type: DataType) -> Field {
    Field::new(name, data_type, true)
}

/// The messages of one batch as they are written: bytes appended, one offset per message.
#[derive(Debug)]
pub struct MessageColumn {
    bytes: Vec<u8>,
    offsets: Vec<i32>,
}

impl MessageColumn {
    pub fn with_capacity(rows: usize) -> Self {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Self {
            bytes: Vec::with_capacity(rows * 64),
            offsets,
        }
    }

    /// Where the current message's bytes go.
    pub fn bytes(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// Ends the current message.
    pub fn end_message(&mut self) -> Result<()> {
        let end = i32::try_from(self.bytes.len()).map_err(|_| {
            FormatError::config("the encoded batch exceeds 2 GiB; lower the batch size")
        })?;
        self.offsets.push(end);
        Ok(())
    }

    /// The messages, NULL where `nulls` says (a format that writes no message for a NULL).
    pub fn finish(
        self,
        nulls: Option<arrow::buffer::NullBuffer>,
    ) -> Result<arrow::array::BinaryArray> {
        Ok(arrow::array::GenericByteArray::<
            arrow::datatypes::BinaryType,
        >::try_new(
            arrow::buffer::OffsetBuffer::new(arrow::buffer::ScalarBuffer::from(self.offsets)),
            self.bytes.into(),
            nulls,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int32s(column: &mut ColumnBuilder) -> Vec<Option<i32>> {
        let array = column
            .finish(&DataType::Int32)
            .expect("an Int32 builder finishes");
        let ints = array
            .as_any()
            .downcast_ref::<PrimitiveArray<Int32Type>>()
            .expect("an Int32 array");
        ints.iter().collect()
    }

    #[test]
    fn nulls_are_kept_from_the_first_one_and_truncated_away() {
        let mut column = ColumnBuilder::new(&DataType::Int32).expect("an Int32 builder");
        let ColumnBuilder::Int32(c) = &mut column else {
            panic!("not an Int32 builder");
        };
        c.push(1);
        c.push(2);
        column.push_null();
        assert_eq!(int32s(&mut column), vec![Some(1), Some(2), None]);

        // A row rolled back past the batch's only null leaves no null buffer.
        let ColumnBuilder::Int32(c) = &mut column else {
            panic!("not an Int32 builder");
        };
        c.push(3);
        column.push_null();
        column.truncate(1);
        let array = column.finish(&DataType::Int32).expect("finishes");
        assert!(array.nulls().is_none());
        assert_eq!(array.len(), 1);

        // Nulls first, then values, then a truncation that keeps one null.
        column.push_null();
        let ColumnBuilder::Int32(c) = &mut column else {
            panic!("not an Int32 builder");
        };
        c.push(4);
        c.push(5);
        column.push_null();
        column.truncate(3);
        assert_eq!(int32s(&mut column), vec![None, Some(4), Some(5)]);
        assert!(int32s(&mut column).is_empty());
    }

    #[test]
    fn batches_after_the_first_hold_their_own_values() {
        let mut column = ColumnBuilder::new(&DataType::Utf8).expect("a Utf8 builder");
        let mut batches = Vec::new();
        for batch in 0..3 {
            for row in 0..=batch {
                let ColumnBuilder::Bytes(c) = &mut column else {
                    panic!("not a bytes builder");
                };
                c.push(format!("{batch}.{row}").as_bytes()).expect("fits");
            }
            column.push_null();
            batches.push(column.finish(&DataType::Utf8).expect("finishes"));
        }
        let texts: Vec<Vec<Option<String>>> = batches
            .iter()
            .map(|a| {
                arrow::array::as_string_array(a)
                    .iter()
                    .map(|v| v.map(str::to_string))
                    .collect()
            })
            .collect();
        let some = |v: &str| Some(v.to_string());
        assert_eq!(
            texts,
            vec![
                vec![some("0.0"), None],
                vec![some("1.0"), some("1.1"), None],
                vec![some("2.0"), some("2.1"), some("2.2"), None],
            ]
        );
    }
}
