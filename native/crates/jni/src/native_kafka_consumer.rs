//! Natives of `dev.streamfusion.kafka.internal.NativeKafkaConsumer`: a librdkafka consumer of a
//! Flink reader's splits. A poll keeps its records natively; Java then asks for their offsets,
//! timestamps and metadata, and has a format decoder turn their values (and keys) into one Arrow
//! batch each.

use std::collections::BTreeSet;
use std::time::Duration;

use jni::objects::{
    JBooleanArray, JByteArray, JClass, JIntArray, JLongArray, JObject, JObjectArray, JString,
};
use jni::sys::{jboolean, jbyteArray, jint, jlong, jobjectArray};
use jni::{EnvUnowned, jni_str};
use streamfusion_kafka::{ClientError, Level, Part, Reads, SplitConsumer};

use crate::args::{check_len, strings};
use crate::arrow_ffi::export_batch;
use crate::errors::{NativeError, NativeResult, run};
use crate::handle::{drop_handle, into_handle, object_of};
use crate::native_format_decoder::FormatDecoder;

const KIND: &str = "Kafka consumer";

impl From<ClientError> for NativeError {
    fn from(e: ClientError) -> Self {
        match e {
            ClientError::Config(message) => NativeError::Config(message),
            ClientError::Kafka(message) => NativeError::Io(message),
        }
    }
}

fn part(keys: jboolean) -> Part {
    if keys { Part::Key } else { Part::Value }
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_create<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    keys: JObjectArray<'local>,
    values: JObjectArray<'local>,
    read_keys: jboolean,
    read_headers: jboolean,
    api_timeout_ms: jlong,
) -> jlong {
    run(env, |env| {
        let keys = strings(env, &keys)?;
        let values = strings(env, &values)?;
        let properties: Vec<(String, String)> = keys.into_iter().zip(values).collect();
        let reads = Reads {
            keys: read_keys,
            headers: read_headers,
        };
        let timeout = Duration::from_millis(u64::try_from(api_timeout_ms).unwrap_or(0));
        Ok(into_handle(SplitConsumer::new(
            &properties,
            reads,
            timeout,
        )?))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_addSplit<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    topic: JString<'local>,
    partition: jint,
    start: jlong,
    stop: jlong,
) -> jint {
    run(env, |env| {
        let topic = topic.try_to_string(env)?;
        let id =
            object_of::<SplitConsumer>(handle, KIND)?.add_split(&topic, partition, start, stop)?;
        Ok(id as jint)
    })
}

/// Polls; writes the runs of records by split into `run_splits` and `run_counts` and returns how
/// many runs there are.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_poll<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    max_records: jint,
    timeout_ms: jlong,
    run_splits: JIntArray<'local>,
    run_counts: JIntArray<'local>,
) -> jint {
    run(env, |env| {
        let max = usize::try_from(max_records).unwrap_or(0).max(1);
        let timeout = Duration::from_millis(u64::try_from(timeout_ms).unwrap_or(0));
        let poll = object_of::<SplitConsumer>(handle, KIND)?.poll(max, timeout)?;
        let runs = poll.runs();
        check_len(run_splits.len(env)?, runs.len(), "run")?;
        check_len(run_counts.len(env)?, runs.len(), "run")?;
        let splits: Vec<jint> = runs.iter().map(|(s, _)| *s as jint).collect();
        let counts: Vec<jint> = runs.iter().map(|(_, c)| *c as jint).collect();
        run_splits.set_region(env, 0, &splits)?;
        run_counts.set_region(env, 0, &counts)?;
        Ok(runs.len() as jint)
    })
}

/// Writes the last poll's offsets and timestamps, and (when the arrays are not null) timestamp
/// types and leader epochs, in run order; returns the poll's bytes of values and keys.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_records<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    offsets: JLongArray<'local>,
    timestamps: JLongArray<'local>,
    timestamp_types: JByteArray<'local>,
    leader_epochs: JIntArray<'local>,
) -> jlong {
    run(env, |env| {
        let poll = object_of::<SplitConsumer>(handle, KIND)?.last_poll();
        let n = poll.len();
        check_len(offsets.len(env)?, n, "offset")?;
        check_len(timestamps.len(env)?, n, "timestamp")?;
        offsets.set_region(env, 0, &poll.offsets().collect::<Vec<_>>())?;
        timestamps.set_region(env, 0, &poll.timestamps().collect::<Vec<_>>())?;
        if !timestamp_types.is_null() {
            check_len(timestamp_types.len(env)?, n, "timestamp-type")?;
            let kinds: Vec<i8> = poll.timestamp_kinds().map(|k| k as i8).collect();
            timestamp_types.set_region(env, 0, &kinds)?;
        }
        if !leader_epochs.is_null() {
            check_len(leader_epochs.len(env)?, n, "leader-epoch")?;
            leader_epochs.set_region(env, 0, &poll.leader_epochs().collect::<Vec<_>>())?;
        }
        Ok(poll.bytes() as jlong)
    })
}

