//! Pruning from footer statistics, bloom filters and the page index: a row group is skipped only
//! when its statistics prove that no row can satisfy a predicate, or when its bloom filter proves
//! that the value an equality asks for is absent; within the row groups read, pages whose
//! column-index bounds prove the same are skipped. Anything they cannot decide (no statistics or
//! filter, legacy orderings, annotated types, NaNs, floating point equality) keeps the row group.

use std::ops::Range;

use parquet::arrow::arrow_reader::{RowSelection, RowSelector};
use parquet::basic::{ConvertedType, LogicalType, Type as PhysicalType};
use parquet::bloom_filter::Sbbf;
use parquet::errors::ParquetError;
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData, RowGroupMetaData};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::page_index::offset_index::OffsetIndexMetaData;
use parquet::file::statistics::Statistics;

/// A literal a column is compared with.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Text(String),
}

/// How a column is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    IsNull,
    IsNotNull,
}

/// `column op value` on a top-level column (`value` is `None` for the null tests).
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnPredicate {
    pub column: String,
    pub op: Op,
    pub value: Option<Value>,
}

/// Whether some row of the row group may satisfy every predicate.
pub fn may_match(group: &RowGroupMetaData, predicates: &[ColumnPredicate]) -> bool {
    predicates.iter().all(|p| may_match_one(group, p))
}

/// Whether the bloom filters of the row group (read by `bloom`, per column index, only for the
/// columns of equality predicates) leave every equality's value possibly present.
pub fn bloom_may_match(
    group: &RowGroupMetaData,
    predicates: &[ColumnPredicate],
    bloom: impl Fn(usize) -> Result<Option<Sbbf>, ParquetError>,
) -> Result<bool, ParquetError> {
    for predicate in predicates {
        let (Op::Eq, Some(value)) = (predicate.op, &predicate.value) else {
            continue;
        };
        let Some(index) = column_index_of(group, &predicate.column) else {
            continue;
        };
        let column = group.column(index);
        let kind = kind_of(column);
        let probe = match (column.column_type(), value) {
            (PhysicalType::INT32, Value::Int(v)) if kind == Kind::Integer => {
                match i32::try_from(*v) {
                    Ok(v) => Probe::Int32(v),
                    // No INT32 equals a value beyond its range.
                    Err(_) => return Ok(false),
                }
            }
            (PhysicalType::INT64, Value::Int(v)) if kind == Kind::Integer => Probe::Int64(*v),
            (PhysicalType::BYTE_ARRAY, Value::Text(v)) if kind == Kind::Text => Probe::Text(v),
            // Floating point equality is not byte equality (0.0 = -0.0): filters cannot decide it.
            _ => continue,
        };
        let Some(filter) = bloom(index)? else {
            continue;
        };
        let present = match probe {
            Probe::Int32(v) => filter.check(&v),
            Probe::Int64(v) => filter.check(&v),
            Probe::Text(v) => filter.check(v.as_str()),
        };
        if !present {
            return Ok(false);
        }
    }
    Ok(true)
}

enum Probe<'a> {
    Int32(i32),
    Int64(i64),
    Text(&'a String),
}

/// How a column's stored values compare as the table's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Plain integers (or annotated only with their width).
    Integer,
    /// UTF-8 text.
    Text,
    Other,
}

fn kind_of(column: &ColumnChunkMetaData) -> Kind {
    let descriptor = column.column_descr();
    // Unsigned integers order their statistics unsigned: they decide nothing here.
    let plain = descriptor.logical_type_ref().is_none_or(|t| {
        matches!(
            t,
            LogicalType::Integer {
                is_signed: true,
                ..
            }
        )
    }) && matches!(
        descriptor.converted_type(),
        ConvertedType::NONE
            | ConvertedType::INT_8
            | ConvertedType::INT_16
            | ConvertedType::INT_32
            | ConvertedType::INT_64
    );
    let text = matches!(descriptor.logical_type_ref(), Some(LogicalType::String))
        || descriptor.converted_type() == ConvertedType::UTF8;
    if text {
        Kind::Text
    } else if plain
        && matches!(
            column.column_type(),
            PhysicalType::INT32 | PhysicalType::INT64
        )
    {
        Kind::Integer
    } else {
        Kind::Other
    }
}

