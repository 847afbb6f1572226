//! Natives of `dev.streamfusion.operators.internal.NativeCalc`: a calc of the native island
//! built for one input schema, applied to each batch Java exports, the result exported back.

use jni::EnvUnowned;
use jni::objects::{JClass, JString};
use jni::sys::jlong;
use streamfusion_operators::calc::{Calc, CalcError};

use crate::arrow_ffi::{export_batch, export_schema, import_batch, import_schema};
use crate::errors::{NativeError, run};
use crate::handle::{drop_handle, into_handle, object_of};
use crate::java_text::CallingJvm;

const KIND: &str = "calc";

impl From<CalcError> for NativeError {
    fn from(e: CalcError) -> Self {
        match e {
            CalcError::Spec(message) => NativeError::Config(message),
            CalcError::Arrow(e) => NativeError::Arrow(e),
            CalcError::Arithmetic(message) => NativeError::Arithmetic(message.into()),
            CalcError::NumberFormat(message) => NativeError::NumberFormat(message),
            CalcError::Table(message) => NativeError::Table(message),
            CalcError::IndexOutOfBounds(message) => NativeError::IndexOutOfBounds(message),
        }
    }
}

/// A calc and the input schema its batches arrive in.
#[derive(Debug)]
struct NativeCalc {
    input: arrow::datatypes::SchemaRef,
    calc: Calc,
}

/// # Safety
/// `schema_addr` is an exported `ArrowSchema`; `out_schema_addr` an empty one.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_operators_internal_NativeCalc_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    schema_addr: jlong,
    spec: JString<'local>,
    out_schema_addr: jlong,
) -> jlong {
    run(env, |env| {
        let spec = spec.try_to_string(env)?;
        // SAFETY: Java passes an exported schema (see `NativeCalc.create`).
        let input = unsafe { import_schema(schema_addr) }?;
        let calc = Calc::try_new(&input, &spec)?;
        // SAFETY: Java passes a freshly allocated, empty schema struct.
        unsafe { export_schema(&calc.output_schema(), out_schema_addr) }?;
        Ok(into_handle(NativeCalc { input, calc }))
    })
}

/// # Safety
/// `array_addr` is an exported `ArrowArray` of the handle's input schema; `out_array_addr` an
/// empty one.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_operators_internal_NativeCalc_apply<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    array_addr: jlong,
    out_array_addr: jlong,
) -> jni::sys::jint {
    run(env, |env| {
        let native = object_of::<NativeCalc>(handle, KIND)?;
        // SAFETY: Java exported a batch of the handle's input schema.
        let batch = unsafe { import_batch(array_addr, &native.input) }?;
        let out = native.calc.apply_in(&batch, &CallingJvm { env })?;
        // SAFETY: Java passes a freshly allocated, empty array struct.
        unsafe { export_batch(out, out_array_addr) }
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_operators_internal_NativeCalc_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<NativeCalc>(handle);
        Ok(())
    })
}
