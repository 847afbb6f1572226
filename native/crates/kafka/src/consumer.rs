//! A librdkafka consumer that is assigned a Flink reader's splits and never rebalances.

use std::collections::HashMap;
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::{ClientConfig, Offset, TopicPartitionList};

use crate::log::{ClientLog, Level};
use crate::poll::Poll;
use crate::raw::{ConsumerQueue, RawMessage};

/// Flink's `KafkaPartitionSplit` markers for offsets resolved by the reader.
pub const LATEST_OFFSET: i64 = -1;
pub const EARLIEST_OFFSET: i64 = -2;
pub const COMMITTED_OFFSET: i64 = -3;
/// Flink's marker for a split without a stopping offset.
pub const NO_STOPPING_OFFSET: i64 = i64::MIN;

/// How long librdkafka waits to fetch again when its local queue is full.
const FETCH_QUEUE_BACKOFF_MS: &str = "10";

/// A failure of a consumer or producer, with a message naming what failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// A property librdkafka rejects.
    #[error("{0}")]
    Config(String),
    /// The broker or the client failed in a way retrying does not mend.
    #[error("{0}")]
    Kafka(String),
}

/// What a poll copies besides values, offsets and timestamps.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reads {
    pub keys: bool,
    pub headers: bool,
}

#[derive(Debug)]
struct Split {
    topic: String,
    partition: i32,
    /// The first offset not to emit, when the split is bounded.
    stop: Option<i64>,
    /// Whether the split is done: reached its stop, and no longer assigned.
    finished: bool,
}

/// A consumer of explicitly assigned partitions. Calls must come from one thread at a time.
pub struct SplitConsumer {
    splits: Vec<Split>,
    /// (librdkafka topic handle, partition) to split id, filled as messages arrive.
    routes: HashMap<(usize, i32), u32>,
    finished: Vec<u32>,
    reads: Reads,
    commits: bool,
    /// The consumer's queue, which polls read in batches; dropped before `consumer`.
    queue: ConsumerQueue,
    /// A reused buffer of one poll's messages.
    batch: Vec<RawMessage>,
    api_timeout: Duration,
    poll: Poll,
    /// Where `auto.offset.reset` moves a read without a valid starting offset: `Some(true)` to
    /// the partition's first offset, `Some(false)` to its end, `None` nowhere (an error).
    reset_to_earliest: Option<bool>,
    /// Last, so it is dropped after the queue that refers to it.
    consumer: BaseConsumer<ClientLog>,
}

impl std::fmt::Debug for SplitConsumer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitConsumer")
            .field("splits", &self.splits)
            .field("reads", &self.reads)
            .finish_non_exhaustive()
    }
}

/// Error codes that retrying does not mend: the reader fails with them instead of waiting.
fn is_permanent(code: RDKafkaErrorCode) -> bool {
    use RDKafkaErrorCode as C;
    matches!(
        code,
        C::Authentication
            | C::SaslAuthenticationFailed
            | C::TopicAuthorizationFailed
            | C::ClusterAuthorizationFailed
            | C::UnknownTopic
            | C::UnknownPartition
            | C::AutoOffsetReset
            | C::SSL
            | C::Fatal
    )
}

/// Error codes of records that cannot be read (a record batch failing its checksum, one that
/// does not decompress, one the broker calls corrupt): librdkafka reports them and reads on past
/// the batch, so carrying on would lose its records. kafka-clients fails the read on them.
fn is_unreadable(code: RDKafkaErrorCode) -> bool {
    use RDKafkaErrorCode as C;
    matches!(code, C::BadMessage | C::BadCompression | C::InvalidMessage)
}

/// Whether a property carries a secret (a password, key, token, credentials or a JAAS
/// configuration): its value is never shown.
pub fn is_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    [
        "password",
        "secret",
        "jaas",
        "token",
        "credential",
        "user.info",
        "userinfo",
    ]
    .iter()
    .any(|word| key.contains(word))
        || key.ends_with(".key")
        || key.ends_with(".key.pem")
}

