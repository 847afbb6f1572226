//! Natives of `dev.streamfusion.parquet.internal.NativeParquetWriter`: Arrow batches encoded into one
//! Parquet file whose bytes Java drains into Flink's output stream.

use jni::EnvUnowned;
use jni::objects::{JByteArray, JClass, JObjectArray, JString};
use jni::sys::{jint, jlong};
use streamfusion_parquet::{ParquetFileWriter, WriteError, WriterOptionError, WriterSettings};

use crate::args::strings;
use crate::arrow_ffi::{import_batch, import_schema};
use crate::errors::{NativeError, run};
use crate::handle::{drop_handle, into_handle, object_of};

const KIND: &str = "Parquet writer";

impl From<WriteError> for NativeError {
    fn from(e: WriteError) -> Self {
        NativeError::Io(e.to_string())
    }
}

impl From<WriterOptionError> for NativeError {
    fn from(e: WriterOptionError) -> Self {
        NativeError::Config(e.to_string())
    }
}

/// Checks writer options (`parquet.*` keys and values) without writing anything.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetWriter_validate0<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    keys: JObjectArray<'local>,
    values: JObjectArray<'local>,
) {
    run(env, |env| {
        let options: Vec<(String, String)> = strings(env, &keys)?
            .into_iter()
            .zip(strings(env, &values)?)
            .collect();
        WriterSettings::from_options(&options)?;
        Ok(())
    })
}

/// # Safety
/// `schema_addr` is an exported `ArrowSchema` of the batches to write.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetWriter_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    file: JString<'local>,
    schema_addr: jlong,
    keys: JObjectArray<'local>,
    values: JObjectArray<'local>,
) -> jlong {
    run(env, |env| {
        let file = file.try_to_string(env)?;
        let options: Vec<(String, String)> = strings(env, &keys)?
            .into_iter()
            .zip(strings(env, &values)?)
            .collect();
        // SAFETY: Java passes an exported schema (see `NativeParquetWriter.open`).
        let schema = unsafe { import_schema(schema_addr) }?;
        let settings = WriterSettings::from_options(&options)?;
        Ok(into_handle(ParquetFileWriter::new(
            &file, schema, settings,
        )?))
    })
}

/// Encodes one batch.
///
/// # Safety
/// `array_addr` is an exported `ArrowArray` of the writer's schema.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetWriter_write0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    array_addr: jlong,
) {
    run(env, |_| {
        let writer = object_of::<ParquetFileWriter>(handle, KIND)?;
        let schema = writer.input_schema().clone();
        // SAFETY: Java exported a batch of the writer's schema.
        let batch = unsafe { import_batch(array_addr, &schema) }?;
        writer.write(&batch)?;
        Ok(())
    })
}

/// Writes the last row group and the footer; their bytes are then drained.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetWriter_finish0<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        let writer = object_of::<ParquetFileWriter>(handle, KIND)?;
        writer.finish()?;
        Ok(())
    })
}

/// Copies up to `chunk.length` encoded bytes into `chunk`; returns how many, 0 when none wait.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetWriter_drain0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    chunk: JByteArray<'local>,
) -> jint {
    run(env, |env| {
        let writer = object_of::<ParquetFileWriter>(handle, KIND)?;
        let max = chunk.len(env)?;
        let n = writer.drain(max, |bytes| {
            // SAFETY: i8 and u8 have the same size and alignment; the slice is only read.
            let signed =
                unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<i8>(), bytes.len()) };
            chunk.set_region(env, 0, signed).map_err(NativeError::from)
        })?;
        Ok(jint::try_from(n).unwrap_or(jint::MAX))
    })
}

/// Closes the row group in progress early; its bytes are then drained.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetWriter_flushRowGroup0<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        let writer = object_of::<ParquetFileWriter>(handle, KIND)?;
        writer.flush_row_group()?;
        Ok(())
    })
}

/// Bytes the writer holds natively: the row group it encodes and its spool.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetWriter_memoryBytes0<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jlong {
    run(env, |_| {
        let writer = object_of::<ParquetFileWriter>(handle, KIND)?;
        Ok(jlong::try_from(writer.memory_bytes()).unwrap_or(jlong::MAX))
    })
}

/// Encoded bytes waiting to be drained.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetWriter_spooledBytes0<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jlong {
    run(env, |_| {
        let writer = object_of::<ParquetFileWriter>(handle, KIND)?;
        Ok(jlong::try_from(writer.spooled_bytes()).unwrap_or(jlong::MAX))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_internal_NativeParquetWriter_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<ParquetFileWriter>(handle);
        Ok(())
    })
}
