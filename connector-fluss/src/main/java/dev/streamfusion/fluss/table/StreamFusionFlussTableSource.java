package dev.streamfusion.fluss.table;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchScan;
import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.internal.ScanOptions;
import dev.streamfusion.fluss.lookup.FlussLookupFunction;
import dev.streamfusion.fluss.source.FlussSource;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.lookup.AsyncLookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingAsyncLookupProvider;
import org.apache.flink.table.connector.source.lookup.cache.LookupCache;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A streamfusion-fluss table read: a continuous source of its buckets' logs, the query's top-level
 * columns pushed to the Fluss server; a primary-key table's log read as its changelog (after its
 * key-value snapshot, read {@code full}), and its rows looked up by primary key for lookup joins.
 */
@Internal
final class StreamFusionFlussTableSource
        implements ScanTableSource, LookupTableSource, SupportsProjectionPushDown, BatchScan {

    private final FlussTableRef table;
    private final int buckets;
    private final RowType tableType;
    private final boolean partitioned;
    private final ScanOptions scan;
    /** Whether the table has a primary key: its log is a changelog. */
    private final boolean changelog;
    /** The primary key's column names, in the key's order (empty for a log table). */
    private final List<String> primaryKey;
    /** The columns of a prefix lookup: the bucket key then the other partition keys; empty when there is none. */
    private final List<String> prefixKey;
    /** Flink's cache of looked up rows ({@code lookup.cache} = PARTIAL), or {@code null}. */
    private final LookupCache cache;
    private int[] projection;
    private DataType producedType;

    StreamFusionFlussTableSource(
            FlussTableRef table, int buckets, boolean partitioned, RowType tableType, DataType producedType, ScanOptions scan,
            List<String> primaryKey, List<String> prefixKey, LookupCache cache) {
        this.partitioned = partitioned;
        this.prefixKey = List.copyOf(prefixKey);
        this.cache = cache;
        this.primaryKey = List.copyOf(primaryKey);
        this.table = table;
        this.buckets = buckets;
        this.tableType = tableType;
        this.producedType = producedType;
        this.scan = scan;
        this.changelog = !primaryKey.isEmpty();
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
                table, buckets, partitioned, projection, rowType, scan, context.createTypeInformation(producedType), changelog);
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

    /**
     * Looks rows up by the primary key, or by the bucket key (with the partition keys) where that
     * is a prefix of it: the join's keys must be one of those column sets (in any order), as Fluss
     * looks rows up by nothing else.
     */
    @Override
    public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
        if (primaryKey.isEmpty()) {
            throw new ValidationException("Fluss table " + table + " has no primary key: a lookup join needs a primary-key table");
        }
        int[][] keys = context.getKeys();
        List<String> joined = new ArrayList<>();
        for (int[] key : keys) {
            if (key.length != 1) {
                throw new ValidationException("Fluss table " + table + ": a lookup by a nested field is not supported");
            }
            joined.add(tableType.getFieldNames().get(projection[key[0]]));
        }
        List<String> lookupColumns;
        if (sameColumns(joined, primaryKey)) {
            lookupColumns = primaryKey;
        } else if (!prefixKey.isEmpty() && sameColumns(joined, prefixKey)) {
            lookupColumns = prefixKey;
        } else {
            throw new ValidationException("Fluss table " + table + " is looked up by its whole primary key " + primaryKey
                    + (prefixKey.isEmpty() ? "" : " or by its bucket key with its partition keys " + prefixKey)
                    + ", and the join gives " + joined);
        }
        int[] keyOrder = new int[lookupColumns.size()];
        List<RowType.RowField> keyFields = new ArrayList<>();
        for (int i = 0; i < keyOrder.length; i++) {
            keyOrder[i] = joined.indexOf(lookupColumns.get(i));
            int column = tableType.getFieldIndex(lookupColumns.get(i));
            keyFields.add(new RowType.RowField(lookupColumns.get(i), tableType.getTypeAt(column)));
        }
        FlussLookupFunction function = new FlussLookupFunction(table, tableType, new RowType(keyFields), keyOrder, projection,
                lookupColumns == primaryKey ? null : lookupColumns);
        return cache == null
                ? AsyncLookupFunctionProvider.of(function)
                : PartialCachingAsyncLookupProvider.of(function, cache);
    }

    private static boolean sameColumns(List<String> a, List<String> b) {
        return a.size() == b.size() && a.containsAll(b);
    }

    @Override
    public DynamicTableSource copy() {
        StreamFusionFlussTableSource copy = new StreamFusionFlussTableSource(
                table, buckets, partitioned, tableType, producedType, scan, primaryKey, prefixKey, cache);
        copy.projection = projection.clone();
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "StreamFusionFluss(" + table + ")";
    }
}
