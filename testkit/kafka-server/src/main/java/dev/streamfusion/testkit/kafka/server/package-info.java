/**
 * A Kafka broker (KRaft) as the main class of a child JVM. Uses nothing of StreamFusion.
 */
package dev.streamfusion.testkit.kafka.server;
