package dev.streamfusion.fluss.source;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.source.ArrowSourceReader;
import dev.streamfusion.bridge.source.FetchedBatches;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.table.data.RowData;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Reads the buckets it is given. Rows go downstream as views over Arrow batches, or the batches go
 * whole (to the operator island); a checkpoint records, per bucket, the offset after the last row
 * emitted (or, in a key-value snapshot, how many of its rows were emitted). When a bucket's
 * snapshot is read to its end the reader goes on with the bucket's log from the offset the
 * snapshot was taken at, and at its next checkpoint tells the enumerator, which lets the snapshot
 * go once that checkpoint completes. The buckets of a partition dropped from the table are let go
 * when the enumerator says so.
 *
 * @param <T> what it emits: {@link RowData} or {@link ArrowBatch}
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class FlussSourceReader<T> extends ArrowSourceReader<BucketBatch.Row, T, BucketSplit, BucketSplit.State> {

    private final SourceReaderContext context;
    /** The splits being read, by id (to find those of a dropped partition). */
    private final Map<String, BucketSplit> reading = new HashMap<>();
    /** Partitions dropped while this reader ran. */
    private final Set<Long> removedPartitions = new HashSet<>();
    /** Buckets whose snapshots were read since the last checkpoint. */
    private final Set<BucketId> snapshotsRead = new HashSet<>();

    FlussSourceReader(
            Supplier<SplitReader<BucketBatch.Row, BucketSplit>> splitReaders, SourceReaderContext context,
            FetchedBatches fetched, RecordEmitter<BucketBatch.Row, T, BucketSplit.State> emitter) {
        super(splitReaders, emitter, new Configuration(), context, fetched,
                SplitStates.of(BucketSplit.State::new, BucketSplit.State::toSplit));
        this.context = context;
    }

    @Override
    public void addSplits(List<BucketSplit> splits) {
        splits.forEach(split -> reading.put(split.splitId(), split));
        super.addSplits(splits);
    }

    @Override
    protected void onSplitFinished(Map<String, BucketSplit.State> finished) {
        // Snapshots finish (their buckets' logs follow), and the splits of dropped partitions.
        List<BucketSplit> logs = new ArrayList<>();
        finished.forEach((id, state) -> {
            reading.remove(id);
            BucketSplit split = state.split;
            if (split.isSnapshot() && !removedPartitions.contains(split.id.partitionId)) {
                logs.add(split.log(state.offset));
                snapshotsRead.add(split.id);
            }
        });
        if (!logs.isEmpty()) {
            addSplits(logs);
        }
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (event instanceof PartitionsRemoved) {
            Set<Long> removed = ((PartitionsRemoved) event).partitionIds;
            removedPartitions.addAll(removed);
            List<BucketSplit> gone = new ArrayList<>();
            reading.values().stream().filter(split -> removed.contains(split.id.partitionId)).forEach(gone::add);
            if (!gone.isEmpty()) {
                splitFetcherManager.removeSplits(gone);
            }
        }
    }

    @Override
    public List<BucketSplit> snapshotState(long checkpointId) {
        List<BucketSplit> state = super.snapshotState(checkpointId);
        if (!snapshotsRead.isEmpty()) {
            context.sendSourceEventToCoordinator(new SnapshotsRead(snapshotsRead));
            snapshotsRead.clear();
        }
        return state;
    }

    /** Emits one row and moves its bucket's position past it. */
    static RecordEmitter<BucketBatch.Row, RowData, BucketSplit.State> rowEmitter() {
        return (BucketBatch.Row row, SourceOutput<RowData> output, BucketSplit.State split) -> {
            RowData emitted = row.rowData();
            emitted.setRowKind(row.kind);
            output.collect(emitted);
            row.advance(split);
        };
    }

    /** Emits a whole batch (of inserts) and moves its bucket's position past its last row. */
    static RecordEmitter<BucketBatch.Row, ArrowBatch, BucketSplit.State> batchEmitter() {
        ArrowBatch batch = new ArrowBatch();
        return (BucketBatch.Row row, SourceOutput<ArrowBatch> output, BucketSplit.State split) -> {
            output.collect(batch.of(row.root));
            row.advance(split);
        };
    }
}
