//! A librdkafka producer of encoded batches to one topic.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use rdkafka::{ClientConfig, ClientContext, Message};

use crate::consumer::ClientError;

/// Remembers the first failed delivery, for the next send or flush to report.
#[derive(Debug, Default)]
struct Deliveries {
    first_error: Mutex<Option<String>>,
}

impl ClientContext for Deliveries {}

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
    /// Java's producer does for keyed records (murmur2), unless the properties say otherwise.
    pub fn new(properties: &[(String, String)], topic: &str) -> Result<Self, ClientError> {
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
        })
    }

    /// Queues `records`, waiting for room in librdkafka's queue as needed.
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
            loop {
                match self.producer.send(out) {
                    Ok(()) => break,
                    Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
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
