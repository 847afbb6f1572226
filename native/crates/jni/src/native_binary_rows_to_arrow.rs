//! Natives of `dev.streamfusion.bridge.columnar.BinaryRowsToArrow`: rows Java copied out of
//! Flink's `BinaryRowData`, one after another in a `byte[]`, read into one Arrow batch that is
//! exported back.

use arrow::datatypes::SchemaRef;
use jni::EnvUnowned;
use jni::objects::{JByteArray, JClass, JIntArray};
use jni::sys::{jboolean, jint, jlong};
use streamfusion_formats::java_utf8::InvalidText;
use streamfusion_operators::binary_rows::ColumnType;
use streamfusion_operators::binary_rows_to_arrow::BinaryRowsToArrow;

use crate::args::{bytes, check_len, code_pairs, ints};
use crate::arrow_ffi::{export_batch, import_schema};
use crate::errors::{NativeError, NativeResult, run};
use crate::handle::{drop_handle, into_handle, object_of};

const KIND: &str = "binary rows reader";

/// The Flink types of the row's fields, in pre-order, a code and a precision each (see
/// `ColumnType::read`).
fn column_types(codes: &[i32], precisions: &[i32]) -> NativeResult<Vec<ColumnType>> {
    let mut pairs = code_pairs(codes, precisions)?.peekable();
    let mut types = Vec::new();
    while pairs.peek().is_some() {
        let i = types.len();
        types
            .push(ColumnType::read(&mut pairs).ok_or_else(|| {
                NativeError::Config(format!("field {i}: an unknown or cut type"))
            })?);
    }
    Ok(types)
}

/// # Safety
/// `schema_addr` is an exported `ArrowSchema`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_columnar_BinaryRowsToArrow_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema_addr: jlong,
    codes: JIntArray<'local>,
    precisions: JIntArray<'local>,
    text_as_java: jboolean,
) -> jlong {
    run(env, |env| {
        let types = column_types(&ints(env, &codes)?, &ints(env, &precisions)?)?;
        // SAFETY: Java passes an exported schema (see `BinaryRowsToArrow.create`).
        let schema: SchemaRef = unsafe { import_schema(schema_addr) }?;
        Ok(into_handle(
            BinaryRowsToArrow::try_new(schema, types)?
                .with_invalid_text(InvalidText::as_java_if(text_as_java)),
        ))
    })
}

/// Reads the first `length` bytes of `rows`, row `r` from `starts[r]` to `starts[r + 1]` for the
/// first `count` rows, into the empty `ArrowArray` at `array_addr`; returns the row count.
///
/// # Safety
/// `array_addr` is an allocated, empty `ArrowArray` struct.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_columnar_BinaryRowsToArrow_read<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    rows: JByteArray<'local>,
    length: jint,
    starts: JIntArray<'local>,
    count: jint,
    array_addr: jlong,
) -> jint {
    run(env, |env| {
        let reader = object_of::<BinaryRowsToArrow>(handle, KIND)?;
        let length = usize::try_from(length)
            .map_err(|_| NativeError::Config(format!("a length of {length} bytes")))?;
        let count = usize::try_from(count)
            .map_err(|_| NativeError::Config(format!("a count of {count} rows")))?;
        check_len(rows.len(env)?, length, "rows' byte")?;
        check_len(starts.len(env)?, count + 1, "row starts'")?;
        let bytes = bytes(env, &rows, length)?;
        let mut row_starts = vec![0i32; count + 1];
        starts.get_region(env, 0, &mut row_starts)?;
        let batch = reader.read(&bytes, &row_starts)?;
        // SAFETY: Java passes an allocated, empty struct (see `BinaryRowsToArrow.finishBatch`).
        unsafe { export_batch(batch, array_addr) }
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_columnar_BinaryRowsToArrow_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<BinaryRowsToArrow>(handle);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use streamfusion_operators::binary_rows::FlinkType;

    #[test]
    fn types_are_read_by_code_in_pre_order_and_unknown_or_cut_ones_refused() {
        assert_eq!(
            column_types(&[3, 14, 7, 17, 8], &[0, 0, 20, 0, 0]).unwrap(),
            vec![
                ColumnType::Flat(FlinkType::Int),
                ColumnType::Array(Box::new(ColumnType::Flat(FlinkType::Decimal(20)))),
                ColumnType::Row(vec![]),
                ColumnType::Flat(FlinkType::Bytes),
            ]
        );
        assert!(
            column_types(&[14], &[0]).is_err(),
            "an ARRAY without its element"
        );
        assert!(column_types(&[99], &[0]).is_err(), "an unknown code");
        assert!(column_types(&[3], &[]).is_err(), "a missing precision");
    }
}
