package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.table.data.RowData;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The records of one poll, decoded: per partition one Arrow batch of rows, and per record its
 * rows, offset and timestamp. The batches are freed when the reader has emitted every record
 * ({@link #recycle()}), or when the reader closes.
 */
@Internal
final class DecodedPoll implements RecordsWithSplitIds<KafkaMessage> {

    /** One partition's records of the poll. */
    static final class SplitBatch {
        final String splitId;
        final DecodedPart values;
        /** The records' keys, or {@code null} when the table reads none. */
        final DecodedPart keys;
        final long[] offsets;
        final long[] timestamps;
        /** Per record its metadata columns, or {@code null} when the table reads none. */
        final RowData[] metadata;

        SplitBatch(
                String splitId,
                DecodedPart values,
                DecodedPart keys,
                long[] offsets,
                long[] timestamps,
                RowData[] metadata) {
            this.splitId = splitId;
            this.values = values;
            this.keys = keys;
            this.offsets = offsets;
            this.timestamps = timestamps;
            this.metadata = metadata;
        }

        void close() {
            values.close();
            if (keys != null) {
                keys.close();
            }
        }
    }

    private final List<SplitBatch> batches;
    private final Set<String> finishedSplits;
    private final Consumer<DecodedPoll> onRecycle;
    private final KafkaMessage message = new KafkaMessage();
    private int split = -1;
    private int record;
    private boolean recycled;

    DecodedPoll(List<SplitBatch> batches, Set<String> finishedSplits, Consumer<DecodedPoll> onRecycle) {
        this.batches = new ArrayList<>(batches);
        this.finishedSplits = finishedSplits;
        this.onRecycle = onRecycle;
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
        if (record >= batch.offsets.length) {
            return null;
        }
        message.moveTo(
                batch.values,
                batch.keys,
                record,
                batch.offsets[record],
                batch.timestamps[record],
                batch.metadata == null ? null : batch.metadata[record]);
        record++;
        return message;
    }

    @Override
    public Set<String> finishedSplits() {
        return finishedSplits;
    }

    /** Frees the poll's batches; idempotent. */
    @Override
    public synchronized void recycle() {
        if (recycled) {
            return;
        }
        recycled = true;
        for (SplitBatch batch : batches) {
            batch.close();
        }
        onRecycle.accept(this);
    }
}
