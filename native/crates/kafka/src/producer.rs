//! A librdkafka producer of encoded batches to one topic.

use std::ffi::{CString, c_int, c_void};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rdkafka::bindings as rdsys;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use rdkafka::{ClientConfig, ClientContext, Message};

use crate::consumer::ClientError;
use crate::log::{ClientLog, Level};

/// Remembers the first failed delivery, for the next send or flush to report, and collects what
/// librdkafka says.
#[derive(Debug, Default)]
struct Deliveries {
    first_error: Mutex<Option<String>>,
    log: ClientLog,
}

impl ClientContext for Deliveries {
    fn log(&self, level: rdkafka::config::RDKafkaLogLevel, facility: &str, message: &str) {
        self.log.log(level, facility, message);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        self.log.error(error, reason);
    }
}

impl ProducerContext for Deliveries {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        if let Err((error, message)) = result
            && let Ok(mut first) = self.first_error.lock()
            && first.is_none()
        {
            *first = Some(format!(
                "failed to deliver a record to {}-{}: {error}",
                message.topic(),
                message.partition()
            ));
        }
    }
}

/// One record of a batch: its key, value, partition, timestamp and headers.
#[derive(Debug, Default)]
pub struct OutRecord<'a> {
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    /// `None` for librdkafka's partitioner.
    pub partition: Option<i32>,
    /// `None` for the time of sending.
    pub timestamp: Option<i64>,
    pub headers: Vec<(&'a str, Option<&'a [u8]>)>,
}

/// librdkafka's handle of the producer's topic, for queueing many records in one call.
struct TopicHandle(*mut rdsys::rd_kafka_topic_t);

// SAFETY: librdkafka's topic handles are reference counted and may be used from any thread.
unsafe impl Send for TopicHandle {}
// SAFETY: as above; the handle is only passed to librdkafka, which locks what it changes.
unsafe impl Sync for TopicHandle {}

impl Drop for TopicHandle {
    fn drop(&mut self) {
        // SAFETY: the handle came from rd_kafka_topic_new and is released once, before the client
        // (the producer field is declared after the handle, so it is dropped after it).
        unsafe { rdsys::rd_kafka_topic_destroy(self.0) };
    }
}

/// A producer of one topic. Delivery errors surface at the next [`BatchProducer::send`] or
/// [`BatchProducer::flush`]. Calls must come from one thread at a time.
///
/// Records without a timestamp or headers (what a table without those metadata columns writes)
/// are queued a run at a time with `rd_kafka_produce_batch` on the topic's handle; the others one
/// by one, in their order among them.
pub struct BatchProducer {
    /// Declared before `producer`: dropped before the client it belongs to.
    handle: TopicHandle,
    producer: BaseProducer<Deliveries>,
    topic: String,
    /// How long a send waits for room in librdkafka's queue (kafka-clients' `max.block.ms`).
    max_block: Duration,
}

impl std::fmt::Debug for BatchProducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchProducer")
            .field("topic", &self.topic)
            .finish_non_exhaustive()
    }
}

/// librdkafka's `RD_KAFKA_PARTITION_UA`: no partition chosen, the partitioner's to choose.
const PARTITION_UNASSIGNED: i32 = -1;

/// How long a flush waits in librdkafka between serving delivery reports.
const FLUSH_WAIT_MS: i32 = 1;

/// How long a send waits for room in librdkafka's queue before polling again.
const QUEUE_WAIT: Duration = Duration::from_millis(50);

/// How long to wait before asking again for the metadata of a topic without known partitions
/// (kafka-clients' default `retry.backoff.ms`).
const METADATA_RETRY: Duration = Duration::from_millis(100);

/// How long one metadata request waits for its answer at most (kafka-clients' default
/// `request.timeout.ms`); a longer wait is made of several requests.
const METADATA_REQUEST: Duration = Duration::from_secs(30);

