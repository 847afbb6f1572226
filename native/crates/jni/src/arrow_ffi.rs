//! Arrow C Data Interface crossings between Java and Rust.
//!
//! # Ownership rules
//!
//! Java allocates every `ArrowSchema` / `ArrowArray` struct that crosses (Arrow Java's
//! `ArrowSchema.allocateNew` / `ArrowArray.allocateNew`) and frees the struct memory itself with
//! `close()`. What the structs *point to* moves:
//!
//! * **Java -> Rust** (a sink's batch): Java exports into the struct and passes its address.
//!   [`import_batch`] moves the content out, leaving the struct marked released, so Rust owns
//!   the buffers and calls Java's release callback when the last Rust reference is dropped. Java
//!   must not release or reuse the exported vectors' buffers until then; in practice Java exports
//!   a batch, Rust consumes it within the call, and buffers Rust keeps stay alive through the
//!   reference count that Arrow Java's export holds.
//! * **Rust -> Java** (a source's batch): Java passes the address of an empty struct and Rust
//!   writes a released-by-Rust export into it ([`export_batch`]). Java imports it
//!   (`Data.importIntoVectorSchemaRoot`), which moves the content into Java's vectors; closing or
//!   reloading those vectors calls Rust's release callback, which frees the Rust buffers.
//! * **Schemas** cross once per handle: the handle's input schema is imported at creation and its
//!   output schema exported at creation; per-batch crossings carry only the array.
//!
//! Arrow Java ignores the C Data `offset` field on import, so every array exported to Java is
//! first rewritten to offset zero at every level ([`compact_offsets`]).

use arrow::array::{
    Array, ArrayData, MutableArrayData, RecordBatch, RecordBatchOptions, StringBuilder, StructArray,
};
use arrow::datatypes::{DataType, Schema, SchemaRef};
use arrow::error::ArrowError;
use arrow::ffi::{FFI_ArrowArray, FFI_ArrowSchema, from_ffi_and_data_type};
use jni::sys::jlong;
use std::sync::Arc;
use streamfusion_formats::java_utf8::{self, InvalidText};

use crate::errors::{NativeError, NativeResult};

/// Takes the schema Java exported at `addr` and releases Java's export.
///
/// # Safety
/// `addr` must be the address of a valid, exported `ArrowSchema` struct.
pub unsafe fn import_schema(addr: jlong) -> NativeResult<SchemaRef> {
    let ptr = non_null::<FFI_ArrowSchema>(addr, "ArrowSchema")?;
    // SAFETY: guaranteed by the caller; `from_raw` leaves the struct marked released.
    let ffi = unsafe { FFI_ArrowSchema::from_raw(ptr) };
    Ok(Arc::new(Schema::try_from(&ffi)?))
}

/// Writes `schema` into the empty `ArrowSchema` struct at `addr`.
///
/// # Safety
/// `addr` must be the address of an allocated, released (empty) `ArrowSchema` struct.
pub unsafe fn export_schema(schema: &Schema, addr: jlong) -> NativeResult<()> {
    let ptr = non_null::<FFI_ArrowSchema>(addr, "ArrowSchema")?;
    let ffi = FFI_ArrowSchema::try_from(schema)?;
    // SAFETY: the struct is allocated and empty, so overwriting it leaks nothing.
    unsafe { std::ptr::write(ptr, ffi) };
    Ok(())
}

/// Takes the record batch Java exported at `addr`, typed by the handle's `schema`, and checks it
/// fully (offsets, UTF-8, child lengths, buffer alignment) before anything reads it.
///
/// # Safety
/// `addr` must be the address of a valid, exported `ArrowArray` struct of struct type whose
/// children match `schema`.
pub unsafe fn import_batch(addr: jlong, schema: &SchemaRef) -> NativeResult<RecordBatch> {
    // SAFETY: guaranteed by the caller.
    unsafe { import_batch_with(addr, schema, InvalidText::Refuse) }
}

