package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * StreamFusion's metrics of a reader, in the {@code streamfusion} group of its metric group
 * (records and bytes in, current offsets and consumer lag are Flink's Kafka reader metrics):
 * {@code rung} (which reader polls), {@code batches} (native decode calls), {@code decodeNanos}
 * (time spent in them) and {@code skippedRecords} (malformed records skipped under the format's
 * ignore-parse-errors option).
 */
@Internal
final class ReaderMetrics {

    static final String GROUP = "streamfusion";

    private final Counter batches;
    private final Counter decodeNanos;
    private final Counter skippedRecords;

    ReaderMetrics(MetricGroup readerGroup, String rung) {
        MetricGroup group = readerGroup.addGroup(GROUP);
        group.gauge("rung", () -> rung);
        this.batches = group.counter("batches");
        this.decodeNanos = group.counter("decodeNanos");
        this.skippedRecords = group.counter("skippedRecords");
    }

    void decoded(long nanos, long skipped) {
        batches.inc();
        decodeNanos.inc(nanos);
        skippedRecords.inc(skipped);
    }
}
