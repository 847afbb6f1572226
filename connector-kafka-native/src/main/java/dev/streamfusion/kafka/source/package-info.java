/**
 * The Kafka source: Flink's enumeration and splits, split readers of both rungs (librdkafka or
 * kafka-clients polls, Rust decodes), and the reader that emits rows over decoded batches. Uses
 * {@code internal}, the bridge and the formats.
 */
package dev.streamfusion.kafka.source;
