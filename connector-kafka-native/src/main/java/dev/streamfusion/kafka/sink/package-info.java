/**
 * The Kafka sinks: the native rung (Rust encodes, librdkafka produces) and the Java rung (Rust
 * encodes, Flink's transactional Kafka writer produces). Uses {@code internal} and the formats.
 */
package dev.streamfusion.kafka.sink;
