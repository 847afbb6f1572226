package dev.streamfusion.fluss.source;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchSource;
import dev.streamfusion.bridge.source.FetchedBatches;
import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.internal.ScanOptions;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * A Fluss table's log read continuously (or, bounded, up to its end when the job starts), one split per bucket (of each partition), the query's columns pushed to the
 * server; rows reach Flink as views over Arrow batches (a primary-key table's as its changelog,
 * after its key-value snapshot's rows when it is read {@code full}).
 */
@Internal
public final class FlussSource implements Source<RowData, BucketSplit, BucketEnumerator.Checkpoint>, ResultTypeQueryable<RowData> {

    private static final long serialVersionUID = 1L;

    private final FlussTableRef table;
    private final int buckets;
    private final int[] projection;
    private final RowType rowType;
    private final ScanOptions scan;
    private final boolean partitioned;
    private final TypeInformation<RowData> producedType;
    private final boolean changelog;

    /**
     * Reads the {@code projection} columns (Fluss column indices; of {@code rowType}) of the
     * {@code buckets} buckets of {@code table} (of each partition, when {@code partitioned}) as
     * {@code scan} says, producing {@code producedType}; a {@code changelog} (a primary-key table's
     * log) with its row kinds.
     */
    public FlussSource(
            FlussTableRef table, int buckets, boolean partitioned, int[] projection, RowType rowType, ScanOptions scan,
            TypeInformation<RowData> producedType, boolean changelog) {
        this.partitioned = partitioned;
        this.table = table;
        this.buckets = buckets;
        this.projection = projection;
        this.rowType = rowType;
        this.scan = scan;
        this.producedType = producedType;
        this.changelog = changelog;
    }

    @Override
    public Boundedness getBoundedness() {
        return scan.bounded ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<RowData, BucketSplit> createReader(SourceReaderContext context) {
        return reader(context, false, FlussSourceReader.rowEmitter());
    }

    /** A reader of whole batches (a log table's): the same splits, offsets and checkpoints as one of rows. */
    SourceReader<ArrowBatch, BucketSplit> createBatchReader(SourceReaderContext context) {
        return reader(context, true, FlussSourceReader.batchEmitter());
    }

    /** The {@link Source} of this scan's batches, with this source's enumeration and state. */
    public Source<ArrowBatch, BucketSplit, BucketEnumerator.Checkpoint> batches() {
        return new BatchSource<>(this, this::createBatchReader);
    }

    private <T> SourceReader<T, BucketSplit> reader(
            SourceReaderContext context, boolean whole, RecordEmitter<BucketBatch.Row, T, BucketSplit.State> emitter) {
        FetchedBatches fetched = new FetchedBatches();
        return new FlussSourceReader<>(
                () -> new BucketSplitReader(table, projection, rowType, changelog, fetched, whole), context, fetched, emitter);
    }

    @Override
    public SplitEnumerator<BucketSplit, BucketEnumerator.Checkpoint> createEnumerator(
            SplitEnumeratorContext<BucketSplit> context) {
        return new BucketEnumerator(context, table, buckets, scan, changelog, partitioned, null);
    }

    @Override
    public SplitEnumerator<BucketSplit, BucketEnumerator.Checkpoint> restoreEnumerator(
            SplitEnumeratorContext<BucketSplit> context, BucketEnumerator.Checkpoint checkpoint) {
        return new BucketEnumerator(context, table, buckets, scan, changelog, partitioned, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<BucketSplit> getSplitSerializer() {
        return new BucketSplit.Serializer();
    }

    @Override
    public SimpleVersionedSerializer<BucketEnumerator.Checkpoint> getEnumeratorCheckpointSerializer() {
        return new BucketEnumerator.StateSerializer();
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
