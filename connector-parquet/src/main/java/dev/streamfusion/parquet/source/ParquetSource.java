package dev.streamfusion.parquet.source;

import dev.streamfusion.parquet.ColumnPredicates;

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
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.util.Collection;

/**
 * A bounded source of the row groups of the Parquet files under a path, read natively: each row
 * group is a split, so a table's files are read in parallel by the source's subtasks.
 */
@Internal
public final class ParquetSource
        implements Source<RowData, RowGroupSplit, Collection<RowGroupSplit>>, ResultTypeQueryable<RowData> {

    private static final long serialVersionUID = 1L;

    /** Rows per native batch. */
    static final int BATCH_SIZE = 4096;

    private final String path;
    /** A regular expression whole file paths must match, or {@code null}. */
    private final String pathRegex;
    private final ColumnPredicates predicates;
    /** Rows each reader emits at most, or -1 for all. */
    private final long limit;
    private final RowType rowType;
    private final TypeInformation<RowData> producedType;

    public ParquetSource(
            String path,
            String pathRegex,
            ColumnPredicates predicates,
            long limit,
            RowType rowType,
            TypeInformation<RowData> producedType) {
        this.path = path;
        this.pathRegex = pathRegex;
        this.predicates = predicates;
        this.limit = limit;
        this.rowType = rowType;
        this.producedType = producedType;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<RowData, RowGroupSplit> createReader(SourceReaderContext context) {
        BufferAllocator allocator = new RootAllocator();
        LiveBatches live = new LiveBatches();
        return new ParquetSourceReader(
                () -> new RowGroupSplitReader(rowType, BATCH_SIZE, limit, allocator, live),
                new Configuration(),
                context,
                live,
                allocator);
    }

    @Override
    public SplitEnumerator<RowGroupSplit, Collection<RowGroupSplit>> createEnumerator(
            SplitEnumeratorContext<RowGroupSplit> context) {
        return new RowGroupEnumerator(context, RowGroupEnumerator.listSplits(context, path, pathRegex, predicates));
    }

    @Override
    public SplitEnumerator<RowGroupSplit, Collection<RowGroupSplit>> restoreEnumerator(
            SplitEnumeratorContext<RowGroupSplit> context, Collection<RowGroupSplit> pending) {
        return new RowGroupEnumerator(context, pending);
    }

    @Override
    public SimpleVersionedSerializer<RowGroupSplit> getSplitSerializer() {
        return RowGroupSplit.Serializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<Collection<RowGroupSplit>> getEnumeratorCheckpointSerializer() {
        return new RowGroupEnumerator.StateSerializer();
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