/// The index of the top-level leaf column named `name`.
fn column_index_of(group: &RowGroupMetaData, name: &str) -> Option<usize> {
    group
        .columns()
        .iter()
        .position(|c| c.column_path().parts() == [name])
}

fn may_match_one(group: &RowGroupMetaData, predicate: &ColumnPredicate) -> bool {
    let Some(index) = column_index_of(group, &predicate.column) else {
        return true;
    };
    let column = group.column(index);
    // A top-level repeated leaf (a legacy list without its LIST group) counts a row with no
    // elements as a NULL, while the row reads as an empty, not NULL, array: its statistics
    // count values, not rows.
    if column.column_descr().max_rep_level() > 0 {
        return true;
    }
    let Some(stats) = column.statistics() else {
        return true;
    };
    let rows = u64::try_from(group.num_rows()).unwrap_or(u64::MAX);
    match predicate.op {
        Op::IsNull => return stats.null_count_opt() != Some(0),
        Op::IsNotNull => return stats.null_count_opt() != Some(rows),
        _ => {}
    }
    // Comparisons are never true on NULL: a row group of NULLs only cannot match.
    if stats.null_count_opt() == Some(rows) && rows > 0 {
        return false;
    }
    let kind = kind_of(column);
    let (plain, text) = (kind == Kind::Integer, kind == Kind::Text);
    let Some((min, max)) = bounds(stats, plain, text) else {
        return true;
    };
    let Some(value) = &predicate.value else {
        return true;
    };
    compares(predicate.op, &min, &max, value)
}

/// Whether some value between `min` and `max` may compare with `value` as `op` asks.
fn compares(op: Op, min: &Value, max: &Value, value: &Value) -> bool {
    let (Some(low), Some(high)) = (compare(min, value), compare(max, value)) else {
        return true;
    };
    use std::cmp::Ordering::{Equal, Greater, Less};
    match op {
        Op::Eq => low != Greater && high != Less,
        // Statistics leave NaNs out, and NaN <> x is true: only whole numbers can rule it out.
        Op::NotEq if matches!(min, Value::Float(_)) || matches!(value, Value::Float(_)) => true,
        Op::NotEq => !(low == Equal && high == Equal),
        Op::Lt => low == Less,
        Op::LtEq => low != Greater,
        Op::Gt => high == Greater,
        Op::GtEq => high != Less,
        Op::IsNull | Op::IsNotNull => true,
    }
}

/// The rows of `row_groups` (in that order) whose pages, by the page index, may hold a row that
/// satisfies every predicate; `None` when the file has no page index for the predicates' columns.
pub fn page_selection(
    metadata: &ParquetMetaData,
    row_groups: &[usize],
    predicates: &[ColumnPredicate],
) -> Option<RowSelection> {
    let (Some(column_index), Some(offset_index)) =
        (metadata.column_index(), metadata.offset_index())
    else {
        return None;
    };
    let mut used = false;
    let mut selectors: Vec<RowSelector> = Vec::new();
    for &g in row_groups {
        let group = metadata.row_group(g);
        let rows = usize::try_from(group.num_rows()).unwrap_or(0);
        let mut selection = RowSelection::from(vec![RowSelector::select(rows)]);
        for predicate in predicates {
            let Some(c) = column_index_of(group, &predicate.column) else {
                continue;
            };
            let (Some(index), Some(offsets)) = (
                column_index.get(g).and_then(|columns| columns.get(c)),
                offset_index.get(g).and_then(|columns| columns.get(c)),
            ) else {
                continue;
            };
            let Some(ranges) = matching_pages(group.column(c), index, offsets, rows, predicate)
            else {
                continue;
            };
            used = true;
            selection = selection.intersection(&RowSelection::from_consecutive_ranges(
                ranges.into_iter(),
                rows,
            ));
        }
        selectors.extend(selection.iter().copied());
    }
    used.then(|| RowSelection::from(selectors))
}

