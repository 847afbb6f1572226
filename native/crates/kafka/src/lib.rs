//! Kafka over librdkafka for StreamFusion.
//!
//! [`SplitConsumer`] reads the partitions a Flink source reader is given (its splits), from the
//! offsets Flink's split state holds, without consumer-group rebalancing. A poll copies the
//! messages' bytes into one contiguous buffer per part (values, keys) and orders the records by
//! split, so a format decoder can turn each part of the whole poll into one Arrow batch.
//! [`BatchProducer`] sends natively encoded batches to one topic.

mod consumer;
mod log;
mod poll;
mod producer;
mod raw;

pub use consumer::{
    COMMITTED_OFFSET, ClientError, EARLIEST_OFFSET, LATEST_OFFSET, NO_STOPPING_OFFSET, Reads,
    SplitConsumer, property_refusal,
};
pub use log::Level;
pub use poll::{Part, Poll};
pub use producer::{BatchProducer, OutRecord};
pub use raw::TimestampKind;