/// librdkafka refusing a property, naming it, and its value and librdkafka's reason unless the
/// property carries a secret (the reason may repeat the value).
pub(crate) fn rejected_property(key: &str, value: &str, description: &str) -> ClientError {
    if is_secret(key) {
        ClientError::Config(format!(
            "librdkafka rejects the value of the property '{key}' (not shown: it may be a secret)"
        ))
    } else {
        ClientError::Config(format!(
            "librdkafka rejects the property '{key}' = '{value}': {description}"
        ))
    }
}

/// Why librdkafka refuses the property `key` = `value` (a name it does not know, a value not of
/// its type or out of its range), as it checks each property when a client is configured, without
/// creating one (so nothing connects); `None` when it takes it. How properties combine is checked
/// only when a client is created, and not here.
pub fn property_refusal(key: &str, value: &str) -> Option<String> {
    let mut config = ClientConfig::new();
    config.set(key, value);
    match config.create_native_config() {
        Ok(_) => None,
        Err(KafkaError::ClientConfig(_, description, _, _)) => Some(description),
        Err(other) => Some(other.to_string()),
    }
}

fn kafka(context: &str, e: KafkaError) -> ClientError {
    ClientError::Kafka(format!("{context}: {e}"))
}

impl SplitConsumer {
    /// A consumer with librdkafka `properties`. Offsets are never committed automatically; with
    /// `group_id` unset, a private group id is used and [`SplitConsumer::commit`] does nothing.
    pub fn new(
        properties: &[(String, String)],
        reads: Reads,
        api_timeout: Duration,
    ) -> Result<Self, ClientError> {
        let mut config = ClientConfig::new();
        for (key, value) in properties {
            config.set(key, value);
        }
        let commits = config.get("group.id").is_some();
        let reset_to_earliest = match config.get("auto.offset.reset").unwrap_or("largest") {
            "smallest" | "earliest" | "beginning" => Some(true),
            "largest" | "latest" | "end" => Some(false),
            _ => None,
        };
        if !commits {
            config.set(
                "group.id",
                format!("streamfusion-reader-{}", std::process::id()),
            );
        }
        config
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("enable.partition.eof", "false")
            // When its local queue holds queued.min.messages, librdkafka pauses fetching for this
            // long (1 s by default): a reader draining faster than that would idle most of the
            // time. kafka-clients fetches again as soon as its buffer is consumed.
            .set("fetch.queue.backoff.ms", FETCH_QUEUE_BACKOFF_MS);
        let consumer: BaseConsumer<ClientLog> = config
            .create_with_context(ClientLog::default())
            .map_err(|e| match e {
                KafkaError::ClientConfig(_, description, key, value) => {
                    rejected_property(&key, &value, &description)
                }
                other => kafka("cannot create the Kafka consumer", other),
            })?;
        // SAFETY: the consumer outlives the queue (the queue is dropped first, see the struct).
        let queue = unsafe { ConsumerQueue::of(consumer.client().native_ptr()) }
            .ok_or_else(|| ClientError::Kafka("the Kafka consumer has no queue".into()))?;
        Ok(Self {
            queue,
            batch: Vec::new(),
            consumer,
            splits: Vec::new(),
            routes: HashMap::new(),
            finished: Vec::new(),
            reads,
            commits,
            api_timeout,
            poll: Poll::default(),
            reset_to_earliest,
        })
    }

