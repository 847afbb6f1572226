package dev.streamfusion.parquet.table;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchScan;
import dev.streamfusion.bridge.batch.BatchSource;
import dev.streamfusion.parquet.internal.ColumnPredicates;
import dev.streamfusion.parquet.internal.MemoryLimit;
import dev.streamfusion.parquet.source.FileColumns;
import dev.streamfusion.parquet.source.FileListing;
import dev.streamfusion.parquet.source.ParquetSource;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsLimitPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsPartitionPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.connector.source.abilities.SupportsStatisticReport;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.plan.stats.TableStats;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A streamfusion-parquet table read: the Parquet files under a path (in the partitions the planner
 * keeps), the projected columns only, with partition values and file metadata added per file.
 */
@Internal
final class StreamFusionParquetTableSource
        implements ScanTableSource,
                SupportsProjectionPushDown,
                SupportsFilterPushDown,
                SupportsLimitPushDown,
                SupportsPartitionPushDown,
                SupportsReadingMetadata,
                SupportsStatisticReport,
                BatchScan {

    private static final Logger LOG = LoggerFactory.getLogger(StreamFusionParquetTableSource.class);

    private final List<String> partitionKeys;
    private final String defaultPartitionName;
    /** The listing interval in continuous mode, or {@code null} when bounded. */
    private final Duration monitorInterval;
    /** {@code parquet.utc-timezone}. */
    private final boolean utcTimestamps;
    /** {@code source.report-statistics} is {@code ALL}. */
    private final boolean reportStatistics;
    /** {@code streamfusion.memory-limit}. */
    private final MemoryLimit memoryLimit;
    /** Bounded: whether a file whose footer cannot be read is skipped ({@code 'streamfusion.errors'}). */
    private final boolean skipUnreadable;
    /** Whether rows go to a stock operator in Flink's binary layout ({@code streamfusion.row-layout}). */
    private final boolean binaryRows;
    private FileListing listing;
    /** The table's physical columns. */
    private RowType physicalType;
    /** The physical columns read (projected), then the metadata columns. */
    private DataType producedDataType;
    /** Paths (field indices) of the projected physical columns, or {@code null} for all. */
    private int[][] projectedFields;
    private List<String> metadataKeys = List.of();
    /** Rows each reader emits at most ({@code LIMIT}; Flink still applies it), or -1. */
    private long limit = -1;

    StreamFusionParquetTableSource(
            FileListing listing,
            List<String> partitionKeys,
            String defaultPartitionName,
            Duration monitorInterval,
            boolean utcTimestamps,
            boolean reportStatistics,
            MemoryLimit memoryLimit,
            DataType physicalDataType,
            boolean skipUnreadable,
            boolean binaryRows) {
        this.listing = listing;
        this.binaryRows = binaryRows;
        this.skipUnreadable = skipUnreadable;
        this.memoryLimit = memoryLimit;
        this.utcTimestamps = utcTimestamps;
        this.reportStatistics = reportStatistics;
        this.partitionKeys = partitionKeys;
        this.defaultPartitionName = defaultPartitionName;
        this.monitorInterval = monitorInterval;
        this.producedDataType = physicalDataType;
        this.physicalType = (RowType) physicalDataType.getLogicalType();
    }

    /**
     * Keeps the filters row-group statistics can decide, to skip row groups. Every filter is
     * reported both accepted and remaining, as Flink's filesystem source reports them: skipping
     * row groups is not filtering rows, so Flink applies every filter; and the accepted ones are
     * in the scan's digest, so the planner never takes two scans of the table that skip different
     * row groups for one.
     */
    @Override
    public Result applyFilters(List<ResolvedExpression> filters) {
        Set<String> fileColumns = new HashSet<>(physicalType.getFieldNames());
        fileColumns.removeAll(partitionKeys);
        listing = listing.withPredicates(ColumnPredicates.of(filters, fileColumns));
        return Result.of(filters, filters);
    }

    @Override
    public void applyLimit(long limit) {
        this.limit = limit;
    }

    /**
     * The row count of a bounded read, from the footers of the files (of the partitions kept) as
     * Flink's filesystem connector reports it, capped by a pushed-down {@code LIMIT}. Column
     * statistics are not reported.
     */
    @Override
    public TableStats reportStatistics() {
        if (monitorInterval != null || !reportStatistics) {
            return TableStats.UNKNOWN;
        }
        try {
            long rows = listing.rowCount();
            return new TableStats(limit < 0 ? rows : Math.min(limit, rows));
        } catch (RuntimeException e) {
            LOG.warn("Cannot report the statistics of {}: {}", asSummaryString(), e.getMessage());
            return TableStats.UNKNOWN;
        }
    }

    @Override
    public Optional<List<Map<String, String>>> listPartitions() {
        return Optional.of(listing.partitions());
    }

    /** Reads only the partitions the planner keeps; Flink drops the filters they decide. */
    @Override
    public void applyPartitions(List<Map<String, String>> remainingPartitions) {
        listing = listing.withPartitions(remainingPartitions);
    }

    @Override
    public Map<String, DataType> listReadableMetadata() {
        Map<String, DataType> metadata = new LinkedHashMap<>();
        for (FileColumns.Metadata m : FileColumns.Metadata.values()) {
            metadata.put(m.key, m.type);
        }
        return metadata;
    }

    @Override
    public void applyReadableMetadata(List<String> metadataKeys, DataType producedDataType) {
        this.metadataKeys = new ArrayList<>(metadataKeys);
        this.producedDataType = producedDataType;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        return SourceProvider.of(rowSource(context.createTypeInformation(producedDataType)));
    }

    /**
     * The listing the source reads: in continuous mode, only the partitions there at planning, as
     * Flink's filesystem source watches only them.
     */
    private FileListing sourceListing() {
        return monitorInterval == null ? listing : listing.withPartitionsFixed();
    }

    private ParquetSource rowSource(TypeInformation<RowData> producedType) {
        return new ParquetSource(
                sourceListing(),
                monitorInterval,
                limit,
                columns(),
                utcTimestamps,
                memoryLimit,
                producedType,
                skipUnreadable,
                binaryRows);
    }

    private FileColumns columns() {
        RowType produced = (RowType) producedDataType.getLogicalType();
        return FileColumns.of(produced, physicalPaths(), partitionKeys, metadataKeys, defaultPartitionName);
    }

    @Override
    public Optional<String> batchesUnsupported() {
        if (!columns().allRead()) {
            return Optional.of("partition or metadata columns are not handed over in batches yet");
        }
        return Optional.empty();
    }

    @Override
    public Source<ArrowBatch, ?, ?> createBatchSource(ScanContext context) {
        // The batch source never asks the row source for its row type.
        ParquetSource rows = rowSource(TypeInformation.of(RowData.class));
        return new BatchSource<>(rows, rows::createBatchReader);
    }

    /** The path of names of each produced physical column, from the projection. */
    private String[][] physicalPaths() {
        if (projectedFields == null) {
            return physicalType.getFieldNames().stream().map(name -> new String[] {name}).toArray(String[][]::new);
        }
        String[][] paths = new String[projectedFields.length][];
        for (int i = 0; i < projectedFields.length; i++) {
            int[] indices = projectedFields[i];
            String[] names = new String[indices.length];
            RowType row = physicalType;
            for (int level = 0; level < indices.length; level++) {
                names[level] = row.getFieldNames().get(indices[level]);
                if (level + 1 < indices.length) {
                    row = (RowType) row.getTypeAt(indices[level]);
                }
            }
            paths[i] = names;
        }
        return paths;
    }

    /** Nested fields of rows are read alone: only their leaves are decoded. */
    @Override
    public boolean supportsNestedProjection() {
        return true;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        this.projectedFields = projectedFields;
        this.producedDataType = producedDataType;
    }

    @Override
    public DynamicTableSource copy() {
        StreamFusionParquetTableSource copy =
                new StreamFusionParquetTableSource(
                        listing,
                        partitionKeys,
                        defaultPartitionName,
                        monitorInterval,
                        utcTimestamps,
                        reportStatistics,
                        memoryLimit,
                        producedDataType,
                        skipUnreadable,
                        binaryRows);
        copy.metadataKeys = metadataKeys;
        copy.limit = limit;
        copy.projectedFields = projectedFields;
        copy.physicalType = physicalType;
        return copy;
    }

    @Override
    public String asSummaryString() {
        ColumnPredicates predicates = listing.predicates();
        return "StreamFusion Parquet table source (parquet-rs reads the projected columns of each row group"
                + (predicates.isEmpty() ? "" : "; row groups pruned by statistics on " + predicates)
                + (monitorInterval == null ? "" : "; new files picked up every " + monitorInterval)
                + ")";
    }
}