/// As [`import_batch`], making `invalid_text` of text whose bytes are not UTF-8 (Java's vectors
/// hold a Flink `STRING`'s bytes as they are): refused, naming the column, or read as Java reads
/// it ([`java_utf8`]) for sinks whose stock counterparts write `StringData.toString()`.
///
/// # Safety
/// As for [`import_batch`].
pub unsafe fn import_batch_with(
    addr: jlong,
    schema: &SchemaRef,
    invalid_text: InvalidText,
) -> NativeResult<RecordBatch> {
    let ptr = non_null::<FFI_ArrowArray>(addr, "ArrowArray")?;
    // SAFETY: guaranteed by the caller; `from_raw` moves the content out.
    let ffi = unsafe { FFI_ArrowArray::from_raw(ptr) };
    let data_type = DataType::Struct(schema.fields().clone());
    // SAFETY: the array was exported with this type (guaranteed by the caller).
    let mut data = unsafe { from_ffi_and_data_type(ffi, data_type) }?;
    // Java's allocations are aligned to 8 bytes, and a batch read from an IPC message (one that
    // crossed a network exchange) can leave a 16-byte DECIMAL buffer there: copied when so.
    data.align_buffers();
    if let Err(e) = data.validate_full() {
        if invalid_text == InvalidText::Refuse {
            return Err(naming_the_column(&data, schema, e).into());
        }
        // Only a batch that fails the check pays for reading its text again.
        data = text_as_java_reads_it(data.clone())
            .and_then(|read| read.validate_full().map(|()| read))
            .map_err(|e| naming_the_column(&data, schema, e))?;
    }
    let columns = StructArray::from(data);
    // The row count is the struct's: a batch without columns (a value with no fields, every
    // column in the key) still has its rows.
    let rows = RecordBatchOptions::new().with_row_count(Some(columns.len()));
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        columns.columns().to_vec(),
        &rows,
    )?)
}

/// The batch's failure `e`, naming the first column that holds a NULL its field declares NOT NULL
/// or whose own check fails (where none does, the failure as it is).
fn naming_the_column(data: &ArrayData, schema: &SchemaRef, e: ArrowError) -> ArrowError {
    schema
        .fields()
        .iter()
        .zip(data.child_data())
        .find_map(|(field, column)| {
            if !field.is_nullable() && column.null_count() > 0 {
                return Some(ArrowError::InvalidArgumentError(format!(
                    "column {} is NOT NULL, but the batch holds a NULL in it",
                    field.name()
                )));
            }
            column.validate_full().err().map(|column_error| {
                ArrowError::InvalidArgumentError(format!("column {}: {column_error}", field.name()))
            })
        })
        .unwrap_or(e)
}

/// `data` with each text column at any depth rebuilt as Java reads its values' bytes; other
/// problems are left for the full check that follows.
fn text_as_java_reads_it(data: ArrayData) -> Result<ArrayData, ArrowError> {
    // Buffer sizes and the outer offsets, before any offset is read.
    data.validate()?;
    match data.data_type() {
        DataType::Utf8 => {
            let offsets = data.buffer::<i32>(0);
            let bytes = data.buffers()[1].as_slice();
            let mut text = StringBuilder::with_capacity(data.len(), bytes.len());
            for i in 0..data.len() {
                if data.is_null(i) {
                    text.append_null();
                    continue;
                }
                let (start, end) = (offsets[i], offsets[i + 1]);
                let value = usize::try_from(start)
                    .ok()
                    .zip(usize::try_from(end).ok())
                    .and_then(|(start, end)| bytes.get(start..end))
                    .ok_or_else(|| {
                        ArrowError::InvalidArgumentError(format!(
                            "text value {i} at offsets {start}..{end}, outside its {} bytes",
                            bytes.len()
                        ))
                    })?;
                if !java_utf8::append_decoded(&mut text, value) {
                    return Err(ArrowError::InvalidArgumentError(
                        "more than 2 GiB of text".into(),
                    ));
                }
            }
            Ok(text.finish().into_data())
        }
        DataType::Struct(_)
        | DataType::List(_)
        | DataType::LargeList(_)
        | DataType::FixedSizeList(..)
        | DataType::Map(..) => {
            let children = data
                .child_data()
                .iter()
                .cloned()
                .map(text_as_java_reads_it)
                .collect::<Result<Vec<_>, _>>()?;
            data.into_builder().child_data(children).build()
        }
        _ => Ok(data),
    }
}

/// A reader's next batch exported into the empty `ArrowArray` struct at `addr`: its rows, or -1
/// after the last batch (nothing exported), as `NativeBatchReader.NextBatch` returns them.
///
/// # Safety
/// `addr` must be the address of an allocated, released (empty) `ArrowArray` struct.
pub unsafe fn export_next(batch: Option<RecordBatch>, addr: jlong) -> NativeResult<i32> {
    match batch {
        // SAFETY: guaranteed by the caller.
        Some(batch) => unsafe { export_batch(batch, addr) },
        None => Ok(-1),
    }
}