    /// Adds a split read from `start` (an offset or a marker) up to `stop` (exclusive, a marker,
    /// or [`NO_STOPPING_OFFSET`]); returns its id. A split with nothing to read is finished at once.
    pub fn add_split(
        &mut self,
        topic: &str,
        partition: i32,
        start: i64,
        stop: i64,
    ) -> Result<u32, ClientError> {
        let id = u32::try_from(self.splits.len())
            .map_err(|_| ClientError::Config("too many splits".into()))?;
        let stop = match stop {
            NO_STOPPING_OFFSET => None,
            LATEST_OFFSET => Some(self.watermarks(topic, partition)?.1),
            COMMITTED_OFFSET => Some(self.committed(topic, partition)?.ok_or_else(|| {
                ClientError::Kafka(format!(
                    "the partition {topic}-{partition} has no committed offset to stop at"
                ))
            })?),
            offset if offset >= 0 => Some(offset),
            other => {
                return Err(ClientError::Config(format!(
                    "invalid stopping offset {other} for {topic}-{partition}"
                )));
            }
        };
        let mut from = match start {
            EARLIEST_OFFSET => Offset::Beginning,
            LATEST_OFFSET => Offset::End,
            COMMITTED_OFFSET => Offset::Stored,
            offset if offset >= 0 => Offset::Offset(offset),
            other => {
                return Err(ClientError::Config(format!(
                    "invalid starting offset {other} for {topic}-{partition}"
                )));
            }
        };
        self.splits.push(Split {
            topic: topic.to_string(),
            partition,
            stop,
            finished: false,
        });
        if let Some(stop) = stop {
            // Where the read really starts: librdkafka moves a start it has no valid offset for
            // (no committed offset, or one out of the partition's range) by `auto.offset.reset`,
            // and only a record read would show the split its position then. A start at or past
            // the stop finishes the split as it is, as Flink's reader takes the position it
            // seeks to before any fetch could move it. Else the read starts at that position:
            // librdkafka looking the start up again could find another (a log start moved by
            // retention, an offset committed meanwhile) at or past the stop, and no record
            // would ever come to finish the split.
            let position = match from {
                Offset::Offset(offset) if offset >= stop => Some(offset),
                Offset::Offset(offset) => self.valid_or_reset(topic, partition, offset)?,
                Offset::Beginning => Some(self.watermarks(topic, partition)?.0),
                Offset::End => Some(self.watermarks(topic, partition)?.1),
                _ => match self.committed(topic, partition)? {
                    Some(offset) if offset >= stop => Some(offset),
                    Some(offset) => self.valid_or_reset(topic, partition, offset)?,
                    None => self.reset_position(self.watermarks(topic, partition)?),
                },
            };
            match position {
                Some(position) if position >= stop => {
                    self.finish(id, false)?;
                    return Ok(id);
                }
                Some(position) => from = Offset::Offset(position),
                None => {}
            }
        }
        let mut list = TopicPartitionList::new();
        list.add_partition_offset(topic, partition, from)
            .map_err(|e| kafka("cannot assign the partition", e))?;
        self.consumer
            .incremental_assign(&list)
            .map_err(|e| kafka(&format!("cannot assign {topic}-{partition}"), e))?;
        Ok(id)
    }

    /// Polls for up to `max_records`, waiting up to `timeout` for the first. Records at or past a
    /// split's stopping offset are dropped and the split finishes.
    pub fn poll(&mut self, max_records: usize, timeout: Duration) -> Result<&Poll, ClientError> {
        self.poll.clear();
        let max = max_records.max(1);
        let mut batch = std::mem::take(&mut self.batch);
        // What is waiting, without waiting; else wait for one record and take what came with it.
        if self.queue.consume(0, max, &mut batch) == 0 {
            let wait = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
            if self.queue.consume(wait, 1, &mut batch) > 0 {
                self.queue.consume(0, max - 1, &mut batch);
            }
        }
        let result = self.take(&mut batch);
        // Messages left after a failure are destroyed here.
        batch.clear();
        self.batch = batch;
        result?;
        self.check_fatal()?;
        self.finish_passed_splits()?;
        self.poll.group();
        Ok(&self.poll)
    }

