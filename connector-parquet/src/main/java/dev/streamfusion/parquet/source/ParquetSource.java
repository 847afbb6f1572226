package dev.streamfusion.parquet.source;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.source.FetchedBatches;
import dev.streamfusion.parquet.internal.MemoryLimit;
import dev.streamfusion.parquet.internal.NativeParquetReader;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;

import java.time.Duration;

/**
 * A source of the row groups of the Parquet files under a path, read natively: each row group is
 * a split, so a table's files are read in parallel by the source's subtasks. Bounded, or
 * continuous with a monitor interval (files added later are read once each).
 */
@Internal
public final class ParquetSource
        implements Source<RowData, RowGroupSplit, RowGroupEnumerator.Checkpoint>, ResultTypeQueryable<RowData> {

    private static final long serialVersionUID = 1L;

    /** Rows per native batch. */
    static final int BATCH_SIZE = 4096;

    private final FileListing listing;
    /** The listing interval in continuous mode, or {@code null} when bounded. */
    private final Duration monitorInterval;
    /** Rows each reader emits at most, or -1 for all. */
    private final long limit;
    private final FileColumns columns;
    /** {@code parquet.utc-timezone}: INT96 timestamps as UTC, or as the reading JVM's zone. */
    private final boolean utcTimestamps;
    /** What each reader may hold outside the heap. */
    private final MemoryLimit memoryLimit;
    private final TypeInformation<RowData> producedType;
    /** Bounded: whether a file whose footer cannot be read is skipped rather than failing the job. */
    private final boolean skipUnreadable;
    /** Whether rows are written in Flink's binary layout where their types have one. */
    private final boolean binaryRows;

    /**
     * @param skipUnreadable bounded: whether a file whose footer cannot be read is skipped (logged,
     *     counted) rather than failing the job ({@code 'streamfusion.errors' = 'SKIP'})
     * @param binaryRows whether rows handed on one by one (every column read from the files) are
     *     written in Flink's binary layout ({@code streamfusion.row-layout})
     */
    public ParquetSource(
            FileListing listing,
            Duration monitorInterval,
            long limit,
            FileColumns columns,
            boolean utcTimestamps,
            MemoryLimit memoryLimit,
            TypeInformation<RowData> producedType,
            boolean skipUnreadable,
            boolean binaryRows) {
        this.skipUnreadable = skipUnreadable;
        this.binaryRows = binaryRows;
        this.memoryLimit = memoryLimit;
        this.utcTimestamps = utcTimestamps;
        this.listing = listing;
        this.monitorInterval = monitorInterval;
        this.limit = limit;
        this.columns = columns;
        this.producedType = producedType;
    }

    @Override
    public Boundedness getBoundedness() {
        return monitorInterval == null ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<RowData, RowGroupSplit> createReader(SourceReaderContext context) {
        return reader(context, false, ParquetSourceReader.rowEmitter(context, columns));
    }

    /** A reader of whole batches: the same splits, positions and checkpoints as one of rows. */
    public SourceReader<ArrowBatch, RowGroupSplit> createBatchReader(SourceReaderContext context) {
        return reader(context, true, ParquetSourceReader.batchEmitter(context));
    }

    private <T> ParquetSourceReader<T> reader(
            SourceReaderContext context, boolean whole, RecordEmitter<ParquetBatch.Row, T, RowGroupSplitState> emitter) {
        FetchedBatches fetched = new FetchedBatches();
        String timestampZone = NativeParquetReader.timestampZone(utcTimestamps);
        ReadMetrics metrics = new ReadMetrics(context.metricGroup());
        return new ParquetSourceReader<>(
                () -> new RowGroupSplitReader(
                        columns.readType(),
                        columns.readPaths(),
                        BATCH_SIZE,
                        limit,
                        listing,
                        timestampZone,
                        metrics,
                        fetched,
                        memoryLimit,
                        whole,
                        // Rows assembled with partition values or metadata are copied field by field.
                        binaryRows && !whole && columns.allRead()),
                new Configuration(),
                context,
                fetched,
                emitter);
    }

    @Override
    public SplitEnumerator<RowGroupSplit, RowGroupEnumerator.Checkpoint> createEnumerator(
            SplitEnumeratorContext<RowGroupSplit> context) {
        if (monitorInterval == null) {
            return RowGroupEnumerator.listed(context, listing, skipUnreadable);
        }
        return RowGroupEnumerator.continuous(context, listing, monitorInterval, skipUnreadable);
    }

    @Override
    public SplitEnumerator<RowGroupSplit, RowGroupEnumerator.Checkpoint> restoreEnumerator(
            SplitEnumeratorContext<RowGroupSplit> context, RowGroupEnumerator.Checkpoint checkpoint) {
        return new RowGroupEnumerator(context, listing, monitorInterval, checkpoint, skipUnreadable);
    }

    @Override
    public SimpleVersionedSerializer<RowGroupSplit> getSplitSerializer() {
        return RowGroupSplit.Serializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<RowGroupEnumerator.Checkpoint> getEnumeratorCheckpointSerializer() {
        return new RowGroupEnumerator.StateSerializer();
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