/// The row ranges of the pages that may hold a row satisfying `predicate`, or `None` when the
/// index cannot decide it.
fn matching_pages(
    column: &ColumnChunkMetaData,
    index: &ColumnIndexMetaData,
    offsets: &OffsetIndexMetaData,
    rows: usize,
    predicate: &ColumnPredicate,
) -> Option<Vec<Range<usize>>> {
    // A column chunk may have an offset index and no column index (parquet-java writes none for
    // a chunk that holds NaNs): nothing to decide from.
    if matches!(index, ColumnIndexMetaData::NONE) {
        return None;
    }
    // A top-level repeated leaf counts a row with no elements as a NULL (see `may_match_one`):
    // a page of empty rows is a null page, and its rows are not NULL.
    if column.column_descr().max_rep_level() > 0 {
        return None;
    }
    let locations = offsets.page_locations();
    let pages = locations.len();
    if pages == 0 || u64::try_from(pages).ok()? != index.num_pages() {
        return None;
    }
    let kind = kind_of(column);
    let mut ranges = Vec::new();
    for page in 0..pages {
        let start = usize::try_from(locations[page].first_row_index).ok()?;
        let end = match locations.get(page + 1) {
            Some(next) => usize::try_from(next.first_row_index).ok()?,
            None => rows,
        };
        // Pages of a corrupt offset index (out of order, past the row group) decide nothing.
        if start > end || end > rows {
            return None;
        }
        let keep = match predicate.op {
            Op::IsNull => index.null_count(page) != Some(0),
            Op::IsNotNull => !index.is_null_page(page),
            _ if index.is_null_page(page) => false,
            op => match (&predicate.value, page_bounds(index, page, kind)) {
                // Bounds in the index may be truncated: not exact enough to rule out `<>`.
                (Some(value), Some((min, max))) if !(op == Op::NotEq && kind == Kind::Text) => {
                    compares(op, &min, &max, value)
                }
                _ => true,
            },
        };
        if keep && start < end {
            ranges.push(start..end);
        }
    }
    Some(ranges)
}

/// A page's bounds from the column index, where they compare as the table's values do.
fn page_bounds(index: &ColumnIndexMetaData, page: usize, kind: Kind) -> Option<(Value, Value)> {
    match index {
        ColumnIndexMetaData::INT32(i) if kind == Kind::Integer => Some((
            Value::Int(i64::from(*i.min_value(page)?)),
            Value::Int(i64::from(*i.max_value(page)?)),
        )),
        ColumnIndexMetaData::INT64(i) if kind == Kind::Integer => Some((
            Value::Int(*i.min_value(page)?),
            Value::Int(*i.max_value(page)?),
        )),
        ColumnIndexMetaData::FLOAT(i) => Some((
            Value::Float(f64::from(*i.min_value(page)?)),
            Value::Float(f64::from(*i.max_value(page)?)),
        )),
        ColumnIndexMetaData::DOUBLE(i) => Some((
            Value::Float(*i.min_value(page)?),
            Value::Float(*i.max_value(page)?),
        )),
        ColumnIndexMetaData::BYTE_ARRAY(i) if kind == Kind::Text => Some((
            Value::Text(String::from_utf8(i.min_value(page)?.to_vec()).ok()?),
            Value::Text(String::from_utf8(i.max_value(page)?.to_vec()).ok()?),
        )),
        _ => None,
    }
}

/// The row group's minimum and maximum, where they compare as the table's values do.
fn bounds(stats: &Statistics, plain: bool, text: bool) -> Option<(Value, Value)> {
    if stats.is_min_max_deprecated() {
        return None;
    }
    match stats {
        Statistics::Int32(s) if plain => Some((
            Value::Int(i64::from(*s.min_opt()?)),
            Value::Int(i64::from(*s.max_opt()?)),
        )),
        Statistics::Int64(s) if plain => {
            Some((Value::Int(*s.min_opt()?), Value::Int(*s.max_opt()?)))
        }
        Statistics::Float(s) => Some((
            Value::Float(f64::from(*s.min_opt()?)),
            Value::Float(f64::from(*s.max_opt()?)),
        )),
        Statistics::Double(s) => Some((Value::Float(*s.min_opt()?), Value::Float(*s.max_opt()?))),
        Statistics::ByteArray(s) if text && s.min_is_exact() && s.max_is_exact() => Some((
            Value::Text(String::from_utf8(s.min_opt()?.data().to_vec()).ok()?),
            Value::Text(String::from_utf8(s.max_opt()?.data().to_vec()).ok()?),
        )),
        _ => None,
    }
}

