//! Natives of `dev.streamfusion.iceberg.internal.NativeIcebergReader`: one planned Iceberg file
//! task read into Arrow batches, deletes applied.

use jni::EnvUnowned;
use jni::objects::{JClass, JObject, JString};
use jni::sys::{jint, jlong};
use streamfusion_iceberg::{IcebergReadError, TaskDescription, TaskReader};

use crate::arrow_ffi::{export_next, import_schema};
use crate::errors::{NativeError, run};
use crate::handle::{drop_handle, into_handle, object_of};
use crate::java_table_files::table_files;

const KIND: &str = "Iceberg reader";

impl From<IcebergReadError> for NativeError {
    fn from(e: IcebergReadError) -> Self {
        match e {
            IcebergReadError::Task(_) | IcebergReadError::Schema { .. } => {
                NativeError::Config(e.to_string())
            }
            IcebergReadError::Read { .. } | IcebergReadError::Runtime(_) => {
                NativeError::Io(e.to_string())
            }
        }
    }
}

/// A reader of the task described by `task_json` (see `TaskDescription`) into batches of the
/// exported schema, `batch_size` rows at most; its files are read through `files` (a
/// `TableFiles`) unless it is null.
///
/// # Safety
/// `schema_addr` is an exported `ArrowSchema`, one field per projected field id.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_iceberg_internal_NativeIcebergReader_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    task_json: JString<'local>,
    schema_addr: jlong,
    batch_size: jint,
    files: JObject<'local>,
) -> jlong {
    run(env, |env| {
        let task = TaskDescription::parse(&task_json.try_to_string(env)?)?;
        // SAFETY: Java passes an exported schema (see `NativeIcebergReader.open`).
        let target = unsafe { import_schema(schema_addr) }?;
        let batch_size = usize::try_from(batch_size).unwrap_or(1).max(1);
        Ok(into_handle(TaskReader::open(
            &task,
            target,
            batch_size,
            table_files(env, &files)?,
        )?))
    })
}

/// Exports the next batch; returns its rows, or -1 after the last batch (nothing exported).
///
/// # Safety
/// `out_array_addr` is an empty `ArrowArray`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_iceberg_internal_NativeIcebergReader_next<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    out_array_addr: jlong,
) -> jint {
    run(env, |_| {
        let reader = object_of::<TaskReader>(handle, KIND)?;
        // SAFETY: Java passes a freshly allocated, empty array struct.
        unsafe { export_next(reader.next_batch()?, out_array_addr) }
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_iceberg_internal_NativeIcebergReader_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<TaskReader>(handle);
        Ok(())
    })
}
