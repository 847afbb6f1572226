//! librdkafka's batch consume call, which rdkafka does not wrap: one call takes every message
//! waiting in the consumer's queue (up to a bound) under one lock, where rdkafka's `poll` takes
//! one message per call and reads the clock several times for each.

use std::ffi::CStr;
use std::ptr::NonNull;

use rdkafka::bindings as sys;
use rdkafka::error::RDKafkaErrorCode;

/// A record's timestamp type, numbered as Java's `TimestampType` ids (`NoTimestampType` = -1
/// there; 2 here so it fits one unsigned byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum TimestampKind {
    CreateTime = 0,
    LogAppendTime = 1,
    None = 2,
}

/// The consumer's queue (a reference librdkafka counts), released on drop.
#[derive(Debug)]
pub(crate) struct ConsumerQueue(NonNull<sys::rd_kafka_queue_t>);

// SAFETY: librdkafka queues may be used from any thread; the consumer serializes its calls.
unsafe impl Send for ConsumerQueue {}

impl ConsumerQueue {
    /// The consumer queue of `client`, or `None` when it has none (no group id).
    ///
    /// # Safety
    /// `client` must be a live consumer handle that outlives the queue.
    pub(crate) unsafe fn of(client: *mut sys::rd_kafka_t) -> Option<Self> {
        // SAFETY: guaranteed by the caller.
        NonNull::new(unsafe { sys::rd_kafka_queue_get_consumer(client) }).map(Self)
    }

    /// Appends up to `max` messages to `out`, waiting up to `timeout_ms` for them; returns how
    /// many. librdkafka waits until it has `max` or the timeout passes, so callers wait only for
    /// one message and take the rest without waiting.
    pub(crate) fn consume(&self, timeout_ms: i32, max: usize, out: &mut Vec<RawMessage>) -> usize {
        if max == 0 {
            return 0;
        }
        let mut buffer: Vec<*mut sys::rd_kafka_message_t> = Vec::with_capacity(max);
        // SAFETY: the queue is live; the buffer has room for `max` pointers.
        let n = unsafe {
            sys::rd_kafka_consume_batch_queue(self.0.as_ptr(), timeout_ms, buffer.as_mut_ptr(), max)
        };
        let Ok(n) = usize::try_from(n) else {
            return 0;
        };
        // SAFETY: librdkafka wrote `n` (at most `max`) message pointers.
        unsafe { buffer.set_len(n.min(max)) };
        let before = out.len();
        out.extend(buffer.into_iter().filter_map(NonNull::new).map(RawMessage));
        out.len() - before
    }
}

impl Drop for ConsumerQueue {
    fn drop(&mut self) {
        // SAFETY: the queue reference is ours to release, once.
        unsafe { sys::rd_kafka_queue_destroy(self.0.as_ptr()) };
    }
}

/// A message librdkafka handed over, destroyed on drop.
#[derive(Debug)]
pub(crate) struct RawMessage(NonNull<sys::rd_kafka_message_t>);

impl RawMessage {
    fn message(&self) -> &sys::rd_kafka_message_t {
        // SAFETY: the message is live until drop.
        unsafe { self.0.as_ref() }
    }

    /// The message's error (a consumer error rather than a record), if any.
    pub(crate) fn error(&self) -> Option<RDKafkaErrorCode> {
        let err = self.message().err;
        (err != sys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR).then(|| err.into())
    }

    /// The error's description, for an error message.
    pub(crate) fn error_string(&self) -> String {
        // SAFETY: the message is live; librdkafka returns a NUL-terminated string it owns.
        let text = unsafe { sys::rd_kafka_message_errstr(self.0.as_ptr()) };
        if text.is_null() {
            return String::new();
        }
        // SAFETY: non-null and NUL-terminated, valid while the message is.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }

    pub(crate) fn partition(&self) -> i32 {
        self.message().partition
    }

    pub(crate) fn offset(&self) -> i64 {
        self.message().offset
    }

    /// The topic handle's address: the same for every message of a topic.
    pub(crate) fn topic_key(&self) -> usize {
        self.message().rkt as usize
    }

    pub(crate) fn topic(&self) -> String {
        let topic = self.message().rkt;
        if topic.is_null() {
            return String::new();
        }
        // SAFETY: the topic handle lives as long as the message; its name is NUL-terminated.
        unsafe { CStr::from_ptr(sys::rd_kafka_topic_name(topic)) }
            .to_string_lossy()
            .into_owned()
    }

    pub(crate) fn payload(&self) -> Option<&[u8]> {
        let m = self.message();
        bytes(m.payload, m.len)
    }

    pub(crate) fn key(&self) -> Option<&[u8]> {
        let m = self.message();
        bytes(m.key, m.key_len)
    }

    pub(crate) fn timestamp(&self) -> (i64, TimestampKind) {
        let mut kind = sys::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
        // SAFETY: the message is live; `kind` is a local out parameter.
        let timestamp = unsafe { sys::rd_kafka_message_timestamp(self.0.as_ptr(), &mut kind) };
        match kind {
            sys::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_CREATE_TIME => {
                (timestamp, TimestampKind::CreateTime)
            }
            sys::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME => {
                (timestamp, TimestampKind::LogAppendTime)
            }
            _ => (-1, TimestampKind::None),
        }
    }

    /// The leader epoch, -1 when the broker gave none.
    pub(crate) fn leader_epoch(&self) -> i32 {
        // SAFETY: the message is live.
        unsafe { sys::rd_kafka_message_leader_epoch(self.0.as_ptr()) }
    }

    /// Calls `each` with every header's name and value, in order.
    pub(crate) fn headers(&self, mut each: impl FnMut(&str, Option<&[u8]>)) {
        let mut headers: *mut sys::rd_kafka_headers_t = std::ptr::null_mut();
        // SAFETY: the message is live; `headers` is a local out parameter.
        let found = unsafe { sys::rd_kafka_message_headers(self.0.as_ptr(), &mut headers) };
        if found != sys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR || headers.is_null() {
            return;
        }
        // SAFETY: the headers belong to the live message.
        let count = unsafe { sys::rd_kafka_header_cnt(headers) };
        for index in 0..count {
            let mut name: *const std::ffi::c_char = std::ptr::null();
            let mut value: *const std::ffi::c_void = std::ptr::null();
            let mut size = 0usize;
            // SAFETY: `index` is below the count; the out parameters are local.
            let got = unsafe {
                sys::rd_kafka_header_get_all(headers, index, &mut name, &mut value, &mut size)
            };
            if got != sys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR || name.is_null() {
                continue;
            }
            // SAFETY: librdkafka's header names are NUL-terminated and live with the message.
            let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
            each(&name, bytes(value.cast_mut(), size));
        }
    }
}

impl Drop for RawMessage {
    fn drop(&mut self) {
        // SAFETY: the message was handed to us by the batch call and is destroyed once.
        unsafe { sys::rd_kafka_message_destroy(self.0.as_ptr()) };
    }
}

/// A byte region librdkafka owns: `None` for a null pointer (a null key or value).
fn bytes<'a>(data: *mut std::ffi::c_void, len: usize) -> Option<&'a [u8]> {
    if data.is_null() {
        return None;
    }
    // SAFETY: librdkafka's key and payload pointers cover `len` bytes while the message lives;
    // callers borrow the result no longer than the message.
    Some(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) })
}
