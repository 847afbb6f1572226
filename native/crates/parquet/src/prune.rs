//! Row-group pruning from footer statistics: a row group is skipped only when its statistics
//! prove that no row can satisfy a predicate. Anything the statistics cannot decide (no
//! statistics, legacy orderings, annotated types, NaNs) keeps the row group.

use parquet::basic::{ConvertedType, LogicalType};
use parquet::file::metadata::RowGroupMetaData;
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

fn may_match_one(group: &RowGroupMetaData, predicate: &ColumnPredicate) -> bool {
    let Some(column) = group
        .columns()
        .iter()
        .find(|c| c.column_path().parts() == [predicate.column.as_str()])
    else {
        return true;
    };
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
    let descriptor = column.column_descr();
    let plain = descriptor
        .logical_type_ref()
        .is_none_or(|t| matches!(t, LogicalType::Integer { .. }))
        && matches!(
            descriptor.converted_type(),
            ConvertedType::NONE
                | ConvertedType::INT_8
                | ConvertedType::INT_16
                | ConvertedType::INT_32
                | ConvertedType::INT_64
        );
    let text = matches!(descriptor.logical_type_ref(), Some(LogicalType::String))
        || descriptor.converted_type() == ConvertedType::UTF8;
    let Some((min, max)) = bounds(stats, plain, text) else {
        return true;
    };
    let Some(value) = &predicate.value else {
        return true;
    };
    let (Some(low), Some(high)) = (compare(&min, value), compare(&max, value)) else {
        return true;
    };
    use std::cmp::Ordering::{Equal, Greater, Less};
    match predicate.op {
        Op::Eq => low != Greater && high != Less,
        Op::NotEq => !(low == Equal && high == Equal),
        Op::Lt => low == Less,
        Op::LtEq => low != Greater,
        Op::Gt => high == Greater,
        Op::GtEq => high != Less,
        Op::IsNull | Op::IsNotNull => true,
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
    /// group's odd rows NULL.
    fn write(path: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("name", DataType::Utf8, true),
        ]));
        let properties = WriterProperties::builder()
            .set_max_row_group_row_count(Some(100))
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

    fn predicate(column: &str, op: Op, value: Option<Value>) -> ColumnPredicate {
        ColumnPredicate {
            column: column.into(),
            op,
            value,
        }
    }

    #[test]
    fn statistics_skip_row_groups_that_cannot_match() -> Result<(), Box<dyn std::error::Error>> {
        let path =
            std::env::temp_dir().join(format!("streamfusion-prune-{}.parquet", std::process::id()));
        write(&path)?;
        let file = path.to_string_lossy().into_owned();
        let kept = |predicates: &[ColumnPredicate]| -> Result<Vec<bool>, ParquetFileError> {
            Ok(row_groups_matching(&file, predicates)?
                .iter()
                .map(|rows| *rows >= 0)
                .collect())
        };
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
