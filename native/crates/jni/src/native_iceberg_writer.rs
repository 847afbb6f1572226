//! Natives of `dev.streamfusion.iceberg.internal.NativeIcebergWriter`: Arrow batches of a table's
//! columns written as Parquet data files of an Iceberg table, described for the commit.

use arrow::datatypes::SchemaRef;
use jni::EnvUnowned;
use jni::objects::{JByteArray, JClass, JObject, JString};
use jni::sys::jlong;
use streamfusion_iceberg::{DataFilesWriter, IcebergWriteError};

use crate::args::bytes;
use crate::arrow_ffi::{import_batch, import_schema};
use crate::errors::{NativeError, run};
use crate::handle::{drop_handle, into_handle, object_of};
use crate::java_table_files::table_files;

const KIND: &str = "Iceberg writer";

impl From<IcebergWriteError> for NativeError {
    fn from(e: IcebergWriteError) -> Self {
        match e {
            IcebergWriteError::Config(_) => NativeError::Config(e.to_string()),
            IcebergWriteError::Write { .. } | IcebergWriteError::Runtime(_) => {
                NativeError::Io(e.to_string())
            }
        }
    }
}

/// The writer and the schema of the batches Java exports to it.
struct Writer {
    files: DataFilesWriter,
    input: SchemaRef,
}

/// A writer described by `description` (see `WriterDescription`) of batches of the exported
/// schema; its files are created through `files` (a `TableFiles`) unless it is null.
///
/// # Safety
/// `schema_addr` is an exported `ArrowSchema`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_iceberg_internal_NativeIcebergWriter_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    description: JString<'local>,
    schema_addr: jlong,
    files: JObject<'local>,
) -> jlong {
    run(env, |env| {
        let description = description.try_to_string(env)?;
        // SAFETY: Java passes an exported schema (see `NativeIcebergWriter.open`).
        let input = unsafe { import_schema(schema_addr) }?;
        let files = DataFilesWriter::open(&description, table_files(env, &files)?)?;
        Ok(into_handle(Writer { files, input }))
    })
}

/// Writes the exported batch.
///
/// # Safety
/// `array_addr` is an `ArrowArray` exported with the writer's schema.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_iceberg_internal_NativeIcebergWriter_write0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    array_addr: jlong,
) {
    run(env, |_| {
        let writer = object_of::<Writer>(handle, KIND)?;
        // SAFETY: Java exports the batch with the writer's schema (see `NativeIcebergWriter.write`).
        let batch = unsafe { import_batch(array_addr, &writer.input) }?;
        Ok(writer.files.write(&batch)?)
    })
}

/// Writes the exported batch as changelog rows, the kind of row `i` in `kinds[i]` (Flink's
/// `RowKind` byte values).
///
/// # Safety
/// `array_addr` is an `ArrowArray` exported with the writer's schema.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_iceberg_internal_NativeIcebergWriter_writeChanges0<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    array_addr: jlong,
    kinds: JByteArray<'local>,
) {
    run(env, |env| {
        let writer = object_of::<Writer>(handle, KIND)?;
        // SAFETY: Java exports the batch with the writer's schema (see `NativeIcebergWriter.write`).
        let batch = unsafe { import_batch(array_addr, &writer.input) }?;
        let available = kinds.len(env)?;
        if available < batch.num_rows() {
            return Err(NativeError::Config(format!(
                "{available} row kinds for a batch of {} rows",
                batch.num_rows()
            )));
        }
        let kinds = bytes(env, &kinds, batch.num_rows())?;
        Ok(writer.files.write_changes(&batch, &kinds)?)
    })
}

/// Closes the open files; returns the JSON description of every data file written since the
/// last call.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_iceberg_internal_NativeIcebergWriter_finish0<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> JString<'local> {
    run(env, |env| {
        let writer = object_of::<Writer>(handle, KIND)?;
        let files = writer.files.finish()?;
        Ok(env.new_string(files)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_iceberg_internal_NativeIcebergWriter_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<Writer>(handle);
        Ok(())
    })
}
