//! What a data file's footer says of the columns a task's filter reads: whether the file holds
//! each in the table's type exactly, so that the filter's values compare with the file's
//! statistics and rows as they would with the table's.
//!
//! iceberg-rust casts a filter's value to the type the file holds and reads its statistics in
//! the table's type. Where the file holds a column otherwise (an `int` column of a table whose
//! column is now `long` while the table's schemas no longer record the promotion, a narrower
//! decimal, nanosecond timestamps in a `timestamp` column, text without its UTF-8 annotation) or
//! not at all (an added column, with its default in format v3), a value out of the file's range
//! would become NULL and statistics would be misread: rows the filter keeps would be dropped.
//! Those columns' predicates are left out for the file (Flink still checks every row).

use std::collections::HashSet;

use iceberg::arrow::ArrowFileReader;
use iceberg::io::{FileIO, FileMetadata};
use iceberg::spec::{PrimitiveType, Schema, Type};
use parquet::arrow::async_reader::AsyncFileReader;
use parquet::basic::{ConvertedType, LogicalType, TimeUnit, Type as PhysicalType};
use parquet::schema::types::ColumnDescriptor;

/// Whether a task over `schema` reading `projected` (field ids) with a filter on `filtered` needs
/// its data file's footer checked ([`columns_not_as_typed`]).
pub(crate) fn needs_check(schema: &Schema, projected: &[i32], filtered: &HashSet<i32>) -> bool {
    !filtered.is_empty()
        || projected.iter().any(|id| {
            matches!(
                schema.field_by_id(*id).map(|f| f.field_type.as_ref()),
                Some(Type::Primitive(
                    PrimitiveType::Timestamp | PrimitiveType::Timestamptz
                ))
            )
        })
}

/// The field ids among `filtered` whose column the Parquet file at `path` (of `size` bytes) does
/// not hold, at the top level or in structs, in `schema`'s type exactly (by field id; a file
/// without field ids holds none). Fails where a `projected` top-level `timestamp` column holds
/// milli- or nanoseconds: iceberg-rust 0.10.1 would read their values as microseconds.
pub(crate) async fn columns_not_as_typed(
    file_io: &FileIO,
    path: &str,
    size: u64,
    schema: &Schema,
    projected: &[i32],
    filtered: &HashSet<i32>,
) -> iceberg::Result<HashSet<i32>> {
    let input = file_io.new_input(path)?;
    let mut reader = ArrowFileReader::new(FileMetadata { size }, input.reader().await?);
    let metadata = reader.get_metadata(None).await.map_err(|e| {
        iceberg::Error::new(
            iceberg::ErrorKind::DataInvalid,
            format!("reading its footer: {e}"),
        )
    })?;
    let mut as_typed = HashSet::new();
    for column in metadata.file_metadata().schema_descr().columns() {
        let info = column.self_type().get_basic_info();
        // A column under a list or map never takes a filter.
        if !info.has_id() || column.max_rep_level() > 0 {
            continue;
        }
        let Some(field) = schema.field_by_id(info.id()) else {
            continue;
        };
        let Type::Primitive(primitive) = field.field_type.as_ref() else {
            continue;
        };
        if column.path().parts().len() == 1
            && projected.contains(&info.id())
            && matches!(
                primitive,
                PrimitiveType::Timestamp | PrimitiveType::Timestamptz
            )
            && other_unit(column)
        {
            return Err(iceberg::Error::new(
                iceberg::ErrorKind::FeatureUnsupported,
                format!(
                    "column {} holds timestamps in another unit than microseconds ({}), which \
                     iceberg-rust 0.10.1 would read as microseconds",
                    field.name,
                    column
                        .logical_type_ref()
                        .map_or_else(|| column.converted_type().to_string(), |l| format!("{l:?}"))
                ),
            ));
        }
        if filtered.contains(&info.id()) && holds_exactly(primitive, column) {
            as_typed.insert(info.id());
        }
    }
    Ok(filtered.difference(&as_typed).copied().collect())
}

/// Whether `column` holds INT64 timestamps of another unit than microseconds (milli- or
/// nanoseconds, by its logical or converted type).
fn other_unit(column: &ColumnDescriptor) -> bool {
    column.physical_type() == PhysicalType::INT64
        && match column.logical_type_ref() {
            Some(LogicalType::Timestamp { unit, .. }) => *unit != TimeUnit::MICROS,
            Some(_) => false,
            None => column.converted_type() == ConvertedType::TIMESTAMP_MILLIS,
        }
}

/// Whether `column` holds values of `primitive` as Iceberg writes that type.
fn holds_exactly(primitive: &PrimitiveType, column: &ColumnDescriptor) -> bool {
    let converted = column.converted_type();
    match (primitive, column.physical_type(), column.logical_type_ref()) {
        (PrimitiveType::Boolean, PhysicalType::BOOLEAN, None) => true,
        (PrimitiveType::Int, PhysicalType::INT32, None) => {
            matches!(converted, ConvertedType::NONE | ConvertedType::INT_32)
        }
        (
            PrimitiveType::Int,
            PhysicalType::INT32,
            Some(LogicalType::Integer {
                bit_width: 32,
                is_signed: true,
            }),
        ) => true,
        (PrimitiveType::Long, PhysicalType::INT64, None) => {
            matches!(converted, ConvertedType::NONE | ConvertedType::INT_64)
        }
        (
            PrimitiveType::Long,
            PhysicalType::INT64,
            Some(LogicalType::Integer {
                bit_width: 64,
                is_signed: true,
            }),
        ) => true,
        (PrimitiveType::Date, PhysicalType::INT32, Some(LogicalType::Date)) => true,
        (PrimitiveType::Date, PhysicalType::INT32, None) => converted == ConvertedType::DATE,
        (
            PrimitiveType::Timestamp | PrimitiveType::Timestamptz,
            PhysicalType::INT64,
            Some(LogicalType::Timestamp { unit, .. }),
        ) => *unit == TimeUnit::MICROS,
        (PrimitiveType::Timestamp | PrimitiveType::Timestamptz, PhysicalType::INT64, None) => {
            converted == ConvertedType::TIMESTAMP_MICROS
        }
        (PrimitiveType::String, PhysicalType::BYTE_ARRAY, Some(LogicalType::String)) => true,
        (PrimitiveType::String, PhysicalType::BYTE_ARRAY, None) => converted == ConvertedType::UTF8,
        (
            PrimitiveType::Decimal { precision, scale },
            _,
            Some(LogicalType::Decimal {
                precision: p,
                scale: s,
            }),
        ) => i64::from(*p) == i64::from(*precision) && i64::from(*s) == i64::from(*scale),
        (PrimitiveType::Decimal { precision, scale }, _, None) => {
            converted == ConvertedType::DECIMAL
                && i64::from(column.type_precision()) == i64::from(*precision)
                && i64::from(column.type_scale()) == i64::from(*scale)
        }
        _ => false,
    }
}
