//! Rows in Flink's binary layout, written from an Arrow batch: what `BinaryRowData` views read.
//!
//! Each row is laid out as Flink's `BinaryRowWriter` lays it out (`RowDataSerializer#toBinaryRow`),
//! byte for byte:
//!
//! * a null bit set, `8 * ceil((arity + 8) / 64)` bytes, whose first byte is the row kind
//!   (INSERT, 0) and whose bit `8 + i` marks field `i` NULL;
//! * one 8-byte slot per field, little-endian: the value of a fixed-size field (BOOLEAN and
//!   TINYINT one byte, SMALLINT two, INT, DATE, TIME and INTERVAL YEAR TO MONTH four, the rest
//!   eight; the other bytes zero), a compact DECIMAL's unscaled long or a compact TIMESTAMP's
//!   milliseconds; text or bytes of at most 7 bytes held in the slot itself (length with the high
//!   bit set in the slot's last byte); otherwise `offset << 32 | size` pointing into
//!   * the variable-length section: longer text and bytes, each rounded up to 8 bytes with zeros;
//!     a wide DECIMAL (precision above 18) as Java's `BigInteger#toByteArray` in 16 bytes; a wide
//!     TIMESTAMP (precision above 3) as its milliseconds in 8 bytes, the slot holding the
//!     nanoseconds of the millisecond instead of a size.
//!
//! A NULL field has its bit set and a zero slot, nothing in the variable-length section.
//!
//! Nested values go into the variable-length section whole, as Flink's serializers write them:
//! a ROW as a row of this layout (its offsets relative to its own start); an ARRAY as Flink's
//! `BinaryArrayData` (the element count, a null bit per element in 4-byte words, the elements'
//! slots of 1, 2, 4 or 8 bytes by type, padded to 8 bytes, then their variable-length section; a
//! NULL element has its bit set and a zero slot, whatever its type, as Flink's
//! `ArrayDataSerializer` writes it); a MAP or MULTISET as Flink's `BinaryMapData` (the key array's
//! size, the key array, the value array).
//!
//! The rows of a batch go into one buffer: first the start of each row and the end of the last
//! (`rows + 1` little-endian `i32`s, padded to 8 bytes), then the rows, each starting on an
//! 8-byte boundary. The buffer is written a column at a time, after one pass that sizes the rows.

use std::fmt;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, FixedSizeBinaryArray, PrimitiveArray,
    RecordBatch, make_array,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Decimal128Type, DurationMillisecondType, Float32Type,
    Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, IntervalUnit, IntervalYearMonthType,
    Schema, Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
    TimeUnit, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};

/// Where Flink keeps text and bytes of at most this many bytes: in the field's slot.
pub(crate) const MAX_FIXED_PART_BYTES: usize = 7;
/// Flink's largest DECIMAL precision held as an unscaled long.
pub(crate) const MAX_COMPACT_DECIMAL_PRECISION: i32 = 18;
/// Flink's largest TIMESTAMP precision held as milliseconds only.
pub(crate) const MAX_COMPACT_TIMESTAMP_PRECISION: i32 = 3;

/// A Flink type of a produced column, as Java names it for [`BinaryRows::try_new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlinkType {
    Boolean,
    TinyInt,
    SmallInt,
    Int,
    BigInt,
    Float,
    Double,
    /// DECIMAL(precision, _).
    Decimal(i32),
    /// CHAR, VARCHAR, BINARY or VARBINARY.
    Bytes,
    Date,
    /// TIME(_): milliseconds of the day.
    Time,
    /// TIMESTAMP(precision) or TIMESTAMP_LTZ(precision).
    Timestamp(i32),
    IntervalYearMonth,
    IntervalDayTime,
}

impl FlinkType {
    /// The type Java's code `code` (with `precision` for DECIMAL and TIMESTAMP) names: the codes of
    /// `BinaryRowsWriter` in the bridge.
    pub fn of_code(code: i32, precision: i32) -> Option<Self> {
        Some(match code {
            0 => Self::Boolean,
            1 => Self::TinyInt,
            2 => Self::SmallInt,
            3 => Self::Int,
            4 => Self::BigInt,
            5 => Self::Float,
            6 => Self::Double,
            7 => Self::Decimal(precision),
            8 => Self::Bytes,
            9 => Self::Date,
            10 => Self::Time,
            11 => Self::Timestamp(precision),
            12 => Self::IntervalYearMonth,
            13 => Self::IntervalDayTime,
            _ => return None,
        })
    }

    pub(crate) fn accepts(self, data_type: &DataType) -> bool {
        match self {
            Self::Boolean => *data_type == DataType::Boolean,
            Self::TinyInt => *data_type == DataType::Int8,
            Self::SmallInt => *data_type == DataType::Int16,
            Self::Int => *data_type == DataType::Int32,
            Self::BigInt => *data_type == DataType::Int64,
            Self::Float => *data_type == DataType::Float32,
            Self::Double => *data_type == DataType::Float64,
            Self::Decimal(_) => matches!(data_type, DataType::Decimal128(_, _)),
            Self::Bytes => matches!(
                data_type,
                DataType::Utf8 | DataType::Binary | DataType::FixedSizeBinary(_)
            ),
            Self::Date => *data_type == DataType::Date32,
            Self::Time => matches!(
                data_type,
                DataType::Time32(TimeUnit::Second | TimeUnit::Millisecond)
                    | DataType::Time64(TimeUnit::Microsecond | TimeUnit::Nanosecond)
            ),
            Self::Timestamp(_) => matches!(data_type, DataType::Timestamp(_, _)),
            Self::IntervalYearMonth => *data_type == DataType::Interval(IntervalUnit::YearMonth),
            Self::IntervalDayTime => *data_type == DataType::Duration(TimeUnit::Millisecond),
        }
    }
}

/// The Flink type of a produced column or of a value within one: a flat type, or a nested one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnType {
    Flat(FlinkType),
    /// ARRAY<element>.
    Array(Box<ColumnType>),
    /// MAP<key, value>; a MULTISET<element> is a MAP<element, INT NOT NULL>.
    Map(Box<ColumnType>, Box<ColumnType>),
    /// ROW<fields>.
    Row(Vec<ColumnType>),
}

/// The type codes of nested types, after the flat ones of [`FlinkType::of_code`].
const ARRAY_CODE: i32 = 14;
const MAP_CODE: i32 = 15;
const MULTISET_CODE: i32 = 16;
const ROW_CODE: i32 = 17;

