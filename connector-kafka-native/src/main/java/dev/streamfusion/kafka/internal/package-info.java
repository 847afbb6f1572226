/**
 * Native handles of the Kafka connector (librdkafka consumer and producer) and the translation of
 * {@code properties.*} into librdkafka's configuration. Uses only the bridge and the formats.
 */
package dev.streamfusion.kafka.internal;
