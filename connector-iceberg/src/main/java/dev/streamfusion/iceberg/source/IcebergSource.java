package dev.streamfusion.iceberg.source;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchSource;
import dev.streamfusion.bridge.source.FetchedBatches;
import dev.streamfusion.iceberg.internal.IcebergTableRef;
import dev.streamfusion.iceberg.internal.TableFiles;

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
 * A source of an Iceberg table's rows: Iceberg Java plans file tasks (in the enumerator), the
 * native reader reads them with deletes applied. Bounded, or streaming the appends of new
 * snapshots.
 */
@Internal
public final class IcebergSource
        implements Source<RowData, TaskSplit, TaskEnumerator.Checkpoint>, ResultTypeQueryable<RowData> {

    private static final long serialVersionUID = 1L;

    /** Rows per native batch. */
    static final int BATCH_SIZE = 4096;

    private final IcebergTableRef table;
    private final ScanPlanner planner;
    private final RowType rowType;
    /** Rows each reader emits at most, or -1 for all. */
    private final long limit;
    /** The rows {@code limit} counts, or null for every row. */
    private final LimitFilter limitFilter;
    private final TypeInformation<RowData> producedType;
    /** Whether rows are handed on in Flink's binary layout ({@code streamfusion.row-layout}). */
    private final boolean binaryRows;
    /**
     * A bounded read's splits as planned when the job was translated ({@link
     * TaskEnumerator#plannedState}), which the enumerator then hands out instead of planning again;
     * {@code null} to plan when the enumerator starts.
     */
    private final byte[] plan;

    public IcebergSource(
            IcebergTableRef table,
            ScanPlanner planner,
            RowType rowType,
            long limit,
            LimitFilter limitFilter,
            TypeInformation<RowData> producedType,
            boolean binaryRows,
            byte[] plan) {
        this.binaryRows = binaryRows;
        this.plan = plan;
        this.table = table;
        this.planner = planner;
        this.rowType = rowType;
        this.limit = limit;
        this.limitFilter = limitFilter;
        this.producedType = producedType;
    }

    @Override
    public Boundedness getBoundedness() {
        return planner.options().isStreaming() ? Boundedness.CONTINUOUS_UNBOUNDED : Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<RowData, TaskSplit> createReader(SourceReaderContext context) {
        return reader(context, false, IcebergSourceReader.rowEmitter(context));
    }

    /** A reader of whole batches: the same splits, positions and checkpoints as one of rows. */
    SourceReader<ArrowBatch, TaskSplit> createBatchReader(SourceReaderContext context) {
        return reader(context, true, IcebergSourceReader.batchEmitter(context));
    }

    /** The {@link Source} of this scan's batches, with this source's enumeration and state. */
    public Source<ArrowBatch, TaskSplit, TaskEnumerator.Checkpoint> batches() {
        return new BatchSource<>(this, this::createBatchReader);
    }

    private <T> SourceReader<T, TaskSplit> reader(
            SourceReaderContext context, boolean whole, RecordEmitter<TaskBatch.Row, T, TaskSplitState> emitter) {
        FetchedBatches fetched = new FetchedBatches();
        return new IcebergSourceReader<>(
                () -> new TaskSplitReader(
                        rowType, BATCH_SIZE, limit, limitFilter, fetched, new TableFiles(table), whole, binaryRows && !whole),
                context,
                fetched,
                emitter);
    }

    @Override
    public SplitEnumerator<TaskSplit, TaskEnumerator.Checkpoint> createEnumerator(
            SplitEnumeratorContext<TaskSplit> context) {
        return new TaskEnumerator(
                context, table, planner, plan == null ? TaskEnumerator.Checkpoint.EMPTY : TaskEnumerator.planned(plan));
    }

    @Override
    public SplitEnumerator<TaskSplit, TaskEnumerator.Checkpoint> restoreEnumerator(
            SplitEnumeratorContext<TaskSplit> context, TaskEnumerator.Checkpoint checkpoint) {
        return new TaskEnumerator(context, table, planner, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<TaskSplit> getSplitSerializer() {
        return TaskSplit.Serializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<TaskEnumerator.Checkpoint> getEnumeratorCheckpointSerializer() {
        return new TaskEnumerator.StateSerializer();
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