/// The last poll's headers in run order: `counts[i]` headers for record `i`, laid out in the
/// returned array as UTF-8 key bytes then value bytes (`null` for a null value).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_headers<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    counts: JIntArray<'local>,
) -> jobjectArray {
    run(env, |env| {
        let poll = object_of::<SplitConsumer>(handle, KIND)?.last_poll();
        check_len(counts.len(env)?, poll.len(), "header-count")?;
        let per_record: Vec<jint> = poll.headers().map(|h| h.len() as jint).collect();
        counts.set_region(env, 0, &per_record)?;
        let total: usize = per_record.iter().map(|c| *c as usize).sum();
        let length = jint::try_from(total * 2)
            .map_err(|_| NativeError::Config("too many headers in one poll".into()))?;
        let array = env.new_object_array(length, jni_str!("[B"), JObject::null())?;
        let mut index = 0;
        for header in poll.headers().flatten() {
            let key = env.byte_array_from_slice(header.key.as_bytes())?;
            array.set_element(env, index, &key)?;
            env.delete_local_ref(key);
            if let Some(value) = &header.value {
                let value = env.byte_array_from_slice(value)?;
                array.set_element(env, index + 1, &value)?;
                env.delete_local_ref(value);
            }
            index += 2;
        }
        Ok(array.into_raw())
    })
}

/// The distinct Confluent schema ids among the last poll's values or keys (a zero byte, then the
/// id as four big-endian bytes), for Java to fetch writer schemas before decoding.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_schemaIds<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    keys: jboolean,
) -> JIntArray<'local> {
    run(env, |env| {
        let poll = object_of::<SplitConsumer>(handle, KIND)?.last_poll();
        let ids: BTreeSet<jint> = poll
            .messages(part(keys))
            .flatten()
            .filter_map(|m| match m {
                [0, a, b, c, d, ..] => Some(i32::from_be_bytes([*a, *b, *c, *d])),
                _ => None,
            })
            .collect();
        let ids: Vec<jint> = ids.into_iter().collect();
        let array = env.new_int_array(ids.len())?;
        array.set_region(env, 0, &ids)?;
        Ok(array)
    })
}

/// Decodes the last poll's values (or keys) with a format decoder into one batch, in run order.
///
/// # Safety
/// `decoder` is an open `NativeFormatDecoder` handle the caller holds the lock of;
/// `out_array_addr` an empty `ArrowArray`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_decode<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    keys: jboolean,
    decoder: jlong,
    out_array_addr: jlong,
    row_starts: JIntArray<'local>,
) -> jint {
    run(env, |env| {
        let poll = object_of::<SplitConsumer>(handle, KIND)?.last_poll();
        let decoder = object_of::<FormatDecoder>(decoder, "format decoder")?;
        let rows = decoder.decode_messages(poll.messages(part(keys)), env, &row_starts)?;
        // SAFETY: Java passes a freshly allocated, empty array struct.
        unsafe { export_batch(rows, out_array_addr) }
    })
}

/// The value (or key) of record `index` of the last poll, or null for a null one.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_message<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    keys: jboolean,
    index: jint,
) -> jbyteArray {
    run(env, |env| {
        let poll = object_of::<SplitConsumer>(handle, KIND)?.last_poll();
        let index = usize::try_from(index)
            .map_err(|_| NativeError::Config(format!("no record {index} in the poll")))?;
        match poll.message(part(keys), index) {
            Some(bytes) => Ok(env.byte_array_from_slice(bytes)?.into_raw()),
            None => Ok(std::ptr::null_mut()),
        }
    })
}