/// Metadata errors kafka-clients' `partitionsFor` fails on at once rather than waiting the
/// metadata out: the topic may not be described, its name is invalid, or the client could not
/// authenticate.
fn refuses_metadata(code: RDKafkaErrorCode) -> bool {
    matches!(
        code,
        RDKafkaErrorCode::TopicAuthorizationFailed
            | RDKafkaErrorCode::InvalidTopic
            | RDKafkaErrorCode::Authentication
            | RDKafkaErrorCode::SaslAuthenticationFailed
    )
}

impl BatchProducer {
    /// A producer with librdkafka `properties`. Records without a partition are partitioned as
    /// Java's producer does for keyed records (murmur2), unless the properties say otherwise. A
    /// send waits at most `max_block` for room in librdkafka's queue, as kafka-clients' `send`
    /// waits at most `max.block.ms`.
    pub fn new(
        properties: &[(String, String)],
        topic: &str,
        max_block: Duration,
    ) -> Result<Self, ClientError> {
        let mut config = ClientConfig::new();
        config.set("partitioner", "murmur2_random");
        for (key, value) in properties {
            config.set(key, value);
        }
        let producer: BaseProducer<Deliveries> = config
            .create_with_context(Deliveries::default())
            .map_err(|e| match e {
                KafkaError::ClientConfig(_, description, key, value) => {
                    crate::consumer::rejected_property(&key, &value, &description)
                }
                other => ClientError::Kafka(format!("cannot create the Kafka producer: {other}")),
            })?;
        let name = CString::new(topic)
            .map_err(|_| ClientError::Kafka(format!("the topic name {topic:?} holds a NUL")))?;
        // SAFETY: the client pointer is valid; librdkafka copies the name and takes no ownership
        // of the (absent) topic configuration.
        let handle = unsafe {
            rdsys::rd_kafka_topic_new(
                producer.client().native_ptr(),
                name.as_ptr(),
                std::ptr::null_mut(),
            )
        };
        if handle.is_null() {
            // SAFETY: reads the calling thread's last librdkafka error.
            let error = RDKafkaErrorCode::from(unsafe { rdsys::rd_kafka_last_error() });
            return Err(ClientError::Kafka(format!(
                "cannot open the topic {topic} for producing: {error}"
            )));
        }
        Ok(Self {
            handle: TopicHandle(handle),
            producer,
            topic: topic.to_string(),
            max_block,
        })
    }

