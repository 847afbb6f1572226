//! A librdkafka producer of encoded batches to one topic.

use std::sync::Mutex;
use std::time::{Duration, Instant};

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

/// A producer of one topic. Delivery errors surface at the next [`BatchProducer::send`] or
/// [`BatchProducer::flush`]. Calls must come from one thread at a time.
pub struct BatchProducer {
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

/// How long a flush waits in librdkafka between serving delivery reports.
const FLUSH_WAIT_MS: i32 = 1;

/// How long a send waits for room in librdkafka's queue before polling again.
const QUEUE_WAIT: Duration = Duration::from_millis(50);

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
        let producer = config
            .create_with_context(Deliveries::default())
            .map_err(|e| match e {
                KafkaError::ClientConfig(_, description, key, value) => {
                    crate::consumer::rejected_property(&key, &value, &description)
                }
                other => ClientError::Kafka(format!("cannot create the Kafka producer: {other}")),
            })?;
        Ok(Self {
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
        for record in records {
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
                    Ok(()) => break,
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                        let deadline =
                            *deadline.get_or_insert_with(|| Instant::now() + self.max_block);
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
                        out = back;
                        self.producer.poll(QUEUE_WAIT);
                        self.check()?;
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
        self.producer.poll(Duration::ZERO);
        self.check()
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

    /// The topic's partition count, from the cluster's metadata.
    pub fn partitions(&self, timeout: Duration) -> Result<usize, ClientError> {
        let metadata = self
            .producer
            .client()
            .fetch_metadata(Some(&self.topic), timeout)
            .map_err(|e| {
                ClientError::Kafka(format!("cannot read the metadata of {}: {e}", self.topic))
            })?;
        let topic = metadata
            .topics()
            .iter()
            .find(|t| t.name() == self.topic)
            .ok_or_else(|| ClientError::Kafka(format!("unknown topic {}", self.topic)))?;
        if let Some(error) = topic.error() {
            return Err(ClientError::Kafka(format!(
                "cannot read the partitions of {}: {:?}",
                self.topic,
                RDKafkaErrorCode::from(error)
            )));
        }
        Ok(topic.partitions().len())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// With no broker to deliver to and room for one record, a send waits `max_block` for room,
    /// then fails naming `max.block.ms`, as kafka-clients' send does.
    #[test]
    fn a_full_queue_fails_a_send_after_max_block() -> Result<(), ClientError> {
        let properties: Vec<(String, String)> = [
            ("bootstrap.servers", "127.0.0.1:9"),
            ("queue.buffering.max.messages", "1"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let producer = BatchProducer::new(&properties, "topic", Duration::from_millis(300))?;
        let records = (0..3).map(|_| OutRecord {
            key: None,
            value: Some(b"v".as_slice()),
            partition: Some(0),
            timestamp: None,
            headers: Vec::new(),
        });
        let started = Instant::now();
        let outcome = producer.send(records);
        let waited = started.elapsed();
        let Err(ClientError::Kafka(message)) = outcome else {
            panic!("a failed send, not {outcome:?}");
        };
        assert!(
            message.contains("within max.block.ms (300 ms)"),
            "{message}"
        );
        assert!(
            waited >= Duration::from_millis(300) && waited < Duration::from_secs(5),
            "waited {waited:?}"
        );
        Ok(())
    }
}
