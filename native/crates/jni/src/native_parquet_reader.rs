//! Natives of `dev.streamfusion.parquet.NativeParquetReader`: row groups of one local Parquet
//! file read into Arrow batches of the table's columns.

use jni::objects::{JClass, JIntArray, JLongArray, JString};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};
use streamfusion_parquet::{ParquetFileError, RowGroupReader, row_group_rows};

use crate::arrow_ffi::{export_batch, import_schema};
use crate::errors::{NativeError, NativeResult, run};
use crate::handle::{borrow_handle, free_handle, into_handle};

const KIND: &str = "Parquet reader";

impl From<ParquetFileError> for NativeError {
    fn from(e: ParquetFileError) -> Self {
        NativeError::Io(e.to_string())
    }
}

fn path(env: &mut Env<'_>, path: &JString<'_>) -> NativeResult<String> {
    Ok(path.try_to_string(env)?)
}

/// The rows of each row group of the file.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_NativeParquetReader_rowGroups0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    file: JString<'local>,
) -> JLongArray<'local> {
    run(env, |env| {
        let rows = row_group_rows(&path(env, &file)?)?;
        let array = env.new_long_array(rows.len())?;
        array.set_region(env, 0, &rows)?;
        Ok(array)
    })
}

/// # Safety
/// `schema_addr` is an exported `ArrowSchema` of the columns to read.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_NativeParquetReader_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    file: JString<'local>,
    row_groups: JIntArray<'local>,
    schema_addr: jlong,
    batch_size: jint,
) -> jlong {
    run(env, |env| {
        let file = path(env, &file)?;
        let mut groups = vec![0; row_groups.len(env)?];
        row_groups.get_region(env, 0, &mut groups)?;
        let groups: Vec<usize> = groups
            .into_iter()
            .map(|g| usize::try_from(g).map_err(|_| NativeError::Config(format!("row group {g}"))))
            .collect::<NativeResult<_>>()?;
        // SAFETY: Java passes an exported schema (see `NativeParquetReader.open`).
        let target = unsafe { import_schema(schema_addr) }?;
        let batch_size = usize::try_from(batch_size).unwrap_or(1).max(1);
        Ok(into_handle(RowGroupReader::open(
            &file, &groups, target, batch_size,
        )?))
    })
}

/// Exports the next batch; returns its rows, or -1 after the last batch (nothing exported).
///
/// # Safety
/// `out_array_addr` is an empty `ArrowArray`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_NativeParquetReader_next<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    out_array_addr: jlong,
) -> jint {
    run(env, |_| {
        // SAFETY: the handle is open and not shared (guaranteed by `NativeHandle`).
        let reader = unsafe { borrow_handle::<RowGroupReader>(handle, KIND) }?;
        match reader.next_batch()? {
            // SAFETY: Java passes a freshly allocated, empty array struct.
            Some(batch) => unsafe { export_batch(batch, out_array_addr) },
            None => Ok(-1),
        }
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_parquet_NativeParquetReader_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        // SAFETY: `NativeHandle.close()` calls this once per handle.
        unsafe { free_handle::<RowGroupReader>(handle) };
        Ok(())
    })
}
