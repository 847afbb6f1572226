/**
 * The {@code streamfusion-parquet} bulk format of Flink's file connectors: the native writer for
 * its file sink and a native reader for its file source and compaction. Uses {@code sink},
 * {@code internal} and the bridge.
 */
package dev.streamfusion.parquet.format;