/// Writes `batch` into the empty `ArrowArray` struct at `addr` as a struct array.
///
/// # Safety
/// `addr` must be the address of an allocated, released (empty) `ArrowArray` struct.
pub unsafe fn export_batch(batch: RecordBatch, addr: jlong) -> NativeResult<i32> {
    let ptr = non_null::<FFI_ArrowArray>(addr, "ArrowArray")?;
    let rows = i32::try_from(batch.num_rows()).map_err(|_| {
        NativeError::Config(format!(
            "batch of {} rows is too large for Java",
            batch.num_rows()
        ))
    })?;
    let data = compact_offsets(StructArray::from(batch).into_data());
    let ffi = FFI_ArrowArray::new(&data);
    // SAFETY: the struct is allocated and empty, so overwriting it leaks nothing.
    unsafe { std::ptr::write(ptr, ffi) };
    Ok(rows)
}

fn non_null<T>(addr: jlong, what: &'static str) -> NativeResult<*mut T> {
    if addr == 0 {
        return Err(NativeError::Config(format!("null {what} address")));
    }
    Ok(addr as *mut T)
}

/// Returns `data` with offset zero at every level, copying only when some level is offset.
pub fn compact_offsets(data: ArrayData) -> ArrayData {
    if !has_offset(&data) {
        return data;
    }
    let mut copy = MutableArrayData::new(vec![&data], false, data.len());
    copy.extend(0, 0, data.len());
    copy.freeze()
}

