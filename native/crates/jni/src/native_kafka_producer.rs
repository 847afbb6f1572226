//! Natives of `dev.streamfusion.kafka.internal.NativeKafkaProducer`: a librdkafka producer that
//! encodes a batch of rows with format encoders and sends the records without the bytes entering
//! the JVM.

use std::time::Duration;

use arrow::array::{Array, BinaryArray};
use jni::objects::{
    JBooleanArray, JByteArray, JClass, JIntArray, JLongArray, JObjectArray, JString,
};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};
use streamfusion_kafka::{BatchProducer, OutRecord};

use crate::args::strings;
use crate::errors::{NativeError, NativeResult, run};
use crate::handle::{drop_handle, into_handle, object_of};
use crate::native_format_encoder::FormatEncoder;

const KIND: &str = "Kafka producer";

fn timeout(millis: jlong) -> Duration {
    Duration::from_millis(u64::try_from(millis).unwrap_or(0))
}

/// Encodes the rows exported at `rows_addr` with the encoder behind `encoder`.
///
/// # Safety
/// `encoder` is an open `NativeFormatEncoder` handle whose lock the caller holds; `rows_addr` an
/// exported `ArrowArray` of its row schema.
unsafe fn encode(encoder: jlong, rows_addr: jlong) -> NativeResult<BinaryArray> {
    let encoder = object_of::<FormatEncoder>(encoder, "format encoder")?;
    // SAFETY: guaranteed by the caller.
    let rows = unsafe { encoder.import_rows(rows_addr) }?;
    Ok(encoder.encoder.encode(&rows)?)
}

fn ints(env: &mut Env<'_>, array: &JIntArray<'_>, len: usize) -> NativeResult<Option<Vec<jint>>> {
    if array.is_null() {
        return Ok(None);
    }
    let mut out = vec![0; len];
    array.get_region(env, 0, &mut out)?;
    Ok(Some(out))
}

fn bytes(env: &mut Env<'_>, array: &JObjectArray<'_>) -> NativeResult<Vec<Option<Vec<u8>>>> {
    let len = array.len(env)?;
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        let element = array.get_element(env, i)?;
        if element.is_null() {
            out.push(None);
            continue;
        }
        let element = env.cast_local::<JByteArray>(element)?;
        let mut buffer = vec![0i8; element.len(env)?];
        element.get_region(env, 0, &mut buffer)?;
        env.delete_local_ref(element);
        out.push(Some(buffer.into_iter().map(|b| b as u8).collect()));
    }
    Ok(out)
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaProducer_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    keys: JObjectArray<'local>,
    values: JObjectArray<'local>,
    topic: JString<'local>,
    max_block_ms: jlong,
) -> jlong {
    run(env, |env| {
        let keys = strings(env, &keys)?;
        let values = strings(env, &values)?;
        let topic = topic.try_to_string(env)?;
        let properties: Vec<(String, String)> = keys.into_iter().zip(values).collect();
        let max_block = Duration::from_millis(u64::try_from(max_block_ms).unwrap_or(0));
        Ok(into_handle(BatchProducer::new(
            &properties,
            &topic,
            max_block,
        )?))
    })
}

/// What librdkafka said since the last call (see [`crate::native_kafka_consumer::log_lines`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaProducer_logs<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jni::sys::jobjectArray {
    run(env, |env| {
        crate::native_kafka_consumer::log_lines(
            env,
            object_of::<BatchProducer>(handle, KIND)?.drain_log(),
        )
    })
}