/// Marks in `out` the records of the last poll whose value is null (tombstones); returns how
/// many there are.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_nullValues<
    'local,
>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    out: JBooleanArray<'local>,
) -> jint {
    run(env, |env| {
        let poll = object_of::<SplitConsumer>(handle, KIND)?.last_poll();
        check_len(out.len(env)?, poll.len(), "null-value flag")?;
        let nulls: Vec<jboolean> = poll.messages(Part::Value).map(|m| m.is_none()).collect();
        out.set_region(env, 0, &nulls)?;
        let count = nulls.iter().filter(|n| **n).count();
        jint::try_from(count).map_err(|_| NativeError::Config("too many records".into()))
    })
}

/// What a librdkafka client said since the last drain, for Java to log: one string per line, its
/// level's letter first (`E`, `W`, `I`, `D`); `null` when there is nothing.
pub(crate) fn log_lines(
    env: &mut jni::Env<'_>,
    (lines, dropped): (Vec<(Level, String)>, u64),
) -> NativeResult<jobjectArray> {
    if lines.is_empty() && dropped == 0 {
        return Ok(std::ptr::null_mut());
    }
    let mut all: Vec<String> = lines
        .into_iter()
        .map(|(level, line)| format!("{}{line}", level.letter()))
        .collect();
    if dropped > 0 {
        all.push(format!(
            "W{dropped} librdkafka log lines dropped (too many between two reads)"
        ));
    }
    let length =
        jint::try_from(all.len()).map_err(|_| NativeError::Config("too many log lines".into()))?;
    let array = env.new_object_array(length, jni_str!("java/lang/String"), JObject::null())?;
    for (index, line) in all.iter().enumerate() {
        let line = env.new_string(line)?;
        array.set_element(env, index, &line)?;
        env.delete_local_ref(line);
    }
    Ok(array.into_raw())
}

/// What librdkafka said since the last call (see [`log_lines`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_logs<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jobjectArray {
    run(env, |env| {
        log_lines(env, object_of::<SplitConsumer>(handle, KIND)?.drain_log())
    })
}

/// The splits finished since the last call.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_finished<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> JIntArray<'local> {
    run(env, |env| {
        let ids: Vec<jint> = object_of::<SplitConsumer>(handle, KIND)?
            .take_finished()
            .into_iter()
            .map(|id| id as jint)
            .collect();
        let array = env.new_int_array(ids.len())?;
        array.set_region(env, 0, &ids)?;
        Ok(array)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_pause<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    ids: JIntArray<'local>,
    pause: jboolean,
) {
    run(env, |env| {
        let mut buffer = vec![0; ids.len(env)?];
        ids.get_region(env, 0, &mut buffer)?;
        let ids: Vec<u32> = buffer.into_iter().map(|i| i as u32).collect();
        object_of::<SplitConsumer>(handle, KIND)?.pause(&ids, pause)?;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_commit<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    topics: JObjectArray<'local>,
    partitions: JIntArray<'local>,
    offsets: JLongArray<'local>,
) {
    run(env, |env| {
        let topics = strings(env, &topics)?;
        let mut parts = vec![0; topics.len()];
        let mut positions = vec![0; topics.len()];
        partitions.get_region(env, 0, &mut parts)?;
        offsets.get_region(env, 0, &mut positions)?;
        let list: Vec<(String, i32, i64)> = topics
            .into_iter()
            .zip(parts)
            .zip(positions)
            .map(|((t, p), o)| (t, p, o))
            .collect();
        object_of::<SplitConsumer>(handle, KIND)?.commit(&list)?;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_lag<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jlong {
    run(env, |_| Ok(object_of::<SplitConsumer>(handle, KIND)?.lag()))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_streamfusion_kafka_internal_NativeKafkaConsumer_free0<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    run(env, |_| {
        drop_handle::<SplitConsumer>(handle);
        Ok(())
    })
}
