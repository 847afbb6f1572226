package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;

import org.apache.arrow.vector.VectorSchemaRoot;

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
        final VectorSchemaRoot root;
        final ArrowColumnarBatch rows;
        /** Record {@code i}'s rows are {@code rowStarts[i]} up to {@code rowStarts[i + 1]}. */
        final int[] rowStarts;
        final long[] offsets;
        final long[] timestamps;

        SplitBatch(
                String splitId,
                VectorSchemaRoot root,
                ArrowColumnarBatch rows,
                int[] rowStarts,
                long[] offsets,
                long[] timestamps) {
            this.splitId = splitId;
            this.root = root;
            this.rows = rows;
            this.rowStarts = rowStarts;
            this.offsets = offsets;
            this.timestamps = timestamps;
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
                batch.rows,
                batch.rowStarts[record],
                batch.rowStarts[record + 1],
                batch.offsets[record],
                batch.timestamps[record]);
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
            batch.root.close();
        }
        onRecycle.accept(this);
    }
}
