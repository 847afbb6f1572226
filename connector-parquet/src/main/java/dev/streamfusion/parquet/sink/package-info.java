/**
 * Part files of Flink's file sink encoded natively, and the memory bound the part files of one
 * subtask share. Uses {@code internal} and the bridge.
 */
package dev.streamfusion.parquet.sink;
