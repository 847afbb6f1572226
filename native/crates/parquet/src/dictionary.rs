//! Dictionary encoding only where it pays, decided as parquet-java decides it.
//!
//! parquet-java dictionary-encodes the first page of a column chunk. When that page is closed, it
//! keeps the dictionary only if the page's dictionary ids and the dictionary together are smaller
//! than the page's values written plain; otherwise it writes the whole chunk plain and drops the
//! dictionary. parquet-rs keeps a dictionary until the dictionary outgrows its size limit. So for a
//! column of mostly distinct values (keys, prices, free text) parquet-rs hashes values into a
//! dictionary that parquet-java never writes, and stores a dictionary page and a first stretch of
//! ids besides the plain values.
//!
//! [`dictionaries_that_pay`] applies parquet-java's test to the first rows of a file, the rows
//! parquet-java's first page would hold, and turns the dictionary off for the columns that fail
//! it. parquet-java tests each row group's chunk; here the first rows decide for the whole file.
//! Nested columns keep parquet-rs's behaviour.

use std::collections::HashSet;

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::DataType;
use parquet::basic::Type as PhysicalType;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::SchemaDescriptor;

/// `properties` with dictionaries turned off for the columns whose first page, as parquet-java
/// would cut it from `sample` (the file's first batches, in order), fails parquet-java's test.
///
/// `schema` is the file's Parquet schema, whose top-level fields are `sample`'s columns in order.
/// A column without a value in the sample is written plain, as parquet-java writes it, and so is
/// a FIXED_LEN_BYTE_ARRAY column in format v1, which parquet-java never dictionary-encodes. Columns
/// whose dictionary is off already, nested columns and BOOLEAN columns (never dictionary-encoded)
/// are left as they are.
pub fn dictionaries_that_pay(
    sample: &[RecordBatch],
    schema: &SchemaDescriptor,
    properties: WriterProperties,
) -> WriterProperties {
    let top_level = schema.root_schema().get_fields().len();
    if sample.iter().any(|b| b.num_columns() != top_level) {
        return properties;
    }
    let page_rows = properties.data_page_row_count_limit();
    let page_bytes = properties.data_page_size_limit();
    let mut plain = Vec::new();
    for (leaf, column) in schema.columns().iter().enumerate() {
        if !schema.get_column_root(leaf).is_primitive()
            || !properties.dictionary_enabled(column.path())
        {
            continue;
        }
        // parquet-java's format-v1 writer never dictionary-encodes FIXED_LEN_BYTE_ARRAY.
        if column.physical_type() == PhysicalType::FIXED_LEN_BYTE_ARRAY
            && properties.writer_version() == WriterVersion::PARQUET_1_0
        {
            plain.push(column.path().clone());
            continue;
        }
        let width = match column.physical_type() {
            PhysicalType::BOOLEAN => continue,
            PhysicalType::INT32 | PhysicalType::FLOAT => Some(4),
            PhysicalType::INT64 | PhysicalType::DOUBLE => Some(8),
            PhysicalType::INT96 => Some(12),
            PhysicalType::FIXED_LEN_BYTE_ARRAY => usize::try_from(column.type_length()).ok(),
            // A BYTE_ARRAY value is written plain as its length (4 bytes) and its bytes.
            PhysicalType::BYTE_ARRAY => None,
        };
        let root = schema.get_column_root_idx(leaf);
        let mut page = FirstPage::new(width, page_rows, page_bytes);
        for batch in sample {
            if !page.add(batch.column(root).as_ref()) {
                break;
            }
        }
        if page.judged && !page.dictionary_pays() {
            plain.push(column.path().clone());
        }
    }
    if plain.is_empty() {
        return properties;
    }
    let mut builder = properties.into_builder();
    for path in plain {
        builder = builder.set_column_dictionary_enabled(path, false);
    }
    builder.build()
}

/// Whether `rows` rows held in `bytes` of Arrow memory, of `columns` top-level columns, fill the
/// first page of every column, so that [`dictionaries_that_pay`] has all it looks at: a page holds
/// `data_page_row_count_limit` rows at most, and at most `data_page_size_limit` bytes of values.
pub fn first_pages_held(
    rows: usize,
    bytes: usize,
    columns: usize,
    properties: &WriterProperties,
) -> bool {
    rows >= properties.data_page_row_count_limit()
        || bytes
            >= properties
                .data_page_size_limit()
                .saturating_mul(columns.max(1))
}

/// A file's first rows, held until they fill every column's first page ([`first_pages_held`]):
/// what [`dictionaries_that_pay`] judges before the file's writer opens.
#[derive(Debug, Default)]
pub struct FirstRows {
    batches: Vec<RecordBatch>,
    rows: usize,
    bytes: usize,
}