impl ColumnType {
    /// Reads one type from Java's pre-order description: a code and a precision per type (a ROW's
    /// precision is its arity), an ARRAY's element, a MAP's key and value, a MULTISET's element and
    /// a ROW's fields following it.
    pub fn read(codes: &mut impl Iterator<Item = (i32, i32)>) -> Option<Self> {
        let (code, precision) = codes.next()?;
        Some(match code {
            ARRAY_CODE => Self::Array(Box::new(Self::read(codes)?)),
            MAP_CODE => Self::Map(Box::new(Self::read(codes)?), Box::new(Self::read(codes)?)),
            MULTISET_CODE => Self::Map(
                Box::new(Self::read(codes)?),
                Box::new(Self::Flat(FlinkType::Int)),
            ),
            ROW_CODE => {
                let arity = usize::try_from(precision).ok()?;
                Self::Row(
                    (0..arity)
                        .map(|_| Self::read(codes))
                        .collect::<Option<_>>()?,
                )
            }
            _ => Self::Flat(FlinkType::of_code(code, precision)?),
        })
    }

    pub(crate) fn accepts(&self, data_type: &DataType) -> bool {
        match (self, data_type) {
            (Self::Flat(flat), _) => flat.accepts(data_type),
            (Self::Array(element), DataType::List(field)) => element.accepts(field.data_type()),
            (Self::Map(key, value), DataType::Map(entries, _)) => match entries.data_type() {
                DataType::Struct(kv) if kv.len() == 2 => {
                    key.accepts(kv[0].data_type()) && value.accepts(kv[1].data_type())
                }
                _ => false,
            },
            (Self::Row(fields), DataType::Struct(children)) => {
                fields.len() == children.len()
                    && fields
                        .iter()
                        .zip(children.iter())
                        .all(|(f, c)| f.accepts(c.data_type()))
            }
            _ => false,
        }
    }

    /// How many bytes an element of this type takes in a `BinaryArrayData`'s fixed part.
    pub(crate) fn element_size(&self) -> usize {
        match self {
            Self::Flat(FlinkType::Boolean | FlinkType::TinyInt) => 1,
            Self::Flat(FlinkType::SmallInt) => 2,
            Self::Flat(
                FlinkType::Int
                | FlinkType::Float
                | FlinkType::Date
                | FlinkType::Time
                | FlinkType::IntervalYearMonth,
            ) => 4,
            _ => 8,
        }
    }
}

/// What went wrong: the layout asked for, or a batch that does not fit it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryRowsError(pub String);

impl fmt::Display for BinaryRowsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BinaryRowsError {}

type Result<T> = std::result::Result<T, BinaryRowsError>;

/// One produced column: where it is in the batch (a top-level column, then struct fields within
/// it) and the Flink type it is written as.
#[derive(Debug, Clone)]
pub struct Column {
    pub path: Vec<usize>,
    pub column_type: ColumnType,
}

/// The writer of one batch schema's rows in Flink's binary layout.
#[derive(Debug)]
pub struct BinaryRows {
    columns: Vec<Column>,
    null_bits: usize,
    fixed: usize,
}

impl BinaryRows {
    /// A writer of `columns` of batches of `schema`; fails naming a column whose path or Arrow
    /// type does not fit.
    pub fn try_new(schema: &Schema, columns: Vec<Column>) -> Result<Self> {
        for (i, column) in columns.iter().enumerate() {
            let data_type = type_at(schema, &column.path).ok_or_else(|| {
                BinaryRowsError(format!(
                    "column {i}: the path {:?} is not a field of the batch schema",
                    column.path
                ))
            })?;
            if !column.column_type.accepts(data_type) {
                return Err(BinaryRowsError(format!(
                    "column {i}: Arrow type {data_type} cannot be written as Flink's {:?}",
                    column.column_type
                )));
            }
        }
        let null_bits = null_bits_bytes(columns.len());
        let fixed = null_bits + 8 * columns.len();
        Ok(Self {
            columns,
            null_bits,
            fixed,
        })
    }

    /// A writer of the columns of batches of `schema`, one to one, as `types`.
    pub fn of_columns(schema: &Schema, types: &[ColumnType]) -> Result<Self> {
        let columns = types
            .iter()
            .enumerate()
            .map(|(i, column_type)| Column {
                path: vec![i],
                column_type: column_type.clone(),
            })
            .collect();
        Self::try_new(schema, columns)
    }

    /// The size of a row's fixed-length part: its null bits and slots.
    pub fn fixed_size(&self) -> usize {
        self.fixed
    }

    /// `batch`'s rows in one buffer laid out as the module describes.
    pub fn write(&self, batch: &RecordBatch) -> Result<Vec<u8>> {
        let rows = batch.num_rows();
        let arrays = self
            .columns
            .iter()
            .map(|column| resolve(batch, &column.path))
            .collect::<Result<Vec<_>>>()?;

        // Pass 1: each row's size, then where each row starts. Nested values are written here,
        // each into its column's buffer, and copied into their rows in pass 2.
        let mut sizes = vec![self.fixed; rows];
        let mut nested = Vec::with_capacity(self.columns.len());
        for (column, array) in self.columns.iter().zip(&arrays) {
            match &column.column_type {
                ColumnType::Flat(flat) => {
                    add_variable_sizes(*flat, array, &mut sizes)?;
                    nested.push(None);
                }
                nested_type => {
                    let values = NestedValues::write(nested_type, array)?;
                    for (r, size) in sizes.iter_mut().enumerate() {
                        if let Some(value) = values.value(r) {
                            *size += round_to_word(value.len());
                        }
                    }
                    nested.push(Some(values));
                }
            }
        }
        let header = round_to_word((rows + 1) * 4);
        let mut starts = Vec::with_capacity(rows + 1);
        let mut end = header;
        for size in &sizes {
            starts.push(end);
            end += size;
        }
        starts.push(end);
        if i32::try_from(end).is_err() {
            return Err(BinaryRowsError(format!(
                "a batch of {rows} rows needs {end} bytes in Flink's binary layout, more than a \
                 memory segment holds; read smaller batches"
            )));
        }

        let mut out = vec![0u8; end];
        for (r, start) in starts.iter().enumerate() {
            // Checked above: every start is at most `end`, which fits an i32.
            let start = *start as i32;
            out[4 * r..4 * r + 4].copy_from_slice(&start.to_le_bytes());
        }

        // Pass 2: a column at a time; each row's variable-length cursor moves in column order,
        // as Flink's writer moves it in field order.
        let mut cursors = vec![self.fixed; rows];
        let mut rows_out = Rows {
            out: &mut out,
            starts: &starts[..rows],
            cursors: &mut cursors,
            null_bits: self.null_bits,
        };
        for (i, ((column, array), values)) in
            self.columns.iter().zip(&arrays).zip(&nested).enumerate()
        {
            match (&column.column_type, values) {
                (ColumnType::Flat(flat), _) => rows_out.column(i, *flat, array)?,
                (_, Some(values)) => rows_out.nested(i, array, values)?,
                (_, None) => {
                    return Err(BinaryRowsError(format!(
                        "column {i}: nested values missing"
                    )));
                }
            }
        }
        Ok(out)
    }
}