    /// Queues `records`, waiting for room in librdkafka's queue as needed, at most `max_block`
    /// for each record: a broker that takes nothing fails the send instead of holding the
    /// producer (and a task cancelled meanwhile) indefinitely.
    pub fn send<'a>(
        &self,
        records: impl Iterator<Item = OutRecord<'a>>,
    ) -> Result<(), ClientError> {
        self.check()?;
        let mut run: Vec<rdsys::rd_kafka_message_t> = Vec::new();
        for record in records {
            if record.timestamp.is_none() && record.headers.is_empty() {
                run.push(message(&record));
            } else {
                self.queue_run(&mut run)?;
                self.queue_one(record)?;
            }
        }
        self.queue_run(&mut run)?;
        self.producer.poll(Duration::ZERO);
        self.check()
    }

    /// Queues the records of `run` (emptied) in one librdkafka call, again from the first one
    /// librdkafka had no room for, waiting for room at most `max_block` at a time.
    fn queue_run(&self, run: &mut Vec<rdsys::rd_kafka_message_t>) -> Result<(), ClientError> {
        let mut start = 0;
        let mut deadline = None;
        while start < run.len() {
            let pending = &mut run[start..];
            // A batch's records number far fewer than i32::MAX; a longer run is queued in parts.
            let tried = pending.len().min(c_int::MAX as usize);
            let count = c_int::try_from(tried).unwrap_or(c_int::MAX);
            // SAFETY: the handle belongs to this producer's client; the messages point into the
            // records' keys and values, alive for this call, which copies them (F_COPY); with
            // F_PARTITION each message's own partition is used, the partitioner's where unassigned.
            unsafe {
                rdsys::rd_kafka_produce_batch(
                    self.handle.0,
                    PARTITION_UNASSIGNED,
                    rdsys::RD_KAFKA_MSG_F_COPY | rdsys::RD_KAFKA_MSG_F_PARTITION,
                    pending.as_mut_ptr(),
                    count,
                )
            };
            let failed = pending[..tried]
                .iter()
                .position(|m| m.err != rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR);
            let Some(failed) = failed else {
                start += tried;
                deadline = None;
                continue;
            };
            let error = pending[failed].err;
            if error != rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR__QUEUE_FULL {
                return Err(ClientError::Kafka(format!(
                    "failed to send a record of {} bytes to {}: {}",
                    pending[failed].len + pending[failed].key_len,
                    self.topic,
                    RDKafkaErrorCode::from(error)
                )));
            }
            // librdkafka queued nothing after the first record it had no room for.
            if failed > 0 {
                deadline = None;
            }
            start += failed;
            self.wait_for_room(&mut deadline)?;
        }
        run.clear();
        Ok(())
    }

    /// Serves delivery reports for a while so that librdkafka's queue makes room, failing once
    /// `deadline` (set at the first wait for a record) has passed.
    fn wait_for_room(&self, deadline: &mut Option<Instant>) -> Result<(), ClientError> {
        let deadline = *deadline.get_or_insert_with(|| Instant::now() + self.max_block);
        if Instant::now() >= deadline {
            self.check()?;
            return Err(ClientError::Kafka(format!(
                "no room to queue a record for {} within max.block.ms ({} ms): \
                 librdkafka's queue stays full ({} records waiting for delivery)",
                self.topic,
                self.max_block.as_millis(),
                self.producer.in_flight_count()
            )));
        }
        self.producer.poll(QUEUE_WAIT);
        self.check()
    }

    /// Queues one record with its timestamp and headers.
    fn queue_one(&self, record: OutRecord<'_>) -> Result<(), ClientError> {
        let mut out: BaseRecord<'_, [u8], [u8]> = BaseRecord::to(&self.topic);
        if let Some(key) = record.key {
            out = out.key(key);
        }
        if let Some(value) = record.value {
            out = out.payload(value);
        }
        if let Some(partition) = record.partition {
            out = out.partition(partition);
        }
        if let Some(timestamp) = record.timestamp {
            out = out.timestamp(timestamp);
        }
        if !record.headers.is_empty() {
            let mut headers = OwnedHeaders::new_with_capacity(record.headers.len());
            for (key, value) in &record.headers {
                headers = headers.insert(Header { key, value: *value });
            }
            out = out.headers(headers);
        }
        let mut deadline = None;
        loop {
            match self.producer.send(out) {
                Ok(()) => return Ok(()),
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                    out = back;
                    self.wait_for_room(&mut deadline)?;
                }
                Err((e, _)) => {
                    return Err(ClientError::Kafka(format!(
                        "failed to send a record to {}: {e}",
                        self.topic
                    )));
                }
            }
        }
    }

    /// What librdkafka said since the last call (see [`crate::SplitConsumer::drain_log`]).
    pub fn drain_log(&self) -> (Vec<(Level, String)>, u64) {
        self.producer.context().log.drain()
    }

    /// Waits until every queued record is delivered, up to `timeout`.
    ///
    /// With delivery reports as events (as rdkafka sets librdkafka up), a record counts as queued
    /// until its report is served, so this alternates between serving reports and short waits in
    /// librdkafka's flush, which sends queued records at once (ignoring `linger.ms`) while it
    /// waits; it returns as soon as the last report is served.
    pub fn flush(&self, timeout: Duration) -> Result<(), ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            // Serves one report or error event, if any is waiting.
            self.producer.poll(Duration::ZERO);
            if self.producer.in_flight_count() == 0 {
                return self.check();
            }
            if Instant::now() >= deadline {
                self.check()?;
                return Err(ClientError::Kafka(format!(
                    "{} records to {} not delivered within {timeout:?}",
                    self.producer.in_flight_count(),
                    self.topic
                )));
            }
            // SAFETY: the client pointer is valid for the producer's life; the call only waits
            // (at most FLUSH_WAIT) for records to be delivered.
            unsafe {
                rdkafka::bindings::rd_kafka_flush(
                    self.producer.client().native_ptr(),
                    FLUSH_WAIT_MS,
                )
            };
        }
    }

    /// Serves the delivery reports waiting, without waiting for any, and fails with the first
    /// failed delivery so far: a writer that does not wait for its records (Flink's delivery
    /// guarantee `none`) still reports a failure at each checkpoint, as Flink's Kafka writer does.
    pub fn check_deliveries(&self) -> Result<(), ClientError> {
        loop {
            let in_flight = self.producer.in_flight_count();
            // Serves one report or error event, if any is waiting.
            self.producer.poll(Duration::ZERO);
            if self.producer.in_flight_count() == in_flight {
                return self.check();
            }
        }
    }

    /// The topic's partition count, from the cluster's metadata. As kafka-clients'
    /// `partitionsFor` waits for a topic's metadata, metadata without the topic's partitions (a
    /// topic the broker is still creating at its first use: unknown, leader not available, no
    /// partitions yet) or a failed request is asked for again until `timeout` has passed; a topic
    /// the client may not describe, an invalid name or a failed authentication fails at once.
    pub fn partitions(&self, timeout: Duration) -> Result<usize, ClientError> {
        // A deadline too far ahead to represent is none: only the partitions end the wait.
        let deadline = Instant::now().checked_add(timeout);
        let remaining = || {
            deadline.map_or(METADATA_REQUEST, |d| {
                d.saturating_duration_since(Instant::now())
            })
        };
        loop {
            let missing = match self
                .producer
                .client()
                .fetch_metadata(Some(&self.topic), remaining().min(METADATA_REQUEST))
            {
                Err(KafkaError::MetadataFetch(code)) if refuses_metadata(code) => {
                    return Err(ClientError::Kafka(format!(
                        "cannot read the metadata of {}: {code}",
                        self.topic
                    )));
                }
                Err(e) => format!("cannot read the metadata: {e}"),
                Ok(metadata) => match metadata.topics().iter().find(|t| t.name() == self.topic) {
                    None => "the cluster's metadata does not list it".to_string(),
                    Some(topic) => match topic.error().map(RDKafkaErrorCode::from) {
                        Some(code) if refuses_metadata(code) => {
                            return Err(ClientError::Kafka(format!(
                                "cannot read the partitions of {}: {code}",
                                self.topic
                            )));
                        }
                        Some(code) => code.to_string(),
                        None if topic.partitions().is_empty() => "no partitions yet".to_string(),
                        None => return Ok(topic.partitions().len()),
                    },
                },
            };
            let left = remaining();
            if left.is_zero() {
                return Err(ClientError::Kafka(format!(
                    "the partitions of {} are not known after {} ms ({missing})",
                    self.topic,
                    timeout.as_millis()
                )));
            }
            std::thread::sleep(METADATA_RETRY.min(left));
        }
    }

    fn check(&self) -> Result<(), ClientError> {
        let first = self
            .producer
            .context()
            .first_error
            .lock()
            .map_err(|_| ClientError::Kafka("the delivery report lock is poisoned".into()))?;
        match first.as_ref() {
            Some(error) => Err(ClientError::Kafka(error.clone())),
            None => Ok(()),
        }
    }
}

