package dev.streamfusion.fluss.table;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchScan;
import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.internal.StartupMode;
import dev.streamfusion.fluss.source.FlussSource;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.Optional;

/**
 * A streamfusion-fluss table read: a continuous source of its buckets' logs, the query's top-level
 * columns pushed to the Fluss server; a primary-key table's log read as its changelog.
 */
@Internal
final class StreamFusionFlussTableSource implements ScanTableSource, SupportsProjectionPushDown, BatchScan {

    private final FlussTableRef table;
    private final int buckets;
    private final RowType tableType;
    private final StartupMode mode;
    private final long timestamp;
    /** Whether the table has a primary key: its log is a changelog. */
    private final boolean changelog;
    private int[] projection;
    private DataType producedType;

    StreamFusionFlussTableSource(
            FlussTableRef table, int buckets, RowType tableType, DataType producedType, StartupMode mode, long timestamp,
            boolean changelog) {
        this.table = table;
        this.buckets = buckets;
        this.tableType = tableType;
        this.producedType = producedType;
        this.mode = mode;
        this.timestamp = timestamp;
        this.changelog = changelog;
        this.projection = java.util.stream.IntStream.range(0, tableType.getFieldCount()).toArray();
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return changelog ? ChangelogMode.all() : ChangelogMode.insertOnly();
    }

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        int[] top = new int[projectedFields.length];
        for (int i = 0; i < top.length; i++) {
            top[i] = projectedFields[i][0];
        }
        this.projection = top;
        this.producedType = producedDataType;
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        return SourceProvider.of(source(context));
    }

    private FlussSource source(ScanContext context) {
        RowType rowType = (RowType) producedType.getLogicalType();
        return new FlussSource(
                table, buckets, projection, rowType, mode, timestamp, context.createTypeInformation(producedType), changelog);
    }

    @Override
    public Optional<String> batchesUnsupported() {
        // A batch carries no row kinds: a primary-key table's changelog stays on rows.
        return changelog
                ? Optional.of("a primary-key table is read as its changelog, whose row kinds batches do not carry")
                : Optional.empty();
    }

    @Override
    public Source<ArrowBatch, ?, ?> createBatchSource(ScanContext context) {
        return source(context).batches();
    }

    @Override
    public DynamicTableSource copy() {
        StreamFusionFlussTableSource copy =
                new StreamFusionFlussTableSource(table, buckets, tableType, producedType, mode, timestamp, changelog);
        copy.projection = projection.clone();
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "StreamFusionFluss(" + table + ")";
    }
}