/// The bytes of the null bit set (with its 8-bit header) of a row of `arity` fields.
pub(crate) fn null_bits_bytes(arity: usize) -> usize {
    (arity + 63 + 8) / 64 * 8
}

fn round_to_word(n: usize) -> usize {
    n.div_ceil(8) * 8
}

fn type_at<'a>(schema: &'a Schema, path: &[usize]) -> Option<&'a DataType> {
    let (&first, rest) = path.split_first()?;
    let mut data_type = schema.fields().get(first)?.data_type();
    for &i in rest {
        match data_type {
            DataType::Struct(fields) => data_type = fields.get(i)?.data_type(),
            _ => return None,
        }
    }
    Some(data_type)
}

/// The column at `path`: a struct's field is NULL wherever the struct is (Arrow keeps struct
/// children unmasked).
fn resolve(batch: &RecordBatch, path: &[usize]) -> Result<ArrayRef> {
    let missing = || BinaryRowsError(format!("the path {path:?} is not a column of the batch"));
    let (&first, rest) = path.split_first().ok_or_else(missing)?;
    if first >= batch.num_columns() {
        return Err(missing());
    }
    let mut array = Arc::clone(batch.column(first));
    for &i in rest {
        let parent = array.as_struct_opt().ok_or_else(missing)?;
        if i >= parent.num_columns() {
            return Err(missing());
        }
        let child = parent.column(i);
        let nulls = NullBuffer::union(parent.nulls(), child.nulls());
        let data = child
            .to_data()
            .into_builder()
            .nulls(nulls)
            .build()
            .map_err(|e| BinaryRowsError(format!("the path {path:?}: {e}")))?;
        array = make_array(data);
    }
    Ok(array)
}