/// A record without timestamp or headers as librdkafka's message for `rd_kafka_produce_batch`,
/// pointing into the record's key and value (copied when queued).
fn message(record: &OutRecord<'_>) -> rdsys::rd_kafka_message_t {
    fn bytes(slice: Option<&[u8]>) -> (*mut c_void, usize) {
        slice.map_or((std::ptr::null_mut(), 0), |s| {
            (s.as_ptr().cast_mut().cast::<c_void>(), s.len())
        })
    }
    let (payload, len) = bytes(record.value);
    let (key, key_len) = bytes(record.key);
    rdsys::rd_kafka_message_t {
        err: rdsys::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR,
        rkt: std::ptr::null_mut(),
        partition: record.partition.unwrap_or(PARTITION_UNASSIGNED),
        payload,
        len,
        key,
        key_len,
        offset: 0,
        _private: std::ptr::null_mut(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn producer(properties: &[(&str, &str)]) -> Result<BatchProducer, ClientError> {
        let mut all = vec![("bootstrap.servers".to_string(), "127.0.0.1:9".to_string())];
        all.extend(
            properties
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        BatchProducer::new(&all, "topic", Duration::from_millis(300))
    }

    /// Sends `records`, which must fail: the error's message, and how long the send took.
    fn failed_send<'a>(
        producer: &BatchProducer,
        records: impl Iterator<Item = OutRecord<'a>>,
    ) -> (String, Duration) {
        let started = Instant::now();
        let outcome = producer.send(records);
        let waited = started.elapsed();
        let Err(ClientError::Kafka(message)) = outcome else {
            panic!("a failed send, not {outcome:?}");
        };
        (message, waited)
    }

    /// With no broker to deliver to and room for one record, a send waits `max_block` for room,
    /// then fails naming `max.block.ms`, as kafka-clients' send does: records queued a run at a
    /// time (no timestamp or headers) and one by one alike.
    #[test]
    fn a_full_queue_fails_a_send_after_max_block() -> Result<(), ClientError> {
        for timestamp in [None, Some(1_700_000_000_000)] {
            let producer = producer(&[("queue.buffering.max.messages", "1")])?;
            let records = (0..3).map(|_| OutRecord {
                key: None,
                value: Some(b"v".as_slice()),
                partition: Some(0),
                timestamp,
                headers: Vec::new(),
            });
            let (message, waited) = failed_send(&producer, records);
            assert!(
                message.contains("within max.block.ms (300 ms)"),
                "{message}"
            );
            assert!(
                waited >= Duration::from_millis(300) && waited < Duration::from_secs(5),
                "waited {waited:?}"
            );
        }
        Ok(())
    }

    /// Partitions the cluster does not tell (here no broker answers) are asked for until the
    /// timeout has passed, as kafka-clients' `partitionsFor` waits `max.block.ms`; then the call
    /// fails naming the topic and the wait.
    #[test]
    fn partitions_not_known_in_time_fail_naming_the_topic() -> Result<(), ClientError> {
        let producer = producer(&[])?;
        let started = Instant::now();
        let outcome = producer.partitions(Duration::from_millis(300));
        let waited = started.elapsed();
        let Err(ClientError::Kafka(message)) = outcome else {
            panic!("a failure, not {outcome:?}");
        };
        assert!(
            message.starts_with("the partitions of topic are not known after 300 ms ("),
            "{message}"
        );
        assert!(
            waited >= Duration::from_millis(300) && waited < Duration::from_secs(5),
            "waited {waited:?}"
        );
        Ok(())
    }

    /// A record librdkafka refuses for a reason other than a full queue fails the send at once,
    /// with its size and librdkafka's reason.
    #[test]
    fn a_record_over_the_size_limit_fails_the_send() -> Result<(), ClientError> {
        let producer = producer(&[("message.max.bytes", "1000")])?;
        let big = vec![b'x'; 2_000];
        let sizes = [10_usize, 20, 2_000, 30];
        let records = sizes.iter().map(|&size| OutRecord {
            key: Some(b"k".as_slice()),
            value: Some(&big[..size]),
            partition: None,
            timestamp: None,
            headers: Vec::new(),
        });
        let (message, waited) = failed_send(&producer, records);
        assert!(
            message.starts_with("failed to send a record of 2001 bytes to topic: "),
            "{message}"
        );
        assert!(message.contains("too large"), "{message}");
        // At once: no wait for room in the queue (max.block.ms is 300 ms here).
        assert!(waited < Duration::from_millis(300), "waited {waited:?}");
        Ok(())
    }
}