impl FirstRows {
    /// Holds `batch` (which the caller no longer changes); true once the rows held fill every
    /// column's first page under `properties`.
    pub fn hold(&mut self, batch: RecordBatch, properties: &WriterProperties) -> bool {
        self.rows += batch.num_rows();
        self.bytes += batch.get_array_memory_size();
        let columns = batch.num_columns();
        if batch.num_rows() > 0 {
            self.batches.push(batch);
        }
        first_pages_held(self.rows, self.bytes, columns, properties)
    }

    /// The batches held, in order.
    pub fn batches(&self) -> &[RecordBatch] {
        &self.batches
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The Arrow memory of the batches held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// The values of a column chunk's first page, as parquet-java counts them: the page holds
/// `page_rows` rows at most, and closes once its values written plain reach `page_bytes`.
struct FirstPage<'a> {
    /// A value's plain size, or `None` for variable-length values.
    width: Option<usize>,
    rows: usize,
    page_rows: usize,
    page_bytes: usize,
    /// False for a column of a type this does not judge.
    judged: bool,
    /// Values other than NULL.
    values: usize,
    plain_bytes: usize,
    dictionary_bytes: usize,
    distinct: HashSet<Distinct<'a>>,
}

/// A value told apart from the others: fixed-width values by their bits, others by their bytes.
#[derive(PartialEq, Eq, Hash)]
enum Distinct<'a> {
    Fixed(u128),
    Bytes(&'a [u8]),
}

impl<'a> FirstPage<'a> {
    fn new(width: Option<usize>, page_rows: usize, page_bytes: usize) -> Self {
        FirstPage {
            width,
            rows: 0,
            page_rows,
            page_bytes,
            judged: true,
            values: 0,
            plain_bytes: 0,
            dictionary_bytes: 0,
            distinct: HashSet::new(),
        }
    }

    /// Adds `array`'s rows until the page is full; false once it is, or when `array` is of a
    /// type this does not judge.
    fn add(&mut self, array: &'a dyn Array) -> bool {
        match array.data_type() {
            DataType::Utf8 => {
                self.add_bytes(array, |i| array.as_string::<i32>().value(i).as_bytes())
            }
            DataType::LargeUtf8 => {
                self.add_bytes(array, |i| array.as_string::<i64>().value(i).as_bytes())
            }
            DataType::Utf8View => {
                self.add_bytes(array, |i| array.as_string_view().value(i).as_bytes())
            }
            DataType::Binary => self.add_bytes(array, |i| array.as_binary::<i32>().value(i)),
            DataType::LargeBinary => self.add_bytes(array, |i| array.as_binary::<i64>().value(i)),
            DataType::BinaryView => self.add_bytes(array, |i| array.as_binary_view().value(i)),
            DataType::FixedSizeBinary(_) => {
                self.add_bytes(array, |i| array.as_fixed_size_binary().value(i))
            }
            // Distinct Arrow values are distinct Parquet values: the writer's conversions (a
            // narrower integer, a decimal's unscaled value, a timestamp's unit) keep them apart.
            data_type => match data_type.primitive_width() {
                Some(width @ 1..=16) => {
                    let data = array.to_data();
                    let Some(buffer) = data.buffers().first() else {
                        return self.unread();
                    };
                    let bytes = buffer.as_slice();
                    let offset = data.offset();
                    self.add_values(array, |i| {
                        let start = (offset + i) * width;
                        let mut value = [0u8; 16];
                        value[..width].copy_from_slice(bytes.get(start..start + width)?);
                        Some(Distinct::Fixed(u128::from_le_bytes(value)))
                    })
                }
                _ => self.unread(),
            },
        }
    }

    /// Marks the column as one this does not judge; false.
    fn unread(&mut self) -> bool {
        self.judged = false;
        false
    }

    fn add_bytes(&mut self, array: &'a dyn Array, value: impl Fn(usize) -> &'a [u8]) -> bool {
        self.add_values(array, |i| Some(Distinct::Bytes(value(i))))
    }

    /// Adds the values `value` gives for `array`'s rows; one it cannot give ends the page
    /// unjudged.
    fn add_values(
        &mut self,
        array: &dyn Array,
        value: impl Fn(usize) -> Option<Distinct<'a>>,
    ) -> bool {
        for i in 0..array.len() {
            if self.rows == self.page_rows || self.plain_bytes >= self.page_bytes {
                return false;
            }
            self.rows += 1;
            if array.is_null(i) {
                continue;
            }
            let Some(value) = value(i) else {
                return self.unread();
            };
            let size = match (&value, self.width) {
                (_, Some(width)) => width,
                (Distinct::Bytes(bytes), None) => 4 + bytes.len(),
                (Distinct::Fixed(_), None) => return self.unread(),
            };
            self.values += 1;
            self.plain_bytes += size;
            if self.distinct.insert(value) {
                self.dictionary_bytes += size;
            }
        }
        true
    }