/// Encodes a batch of rows (values, and keys when `key_encoder` is not 0) and sends one record
/// per row. `partitions` (or null for librdkafka's partitioner) and `timestamps` (null, or
/// `Long.MIN_VALUE` for a row, for the time of sending) hold one entry per row; `header_counts`
/// (or null) the number of headers of each row, laid out in `headers` as UTF-8 key bytes then
/// value bytes; `tombstones` (or null) marks the rows sent with a null value (an upsert table's
/// deletes), whose values are not among the value rows: those are the other rows', in order, so
/// a delete's row is never encoded. Returns the bytes of the encoded keys and values.
///
/// # Safety
/// The encoder handles are open and locked by the caller; the row addresses are exported
/// `ArrowArray`s of their encoders' row schemas.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaProducer_send<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    value_encoder: jlong,
    value_rows: jlong,
    key_encoder: jlong,
    key_rows: jlong,
    partitions: JIntArray<'local>,
    timestamps: JLongArray<'local>,
    header_counts: JIntArray<'local>,
    headers: JObjectArray<'local>,
    tombstones: JBooleanArray<'local>,
) -> jlong {
    run(env, |env| {
        // SAFETY: guaranteed by the caller (see the function's contract).
        let values = unsafe { encode(value_encoder, value_rows) }?;
        let keys = if key_encoder == 0 {
            None
        } else {
            // SAFETY: as above.
            Some(unsafe { encode(key_encoder, key_rows) }?)
        };
        let tombstones = if tombstones.is_null() {
            None
        } else {
            let mut out = vec![false; tombstones.len(env)?];
            tombstones.get_region(env, 0, &mut out)?;
            Some(out)
        };
        let n = tombstones.as_ref().map_or(values.len(), Vec::len);
        let valued = tombstones
            .as_ref()
            .map_or(n, |t| t.iter().filter(|tombstone| !**tombstone).count());
        if values.len() != valued || keys.as_ref().is_some_and(|k| k.len() != n) {
            return Err(NativeError::Config(format!(
                "{} values and {} keys for {n} records of which {valued} have values",
                values.len(),
                keys.as_ref().map_or(0, |k| k.len())
            )));
        }
        let partitions = ints(env, &partitions, n)?;
        let timestamps = if timestamps.is_null() {
            None
        } else {
            let mut out = vec![0; n];
            timestamps.get_region(env, 0, &mut out)?;
            Some(out)
        };
        let counts = ints(env, &header_counts, n)?;
        let header_bytes = if counts.is_some() {
            bytes(env, &headers)?
        } else {
            Vec::new()
        };
        let mut header_keys = Vec::with_capacity(header_bytes.len() / 2);
        for pair in header_bytes.chunks(2) {
            let key = pair.first().and_then(|k| k.as_deref()).unwrap_or_default();
            header_keys.push(
                std::str::from_utf8(key)
                    .map_err(|e| NativeError::Config(format!("a header key is not UTF-8: {e}")))?,
            );
        }
        let mut next_header = 0;
        let mut next_value = 0;
        let records = (0..n).map(|i| {
            let count = counts.as_ref().map_or(0, |c| c[i].max(0) as usize);
            let headers = (next_header..next_header + count)
                .filter_map(|h| {
                    let key = header_keys.get(h)?;
                    let value = header_bytes.get(2 * h + 1)?.as_deref();
                    Some((*key, value))
                })
                .collect();
            next_header += count;
            OutRecord {
                key: keys
                    .as_ref()
                    .and_then(|k| k.is_valid(i).then(|| k.value(i))),
                // A tombstone (an upsert table's delete) has no value, and no value row.
                value: if tombstones.as_ref().is_some_and(|t| t[i]) {
                    None
                } else {
                    let v = next_value;
                    next_value += 1;
                    values.is_valid(v).then(|| values.value(v))
                },
                partition: partitions.as_ref().map(|p| p[i]),
                timestamp: timestamps.as_ref().map(|t| t[i]).filter(|t| *t != i64::MIN),
                headers,
            }
        });
        let bytes = values.value_data().len() + keys.as_ref().map_or(0, |k| k.value_data().len());
        object_of::<BatchProducer>(handle, KIND)?.send(records)?;
        Ok(bytes as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaProducer_flush<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    timeout_ms: jlong,
) {
    run(env, |_| {
        Ok(object_of::<BatchProducer>(handle, KIND)?.flush(timeout(timeout_ms))?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaProducer_checkDeliveries<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        Ok(object_of::<BatchProducer>(handle, KIND)?.check_deliveries()?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaProducer_partitions<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    timeout_ms: jlong,
) -> jint {
    run(env, |_| {
        let count = object_of::<BatchProducer>(handle, KIND)?.partitions(timeout(timeout_ms))?;
        Ok(count as jint)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaProducer_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<BatchProducer>(handle);
        Ok(())
    })
}
