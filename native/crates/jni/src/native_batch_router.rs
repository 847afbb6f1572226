//! Natives of `dev.streamfusion.bridge.batch.NativeBatchRouter`: the rows of each batch split by
//! key for the subtasks of a keyed exchange, the parts then exported one by one.

use std::collections::VecDeque;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::SchemaRef;
use jni::EnvUnowned;
use jni::objects::{JClass, JString};
use jni::sys::{jint, jintArray, jlong};
use serde::Deserialize;
use streamfusion_iceberg::PartitionValues;
use streamfusion_operators::exchange::KeyGroups;

use crate::arrow_ffi::{export_batch, export_schema, import_batch, import_schema};
use crate::errors::{NativeError, NativeResult, run};
use crate::handle::{drop_handle, into_handle, object_of};

const KIND: &str = "batch router";

/// What a row's key is, as Java describes it (one of the fields).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct KeyDescription {
    /// The values of these top-level columns.
    columns: Option<Vec<usize>>,
    /// The row's partition in the Iceberg table this writer description (JSON) describes.
    iceberg_partition: Option<String>,
}

/// How the key columns of a batch are found.
enum Keys {
    Columns(Vec<usize>),
    IcebergPartition(Box<PartitionValues>),
}

impl Keys {
    fn parse(json: &str, input: &SchemaRef) -> NativeResult<Self> {
        let description: KeyDescription = serde_json::from_str(json)
            .map_err(|e| NativeError::Config(format!("the key of a keyed exchange: {e}")))?;
        match (description.columns, description.iceberg_partition) {
            (Some(columns), None) => {
                if columns.is_empty() {
                    return Err(NativeError::Config(
                        "a keyed exchange needs at least one key column".to_string(),
                    ));
                }
                if let Some(c) = columns.iter().find(|&&c| c >= input.fields().len()) {
                    return Err(NativeError::Config(format!(
                        "key column {c} of a batch of {} columns",
                        input.fields().len()
                    )));
                }
                Ok(Keys::Columns(columns))
            }
            (None, Some(table)) => match PartitionValues::open(&table)? {
                Some(values) => Ok(Keys::IcebergPartition(Box::new(values))),
                None => Err(NativeError::Config(
                    "rows are routed by partition to an unpartitioned Iceberg table".to_string(),
                )),
            },
            _ => Err(NativeError::Config(
                "the key of a keyed exchange is either 'columns' or 'iceberg-partition'"
                    .to_string(),
            )),
        }
    }

    fn of(&self, batch: &RecordBatch) -> NativeResult<Vec<ArrayRef>> {
        match self {
            Keys::Columns(columns) => Ok(columns
                .iter()
                .map(|&c| std::sync::Arc::clone(batch.column(c)))
                .collect()),
            Keys::IcebergPartition(values) => Ok(values.columns(batch)?),
        }
    }
}

/// A router and the parts of the last batch not yet exported.
struct Router {
    input: SchemaRef,
    keys: Keys,
    groups: KeyGroups,
    parts: VecDeque<RecordBatch>,
}

/// A router of batches of the exported schema (exported back as the output schema) to
/// `parallelism` subtasks of `max_parallelism` key groups, by the key `keys` describes.
///
/// # Safety
/// `schema_addr` is an exported `ArrowSchema`; `out_schema_addr` an empty one.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_batch_NativeBatchRouter_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema_addr: jlong,
    keys: JString<'local>,
    parallelism: jint,
    max_parallelism: jint,
    out_schema_addr: jlong,
) -> jlong {
    run(env, |env| {
        let keys = keys.try_to_string(env)?;
        // SAFETY: Java passes an exported schema (see `NativeBatchRouter.create`).
        let input = unsafe { import_schema(schema_addr) }?;
        let keys = Keys::parse(&keys, &input)?;
        let count = |n: jint, what: &str| {
            u32::try_from(n).map_err(|_| NativeError::Config(format!("{what} {n}")))
        };
        let groups = KeyGroups::try_new(
            count(parallelism, "parallelism")?,
            count(max_parallelism, "max parallelism")?,
        )
        .map_err(|e| NativeError::Config(e.to_string()))?;
        // SAFETY: Java passes a freshly allocated, empty schema struct.
        unsafe { export_schema(&input, out_schema_addr) }?;
        Ok(into_handle(Router {
            input,
            keys,
            groups,
            parts: VecDeque::new(),
        }))
    })
}

/// Splits the exported batch; returns, for each part in the order `part0` exports them, the first
/// key group of the range of the subtask it goes to.
///
/// # Safety
/// `array_addr` is an `ArrowArray` exported with the router's schema.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_batch_NativeBatchRouter_route0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    array_addr: jlong,
) -> jintArray {
    run(env, |env| {
        let router = object_of::<Router>(handle, KIND)?;
        router.parts.clear();
        // SAFETY: Java exports the batch with the router's schema (see `NativeBatchRouter.route`).
        let batch = unsafe { import_batch(array_addr, &router.input) }?;
        let keys = router.keys.of(&batch)?;
        let parts = router.groups.split(&batch, &keys)?;
        let mut key_groups = Vec::with_capacity(parts.len());
        for part in parts {
            key_groups.push(jint::try_from(part.key_group).map_err(|_| {
                NativeError::Config(format!("key group {} out of range", part.key_group))
            })?);
            router.parts.push_back(part.rows);
        }
        let array = env.new_int_array(key_groups.len())?;
        array.set_region(env, 0, &key_groups)?;
        Ok(array.into_raw())
    })
}

/// Exports the next part of the last batch routed.
///
/// # Safety
/// `out_array_addr` is an empty `ArrowArray`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_batch_NativeBatchRouter_part0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    out_array_addr: jlong,
) -> jint {
    run(env, |_| {
        let router = object_of::<Router>(handle, KIND)?;
        let part = router.parts.pop_front().ok_or_else(|| {
            NativeError::Config("every part of the last batch was exported".to_string())
        })?;
        // SAFETY: Java passes a freshly allocated, empty array struct.
        unsafe { export_batch(part, out_array_addr) }
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_batch_NativeBatchRouter_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<Router>(handle);
        Ok(())
    })
}
