package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

import java.util.HashMap;
import java.util.Map;

/**
 * StreamFusion's metrics of a reader, in the {@code streamfusion} group of its metric group
 * (records and bytes in, current offsets and consumer lag are Flink's Kafka reader metrics):
 * {@code rung} (which reader polls), {@code batches} (native decode calls), {@code decodeNanos}
 * (time spent in them) and {@code skippedRecords} (records skipped: by the format's
 * ignore-parse-errors option, or under {@code 'streamfusion.errors'} = {@code 'SKIP'} or {@code
 * 'DEAD_LETTER'}; a record whose key and value are both skipped counts twice) and {@code
 * deadLetteredRecords} (records produced to the dead-letter topic), in total and per partition
 * ({@code streamfusion.partition.<topic>-<partition>.skippedRecords}, and so on).
 */
@Internal
final class ReaderMetrics {

    static final String GROUP = "streamfusion";

    private final Counter batches;
    private final Counter decodeNanos;
    private final Counter skippedRecords;
    private final MetricGroup group;
    private final Map<String, Counter> skippedByPartition = new HashMap<>();
    private final Counter deadLetteredRecords;
    private final Map<String, Counter> deadLetteredByPartition = new HashMap<>();

    ReaderMetrics(MetricGroup readerGroup, String rung) {
        MetricGroup group = readerGroup.addGroup(GROUP);
        this.group = group;
        group.gauge("rung", () -> rung);
        this.batches = group.counter("batches");
        this.decodeNanos = group.counter("decodeNanos");
        this.skippedRecords = group.counter("skippedRecords");
        this.deadLetteredRecords = group.counter("deadLetteredRecords");
    }

    /** Counts a record of {@code split} produced to the dead-letter topic. */
    void deadLettered(String split) {
        deadLetteredRecords.inc();
        deadLetteredByPartition
                .computeIfAbsent(split, s -> group.addGroup("partition", s).counter("deadLetteredRecords"))
                .inc();
    }

    /** Counts a skipped record of {@code split} (its topic and partition). */
    void skipped(String split) {
        skippedByPartition.computeIfAbsent(split, s -> group.addGroup("partition", s).counter("skippedRecords")).inc();
    }

    void decoded(long nanos, long skipped) {
        batches.inc();
        decodeNanos.inc(nanos);
        skippedRecords.inc(skipped);
    }
}