/// `bound` compared with `value`, when both are of one kind and comparable (no NaN).
fn compare(bound: &Value, value: &Value) -> Option<std::cmp::Ordering> {
    match (bound, value) {
        (Value::Int(a), Value::Int(b)) => Some(a.cmp(b)),
        (Value::Int(a), Value::Float(b)) => (*a as f64).partial_cmp(b),
        (Value::Float(a), Value::Float(b)) => a.partial_cmp(b),
        (Value::Float(a), Value::Int(b)) => a.partial_cmp(&(*b as f64)),
        // Flink compares strings by their UTF-8 bytes, as Rust does.
        (Value::Text(a), Value::Text(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::{ParquetFileError, row_groups_matching};
    use arrow::array::{Int64Array, RecordBatch, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;

    /// Three row groups: ids 0-99, 100-199, 200-299; names "a…", "b…", "c…"; ids of the middle
    /// group's odd rows NULL; bloom filters when `blooms`.
    fn write(path: &std::path::Path, blooms: bool) -> Result<(), Box<dyn std::error::Error>> {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("name", DataType::Utf8, true),
        ]));
        let properties = WriterProperties::builder()
            .set_max_row_group_row_count(Some(100))
            .set_bloom_filter_enabled(blooms)
            .build();
        let mut writer = ArrowWriter::try_new(
            std::fs::File::create(path)?,
            schema.clone(),
            Some(properties),
        )?;
        for (group, prefix) in ["a", "b", "c"].iter().enumerate() {
            let base = group as i64 * 100;
            let ids: Int64Array = (0..100)
                .map(|i| (group != 1 || i % 2 == 0).then_some(base + i))
                .collect();
            let names: StringArray = (0..100).map(|i| Some(format!("{prefix}{i:03}"))).collect();
            writer.write(&RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(ids), Arc::new(names)],
            )?)?;
        }
        writer.close()?;
        Ok(())
    }

    /// Which row groups of `file` `predicates` keep.
    fn kept(file: &str, predicates: &[ColumnPredicate]) -> Result<Vec<bool>, ParquetFileError> {
        Ok(row_groups_matching(file, predicates)?
            .iter()
            .map(|rows| *rows >= 0)
            .collect())
    }

    fn predicate(column: &str, op: Op, value: Option<Value>) -> ColumnPredicate {
        ColumnPredicate {
            column: column.into(),
            op,
            value,
        }
    }

    #[test]
    fn bloom_filters_skip_row_groups_without_the_value() -> Result<(), Box<dyn std::error::Error>> {
        let path =
            std::env::temp_dir().join(format!("streamfusion-bloom-{}.parquet", std::process::id()));
        write(&path, true)?;
        let file = path.to_string_lossy().into_owned();
        let kept = |predicates: &[ColumnPredicate]| kept(&file, predicates);
        // 151 lies within the middle group's statistics, but its odd ids are NULL.
        assert_eq!(
            kept(&[predicate("id", Op::Eq, Some(Value::Int(151)))])?,
            [false, false, false]
        );
        assert_eq!(
            kept(&[predicate("id", Op::Eq, Some(Value::Int(152)))])?,
            [false, true, false]
        );
        // "a0505" sorts between "a050" and "a051": within the first group's statistics, absent.
        assert_eq!(
            kept(&[predicate("name", Op::Eq, Some(Value::Text("a0505".into())))])?,
            [false, false, false]
        );
        assert_eq!(
            kept(&[predicate("name", Op::Eq, Some(Value::Text("a050".into())))])?,
            [true, false, false]
        );
        // Only equalities consult the filters.
        assert_eq!(
            kept(&[predicate(
                "name",
                Op::GtEq,
                Some(Value::Text("a0505".into()))
            )])?,
            [true, true, true]
        );
        std::fs::remove_file(&path)?;
        Ok(())
    }

    /// A legacy repeated leaf outside a LIST: a row group whose rows hold no elements reads as
    /// empty arrays, not NULLs, though its statistics count a NULL a row.
    #[test]
    fn a_legacy_repeated_column_of_empty_rows_is_kept_for_is_not_null()
    -> Result<(), Box<dyn std::error::Error>> {
        use parquet::data_type::Int32Type;
        use parquet::file::writer::SerializedFileWriter;
        let path = std::env::temp_dir().join(format!(
            "streamfusion-repeated-{}.parquet",
            std::process::id()
        ));
        let schema = Arc::new(parquet::schema::parser::parse_message_type(
            "message m { repeated int32 arr; }",
        )?);
        let mut writer = SerializedFileWriter::new(
            std::fs::File::create(&path)?,
            schema,
            Arc::new(WriterProperties::builder().build()),
        )?;
        let mut group = writer.next_row_group()?;
        if let Some(mut column) = group.next_column()? {
            // Three rows, none with an element.
            column
                .typed::<Int32Type>()
                .write_batch(&[], Some(&[0, 0, 0]), Some(&[0, 0, 0]))?;
            column.close()?;
        }
        group.close()?;
        writer.close()?;
        let file = path.to_string_lossy().into_owned();
        let not_null = [predicate("arr", Op::IsNotNull, None)];
        assert_eq!(kept(&file, &not_null)?, [true]);
        // Nor does the page index drop the page of empty rows.
        let metadata = parquet::file::metadata::ParquetMetaDataReader::new()
            .with_page_index_policy(parquet::file::metadata::PageIndexPolicy::Required)
            .parse_and_finish(&std::fs::File::open(&path)?)?;
        assert!(metadata.column_index().is_some());
        assert!(page_selection(&metadata, &[0], &not_null).is_none());
        std::fs::remove_file(&path)?;
        Ok(())
    }

    #[test]
    fn statistics_skip_row_groups_that_cannot_match() -> Result<(), Box<dyn std::error::Error>> {
        let path =
            std::env::temp_dir().join(format!("streamfusion-prune-{}.parquet", std::process::id()));
        write(&path, false)?;
        let file = path.to_string_lossy().into_owned();
        let kept = |predicates: &[ColumnPredicate]| kept(&file, predicates);
        assert_eq!(kept(&[])?, [true, true, true]);
        assert_eq!(
            kept(&[predicate("id", Op::Eq, Some(Value::Int(150)))])?,
            [false, true, false]
        );
        assert_eq!(
            kept(&[predicate("id", Op::Lt, Some(Value::Int(100)))])?,
            [true, false, false]
        );
        assert_eq!(
            kept(&[predicate("id", Op::GtEq, Some(Value::Float(199.5)))])?,
            [false, false, true]
        );
        assert_eq!(
            kept(&[predicate("id", Op::IsNull, None)])?,
            [false, true, false]
        );
        assert_eq!(
            kept(&[predicate("name", Op::Eq, Some(Value::Text("c007".into())))])?,
            [false, false, true]
        );
        assert_eq!(
            kept(&[predicate("name", Op::Gt, Some(Value::Text("b".into())))])?,
            [false, true, true]
        );
        // Both must hold; an unknown column decides nothing.
        assert_eq!(
            kept(&[
                predicate("id", Op::Gt, Some(Value::Int(50))),
                predicate("name", Op::Lt, Some(Value::Text("b".into()))),
                predicate("missing", Op::Eq, Some(Value::Int(1))),
            ])?,
            [true, false, false]
        );
        // A comparison of kinds the statistics cannot decide keeps everything.
        assert_eq!(
            kept(&[predicate("id", Op::Eq, Some(Value::Text("x".into())))])?,
            [true, true, true]
        );
        std::fs::remove_file(&path)?;
        Ok(())
    }
}
