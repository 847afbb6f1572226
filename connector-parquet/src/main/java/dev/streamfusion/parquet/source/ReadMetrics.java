package dev.streamfusion.parquet.source;

import dev.streamfusion.parquet.internal.NativeParquetReader;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/** A reader's counters in its {@code streamfusion} metric group. */
@Internal
final class ReadMetrics {

    /** Rows the page index ruled out (never read). */
    final Counter pageSkippedRows;
    /** Bytes asked of Flink's file system, for files read through it. */
    final Counter bytesRequested;
    /**
     * Bytes the reader held outside the heap at its last batch: the Arrow batches handed out and
     * not yet released, and the native reader's (see {@code NativeParquetReader#heldBytes}).
     */
    volatile long memoryBytes;

    ReadMetrics(MetricGroup reader) {
        MetricGroup group = reader.addGroup("streamfusion");
        this.pageSkippedRows = group.counter("pageSkippedRows");
        this.bytesRequested = group.counter("bytesRequested");
        group.gauge("memoryBytes", () -> memoryBytes);
    }
}