    /// Moves a batch's records into the poll, dropping those at or past their split's stop.
    fn take(&mut self, batch: &mut Vec<RawMessage>) -> Result<(), ClientError> {
        // Splits whose partition reported an error at an offset none of their records reached.
        let mut unread: Vec<(u32, i64)> = Vec::new();
        for message in batch.drain(..) {
            if let Some(code) = message.error() {
                if is_unreadable(code) {
                    return Err(ClientError::Kafka(format!(
                        "the Kafka consumer cannot read the records of {}-{} at offset {}: {}",
                        message.topic(),
                        message.partition(),
                        message.offset(),
                        message.error_string()
                    )));
                }
                if is_permanent(code) {
                    return Err(ClientError::Kafka(format!(
                        "the Kafka consumer failed on {}-{}: {}",
                        message.topic(),
                        message.partition(),
                        message.error_string()
                    )));
                }
                // End of partition, transport errors and the like: librdkafka carries on; each
                // distinct error is logged once.
                if code != RDKafkaErrorCode::PartitionEOF {
                    self.consumer.context().retried(format!(
                        "the Kafka consumer on {}-{}: {}",
                        message.topic(),
                        message.partition(),
                        message.error_string()
                    ));
                }
                if message.offset() >= 0
                    && let Some(id) = self.split_of(&message.topic(), message.partition())
                {
                    unread.push((id, message.offset()));
                }
                continue;
            }
            let key = (message.topic_key(), message.partition());
            let id = match self.routes.get(&key) {
                Some(id) => *id,
                None => match self.split_of(&message.topic(), message.partition()) {
                    Some(id) => {
                        self.routes.insert(key, id);
                        id
                    }
                    None => continue,
                },
            };
            let split = &self.splits[id as usize];
            if split.finished {
                continue;
            }
            let offset = message.offset();
            if !unread.is_empty() {
                unread.retain(|&(split, at)| split != id || offset < at);
            }
            let stop = split.stop;
            if stop.is_none_or(|stop| offset < stop) {
                self.poll
                    .push(id, &message, self.reads.keys, self.reads.headers);
            }
            if stop.is_some_and(|stop| offset + 1 >= stop) {
                self.finish(id, true)?;
            }
        }
        for (id, offset) in unread {
            self.read_again_from(id, offset)?;
        }
        Ok(())
    }

    /// Moves the split's partition back to `offset`, where an error left it unread. librdkafka
    /// sets a partition's position one past the offset each message it hands over names, error
    /// messages too, and fetches again from `offset` itself: the position would name a record
    /// never read, which would finish a bounded split before that record (its position reaching
    /// the stop) and resume a paused partition after it. A seek puts fetching and the position
    /// back in step (the position unknown until the next record or transaction marker is read).
    fn read_again_from(&mut self, id: u32, offset: i64) -> Result<(), ClientError> {
        let Some(split) = self.splits.get(id as usize).filter(|split| !split.finished) else {
            return Ok(());
        };
        self.consumer
            .seek(
                &split.topic,
                split.partition,
                Offset::Offset(offset),
                self.api_timeout,
            )
            .map_err(|e| {
                kafka(
                    &format!(
                        "cannot read {}-{} again from offset {offset}, where an error left it",
                        split.topic, split.partition
                    ),
                    e,
                )
            })
    }

