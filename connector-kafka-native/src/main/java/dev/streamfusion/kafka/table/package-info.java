/**
 * The {@code streamfusion-kafka} table: its factory and options, the plan of how a table reads
 * (native rung, Java rung, or Flink's own reader) and writes. Uses {@code source}, {@code sink},
 * {@code internal}, the bridge and the formats; nothing uses it but Flink's factory discovery.
 */
package dev.streamfusion.kafka.table;
