package dev.streamfusion.fluss.source;

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
 * Reads the buckets it is given. Rows go downstream as views over Arrow batches; a checkpoint
 * records, per bucket, the offset after the last row emitted.
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class FlussSourceReader extends ArrowSourceReader<BucketBatch.Row, RowData, BucketSplit, BucketSplit.State> {

    FlussSourceReader(
            Supplier<SplitReader<BucketBatch.Row, BucketSplit>> splitReaders, SourceReaderContext context,
            FetchedBatches fetched) {
        super(splitReaders, new Emitter(), new Configuration(), context, fetched,
                SplitStates.of(BucketSplit.State::new, BucketSplit.State::toSplit));
    }

    @Override
    protected void onSplitFinished(Map<String, BucketSplit.State> finished) {
        // A log bucket does not finish.
    }

    /** Emits one row and moves its bucket's offset past it. */
    private static final class Emitter implements RecordEmitter<BucketBatch.Row, RowData, BucketSplit.State> {
        @Override
        public void emitRecord(BucketBatch.Row row, SourceOutput<RowData> output, BucketSplit.State split) {
            RowData emitted = row.rows.row(row.index);
            emitted.setRowKind(row.kind);
            output.collect(emitted);
            split.offset = row.nextOffset;
        }
    }
}
