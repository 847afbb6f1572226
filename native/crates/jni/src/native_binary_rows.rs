//! Natives of `dev.streamfusion.bridge.columnar.BinaryRowsWriter`: a batch's rows written in
//! Flink's binary row layout into one native buffer, which Java reads through a direct
//! `ByteBuffer` and hands back to be freed.
//!
//! The batch is imported with its text columns typed as bytes: the rows copy text as bytes, so
//! the import checks offsets and lengths but spends no time re-validating UTF-8.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef};
use jni::EnvUnowned;
use jni::objects::{JByteBuffer, JClass, JIntArray};
use jni::sys::jlong;
use streamfusion_operators::binary_rows::{BinaryRows, BinaryRowsError, Column, ColumnType};

use crate::args::{code_pairs, ints};
use crate::arrow_ffi::{import_batch, import_schema};
use crate::errors::{NativeError, NativeResult, run};
use crate::handle::{drop_handle, into_handle, object_of};

const KIND: &str = "binary rows writer";

impl From<BinaryRowsError> for NativeError {
    fn from(e: BinaryRowsError) -> Self {
        NativeError::Config(e.0)
    }
}

/// The writer and the schema its batches are imported in.
#[derive(Debug)]
struct Writer {
    input: SchemaRef,
    rows: BinaryRows,
}

/// `schema` with every UTF-8 column (within structs, lists and maps too) typed as bytes of the
/// same layout.
fn text_as_bytes(schema: &Schema) -> SchemaRef {
    fn field(f: &Field) -> Field {
        let data_type = match f.data_type() {
            DataType::Utf8 => DataType::Binary,
            DataType::Struct(children) => {
                DataType::Struct(children.iter().map(|c| field(c)).collect::<Fields>())
            }
            DataType::List(element) => DataType::List(Arc::new(field(element))),
            DataType::Map(entries, sorted) => DataType::Map(Arc::new(field(entries)), *sorted),
            other => other.clone(),
        };
        f.clone().with_data_type(data_type)
    }
    Arc::new(Schema::new_with_metadata(
        schema.fields().iter().map(|f| field(f)).collect::<Fields>(),
        schema.metadata().clone(),
    ))
}

/// The produced columns Java describes: their types in pre-order, a code and a precision each
/// (see `ColumnType::read`), and their paths as `[length, index, ...]` one after another.
fn columns(codes: &[i32], precisions: &[i32], paths: &[i32]) -> NativeResult<Vec<Column>> {
    let mut types = code_pairs(codes, precisions)?.peekable();
    let index = |v: i32| {
        usize::try_from(v).map_err(|_| NativeError::Config(format!("negative path element {v}")))
    };
    let mut rest = paths;
    let mut out = Vec::new();
    while types.peek().is_some() {
        let i = out.len();
        let column_type = ColumnType::read(&mut types)
            .ok_or_else(|| NativeError::Config(format!("column {i}: an unknown or cut type")))?;
        let (&length, tail) = rest
            .split_first()
            .ok_or_else(|| NativeError::Config(format!("column {i}: no path")))?;
        let length = index(length)?;
        if length == 0 || length > tail.len() {
            return Err(NativeError::Config(format!(
                "column {i}: a path of {length} elements"
            )));
        }
        let path = tail[..length]
            .iter()
            .map(|&v| index(v))
            .collect::<NativeResult<Vec<_>>>()?;
        rest = &tail[length..];
        out.push(Column { path, column_type });
    }
    if !rest.is_empty() {
        return Err(NativeError::Config(format!(
            "{} path elements left after {} columns",
            rest.len(),
            out.len()
        )));
    }
    Ok(out)
}

/// # Safety
/// `schema_addr` is an exported `ArrowSchema`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_columnar_BinaryRowsWriter_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema_addr: jlong,
    codes: JIntArray<'local>,
    precisions: JIntArray<'local>,
    paths: JIntArray<'local>,
) -> jlong {
    run(env, |env| {
        let codes = ints(env, &codes)?;
        let precisions = ints(env, &precisions)?;
        let paths = ints(env, &paths)?;
        let columns = columns(&codes, &precisions, &paths)?;
        // SAFETY: Java passes an exported schema (see `BinaryRowsWriter.create`).
        let schema = unsafe { import_schema(schema_addr) }?;
        let input = text_as_bytes(&schema);
        let rows = BinaryRows::try_new(&input, columns)?;
        Ok(into_handle(Writer { input, rows }))
    })
}

/// # Safety
/// `array_addr` is an exported `ArrowArray` of the handle's schema.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_columnar_BinaryRowsWriter_write<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    array_addr: jlong,
) -> JByteBuffer<'local> {
    run(env, |env| {
        let writer = object_of::<Writer>(handle, KIND)?;
        // SAFETY: Java exported a batch of the handle's schema.
        let batch = unsafe { import_batch(array_addr, &writer.input) }?;
        let rows = writer.rows.write(&batch)?.into_boxed_slice();
        let length = rows.len();
        let data = Box::into_raw(rows).cast::<u8>();
        // SAFETY: `data` points to `length` bytes that stay allocated until Java hands the buffer
        // to `release`, once (`BinaryRowsWriter.Rows#close`).
        match unsafe { env.new_direct_byte_buffer(data, length) } {
            Ok(buffer) => Ok(buffer),
            Err(e) => {
                // SAFETY: `data` came from `Box::into_raw` of `length` bytes just above and was
                // never handed to Java.
                drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(data, length)) });
                Err(e.into())
            }
        }
    })
}

/// Frees a buffer `write` returned.
///
/// # Safety
/// `buffer` came from `write` and is released once, and nothing reads it afterwards.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_columnar_BinaryRowsWriter_release<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    buffer: JByteBuffer<'local>,
) {
    run(env, |env| {
        let data = env.get_direct_buffer_address(&buffer)?;
        let length = env.get_direct_buffer_capacity(&buffer)?;
        // SAFETY: `write` made this buffer from `Box::into_raw` of exactly `length` bytes, and
        // Java releases it once (see above).
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(data, length)) });
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_columnar_BinaryRowsWriter_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<Writer>(handle);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_read_one_after_another() {
        let parsed = columns(&[3, 8], &[0, 0], &[1, 2, 2, 0, 1]).unwrap();
        assert_eq!(parsed[0].path, vec![2]);
        assert_eq!(parsed[1].path, vec![0, 1]);
        assert_eq!(
            parsed[1].column_type,
            ColumnType::Flat(streamfusion_operators::binary_rows::FlinkType::Bytes)
        );
        assert!(columns(&[3], &[0], &[2, 0]).is_err(), "a short path");
        assert!(
            columns(&[3], &[0], &[1, 0, 7]).is_err(),
            "elements left over"
        );
        assert!(columns(&[99], &[0], &[1, 0]).is_err(), "an unknown code");
    }

    #[test]
    fn text_is_imported_as_bytes_within_structs_too() {
        let schema = Schema::new(vec![
            Field::new("s", DataType::Utf8, true),
            Field::new(
                "r",
                DataType::Struct(Fields::from(vec![Field::new("t", DataType::Utf8, false)])),
                true,
            ),
        ]);
        let bytes = text_as_bytes(&schema);
        assert_eq!(bytes.field(0).data_type(), &DataType::Binary);
        let DataType::Struct(children) = bytes.field(1).data_type() else {
            panic!("not a struct");
        };
        assert_eq!(children[0].data_type(), &DataType::Binary);
        assert!(!children[0].is_nullable());
    }
}
