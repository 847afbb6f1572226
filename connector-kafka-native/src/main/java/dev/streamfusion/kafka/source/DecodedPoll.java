package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.source.ArrowRecords;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The records of one poll, decoded: Arrow batches of rows, and per partition its records' rows,
 * offsets and timestamps.
 */
@Internal
final class DecodedPoll extends ArrowRecords<KafkaMessage> {

    /**
     * One partition's records of the poll: records {@code first} up to {@code first + count} of
     * its parts and arrays, which may hold other partitions' records too.
     */
    static final class SplitBatch {
        final String splitId;
        final DecodedPart values;
        /** The records' keys, or {@code null} when the table reads none. */
        final DecodedPart keys;
        final int first;
        final int count;
        final long[] offsets;
        final long[] timestamps;
        /** Per record its metadata columns, or {@code null} when the table reads none. */
        final RowData[] metadata;
        /** Per record whether it is an upsert table's tombstone, or {@code null} for other tables. */
        final boolean[] tombstones;

        SplitBatch(
                String splitId,
                DecodedPart values,
                DecodedPart keys,
                int first,
                int count,
                long[] offsets,
                long[] timestamps,
                RowData[] metadata,
                boolean[] tombstones) {
            this.splitId = splitId;
            this.values = values;
            this.keys = keys;
            this.first = first;
            this.count = count;
            this.offsets = offsets;
            this.timestamps = timestamps;
            this.metadata = metadata;
            this.tombstones = tombstones;
        }
    }

    private final List<SplitBatch> batches;
    /** The decoded batches the split batches read, each freed once. */
    private final List<DecodedPart> parts;
    private final KafkaMessage message = new KafkaMessage();
    /** Whether each partition's records of the poll are one record (for the operator island). */
    private final boolean wholeRuns;
    private int split = -1;
    private int record;

    /**
     * The poll's records, a record at a time, or, {@code wholeRuns}, each partition's records of
     * the poll as one {@link KafkaMessage} (a run: tables read that way generate no watermarks, so
     * the order of partitions does not matter).
     */
    DecodedPoll(List<SplitBatch> batches, List<DecodedPart> parts, Set<String> finishedSplits, boolean wholeRuns) {
        super(finishedSplits);
        this.batches = wholeRuns ? new ArrayList<>(batches) : firstRecordsFirst(batches);
        this.parts = new ArrayList<>(parts);
        this.wholeRuns = wholeRuns;
    }

    /**
     * Puts each partition's first record before any partition's other records. Flink creates a
     * partition's watermark output at its first record: until every partition of the poll has
     * one, a periodic watermark would follow the partitions emitted so far alone, and the others'
     * records would arrive late. Flink's reader accepts a split id again later in one poll.
     */
    private static List<SplitBatch> firstRecordsFirst(List<SplitBatch> batches) {
        if (batches.size() < 2) {
            return new ArrayList<>(batches);
        }
        List<SplitBatch> ordered = new ArrayList<>(2 * batches.size());
        for (SplitBatch b : batches) {
            ordered.add(
                    new SplitBatch(
                            b.splitId, b.values, b.keys, b.first, 1, b.offsets, b.timestamps, b.metadata, b.tombstones));
        }
        for (SplitBatch b : batches) {
            if (b.count > 1) {
                ordered.add(
                        new SplitBatch(
                                b.splitId,
                                b.values,
                                b.keys,
                                b.first + 1,
                                b.count - 1,
                                b.offsets,
                                b.timestamps,
                                b.metadata,
                                b.tombstones));
            }
        }
        return ordered;
    }

    @Override
    public String nextSplit() {
        split++;
        record = 0;
        return split < batches.size() ? batches.get(split).splitId : null;
    }

    @Override
    public KafkaMessage nextRecordFromSplit() {
        SplitBatch batch = batches.get(split);
        if (record >= batch.count) {
            return null;
        }
        if (wholeRuns) {
            message.moveToRun(batch.values, batch.first, batch.count, batch.offsets[batch.first + batch.count - 1]);
            record = batch.count;
            return message;
        }
        int at = batch.first + record;
        message.moveTo(
                batch.values,
                batch.keys,
                at,
                batch.offsets[at],
                batch.timestamps[at],
                batch.metadata == null ? null : batch.metadata[at],
                batch.tombstones != null && batch.tombstones[at]);
        record++;
        return message;
    }

    /** The decoded values' and keys' batches. */
    @Override
    public List<VectorSchemaRoot> batches() {
        return parts.stream().map(part -> part.root).collect(Collectors.toList());
    }

    @Override
    protected void free() {
        parts.forEach(DecodedPart::close);
    }
}
