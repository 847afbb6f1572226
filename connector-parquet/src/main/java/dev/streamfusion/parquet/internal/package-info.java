/**
 * Native handles of the Parquet connector (reader, writer), the byte ranges native code reads
 * through Flink's file systems, predicates as the native reader takes them, and the memory limit.
 * Uses only the bridge.
 */
package dev.streamfusion.parquet.internal;
