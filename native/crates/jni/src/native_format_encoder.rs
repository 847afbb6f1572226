//! Natives of `dev.streamfusion.formats.NativeFormatEncoder`: a format encoder fed batches of
//! rows, returning one message per row as an Arrow binary column.

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use jni::EnvUnowned;
use jni::objects::{JByteArray, JClass, JObjectArray, JString};
use jni::sys::{jboolean, jint, jlong};
use streamfusion_formats::java_utf8::InvalidText;
use streamfusion_formats::options::FormatOptions;
use streamfusion_formats::{Encoder, MessageSchema, create_encoder_with};

use crate::args::{message_schema_args, strings};
use crate::arrow_ffi::{export_batch, export_schema, import_batch_with, import_schema};
use crate::errors::{NativeResult, run};
use crate::handle::{drop_handle, into_handle, object_of};

const KIND: &str = "format encoder";

/// An encoder and the schema of the message batches it returns.
#[derive(Debug)]
pub struct FormatEncoder {
    pub(crate) encoder: Box<dyn Encoder>,
    messages: SchemaRef,
    /// What the encoder makes of text that is not UTF-8 in the batches Java hands it.
    invalid_text: InvalidText,
}

impl FormatEncoder {
    /// The batch of rows Java exported at `rows_addr`, its text read as the format writes it.
    ///
    /// # Safety
    /// `rows_addr` is an exported `ArrowArray` of the encoder's row schema.
    pub(crate) unsafe fn import_rows(&self, rows_addr: jlong) -> NativeResult<RecordBatch> {
        // SAFETY: guaranteed by the caller.
        unsafe { import_batch_with(rows_addr, self.encoder.schema(), self.invalid_text) }
    }
}

/// # Safety
/// `rows_schema_addr` is an exported `ArrowSchema`; `out_schema_addr` an empty one.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatEncoder_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    format: JString<'local>,
    keys: JObjectArray<'local>,
    values: JObjectArray<'local>,
    rows_schema_addr: jlong,
    out_schema_addr: jlong,
    descriptors: JByteArray<'local>,
    message: JString<'local>,
) -> jlong {
    run(env, |env| {
        let format = format.try_to_string(env)?;
        let keys = strings(env, &keys)?;
        let values = strings(env, &values)?;
        // SAFETY: Java passes an exported schema (see `NativeFormatEncoder.create`).
        let rows = unsafe { import_schema(rows_schema_addr) }?;
        let options = FormatOptions::new(&format, keys.into_iter().zip(values));
        let (descriptors, message) = message_schema_args(env, &descriptors, &message)?;
        let schema = MessageSchema {
            descriptors: descriptors.as_deref(),
            message: message.as_deref(),
        };
        let encoder = create_encoder_with(&format, rows, &options, schema)?;
        let messages = Arc::new(Schema::new(vec![Field::new(
            "message",
            DataType::Binary,
            true,
        )]));
        // SAFETY: Java passes a freshly allocated, empty schema struct.
        unsafe { export_schema(&messages, out_schema_addr) }?;
        let invalid_text = InvalidText::as_java_if(encoder.reads_invalid_text_as_java());
        Ok(into_handle(FormatEncoder {
            encoder,
            messages,
            invalid_text,
        }))
    })
}

/// # Safety
/// `rows_addr` is an exported `ArrowArray` of the handle's row schema; `out_array_addr` an
/// empty one.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatEncoder_encode<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    rows_addr: jlong,
    out_array_addr: jlong,
) -> jint {
    run(env, |_| {
        let this = object_of::<FormatEncoder>(handle, KIND)?;
        // SAFETY: Java exported a batch of the handle's row schema.
        let rows = unsafe { this.import_rows(rows_addr) }?;
        let messages: ArrayRef = Arc::new(this.encoder.encode(&rows)?);
        let batch = RecordBatch::try_new(this.messages.clone(), vec![messages])?;
        // SAFETY: Java passes a freshly allocated, empty array struct.
        unsafe { export_batch(batch, out_array_addr) }
    })
}

/// Whether the encoder reads text that is not UTF-8 as Java does (else it refuses it), which the
/// rows' native reader must do alike.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatEncoder_readsTextAsJava<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jboolean {
    run(env, |_| {
        let this = object_of::<FormatEncoder>(handle, KIND)?;
        Ok(this.invalid_text == InvalidText::AsJavaReadsIt)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatEncoder_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<FormatEncoder>(handle);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatEncoder_writerSchema<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> JString<'local> {
    run(env, |env| {
        let this = object_of::<FormatEncoder>(handle, KIND)?;
        match this.encoder.writer_schema() {
            Some(schema) => Ok(env.new_string(schema)?),
            None => Ok(JString::null()),
        }
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatEncoder_setSchemaId<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    id: jint,
) {
    run(env, |_| {
        let this = object_of::<FormatEncoder>(handle, KIND)?;
        this.encoder.set_schema_id(id as u32)?;
        Ok(())
    })
}