    /// parquet-java's test: the dictionary ids (bit-packed at the width the dictionary's size
    /// needs, behind a one-byte width) and the dictionary are smaller than the values plain.
    fn dictionary_pays(&self) -> bool {
        let max_id = self.distinct.len().saturating_sub(1);
        let bits = (usize::BITS - max_id.leading_zeros()) as usize;
        let ids = 1 + (self.values * bits).div_ceil(8);
        ids + self.dictionary_bytes < self.plain_bytes
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{
        ArrayRef, BooleanArray, Decimal128Array, Float64Array, Int32Array, Int64Array, StringArray,
        StructArray,
    };
    use arrow::datatypes::{Field, Fields, Schema};
    use parquet::arrow::{ArrowSchemaConverter, ArrowWriter};
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::schema::types::ColumnPath;

    use super::*;

    fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
        let fields: Vec<Field> = columns
            .iter()
            .map(|(name, array)| Field::new(*name, array.data_type().clone(), true))
            .collect();
        let arrays = columns.into_iter().map(|(_, array)| array).collect();
        RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
    }

    fn choose(sample: &[RecordBatch], properties: WriterProperties) -> WriterProperties {
        let schema = ArrowSchemaConverter::new()
            .convert(&sample[0].schema())
            .unwrap();
        dictionaries_that_pay(sample, &schema, properties)
    }

    fn dictionary(properties: &WriterProperties, column: &str) -> bool {
        properties.dictionary_enabled(&ColumnPath::from(column))
    }

    /// Rows `from..to`: distinct keys, keys of ten values, distinct and repeated text, distinct
    /// doubles, repeated decimals (INT64 and FIXED_LEN_BYTE_ARRAY in Parquet), distinct ones,
    /// booleans, a column of NULLs and a struct of distinct values.
    fn rows(from: i64, to: i64) -> RecordBatch {
        let ids: Vec<i64> = (from..to).collect();
        let distinct: ArrayRef = Arc::new(Int32Array::from_iter_values(
            ids.iter().map(|i| *i as i32 * 7),
        ));
        batch(vec![
            ("id", Arc::new(Int64Array::from(ids.clone()))),
            (
                "k",
                Arc::new(Int32Array::from_iter_values(
                    ids.iter().map(|i| (*i % 10) as i32),
                )),
            ),
            (
                "text",
                Arc::new(StringArray::from_iter_values(
                    ids.iter().map(|i| format!("row number {i}")),
                )),
            ),
            (
                "code",
                Arc::new(StringArray::from_iter_values(
                    ids.iter().map(|i| format!("code {}", i % 20)),
                )),
            ),
            (
                "price",
                Arc::new(Float64Array::from_iter_values(
                    ids.iter().map(|i| *i as f64 / 3.0),
                )),
            ),
            (
                "amount",
                Arc::new(
                    Decimal128Array::from_iter_values(ids.iter().map(|i| i128::from(*i % 5)))
                        .with_precision_and_scale(12, 2)
                        .unwrap(),
                ),
            ),
            (
                "wide",
                Arc::new(
                    Decimal128Array::from_iter_values(ids.iter().map(|i| i128::from(*i % 5)))
                        .with_precision_and_scale(30, 2)
                        .unwrap(),
                ),
            ),
            (
                "big",
                Arc::new(
                    Decimal128Array::from_iter_values(
                        ids.iter().map(|i| i128::from(*i) * 1_000_003),
                    )
                    .with_precision_and_scale(30, 2)
                    .unwrap(),
                ),
            ),
            (
                "flag",
                Arc::new(BooleanArray::from_iter(
                    ids.iter().map(|i| Some(i % 2 == 0)),
                )),
            ),
            ("nothing", Arc::new(Int64Array::from(vec![None; ids.len()]))),
            (
                "nested",
                Arc::new(StructArray::new(
                    Fields::from(vec![Field::new("x", DataType::Int32, true)]),
                    vec![distinct],
                    None,
                )),
            ),
        ])
    }

    #[test]
    fn a_column_keeps_its_dictionary_where_parquet_java_would() {
        let chosen = choose(
            &[rows(0, 5_000), rows(5_000, 10_000)],
            WriterProperties::default(),
        );
        for plain in ["id", "text", "price", "big", "nothing", "wide"] {
            assert!(!dictionary(&chosen, plain), "{plain} is written plain");
        }
        // In format v2 parquet-java dictionary-encodes FIXED_LEN_BYTE_ARRAY too.
        let v2 = WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .build();
        let chosen_v2 = choose(&[rows(0, 5_000)], v2);
        assert!(dictionary(&chosen_v2, "wide"));
        assert!(!dictionary(&chosen_v2, "big"));
        for kept in ["k", "code", "amount"] {
            assert!(dictionary(&chosen, kept), "{kept} keeps its dictionary");
        }
        // Left as parquet-rs has them: never dictionary-encoded, nested.
        for untouched in ["flag", "nested.x"] {
            assert!(dictionary(&chosen, untouched), "{untouched} is left alone");
        }
    }

