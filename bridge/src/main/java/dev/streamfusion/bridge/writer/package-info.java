/**
 * Flink rows transposed into Arrow vectors, column by column, for native encoders. Uses
 * {@code types}.
 */
package dev.streamfusion.bridge.writer;