fn has_offset(data: &ArrayData) -> bool {
    data.offset() != 0 || data.child_data().iter().any(has_offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::AsArray;
    use arrow::array::{
        BooleanArray, Int32Array, ListArray, StringArray, StructArray as Struct, new_empty_array,
    };
    use arrow::datatypes::{Field, Int32Type};

    fn nested_batch() -> RecordBatch {
        let list = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
            Some(vec![Some(1), None]),
            None,
            Some(vec![]),
            Some(vec![Some(4), Some(5), Some(6)]),
        ]);
        let strings = StringArray::from(vec![Some("a"), None, Some("\u{1F680}"), Some("")]);
        // Booleans keep a bit offset when sliced, so a sliced batch has ArrayData offsets.
        let inner = Struct::from(vec![
            (
                Arc::new(Field::new("n", DataType::Int32, true)),
                Arc::new(Int32Array::from(vec![Some(7), Some(8), None, Some(10)])) as _,
            ),
            (
                Arc::new(Field::new("flag", DataType::Boolean, true)),
                Arc::new(BooleanArray::from(vec![
                    Some(true),
                    None,
                    Some(false),
                    Some(true),
                ])) as _,
            ),
        ]);
        RecordBatch::try_from_iter(vec![
            ("l", Arc::new(list) as _),
            ("s", Arc::new(strings) as _),
            ("r", Arc::new(inner) as _),
        ])
        .unwrap()
    }

    #[test]
    fn compact_offsets_removes_offsets_at_every_level() {
        let batch = nested_batch().slice(1, 3);
        let data = StructArray::from(batch.clone()).into_data();
        assert!(has_offset(&data));

        let compacted = compact_offsets(data);
        assert!(!has_offset(&compacted));
        assert_eq!(StructArray::from(compacted), StructArray::from(batch));
    }

    #[test]
    fn compact_offsets_keeps_unsliced_data_as_is() {
        let data = StructArray::from(nested_batch()).into_data();
        let before = data.buffers()[0..].to_vec();
        let after = compact_offsets(data);
        assert_eq!(after.buffers(), before.as_slice());
    }

    #[test]
    fn batches_and_schemas_cross_the_c_interface() {
        let batch = nested_batch().slice(2, 2);
        let mut schema_struct = FFI_ArrowSchema::empty();
        let mut array_struct = FFI_ArrowArray::empty();
        let schema_addr = &mut schema_struct as *mut FFI_ArrowSchema as jlong;
        let array_addr = &mut array_struct as *mut FFI_ArrowArray as jlong;

        // SAFETY: both structs are live, empty and outlive the calls.
        let imported = unsafe {
            export_schema(batch.schema_ref(), schema_addr).unwrap();
            let schema = import_schema(schema_addr).unwrap();
            assert_eq!(export_batch(batch.clone(), array_addr).unwrap(), 2);
            import_batch(array_addr, &schema).unwrap()
        };
        assert_eq!(imported, batch);
        assert!(array_struct.is_released());
    }

    /// A batch without columns (the value of a table whose every column is in the key) crosses
    /// with its row count both ways.
    #[test]
    fn a_batch_without_columns_keeps_its_rows() {
        let schema = Arc::new(Schema::empty());
        let options = RecordBatchOptions::new().with_row_count(Some(3));
        let batch = RecordBatch::try_new_with_options(schema.clone(), vec![], &options).unwrap();
        let mut array_struct = FFI_ArrowArray::empty();
        let array_addr = &mut array_struct as *mut FFI_ArrowArray as jlong;

        // SAFETY: the struct is live, empty and outlives the calls.
        let imported = unsafe {
            assert_eq!(export_batch(batch, array_addr).unwrap(), 3);
            import_batch(array_addr, &schema).unwrap()
        };
        assert_eq!(imported.num_columns(), 0);
        assert_eq!(imported.num_rows(), 3);
    }

    /// A batch of a text column and a list of texts whose bytes are not all UTF-8, as Java's
    /// vectors can hold them, exported into `array` (what Java hands Rust).
    fn export_invalid_text(array: &mut FFI_ArrowArray) -> SchemaRef {
        let text = |values: &[u8], ends: &[i32]| {
            let mut offsets = vec![0i32];
            offsets.extend_from_slice(ends);
            // SAFETY: test data; the import checks it.
            unsafe {
                ArrayData::builder(DataType::Utf8)
                    .len(ends.len())
                    .add_buffer(arrow::buffer::Buffer::from_vec(offsets))
                    .add_buffer(arrow::buffer::Buffer::from_vec(values.to_vec()))
                    .build_unchecked()
            }
        };
        // "ok", "a" + an encoded surrogate + "b", and a lead cut short by the end
        let s = text(b"oka\xed\xa0\x80b\xe4\xb8", &[2, 7, 9]);
        let element = Arc::new(Field::new("element", DataType::Utf8, true));
        let list_type = DataType::List(element);
        // SAFETY: as above.
        let list = unsafe {
            ArrayData::builder(list_type.clone())
                .len(3)
                .add_buffer(arrow::buffer::Buffer::from_vec(vec![0i32, 1, 1, 2]))
                .add_child_data(text(b"\x80x\xc3", &[2, 3]))
                .build_unchecked()
        };
        let schema = Arc::new(Schema::new(vec![
            Field::new("s", DataType::Utf8, true),
            Field::new("l", list_type, true),
        ]));
        // SAFETY: as above.
        let batch = unsafe {
            ArrayData::builder(DataType::Struct(schema.fields().clone()))
                .len(3)
                .add_child_data(s)
                .add_child_data(list)
                .build_unchecked()
        };
        *array = FFI_ArrowArray::new(&batch);
        schema
    }

    #[test]
    fn text_that_is_not_utf8_is_refused_naming_its_column_or_read_as_java_reads_it() {
        let mut array = FFI_ArrowArray::empty();
        let schema = export_invalid_text(&mut array);
        let addr = &mut array as *mut FFI_ArrowArray as jlong;
        // SAFETY: the struct holds a live export of that schema.
        let error = unsafe { import_batch(addr, &schema) }.unwrap_err();
        assert!(error.to_string().contains("column s: "), "{error}");

        let mut array = FFI_ArrowArray::empty();
        let schema = export_invalid_text(&mut array);
        let addr = &mut array as *mut FFI_ArrowArray as jlong;
        // SAFETY: as above.
        let batch =
            unsafe { import_batch_with(addr, &schema, InvalidText::AsJavaReadsIt) }.unwrap();
        let s = batch.column(0).as_string::<i32>();
        let texts: Vec<_> = (0..3).map(|i| s.value(i)).collect();
        assert_eq!(texts, ["ok", "a\u{FFFD}b", "\u{FFFD}"]);
        let l = batch.column(1).as_list::<i32>();
        let elements = l.values().as_string::<i32>();
        assert_eq!(elements.value(0), "\u{FFFD}x");
        assert_eq!(elements.value(1), "\u{FFFD}");
        assert_eq!(l.value_offsets(), &[0, 1, 1, 2]);
    }

    #[test]
    fn null_addresses_are_errors_not_crashes() {
        let schema = Arc::new(Schema::empty());
        // SAFETY: a zero address is rejected before any dereference.
        unsafe {
            assert!(matches!(import_schema(0), Err(NativeError::Config(_))));
            assert!(matches!(
                import_batch(0, &schema),
                Err(NativeError::Config(_))
            ));
        }
        assert_eq!(new_empty_array(&DataType::Int32).len(), 0);
    }
}