    /// Fails on a fatal client error (librdkafka stops the client after one).
    fn check_fatal(&self) -> Result<(), ClientError> {
        let mut text = [0 as std::ffi::c_char; 512];
        // SAFETY: the client is live; the buffer is local and its size is passed.
        let code = unsafe {
            rdkafka::bindings::rd_kafka_fatal_error(
                self.consumer.client().native_ptr(),
                text.as_mut_ptr(),
                text.len(),
            )
        };
        if code == rdkafka::bindings::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
            return Ok(());
        }
        // SAFETY: librdkafka NUL-terminates what it writes within the buffer.
        let reason = unsafe { std::ffi::CStr::from_ptr(text.as_ptr()) }.to_string_lossy();
        Err(ClientError::Kafka(format!(
            "the Kafka consumer failed: {reason}"
        )))
    }

    /// The last poll's records.
    pub fn last_poll(&self) -> &Poll {
        &self.poll
    }

    /// Splits finished since the last call.
    pub fn take_finished(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.finished)
    }

    /// The split's topic and partition.
    pub fn split(&self, id: u32) -> Option<(&str, i32)> {
        self.splits
            .get(id as usize)
            .map(|s| (s.topic.as_str(), s.partition))
    }

    /// Stops or restarts fetching the splits (watermark alignment).
    pub fn pause(&mut self, ids: &[u32], pause: bool) -> Result<(), ClientError> {
        let mut list = TopicPartitionList::new();
        for &id in ids {
            if let Some(split) = self.splits.get(id as usize).filter(|s| !s.finished) {
                list.add_partition(&split.topic, split.partition);
            }
        }
        if list.count() == 0 {
            return Ok(());
        }
        let result = if pause {
            self.consumer.pause(&list)
        } else {
            self.consumer.resume(&list)
        };
        result.map_err(|e| kafka("cannot pause or resume partitions", e))
    }

    /// Commits offsets to the group for monitoring; does nothing without a configured group id.
    /// Waits for the group coordinator's answer at most the API timeout: a coordinator that does
    /// not answer fails the commit (as Flink's reader, the caller logs it and goes on) instead of
    /// holding the consumer, and a task cancelled meanwhile, indefinitely.
    pub fn commit(&mut self, offsets: &[(String, i32, i64)]) -> Result<(), ClientError> {
        if !self.commits || offsets.is_empty() {
            return Ok(());
        }
        let mut list = TopicPartitionList::new();
        for (topic, partition, offset) in offsets {
            list.add_partition_offset(topic, *partition, Offset::Offset(*offset))
                .map_err(|e| kafka("cannot commit offsets", e))?;
        }
        let client = self.consumer.client().native_ptr();
        let timeout = i32::try_from(self.api_timeout.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: the client pointer is valid for the consumer's life. The result queue is ours:
        // created here and destroyed on every path (librdkafka keeps its own reference while the
        // commit is in flight); the event polled from it is destroyed after its error is read.
        let outcome = unsafe {
            let queue = rdkafka::bindings::rd_kafka_queue_new(client);
            if queue.is_null() {
                return Err(ClientError::Kafka(
                    "cannot commit offsets: no queue for the result".into(),
                ));
            }
            let started = rdkafka::bindings::rd_kafka_commit_queue(
                client,
                list.ptr(),
                queue,
                None,
                std::ptr::null_mut(),
            );
            let outcome = if started
                != rdkafka::bindings::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
            {
                Err(RDKafkaErrorCode::from(started))
            } else {
                let event = rdkafka::bindings::rd_kafka_queue_poll(queue, timeout);
                if event.is_null() {
                    Err(RDKafkaErrorCode::RequestTimedOut)
                } else {
                    let error = rdkafka::bindings::rd_kafka_event_error(event);
                    rdkafka::bindings::rd_kafka_event_destroy(event);
                    if error == rdkafka::bindings::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
                        Ok(())
                    } else {
                        Err(RDKafkaErrorCode::from(error))
                    }
                }
            };
            rdkafka::bindings::rd_kafka_queue_destroy(queue);
            outcome
        };
        outcome.map_err(|code| {
            ClientError::Kafka(format!(
                "cannot commit offsets: {code} (waited up to {:?})",
                self.api_timeout
            ))
        })
    }

    /// What librdkafka said since the last call: its log lines and the errors it retries, each
    /// distinct one once, and how many lines were dropped for want of room.
    pub fn drain_log(&self) -> (Vec<(Level, String)>, u64) {
        self.consumer.context().drain()
    }

    /// Records not yet read: per open split, the cached high watermark minus the position.
    pub fn lag(&self) -> i64 {
        let Ok(positions) = self.consumer.position() else {
            return -1;
        };
        let mut lag = 0;
        for element in positions.elements() {
            let Offset::Offset(position) = element.offset() else {
                continue;
            };
            let mut low = -1;
            let mut high = -1;
            let Ok(topic) = std::ffi::CString::new(element.topic()) else {
                continue;
            };
            // SAFETY: the client pointer is valid for the consumer's life; the out pointers are
            // local; the call only reads librdkafka's cached watermarks.
            unsafe {
                rdkafka::bindings::rd_kafka_get_watermark_offsets(
                    self.consumer.client().native_ptr(),
                    topic.as_ptr(),
                    element.partition(),
                    &mut low,
                    &mut high,
                )
            };
            if high >= position {
                lag += high - position;
            }
        }
        lag
    }

    fn split_of(&self, topic: &str, partition: i32) -> Option<u32> {
        self.splits
            .iter()
            .position(|s| s.partition == partition && s.topic == topic && !s.finished)
            .and_then(|i| u32::try_from(i).ok())
    }

    fn finish(&mut self, id: u32, assigned: bool) -> Result<(), ClientError> {
        let split = &mut self.splits[id as usize];
        split.finished = true;
        self.finished.push(id);
        if assigned {
            let mut list = TopicPartitionList::new();
            list.add_partition(&split.topic, split.partition);
            self.consumer
                .incremental_unassign(&list)
                .map_err(|e| kafka("cannot unassign a finished partition", e))?;
        }
        self.routes.retain(|_, split| *split != id);
        Ok(())
    }

    /// Finishes bounded splits whose position passed their stop without a record to show for it
    /// (transaction markers, compacted offsets).
    fn finish_passed_splits(&mut self) -> Result<(), ClientError> {
        if !self.splits.iter().any(|s| s.stop.is_some() && !s.finished) {
            return Ok(());
        }
        let positions = self
            .consumer
            .position()
            .map_err(|e| kafka("cannot read positions", e))?;
        let mut passed = Vec::new();
        for element in positions.elements() {
            let Offset::Offset(position) = element.offset() else {
                continue;
            };
            if let Some(id) = self.split_of(element.topic(), element.partition())
                && self.splits[id as usize]
                    .stop
                    .is_some_and(|stop| position >= stop)
            {
                passed.push(id);
            }
        }
        for id in passed {
            self.finish(id, true)?;
        }
        Ok(())
    }

    /// `offset` where it lies within the partition's offsets, else where `auto.offset.reset`
    /// moves the read (`None`: it moves it nowhere).
    fn valid_or_reset(
        &self,
        topic: &str,
        partition: i32,
        offset: i64,
    ) -> Result<Option<i64>, ClientError> {
        let (low, high) = self.watermarks(topic, partition)?;
        Ok(if (low..=high).contains(&offset) {
            Some(offset)
        } else {
            self.reset_position((low, high))
        })
    }

    /// Where `auto.offset.reset` moves a read of a partition of `watermarks` (first offset, end).
    fn reset_position(&self, (low, high): (i64, i64)) -> Option<i64> {
        self.reset_to_earliest
            .map(|earliest| if earliest { low } else { high })
    }

    fn watermarks(&self, topic: &str, partition: i32) -> Result<(i64, i64), ClientError> {
        self.consumer
            .fetch_watermarks(topic, partition, self.api_timeout)
            .map_err(|e| {
                kafka(
                    &format!("cannot read the offsets of {topic}-{partition}"),
                    e,
                )
            })
    }

    fn committed(&self, topic: &str, partition: i32) -> Result<Option<i64>, ClientError> {
        let mut list = TopicPartitionList::new();
        list.add_partition(topic, partition);
        let committed = self
            .consumer
            .committed_offsets(list, self.api_timeout)
            .map_err(|e| {
                kafka(
                    &format!("cannot read the committed offset of {topic}-{partition}"),
                    e,
                )
            })?;
        Ok(committed
            .find_partition(topic, partition)
            .and_then(|e| match e.offset() {
                Offset::Offset(offset) => Some(offset),
                _ => None,
            }))
    }
}

