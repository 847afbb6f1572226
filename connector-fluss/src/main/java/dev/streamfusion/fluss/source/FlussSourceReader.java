package dev.streamfusion.fluss.source;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.source.ArrowSourceReader;
import dev.streamfusion.bridge.source.FetchedBatches;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.table.data.RowData;

import java.util.Map;
import java.util.function.Supplier;

/**
 * Reads the buckets it is given. Rows go downstream as views over Arrow batches, or the batches go
 * whole (to the operator island); a checkpoint records, per bucket, the offset after the last row
 * emitted.
 *
 * @param <T> what it emits: {@link RowData} or {@link ArrowBatch}
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class FlussSourceReader<T> extends ArrowSourceReader<BucketBatch.Row, T, BucketSplit, BucketSplit.State> {

    FlussSourceReader(
            Supplier<SplitReader<BucketBatch.Row, BucketSplit>> splitReaders, SourceReaderContext context,
            FetchedBatches fetched, RecordEmitter<BucketBatch.Row, T, BucketSplit.State> emitter) {
        super(splitReaders, emitter, new Configuration(), context, fetched,
                SplitStates.of(BucketSplit.State::new, BucketSplit.State::toSplit));
    }

    @Override
    protected void onSplitFinished(Map<String, BucketSplit.State> finished) {
        // A log bucket does not finish.
    }

    /** Emits one row and moves its bucket's offset past it. */
    static RecordEmitter<BucketBatch.Row, RowData, BucketSplit.State> rowEmitter() {
        return (BucketBatch.Row row, SourceOutput<RowData> output, BucketSplit.State split) -> {
            RowData emitted = row.rows.row(row.index);
            emitted.setRowKind(row.kind);
            output.collect(emitted);
            split.offset = row.nextOffset;
        };
    }

    /** Emits a whole batch (of inserts) and moves its bucket's offset past its last row. */
    static RecordEmitter<BucketBatch.Row, ArrowBatch, BucketSplit.State> batchEmitter() {
        ArrowBatch batch = new ArrowBatch();
        return (BucketBatch.Row row, SourceOutput<ArrowBatch> output, BucketSplit.State split) -> {
            output.collect(batch.of(row.root));
            split.offset = row.nextOffset;
        };
    }
}
