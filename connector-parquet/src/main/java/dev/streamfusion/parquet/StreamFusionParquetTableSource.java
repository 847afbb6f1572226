package dev.streamfusion.parquet;

import dev.streamfusion.parquet.source.ParquetSource;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsLimitPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.List;

/** A streamfusion-parquet table read: the Parquet files under a path, the projected columns only. */
@Internal
final class StreamFusionParquetTableSource
        implements ScanTableSource, SupportsProjectionPushDown, SupportsFilterPushDown, SupportsLimitPushDown {

    private final String path;
    private final String pathRegex;
    private DataType producedDataType;
    /** Filters that prune row groups by their statistics. */
    private ColumnPredicates predicates = ColumnPredicates.NONE;
    /** Rows each reader emits at most ({@code LIMIT}; Flink still applies it), or -1. */
    private long limit = -1;

    StreamFusionParquetTableSource(String path, String pathRegex, DataType physicalDataType) {
        this.path = path;
        this.pathRegex = pathRegex;
        this.producedDataType = physicalDataType;
    }

    /**
     * Keeps the filters row-group statistics can decide, to skip row groups; reports none as
     * accepted, since skipping row groups is not filtering rows: Flink applies every filter.
     */
    @Override
    public Result applyFilters(List<ResolvedExpression> filters) {
        predicates = ColumnPredicates.of(filters);
        return Result.of(List.of(), filters);
    }

    @Override
    public void applyLimit(long limit) {
        this.limit = limit;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        RowType rowType = (RowType) producedDataType.getLogicalType();
        return SourceProvider.of(
                new ParquetSource(
                        path, pathRegex, predicates, limit, rowType, context.createTypeInformation(producedDataType)));
    }

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        this.producedDataType = producedDataType;
    }

    @Override
    public DynamicTableSource copy() {
        StreamFusionParquetTableSource copy = new StreamFusionParquetTableSource(path, pathRegex, producedDataType);
        copy.predicates = predicates;
        copy.limit = limit;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "StreamFusion Parquet table source (parquet-rs reads the projected columns of each row group"
                + (predicates.isEmpty() ? "" : "; row groups pruned by statistics on " + predicates)
                + ")";
    }
}