impl Drop for SplitConsumer {
    fn drop(&mut self) {
        // rdkafka's drop closes the consumer by polling its queue until librdkafka says it is
        // closed, 100 ms a poll: a poll that sees the close's own event waits out the rest of
        // its 100 ms, which a bounded job's last reader then adds to the job. librdkafka's
        // blocking close returns as soon as the close is done; rdkafka's drop then gets
        // "already closed" from its own close request and skips its polling. An assign-only
        // consumer's close is local (no group to leave, no commit).
        // SAFETY: the client is live until the `consumer` field is dropped, after this.
        unsafe {
            rdkafka::bindings::rd_kafka_consumer_close(self.consumer.client().native_ptr());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn librdkafka_names_what_it_refuses_without_a_client() {
        assert_eq!(property_refusal("socket.timeout.ms", "30000"), None);
        assert_eq!(property_refusal("fetch.min.bytes", "1"), None);
        for (key, value) in [
            ("socket.timeout.ms", "400000"),
            ("fetch.min.bytes", "0"),
            ("batch.size", "0"),
            ("no.such.property", "1"),
            ("check.crcs", "maybe"),
        ] {
            let reason = property_refusal(key, value);
            assert!(
                reason.as_deref().is_some_and(|r| !r.is_empty()),
                "{key} = {value}"
            );
        }
    }

    #[test]
    fn a_rejected_secret_is_named_but_never_shown() {
        let shown = |properties: &[(&str, &str)]| {
            let properties: Vec<(String, String)> = properties
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            match SplitConsumer::new(&properties, Reads::default(), Duration::from_secs(1)) {
                Err(ClientError::Config(message)) => message,
                other => format!("{other:?}"),
            }
        };
        let open = shown(&[("fetch.wait.max.ms", "soon")]);
        assert!(open.contains("'fetch.wait.max.ms' = 'soon'"), "{open}");
        let ClientError::Config(secret) = rejected_property(
            "ssl.keystore.password",
            "hunter2",
            "Invalid value \"hunter2\"",
        ) else {
            panic!("a configuration error");
        };
        assert!(secret.contains("'ssl.keystore.password'"), "{secret}");
        assert!(!secret.contains("hunter2"), "{secret}");
        for key in [
            "sasl.password",
            "ssl.keystore.password",
            "ssl.key.pem",
            "sasl.oauthbearer.token.endpoint.url",
            "basic.auth.user.info",
            "ssl.key",
        ] {
            assert!(is_secret(key), "{key}");
        }
        assert!(!is_secret("bootstrap.servers"));
    }

    fn owned(properties: &[(&str, &str)]) -> Vec<(String, String)> {
        properties
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// A group coordinator that never answers (no broker at all) fails a commit after the API
    /// timeout instead of holding the consumer; closing the consumer then waits at most the
    /// session timeout.
    #[test]
    fn a_commit_nobody_answers_fails_after_the_api_timeout() -> Result<(), ClientError> {
        let properties = owned(&[
            ("bootstrap.servers", "127.0.0.1:9"),
            ("group.id", "streamfusion-commit-timeout"),
            ("session.timeout.ms", "6000"),
        ]);
        let mut consumer =
            SplitConsumer::new(&properties, Reads::default(), Duration::from_millis(800))?;
        let started = std::time::Instant::now();
        let outcome = consumer.commit(&[("topic".to_string(), 0, 42)]);
        let waited = started.elapsed();
        let Err(ClientError::Kafka(message)) = outcome else {
            panic!("a failed commit, not {outcome:?}");
        };
        assert!(message.starts_with("cannot commit offsets"), "{message}");
        assert!(waited < Duration::from_secs(10), "waited {waited:?}");
        // Closing it is bounded too, by the session timeout.
        let closing = std::time::Instant::now();
        drop(consumer);
        assert!(
            closing.elapsed() < Duration::from_secs(20),
            "closing took {:?}",
            closing.elapsed()
        );
        Ok(())
    }
}
