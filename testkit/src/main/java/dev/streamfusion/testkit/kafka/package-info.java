/**
 * A real Kafka broker for tests and the demo, started in a child JVM. Uses {@code
 * kafka.server}.
 */
package dev.streamfusion.testkit.kafka;
