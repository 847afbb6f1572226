//! Natives of `dev.streamfusion.formats.NativeFormatDecoder`: a format decoder fed batches of
//! messages as an Arrow binary column, returning one Arrow batch of rows per call.

use arrow::array::{Array, BinaryArray};
use arrow::datatypes::SchemaRef;
use arrow::record_batch::RecordBatch;
use jni::objects::{JByteArray, JClass, JIntArray, JObjectArray, JString};
use jni::sys::{jboolean, jint, jintArray, jlong};
use jni::{Env, EnvUnowned};
use streamfusion_formats::options::FormatOptions;
use streamfusion_formats::{
    Decoder, FormatError, MessageSchema, create_decoder_with, decode_messages,
};

use crate::args::{message_schema_args, strings};
use crate::arrow_ffi::{export_batch, export_schema, import_batch, import_schema};
use crate::errors::{NativeError, NativeResult, run};
use crate::handle::{drop_handle, into_handle, object_of};

const KIND: &str = "format decoder";

/// A decoder and the schema of the message batches Java sends it.
#[derive(Debug)]
pub struct FormatDecoder {
    decoder: Box<dyn Decoder>,
    messages: SchemaRef,
    /// Whether a message the decoder fails on is handed back to Java (to Flink's own
    /// deserializer) instead of failing the batch.
    defer: bool,
    /// The messages of the last batch handed back, by index.
    deferred: Vec<jint>,
}

impl FormatDecoder {
    /// Decodes `messages` into one batch, writing where each message's rows start (and one
    /// past the last row) into `row_starts` unless it is null. A message the decoder fails on
    /// fails the batch, or, when the decoder defers, gives no rows and is listed in
    /// [`FormatDecoder::deferred`]. The decoder is flushed even when a message fails, so a
    /// failed batch leaves no rows behind for the next one.
    pub(crate) fn decode_messages<'m>(
        &mut self,
        messages: impl Iterator<Item = Option<&'m [u8]>>,
        env: &mut Env<'_>,
        row_starts: &JIntArray<'_>,
    ) -> NativeResult<RecordBatch> {
        self.deferred.clear();
        let decoded = decode_messages(&mut *self.decoder, messages, self.defer)?;
        self.deferred = decoded
            .deferred
            .iter()
            .map(|&index| jint::try_from(index).unwrap_or(jint::MAX))
            .collect();
        if !row_starts.is_null() {
            if row_starts.len(env)? < decoded.row_starts.len() {
                return Err(NativeError::Config(format!(
                    "the row-start array needs {} elements",
                    decoded.row_starts.len()
                )));
            }
            let starts: Vec<jint> = decoded
                .row_starts
                .iter()
                .map(|&start| jint::try_from(start).unwrap_or(jint::MAX))
                .collect();
            row_starts.set_region(env, 0, &starts)?;
        }
        Ok(decoded.rows)
    }
}

impl From<FormatError> for NativeError {
    fn from(e: FormatError) -> Self {
        match e {
            FormatError::Config(message) => NativeError::Config(message),
            FormatError::Decode { position, reason }
            | FormatError::Corrupt { position, reason } => NativeError::Decode {
                position: position as i64,
                reason,
            },
            FormatError::Encode { row, reason } => NativeError::Decode {
                position: row as i64,
                reason,
            },
            FormatError::Arrow(e) => NativeError::Arrow(e),
        }
    }
}

/// # Safety
/// `messages_schema_addr`, `physical_schema_addr` and `rows_schema_addr` are exported
/// `ArrowSchema`s; `out_schema_addr` an empty one.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatDecoder_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    format: JString<'local>,
    keys: JObjectArray<'local>,
    values: JObjectArray<'local>,
    messages_schema_addr: jlong,
    physical_schema_addr: jlong,
    rows_schema_addr: jlong,
    out_schema_addr: jlong,
    descriptors: JByteArray<'local>,
    message: JString<'local>,
    defer: jboolean,
) -> jlong {
    run(env, |env| {
        let format = format.try_to_string(env)?;
        let keys = strings(env, &keys)?;
        let values = strings(env, &values)?;
        // SAFETY: Java passes exported schemas (see `NativeFormatDecoder.create`).
        let messages = unsafe { import_schema(messages_schema_addr) }?;
        // SAFETY: as above.
        let physical = unsafe { import_schema(physical_schema_addr) }?;
        // SAFETY: as above.
        let rows = unsafe { import_schema(rows_schema_addr) }?;
        let options = FormatOptions::new(&format, keys.into_iter().zip(values));
        let (descriptors, message) = message_schema_args(env, &descriptors, &message)?;
        let schema = MessageSchema {
            descriptors: descriptors.as_deref(),
            message: message.as_deref(),
        };
        let decoder = create_decoder_with(&format, physical, rows, &options, schema)?;
        // SAFETY: Java passes a freshly allocated, empty schema struct.
        unsafe { export_schema(decoder.schema(), out_schema_addr) }?;
        Ok(into_handle(FormatDecoder {
            decoder,
            messages,
            defer,
            deferred: Vec::new(),
        }))
    })
}

/// # Safety
/// `messages_addr` is an exported `ArrowArray` of the handle's message schema (one binary
/// column); `out_array_addr` an empty one.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatDecoder_decode<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    messages_addr: jlong,
    out_array_addr: jlong,
    row_starts: JIntArray<'local>,
) -> jint {
    run(env, |env| {
        let this = object_of::<FormatDecoder>(handle, KIND)?;
        // SAFETY: Java exported a batch of the handle's message schema.
        let batch = unsafe { import_batch(messages_addr, &this.messages) }?;
        let messages = batch
            .column(0)
            .as_any()
            .downcast_ref::<BinaryArray>()
            .ok_or_else(|| NativeError::Config("messages must be a binary column".into()))?;
        let messages = (0..messages.len()).map(|i| messages.is_valid(i).then(|| messages.value(i)));
        let rows = this.decode_messages(messages, env, &row_starts)?;
        // SAFETY: Java passes a freshly allocated, empty array struct.
        unsafe { export_batch(rows, out_array_addr) }
    })
}

/// The indexes of the messages of the last batch that the decoder handed back.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatDecoder_deferred<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jintArray {
    run(env, |env| {
        let this = object_of::<FormatDecoder>(handle, KIND)?;
        let array = env.new_int_array(this.deferred.len())?;
        array.set_region(env, 0, &this.deferred)?;
        Ok(array.into_raw())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatDecoder_skipped<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jlong {
    run(env, |_| {
        let this = object_of::<FormatDecoder>(handle, KIND)?;
        Ok(this.decoder.skipped() as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatDecoder_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<FormatDecoder>(handle);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_formats_NativeFormatDecoder_addWriterSchema<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    id: jint,
    schema: JString<'local>,
) {
    run(env, |env| {
        let schema = schema.try_to_string(env)?;
        let this = object_of::<FormatDecoder>(handle, KIND)?;
        this.decoder.add_writer_schema(id as u32, &schema)?;
        Ok(())
    })
}