    #[test]
    fn only_the_first_page_decides() {
        // Ten repeated values for the first page's 20,000 rows, distinct ones after them.
        let repeated = |from: i64, to: i64| {
            batch(vec![(
                "v",
                Arc::new(Int64Array::from_iter_values((from..to).map(|i| i % 10))) as ArrayRef,
            )])
        };
        let distinct = |from: i64, to: i64| {
            batch(vec![(
                "v",
                Arc::new(Int64Array::from_iter_values(from..to)) as ArrayRef,
            )])
        };
        let sample = [repeated(0, 20_000), distinct(20_000, 60_000)];
        assert!(dictionary(
            &choose(&sample, WriterProperties::default()),
            "v"
        ));
        // A page of 100 rows ends within the repeated values too.
        let sample = [repeated(0, 100), distinct(100, 60_000)];
        let rows_100 = WriterProperties::builder()
            .set_data_page_row_count_limit(100)
            .build();
        assert!(dictionary(&choose(&sample, rows_100), "v"));
        // A page ends once its plain values reach the page size: 80 values of 8 bytes here.
        let sample = [repeated(0, 80), distinct(80, 60_000)];
        let bytes_640 = WriterProperties::builder()
            .set_data_page_size_limit(640)
            .build();
        assert!(dictionary(&choose(&sample, bytes_640), "v"));
        // With a larger page, the distinct values outweigh the repeated ones.
        let sample = [repeated(0, 80), distinct(80, 60_000)];
        assert!(!dictionary(
            &choose(&sample, WriterProperties::default()),
            "v"
        ));
    }

    #[test]
    fn rows_are_held_until_a_page_of_rows_or_of_bytes_per_column() {
        let properties = WriterProperties::builder()
            .set_data_page_row_count_limit(usize::MAX)
            .set_data_page_size_limit(1_000)
            .build();
        assert!(!first_pages_held(1_000_000, 2_999, 3, &properties));
        assert!(first_pages_held(1_000_000, 3_000, 3, &properties));
        let defaults = WriterProperties::default();
        assert!(!first_pages_held(19_999, 1_000, 3, &defaults));
        assert!(first_pages_held(20_000, 1_000, 3, &defaults));
    }

    #[test]
    fn nulls_count_as_rows_not_as_values() {
        // Two values among NULLs: a dictionary of two 8-byte values and 1-bit ids pays.
        let values = Int64Array::from_iter((0..1_000).map(|i| (i % 50 == 0).then_some(i % 2)));
        let sample = [batch(vec![("v", Arc::new(values) as ArrayRef)])];
        assert!(dictionary(
            &choose(&sample, WriterProperties::default()),
            "v"
        ));
        // One value alone does not: its dictionary entry is as large as the value.
        let one = Int64Array::from(vec![Some(42), None, None]);
        let sample = [batch(vec![("v", Arc::new(one) as ArrayRef)])];
        assert!(!dictionary(
            &choose(&sample, WriterProperties::default()),
            "v"
        ));
    }

    #[test]
    fn a_dictionary_turned_off_stays_off_and_other_properties_stay() {
        let properties = WriterProperties::builder()
            .set_column_dictionary_enabled(ColumnPath::from("k"), false)
            .set_max_row_group_row_count(Some(1234))
            .build();
        let chosen = choose(&[rows(0, 1_000)], properties);
        assert!(!dictionary(&chosen, "k"));
        assert!(dictionary(&chosen, "code"));
        assert!(!dictionary(&chosen, "id"));
        assert_eq!(chosen.max_row_group_row_count(), Some(1234));
    }

    #[test]
    fn a_file_written_with_the_choice_has_dictionary_pages_where_kept() {
        let batches = [rows(0, 3_000), rows(3_000, 6_000)];
        let properties = choose(&batches, WriterProperties::default());
        let mut bytes = Vec::new();
        let mut writer =
            ArrowWriter::try_new(&mut bytes, batches[0].schema(), Some(properties)).unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
        }
        writer.close().unwrap();
        let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).unwrap();
        let group = reader.metadata().row_group(0);
        let with_dictionary: Vec<String> = group
            .columns()
            .iter()
            .filter(|c| c.dictionary_page_offset().is_some())
            .map(|c| c.column_path().string())
            .collect();
        assert_eq!(with_dictionary, ["k", "code", "amount", "nested.x"]);
    }
}
