//! Natives of `dev.streamfusion.bridge.NativeProjection`: a handle that imports a batch from
//! Java, checks it, and exports a projection (and optionally a slice) of it back.
//!
//! It exercises both directions of the bridge with one native object, so the bridge's round trip
//! is tested through the same calls sources and sinks use.

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use jni::EnvUnowned;
use jni::objects::{JClass, JIntArray};
use jni::sys::{jint, jlong};

use crate::args::ints;
use crate::arrow_ffi::{export_batch, export_schema, import_batch, import_schema};
use crate::errors::{NativeError, NativeResult, run};
use crate::handle::{drop_handle, into_handle, object_of};

const KIND: &str = "projection";

/// Column projection over batches of one schema.
#[derive(Debug)]
pub struct Projection {
    input: SchemaRef,
    columns: Vec<usize>,
}

impl Projection {
    pub fn try_new(input: SchemaRef, columns: &[i32]) -> NativeResult<Self> {
        let width = input.fields().len();
        let columns = columns
            .iter()
            .map(|&c| {
                usize::try_from(c)
                    .ok()
                    .filter(|&c| c < width)
                    .ok_or_else(|| {
                        NativeError::Config(format!(
                            "projection column {c} is out of range for a schema of {width} columns"
                        ))
                    })
            })
            .collect::<NativeResult<Vec<_>>>()?;
        Ok(Self { input, columns })
    }

    pub fn output_schema(&self) -> NativeResult<SchemaRef> {
        Ok(std::sync::Arc::new(self.input.project(&self.columns)?))
    }

    /// Projects `batch`, then keeps `length` rows from `offset` (a negative length keeps all).
    pub fn apply(
        &self,
        batch: &RecordBatch,
        offset: usize,
        length: i64,
    ) -> NativeResult<RecordBatch> {
        let projected = batch.project(&self.columns)?;
        if length < 0 {
            return Ok(projected);
        }
        let length = usize::try_from(length).unwrap_or(usize::MAX);
        if offset > projected.num_rows() || length > projected.num_rows() - offset {
            return Err(NativeError::Config(format!(
                "slice {offset}+{length} is out of range for a batch of {} rows",
                projected.num_rows()
            )));
        }
        Ok(projected.slice(offset, length))
    }
}

/// # Safety
/// `schema_addr` is an exported `ArrowSchema`; `out_schema_addr` an empty one.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_NativeProjection_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema_addr: jlong,
    columns: JIntArray<'local>,
    out_schema_addr: jlong,
) -> jlong {
    run(env, |env| {
        let indices = ints(env, &columns)?;
        // SAFETY: Java passes an exported schema (see `NativeProjection.create`).
        let input = unsafe { import_schema(schema_addr) }?;
        let projection = Projection::try_new(input, &indices)?;
        let output = projection.output_schema()?;
        // SAFETY: Java passes a freshly allocated, empty schema struct.
        unsafe { export_schema(&output, out_schema_addr) }?;
        Ok(into_handle(projection))
    })
}

/// # Safety
/// `array_addr` is an exported `ArrowArray` of the handle's input schema; `out_array_addr` an
/// empty one.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_NativeProjection_project<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    array_addr: jlong,
    out_array_addr: jlong,
    offset: jint,
    length: jint,
) -> jint {
    run(env, |_| {
        let projection = object_of::<Projection>(handle, KIND)?;
        // SAFETY: Java exported a batch of the handle's input schema.
        let batch = unsafe { import_batch(array_addr, &projection.input) }?;
        let offset = usize::try_from(offset)
            .map_err(|_| NativeError::Config(format!("negative slice offset {offset}")))?;
        let out = projection.apply(&batch, offset, i64::from(length))?;
        // SAFETY: Java passes a freshly allocated, empty array struct.
        unsafe { export_batch(out, out_array_addr) }
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_bridge_NativeProjection_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<Projection>(handle);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Int64Array, StringArray};
    use std::sync::Arc;

    fn batch() -> RecordBatch {
        RecordBatch::try_from_iter(vec![
            ("a", Arc::new(Int64Array::from(vec![1, 2, 3])) as _),
            ("b", Arc::new(StringArray::from(vec!["x", "y", "z"])) as _),
        ])
        .unwrap()
    }

    #[test]
    fn projects_reorders_and_slices() {
        let input = batch();
        let projection = Projection::try_new(input.schema(), &[1, 0]).unwrap();
        assert_eq!(
            projection.output_schema().unwrap().field(0).name(),
            input.schema().field(1).name()
        );

        let all = projection.apply(&input, 0, -1).unwrap();
        assert_eq!(all.num_rows(), 3);
        assert_eq!(all.column(0), input.column(1));

        let sliced = projection.apply(&input, 1, 2).unwrap();
        assert_eq!(sliced.column(1).as_ref(), &input.column(0).slice(1, 2));
    }

    #[test]
    fn rejects_bad_columns_and_slices_with_config_errors() {
        let input = batch();
        let err = Projection::try_new(input.schema(), &[2]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "projection column 2 is out of range for a schema of 2 columns"
        );
        assert!(Projection::try_new(input.schema(), &[-1]).is_err());

        let projection = Projection::try_new(input.schema(), &[0]).unwrap();
        let err = projection.apply(&input, 2, 5).unwrap_err();
        assert_eq!(
            err.to_string(),
            "slice 2+5 is out of range for a batch of 3 rows"
        );
    }
}