/// Adds what each non-NULL value of `array` takes in its row's variable-length section.
fn add_variable_sizes(flink_type: FlinkType, array: &ArrayRef, sizes: &mut [usize]) -> Result<()> {
    let reserve = |sizes: &mut [usize], bytes: usize| {
        for (r, size) in sizes.iter_mut().enumerate() {
            if array.is_valid(r) {
                *size += bytes;
            }
        }
    };
    match flink_type {
        FlinkType::Decimal(p) if p > MAX_COMPACT_DECIMAL_PRECISION => reserve(sizes, 16),
        FlinkType::Timestamp(p) if p > MAX_COMPACT_TIMESTAMP_PRECISION => reserve(sizes, 8),
        FlinkType::Bytes => {
            let values = BytesColumn::of(array.as_ref())?;
            for r in valid_rows(array) {
                let len = values.value(r).len();
                if len > MAX_FIXED_PART_BYTES {
                    sizes[r] += round_to_word(len);
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// A text or bytes column, whatever its Arrow layout.
enum BytesColumn<'a> {
    Text(&'a arrow::array::StringArray),
    Binary(&'a BinaryArray),
    Fixed(&'a FixedSizeBinaryArray),
}

impl<'a> BytesColumn<'a> {
    fn of(array: &'a dyn Array) -> Result<Self> {
        Ok(match array.data_type() {
            DataType::Utf8 => Self::Text(array.as_string::<i32>()),
            DataType::Binary => Self::Binary(as_binary(array)?),
            DataType::FixedSizeBinary(_) => Self::Fixed(as_fixed(array)?),
            other => {
                return Err(BinaryRowsError(format!(
                    "{other} is not a text or bytes column"
                )));
            }
        })
    }

    fn value(&self, i: usize) -> &'a [u8] {
        match self {
            Self::Text(values) => values.value(i).as_bytes(),
            Self::Binary(values) => values.value(i),
            Self::Fixed(values) => values.value(i),
        }
    }
}

/// The slot of text or bytes of at most 7 bytes, held in it: the bytes, then the length with the
/// high bit set in the slot's last byte.
fn inline_slot(value: &[u8]) -> [u8; 8] {
    let mut slot = [0u8; 8];
    slot[..value.len()].copy_from_slice(value);
    slot[7] = 0x80 | value.len() as u8;
    slot
}

fn as_binary(array: &dyn Array) -> Result<&BinaryArray> {
    array
        .as_binary_opt::<i32>()
        .ok_or_else(|| BinaryRowsError(format!("{} is not BINARY", array.data_type())))
}

fn as_fixed(array: &dyn Array) -> Result<&FixedSizeBinaryArray> {
    array
        .as_fixed_size_binary_opt()
        .ok_or_else(|| BinaryRowsError(format!("{} is not FIXED_SIZE_BINARY", array.data_type())))
}

fn primitive<T: ArrowPrimitiveType>(array: &dyn Array) -> Result<&PrimitiveArray<T>> {
    array
        .as_primitive_opt::<T>()
        .ok_or_else(|| BinaryRowsError(format!("{} is not {}", array.data_type(), T::DATA_TYPE)))
}

/// The rows being written: the buffer, each row's start, and each row's variable-length cursor
/// (relative to its start).
struct Rows<'a> {
    out: &'a mut [u8],
    starts: &'a [usize],
    cursors: &'a mut [usize],
    null_bits: usize,
}

impl Rows<'_> {
    fn column(&mut self, i: usize, flink_type: FlinkType, array: &ArrayRef) -> Result<()> {
        let slot = self.null_bits + 8 * i;
        self.set_null_bits(i, array);
        match flink_type {
            FlinkType::Boolean => {
                let values: &BooleanArray = array.as_boolean_opt().ok_or_else(|| {
                    BinaryRowsError(format!("{} is not BOOLEAN", array.data_type()))
                })?;
                for r in valid_rows(array) {
                    self.out[self.starts[r] + slot] = u8::from(values.value(r));
                }
            }
            FlinkType::TinyInt => {
                self.fixed(slot, primitive::<Int8Type>(array)?, |v| v.to_le_bytes())
            }
            FlinkType::SmallInt => {
                self.fixed(slot, primitive::<Int16Type>(array)?, |v| v.to_le_bytes())
            }
            FlinkType::Int => self.fixed(slot, primitive::<Int32Type>(array)?, |v| v.to_le_bytes()),
            FlinkType::BigInt => {
                self.fixed(slot, primitive::<Int64Type>(array)?, |v| v.to_le_bytes())
            }
            FlinkType::Float => {
                self.fixed(slot, primitive::<Float32Type>(array)?, |v| v.to_le_bytes())
            }
            FlinkType::Double => {
                self.fixed(slot, primitive::<Float64Type>(array)?, |v| v.to_le_bytes())
            }
            FlinkType::Date => {
                self.fixed(slot, primitive::<Date32Type>(array)?, |v| v.to_le_bytes())
            }
            FlinkType::IntervalYearMonth => {
                self.fixed(slot, primitive::<IntervalYearMonthType>(array)?, |v| {
                    v.to_le_bytes()
                })
            }
            FlinkType::IntervalDayTime => {
                self.fixed(slot, primitive::<DurationMillisecondType>(array)?, |v| {
                    v.to_le_bytes()
                })
            }
            FlinkType::Time => self.time(slot, array)?,
            FlinkType::Decimal(p) => {
                let values = primitive::<Decimal128Type>(array)?;
                for r in valid_rows(array) {
                    check_precision(values.value(r), p)?;
                }
                if p <= MAX_COMPACT_DECIMAL_PRECISION {
                    // A compact DECIMAL's unscaled value fits a long.
                    self.fixed(slot, values, |v| (v as i64).to_le_bytes());
                } else {
                    for r in valid_rows(array) {
                        let (bytes, first) = big_integer_bytes(values.value(r));
                        let len = bytes.len() - first;
                        let at = self.variable(r, slot, 16, len as u64);
                        self.out[at..at + len].copy_from_slice(&bytes[first..]);
                    }
                }
            }
            FlinkType::Timestamp(p) => self.timestamp(slot, p, array)?,
            FlinkType::Bytes => {
                let values = BytesColumn::of(array.as_ref())?;
                for r in valid_rows(array) {
                    let value = values.value(r);
                    if value.len() <= MAX_FIXED_PART_BYTES {
                        let at = self.starts[r] + slot;
                        self.out[at..at + 8].copy_from_slice(&inline_slot(value));
                    } else {
                        let len = value.len();
                        let at = self.variable(r, slot, round_to_word(len), len as u64);
                        self.out[at..at + len].copy_from_slice(value);
                    }
                }
            }
        }
        Ok(())
    }

    /// Copies each row's nested value into its variable-length section.
    fn nested(&mut self, i: usize, array: &ArrayRef, values: &NestedValues) -> Result<()> {
        let slot = self.null_bits + 8 * i;
        self.set_null_bits(i, array);
        for r in 0..self.starts.len() {
            if let Some(value) = values.value(r) {
                let offset = self.cursors[r];
                let from = self.starts[r] + offset;
                self.out[from..from + value.len()].copy_from_slice(value);
                self.cursors[r] += round_to_word(value.len());
                let word = offset_and_size(offset, value.len() as u64)?;
                let at = self.starts[r] + slot;
                self.out[at..at + 8].copy_from_slice(&word.to_le_bytes());
            }
        }
        Ok(())
    }

    fn set_null_bits(&mut self, i: usize, array: &ArrayRef) {
        let Some(nulls) = array.logical_nulls() else {
            return;
        };
        let bit = i + 8;
        for r in nulls
            .iter()
            .enumerate()
            .filter(|(_, valid)| !valid)
            .map(|(r, _)| r)
        {
            self.out[self.starts[r] + bit / 8] |= 1 << (bit % 8);
        }
    }

    /// Writes each non-NULL value's little-endian bytes at the start of its slot.
    fn fixed<T: ArrowPrimitiveType, const N: usize>(
        &mut self,
        slot: usize,
        values: &PrimitiveArray<T>,
        bytes: impl Fn(T::Native) -> [u8; N],
    ) {
        let raw = values.values();
        for r in valid_rows(values) {
            let at = self.starts[r] + slot;
            self.out[at..at + N].copy_from_slice(&bytes(raw[r]));
        }
    }

    /// Reserves `reserved` bytes of row `r`'s variable-length section, writes
    /// `offset << 32 | low` into the slot, and returns where the reserved bytes start.
    fn variable(&mut self, r: usize, slot: usize, reserved: usize, low: u64) -> usize {
        let offset = self.cursors[r];
        self.cursors[r] += reserved;
        // Sizes were checked to fit an i32 when the buffer was sized.
        let word = ((offset as u64) << 32) | low;
        let at = self.starts[r] + slot;
        self.out[at..at + 8].copy_from_slice(&word.to_le_bytes());
        self.starts[r] + offset
    }

    fn time(&mut self, slot: usize, array: &ArrayRef) -> Result<()> {
        let millis = millis_of_day(array)?;
        for r in valid_rows(array) {
            let at = self.starts[r] + slot;
            self.out[at..at + 4].copy_from_slice(&millis[r].to_le_bytes());
        }
        Ok(())
    }

    fn timestamp(&mut self, slot: usize, precision: i32, array: &ArrayRef) -> Result<()> {
        let parts = timestamp_parts(array)?;
        for r in valid_rows(array) {
            let (millis, nanos) = parts[r];
            if precision <= MAX_COMPACT_TIMESTAMP_PRECISION {
                let at = self.starts[r] + slot;
                self.out[at..at + 8].copy_from_slice(&millis.to_le_bytes());
            } else {
                let at = self.variable(r, slot, 8, nanos as u64);
                self.out[at..at + 8].copy_from_slice(&millis.to_le_bytes());
            }
        }
        Ok(())
    }
}

/// Each row's value of a nested column in Flink's binary form, one after another in one buffer;
/// `None` for a NULL.
struct NestedValues {
    bytes: Vec<u8>,
    ranges: Vec<Option<(usize, usize)>>,
}

impl NestedValues {
    fn write(column_type: &ColumnType, array: &ArrayRef) -> Result<Self> {
        let mut bytes = Vec::new();
        let mut ranges = Vec::with_capacity(array.len());
        let nulls = array.logical_nulls();
        for r in 0..array.len() {
            if nulls.as_ref().is_some_and(|n| n.is_null(r)) {
                ranges.push(None);
                continue;
            }
            let start = bytes.len();
            write_nested(&mut bytes, column_type, array.as_ref(), r)?;
            ranges.push(Some((start, bytes.len())));
        }
        Ok(Self { bytes, ranges })
    }

    fn value(&self, r: usize) -> Option<&[u8]> {
        self.ranges[r].map(|(from, to)| &self.bytes[from..to])
    }
}

/// Appends value `i` of `array` (not NULL), a ROW, ARRAY or MAP, to `out` in Flink's binary form.
fn write_nested(
    out: &mut Vec<u8>,
    column_type: &ColumnType,
    array: &dyn Array,
    i: usize,
) -> Result<()> {
    match column_type {
        ColumnType::Row(fields) => {
            let row = array
                .as_struct_opt()
                .ok_or_else(|| BinaryRowsError(format!("{} is not a ROW", array.data_type())))?;
            let start = out.len();
            let null_bits = null_bits_bytes(fields.len());
            out.resize(start + null_bits + 8 * fields.len(), 0);
            for (f, field_type) in fields.iter().enumerate() {
                let child = row.column(f);
                if child.is_null(i) {
                    let bit = f + 8;
                    out[start + bit / 8] |= 1 << (bit % 8);
                } else {
                    write_value(
                        out,
                        start,
                        start + null_bits + 8 * f,
                        field_type,
                        child.as_ref(),
                        i,
                    )?;
                }
            }
        }
        ColumnType::Array(element) => {
            let list = array
                .as_list_opt::<i32>()
                .ok_or_else(|| BinaryRowsError(format!("{} is not an ARRAY", array.data_type())))?;
            let range = list.value_offsets()[i] as usize..list.value_offsets()[i + 1] as usize;
            write_array(out, element, list.values().as_ref(), range)?;
        }
        ColumnType::Map(key, value) => {
            let map = array
                .as_map_opt()
                .ok_or_else(|| BinaryRowsError(format!("{} is not a MAP", array.data_type())))?;
            let range = map.value_offsets()[i] as usize..map.value_offsets()[i + 1] as usize;
            let start = out.len();
            out.extend_from_slice(&[0; 4]);
            write_array(out, key, map.keys().as_ref(), range.clone())?;
            let key_size = i32::try_from(out.len() - start - 4)
                .map_err(|_| BinaryRowsError("a map's keys take more than 2 GiB".into()))?;
            out[start..start + 4].copy_from_slice(&key_size.to_le_bytes());
            write_array(out, value, map.values().as_ref(), range)?;
        }
        ColumnType::Flat(flat) => {
            return Err(BinaryRowsError(format!("{flat:?} is not a nested type")));
        }
    }
    Ok(())
}

/// Appends the values `range` of `values` to `out` as Flink's `BinaryArrayData` of `element`s.
fn write_array(
    out: &mut Vec<u8>,
    element: &ColumnType,
    values: &dyn Array,
    range: std::ops::Range<usize>,
) -> Result<()> {
    let count = range.len();
    let start = out.len();
    let header = 4 + count.div_ceil(32) * 4;
    let size = element.element_size();
    out.resize(start + round_to_word(header + size * count), 0);
    let count32 = i32::try_from(count)
        .map_err(|_| BinaryRowsError(format!("an array of {count} elements")))?;
    out[start..start + 4].copy_from_slice(&count32.to_le_bytes());
    for (k, index) in range.enumerate() {
        let slot = start + header + size * k;
        if values.is_null(index) {
            out[start + 4 + k / 8] |= 1 << (k % 8);
        } else {
            write_value(out, start, slot, element, values, index)?;
            canonical_nan(out, slot, element);
        }
    }
    Ok(())
}

/// Fails for a wide DECIMAL value (precision `p` above 18) of more digits than its precision (a
/// malformed file's): Flink's columns read it as no DECIMAL at all (`DecimalData.fromBigDecimal`
/// gives null under a clear null bit), which its operators cannot take. A compact one is kept,
/// as Flink keeps it (`fromUnscaledLong` checks nothing; Flink's text cast makes such values).
fn check_precision(value: i128, p: i32) -> Result<()> {
    if p <= MAX_COMPACT_DECIMAL_PRECISION {
        return Ok(());
    }
    let fits = u8::try_from(p).is_ok_and(|p| {
        <Decimal128Type as arrow::datatypes::DecimalType>::is_valid_decimal_precision(value, p)
    });
    if fits {
        Ok(())
    } else {
        Err(BinaryRowsError(format!(
            "a DECIMAL({p}, ...) value has more than {p} digits: {value} (unscaled)"
        )))
    }
}

/// Stores a NaN element written at `slot` as Java's canonical NaN, as Flink's array writer does
/// (`BinaryArrayWriter.writeFloat` and `writeDouble`); a row's fields keep their bits.
fn canonical_nan(out: &mut [u8], slot: usize, element: &ColumnType) {
    match element {
        ColumnType::Flat(FlinkType::Float) => {
            if let Some(bytes) = out
                .get(slot..slot + 4)
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                && f32::from_le_bytes(bytes).is_nan()
            {
                put(out, slot, &0x7fc0_0000_u32.to_le_bytes());
            }
        }
        ColumnType::Flat(FlinkType::Double) => {
            if let Some(bytes) = out
                .get(slot..slot + 8)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                && f64::from_le_bytes(bytes).is_nan()
            {
                put(out, slot, &0x7ff8_0000_0000_0000_u64.to_le_bytes());
            }
        }
        _ => {}
    }
}

/// Writes value `i` of `array` (not NULL) into the slot at `slot` of the row or array starting at
/// `base` in `out`, appending what goes into its variable-length section.
fn write_value(
    out: &mut Vec<u8>,
    base: usize,
    slot: usize,
    column_type: &ColumnType,
    array: &dyn Array,
    i: usize,
) -> Result<()> {
    let flat = match column_type {
        ColumnType::Flat(flat) => *flat,
        nested => {
            let offset = out.len() - base;
            write_nested(out, nested, array, i)?;
            let len = out.len() - base - offset;
            out.resize(base + offset + round_to_word(len), 0);
            put(
                out,
                slot,
                &offset_and_size(offset, len as u64)?.to_le_bytes(),
            );
            return Ok(());
        }
    };
    match flat {
        FlinkType::Boolean => {
            let values = array
                .as_boolean_opt()
                .ok_or_else(|| BinaryRowsError(format!("{} is not BOOLEAN", array.data_type())))?;
            put(out, slot, &[u8::from(values.value(i))]);
        }
        FlinkType::TinyInt => put(
            out,
            slot,
            &primitive::<Int8Type>(array)?.value(i).to_le_bytes(),
        ),
        FlinkType::SmallInt => put(
            out,
            slot,
            &primitive::<Int16Type>(array)?.value(i).to_le_bytes(),
        ),
        FlinkType::Int => put(
            out,
            slot,
            &primitive::<Int32Type>(array)?.value(i).to_le_bytes(),
        ),
        FlinkType::BigInt => put(
            out,
            slot,
            &primitive::<Int64Type>(array)?.value(i).to_le_bytes(),
        ),
        FlinkType::Float => put(
            out,
            slot,
            &primitive::<Float32Type>(array)?.value(i).to_le_bytes(),
        ),
        FlinkType::Double => put(
            out,
            slot,
            &primitive::<Float64Type>(array)?.value(i).to_le_bytes(),
        ),
        FlinkType::Date => put(
            out,
            slot,
            &primitive::<Date32Type>(array)?.value(i).to_le_bytes(),
        ),
        FlinkType::IntervalYearMonth => put(
            out,
            slot,
            &primitive::<IntervalYearMonthType>(array)?
                .value(i)
                .to_le_bytes(),
        ),
        FlinkType::IntervalDayTime => put(
            out,
            slot,
            &primitive::<DurationMillisecondType>(array)?
                .value(i)
                .to_le_bytes(),
        ),
        FlinkType::Time => {
            let (unit, value) = time_value(array, i)?;
            put(out, slot, &time_millis(unit, value).to_le_bytes());
        }
        FlinkType::Decimal(p) => {
            let value = primitive::<Decimal128Type>(array)?.value(i);
            check_precision(value, p)?;
            if p <= MAX_COMPACT_DECIMAL_PRECISION {
                put(out, slot, &(value as i64).to_le_bytes());
            } else {
                let (bytes, first) = big_integer_bytes(value);
                let offset = out.len() - base;
                out.extend_from_slice(&bytes[first..]);
                out.resize(base + offset + 16, 0);
                put(
                    out,
                    slot,
                    &offset_and_size(offset, (16 - first) as u64)?.to_le_bytes(),
                );
            }
        }
        FlinkType::Timestamp(p) => {
            let (unit, value) = timestamp_value(array, i)?;
            let (millis, nanos) = timestamp_split(unit, value);
            if p <= MAX_COMPACT_TIMESTAMP_PRECISION {
                put(out, slot, &millis.to_le_bytes());
            } else {
                let offset = out.len() - base;
                out.extend_from_slice(&millis.to_le_bytes());
                put(
                    out,
                    slot,
                    &offset_and_size(offset, nanos as u64)?.to_le_bytes(),
                );
            }
        }
        FlinkType::Bytes => {
            let value = BytesColumn::of(array)?.value(i);
            if value.len() <= MAX_FIXED_PART_BYTES {
                put(out, slot, &inline_slot(value));
            } else {
                let offset = out.len() - base;
                out.extend_from_slice(value);
                out.resize(base + offset + round_to_word(value.len()), 0);
                put(
                    out,
                    slot,
                    &offset_and_size(offset, value.len() as u64)?.to_le_bytes(),
                );
            }
        }
    }
    Ok(())
}

/// Value `i` of a TIME column, raw, with its unit.
fn time_value(array: &dyn Array, i: usize) -> Result<(TimeUnit, i64)> {
    Ok(match array.data_type() {
        DataType::Time32(TimeUnit::Second) => (
            TimeUnit::Second,
            i64::from(primitive::<Time32SecondType>(array)?.value(i)),
        ),
        DataType::Time32(_) => (
            TimeUnit::Millisecond,
            i64::from(primitive::<Time32MillisecondType>(array)?.value(i)),
        ),
        DataType::Time64(TimeUnit::Microsecond) => (
            TimeUnit::Microsecond,
            primitive::<Time64MicrosecondType>(array)?.value(i),
        ),
        _ => (
            TimeUnit::Nanosecond,
            primitive::<Time64NanosecondType>(array)?.value(i),
        ),
    })
}

/// Value `i` of a TIMESTAMP column, raw, with its unit.
fn timestamp_value(array: &dyn Array, i: usize) -> Result<(TimeUnit, i64)> {
    let DataType::Timestamp(unit, _) = array.data_type() else {
        return Err(BinaryRowsError(format!(
            "{} is not a TIMESTAMP",
            array.data_type()
        )));
    };
    let value = match unit {
        TimeUnit::Second => primitive::<TimestampSecondType>(array)?.value(i),
        TimeUnit::Millisecond => primitive::<TimestampMillisecondType>(array)?.value(i),
        TimeUnit::Microsecond => primitive::<TimestampMicrosecondType>(array)?.value(i),
        TimeUnit::Nanosecond => primitive::<TimestampNanosecondType>(array)?.value(i),
    };
    Ok((*unit, value))
}

/// A TIME value of `unit` in milliseconds of the day, as Flink holds TIME.
fn time_millis(unit: TimeUnit, value: i64) -> i32 {
    match unit {
        TimeUnit::Second => (value as i32).wrapping_mul(1000),
        TimeUnit::Millisecond => value as i32,
        TimeUnit::Microsecond => value.div_euclid(1_000) as i32,
        TimeUnit::Nanosecond => value.div_euclid(1_000_000) as i32,
    }
}

/// A TIMESTAMP value of `unit` as milliseconds and nanoseconds of the millisecond, as Flink's
/// `TimestampData` holds it.
fn timestamp_split(unit: TimeUnit, value: i64) -> (i64, i64) {
    match unit {
        TimeUnit::Second => (value.wrapping_mul(1_000), 0),
        TimeUnit::Millisecond => (value, 0),
        TimeUnit::Microsecond => (value.div_euclid(1_000), value.rem_euclid(1_000) * 1_000),
        TimeUnit::Nanosecond => (value.div_euclid(1_000_000), value.rem_euclid(1_000_000)),
    }
}

fn put(out: &mut [u8], at: usize, bytes: &[u8]) {
    out[at..at + bytes.len()].copy_from_slice(bytes);
}

/// Each value of a TIME column in milliseconds of the day, whatever its Arrow unit.
fn millis_of_day(array: &ArrayRef) -> Result<Vec<i32>> {
    let unit = match array.data_type() {
        DataType::Time32(unit) | DataType::Time64(unit) => *unit,
        other => return Err(BinaryRowsError(format!("{other} is not a TIME"))),
    };
    let raw: Vec<i64> = match unit {
        TimeUnit::Second => primitive::<Time32SecondType>(array)?
            .values()
            .iter()
            .map(|&v| i64::from(v))
            .collect(),
        TimeUnit::Millisecond => primitive::<Time32MillisecondType>(array)?
            .values()
            .iter()
            .map(|&v| i64::from(v))
            .collect(),
        TimeUnit::Microsecond => primitive::<Time64MicrosecondType>(array)?.values().to_vec(),
        TimeUnit::Nanosecond => primitive::<Time64NanosecondType>(array)?.values().to_vec(),
    };
    Ok(raw.into_iter().map(|v| time_millis(unit, v)).collect())
}

/// Each value of a TIMESTAMP column as milliseconds and nanoseconds of the millisecond.
fn timestamp_parts(array: &ArrayRef) -> Result<Vec<(i64, i64)>> {
    let DataType::Timestamp(unit, _) = array.data_type() else {
        return Err(BinaryRowsError(format!(
            "{} is not a TIMESTAMP",
            array.data_type()
        )));
    };
    let raw = match unit {
        TimeUnit::Second => primitive::<TimestampSecondType>(array)?.values(),
        TimeUnit::Millisecond => primitive::<TimestampMillisecondType>(array)?.values(),
        TimeUnit::Microsecond => primitive::<TimestampMicrosecondType>(array)?.values(),
        TimeUnit::Nanosecond => primitive::<TimestampNanosecondType>(array)?.values(),
    };
    Ok(raw.iter().map(|&v| timestamp_split(*unit, v)).collect())
}

/// The rows of `array` that are not NULL.
fn valid_rows(array: &dyn Array) -> impl Iterator<Item = usize> + '_ {
    let nulls = array.logical_nulls();
    (0..array.len()).filter(move |&r| nulls.as_ref().is_none_or(|n| n.is_valid(r)))
}

fn offset_and_size(offset: usize, size: u64) -> Result<u64> {
    let offset = u32::try_from(offset)
        .map_err(|_| BinaryRowsError(format!("a row offset of {offset} bytes does not fit")))?;
    Ok((u64::from(offset) << 32) | size)
}

/// `value` as Java's `BigInteger#toByteArray` gives it: big-endian two's complement in the fewest
/// bytes that keep the sign; returned as the 16 bytes and the index of the first one kept.
fn big_integer_bytes(value: i128) -> ([u8; 16], usize) {
    let bytes = value.to_be_bytes();
    let mut first = 0;
    while first < 15 {
        let (byte, next) = (bytes[first], bytes[first + 1]);
        let redundant = (byte == 0 && next & 0x80 == 0) || (byte == 0xFF && next & 0x80 != 0);
        if !redundant {
            break;
        }
        first += 1;
    }
    (bytes, first)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use arrow::array::{
        Decimal128Array, Int32Array, ListArray, StringArray, StructArray, TimestampMicrosecondArray,
    };
    use arrow::datatypes::Field;
    use arrow::datatypes::Int32Type;

    fn word(out: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(out[at..at + 8].try_into().unwrap())
    }

    fn start(out: &[u8], r: usize) -> usize {
        i32::from_le_bytes(out[4 * r..4 * r + 4].try_into().unwrap()) as usize
    }

    /// A writer of `batch`'s columns, one to one, as `types`.
    pub(crate) fn writer(batch: &RecordBatch, types: &[ColumnType]) -> BinaryRows {
        BinaryRows::of_columns(batch.schema_ref(), types).unwrap()
    }

    /// [`writer`] of flat `types`.
    pub(crate) fn flat_writer(batch: &RecordBatch, types: &[FlinkType]) -> BinaryRows {
        let types = types
            .iter()
            .map(|t| ColumnType::Flat(*t))
            .collect::<Vec<_>>();
        writer(batch, &types)
    }

    #[test]
    fn big_integers_keep_the_fewest_bytes_with_their_sign() {
        let cases: [(i128, &[u8]); 6] = [
            (0, &[0]),
            (127, &[0x7F]),
            (128, &[0x00, 0x80]),
            (-1, &[0xFF]),
            (-129, &[0xFF, 0x7F]),
            (
                i128::MIN,
                &[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            ),
        ];
        for (value, expected) in cases {
            let (bytes, first) = big_integer_bytes(value);
            assert_eq!(&bytes[first..], expected, "{value}");
        }
    }

    #[test]
    fn short_text_lives_in_the_slot_and_long_text_after_the_slots() {
        let text = StringArray::from(vec![Some("abc"), None, Some("twelve bytes")]);
        let ints = Int32Array::from(vec![Some(-2), Some(5), None]);
        let batch = RecordBatch::try_from_iter(vec![
            ("s", Arc::new(text) as ArrayRef),
            ("i", Arc::new(ints) as ArrayRef),
        ])
        .unwrap();
        let rows = flat_writer(&batch, &[FlinkType::Bytes, FlinkType::Int]);
        let out = rows.write(&batch).unwrap();
        // 8 bytes of null bits, two slots.
        assert_eq!(rows.fixed_size(), 24);
        let header = 16;
        assert_eq!(
            (0..4).map(|r| start(&out, r)).collect::<Vec<_>>(),
            vec![header, header + 24, header + 48, header + 48 + 24 + 16]
        );

        let r0 = start(&out, 0);
        assert_eq!(out[r0], 0, "row kind INSERT");
        assert_eq!(&out[r0 + 8..r0 + 11], b"abc");
        assert_eq!(out[r0 + 15], 0x80 | 3);
        assert_eq!(word(&out, r0 + 16), (-2i32) as u32 as u64);

        let r1 = start(&out, 1);
        assert_eq!(out[r1 + 1], 0b1, "field 0 NULL");
        assert_eq!(word(&out, r1 + 8), 0);

        let r2 = start(&out, 2);
        assert_eq!(out[r2 + 1], 0b10, "field 1 NULL");
        assert_eq!(word(&out, r2 + 8), (24u64 << 32) | 12);
        assert_eq!(&out[r2 + 24..r2 + 36], b"twelve bytes");
        assert_eq!(&out[r2 + 36..r2 + 40], &[0; 4], "padding");
        assert_eq!(word(&out, r2 + 16), 0);
    }

    #[test]
    fn wide_decimals_and_timestamps_take_the_variable_section() {
        let decimals = Decimal128Array::from(vec![Some(-129i128), None])
            .with_precision_and_scale(20, 2)
            .unwrap();
        let timestamps = TimestampMicrosecondArray::from(vec![Some(-1_500i64), Some(2_003)]);
        let batch = RecordBatch::try_from_iter(vec![
            ("d", Arc::new(decimals) as ArrayRef),
            ("t", Arc::new(timestamps) as ArrayRef),
        ])
        .unwrap();
        let rows = flat_writer(&batch, &[FlinkType::Decimal(20), FlinkType::Timestamp(6)]);
        let out = rows.write(&batch).unwrap();

        let r0 = start(&out, 0);
        assert_eq!(word(&out, r0 + 8), (24u64 << 32) | 2);
        assert_eq!(&out[r0 + 24..r0 + 26], &[0xFF, 0x7F]);
        assert_eq!(&out[r0 + 26..r0 + 40], &[0; 14]);
        // -1,500 microseconds: millisecond -2 and 500,000 nanoseconds.
        assert_eq!(word(&out, r0 + 16), (40u64 << 32) | 500_000);
        assert_eq!(word(&out, r0 + 40) as i64, -2);

        let r1 = start(&out, 1);
        assert_eq!(word(&out, r1 + 8), 0, "a NULL wide decimal takes no space");
        assert_eq!(word(&out, r1 + 16), (24u64 << 32) | 3_000);
        assert_eq!(word(&out, r1 + 24) as i64, 2);
        assert_eq!(start(&out, 2) - r1, 32);
    }

    #[test]
    fn struct_fields_are_null_where_their_struct_is() {
        let inner = StructArray::from(vec![(
            Arc::new(Field::new("n", DataType::Int32, true)),
            Arc::new(Int32Array::from(vec![7, 8])) as ArrayRef,
        )]);
        let masked = StructArray::try_new(
            inner.fields().clone(),
            inner.columns().to_vec(),
            Some(NullBuffer::from(vec![true, false])),
        )
        .unwrap();
        let batch = RecordBatch::try_from_iter(vec![("r", Arc::new(masked) as ArrayRef)]).unwrap();
        let rows = BinaryRows::try_new(
            batch.schema_ref(),
            vec![Column {
                path: vec![0, 0],
                column_type: ColumnType::Flat(FlinkType::Int),
            }],
        )
        .unwrap();
        let out = rows.write(&batch).unwrap();
        assert_eq!(word(&out, start(&out, 0) + 8), 7);
        assert_eq!(out[start(&out, 1) + 1], 1);
        assert_eq!(word(&out, start(&out, 1) + 8), 0);
    }

    #[test]
    fn arrays_hold_their_count_null_bits_and_slots_and_maps_their_key_array_size() {
        let list = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
            Some(vec![Some(1), None, Some(3)]),
            None,
        ]);
        let batch = RecordBatch::try_from_iter(vec![("a", Arc::new(list) as ArrayRef)]).unwrap();
        let rows = BinaryRows::try_new(
            batch.schema_ref(),
            vec![Column {
                path: vec![0],
                column_type: ColumnType::Array(Box::new(ColumnType::Flat(FlinkType::Int))),
            }],
        )
        .unwrap();
        let out = rows.write(&batch).unwrap();
        let r0 = start(&out, 0);
        // 8 bytes of count and null bits, three 4-byte slots, padded to 24.
        assert_eq!(word(&out, r0 + 8), (16u64 << 32) | 24);
        let array = r0 + 16;
        assert_eq!(&out[array..array + 4], &3i32.to_le_bytes());
        assert_eq!(out[array + 4], 0b10, "element 1 NULL");
        assert_eq!(&out[array + 8..array + 12], &1i32.to_le_bytes());
        assert_eq!(&out[array + 12..array + 16], &[0; 4]);
        assert_eq!(&out[array + 16..array + 20], &3i32.to_le_bytes());
        assert_eq!(&out[array + 20..array + 24], &[0; 4], "padding");
        let r1 = start(&out, 1);
        assert_eq!(out[r1 + 1], 1);
        assert_eq!(start(&out, 2) - r1, 16);

        let mut codes = vec![(15, 0), (8, 0), (17, 2), (3, 0), (11, 9)].into_iter();
        let map = ColumnType::read(&mut codes).unwrap();
        assert_eq!(
            map,
            ColumnType::Map(
                Box::new(ColumnType::Flat(FlinkType::Bytes)),
                Box::new(ColumnType::Row(vec![
                    ColumnType::Flat(FlinkType::Int),
                    ColumnType::Flat(FlinkType::Timestamp(9)),
                ])),
            )
        );
        assert!(codes.next().is_none());
    }

    /// Flink's array writer stores any NaN element as Java's canonical NaN; a row's field keeps
    /// its bits (`BinaryRowWriter.writeDouble` puts the raw bits).
    #[test]
    fn nan_elements_of_arrays_are_javas_canonical_nan_and_fields_keep_their_bits() {
        use arrow::array::{Float32Array, Float64Array, ListArray};
        use arrow::buffer::OffsetBuffer;
        let negative_nan = f64::from_bits(0xFFF8_0000_0000_0000);
        let payload_nan = f32::from_bits(0x7FC0_0001);
        let doubles = Float64Array::from(vec![negative_nan, -0.0]);
        let floats = Float32Array::from(vec![payload_nan]);
        let double_list = ListArray::new(
            Arc::new(Field::new("item", DataType::Float64, true)),
            OffsetBuffer::from_lengths([2]),
            Arc::new(doubles),
            None,
        );
        let float_list = ListArray::new(
            Arc::new(Field::new("item", DataType::Float32, true)),
            OffsetBuffer::from_lengths([1]),
            Arc::new(floats),
            None,
        );
        let field = Float64Array::from(vec![negative_nan]);
        let batch = RecordBatch::try_from_iter(vec![
            ("d", Arc::new(double_list) as ArrayRef),
            ("f", Arc::new(float_list) as ArrayRef),
            ("x", Arc::new(field) as ArrayRef),
        ])
        .unwrap();
        let rows = writer(
            &batch,
            &[
                ColumnType::Array(Box::new(ColumnType::Flat(FlinkType::Double))),
                ColumnType::Array(Box::new(ColumnType::Flat(FlinkType::Float))),
                ColumnType::Flat(FlinkType::Double),
            ],
        );
        let out = rows.write(&batch).unwrap();
        let r0 = start(&out, 0);
        let doubles_at = r0 + (word(&out, r0 + 8) >> 32) as usize;
        assert_eq!(word(&out, doubles_at + 8), 0x7FF8_0000_0000_0000);
        assert_eq!(
            word(&out, doubles_at + 16),
            (-0.0f64).to_bits(),
            "-0.0 kept"
        );
        let floats_at = r0 + (word(&out, r0 + 16) >> 32) as usize;
        assert_eq!(
            &out[floats_at + 8..floats_at + 12],
            &0x7FC0_0000u32.to_le_bytes()
        );
        assert_eq!(
            word(&out, r0 + 24),
            0xFFF8_0000_0000_0000,
            "a field keeps its bits"
        );
    }

    /// A wide DECIMAL value of more digits than its precision (a malformed file's) fails the
    /// batch; a compact one is kept, as Flink keeps it (its text cast makes such values).
    #[test]
    fn wide_decimals_of_more_digits_than_their_precision_are_refused() {
        for (precision, value) in [(20u8, 10i128.pow(20)), (38, i128::MAX)] {
            let decimals = Decimal128Array::from(vec![Some(value)])
                .with_precision_and_scale(precision, 0)
                .unwrap();
            let batch =
                RecordBatch::try_from_iter(vec![("d", Arc::new(decimals) as ArrayRef)]).unwrap();
            let error = flat_writer(&batch, &[FlinkType::Decimal(i32::from(precision))])
                .write(&batch)
                .map(|_| ())
                .unwrap_err();
            assert!(error.to_string().contains("more than"), "{error}");
        }
        let compact = Decimal128Array::from(vec![Some(10_000i128)])
            .with_precision_and_scale(4, 0)
            .unwrap();
        let batch = RecordBatch::try_from_iter(vec![("d", Arc::new(compact) as ArrayRef)]).unwrap();
        let out = flat_writer(&batch, &[FlinkType::Decimal(4)])
            .write(&batch)
            .unwrap();
        assert_eq!(word(&out, start(&out, 0) + 8), 10_000);
    }

    #[test]
    fn a_type_that_does_not_fit_is_refused_naming_the_column() {
        let batch = RecordBatch::try_from_iter(vec![(
            "i",
            Arc::new(Int32Array::from(vec![1])) as ArrayRef,
        )])
        .unwrap();
        let columns = vec![Column {
            path: vec![0],
            column_type: ColumnType::Flat(FlinkType::BigInt),
        }];
        let error = BinaryRows::try_new(batch.schema_ref(), columns).unwrap_err();
        assert!(error.0.starts_with("column 0: Arrow type Int32"), "{error}");
        let missing = vec![Column {
            path: vec![0, 1],
            column_type: ColumnType::Flat(FlinkType::Int),
        }];
        assert!(BinaryRows::try_new(batch.schema_ref(), missing).is_err());
    }
}
