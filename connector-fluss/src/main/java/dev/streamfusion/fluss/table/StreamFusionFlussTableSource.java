package dev.streamfusion.fluss.table;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchScan;
import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.internal.PartitionFilter;
import dev.streamfusion.fluss.internal.ScanOptions;
import dev.streamfusion.fluss.internal.StartupMode;
import dev.streamfusion.fluss.lookup.FlussLookupFunction;
import dev.streamfusion.fluss.lookup.FlussSyncLookupFunction;
import dev.streamfusion.fluss.source.FlussQuery;
import dev.streamfusion.fluss.source.FlussSource;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsAggregatePushDown;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsLimitPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.lookup.AsyncLookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingAsyncLookupProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingLookupProvider;
import org.apache.flink.table.connector.source.lookup.cache.LookupCache;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.AggregateExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A streamfusion-fluss table read: a continuous source of its buckets' logs, the query's top-level
 * columns pushed to the Fluss server; a primary-key table's log read as its changelog (after its
 * key-value snapshot, read {@code full}), and its rows looked up by primary key for lookup joins.
 * As fluss-flink does, the server answers three bounded questions whole, in either runtime mode: a
 * {@code LIMIT} of at most {@value FlussQuery#MAX_LIMIT} rows, and, in batch mode, {@code
 * COUNT(*)} and a primary-key table's row of one key (a {@code WHERE} fixing each key column, read
 * {@code full}). Otherwise a batch job reads a log table up to each bucket's end when the job
 * starts, and is refused a primary-key table's changelog.
 */
@Internal
final class StreamFusionFlussTableSource
        implements ScanTableSource, LookupTableSource, SupportsProjectionPushDown, SupportsLimitPushDown,
                SupportsFilterPushDown, SupportsAggregatePushDown, BatchScan {

    private final FlussTableRef table;
    private final int buckets;
    private final RowType tableType;
    private final boolean partitioned;
    private final ScanOptions scan;
    /** Whether the table has a primary key: its log is a changelog. */
    private final boolean changelog;
    /** The primary key's column names, in the key's order (empty for a log table). */
    private final List<String> primaryKey;
    /** The partition columns (empty for a table without partitions). */
    private final List<String> partitionKeys;
    /** The columns of a prefix lookup: the bucket key then the other partition keys; empty when there is none. */
    private final List<String> prefixKey;
    /** The row kinds the table's log holds (by its merge engine, changelog image and delete behaviour). */
    private final ChangelogMode changelogMode;
    private final LookupSettings lookups;
    /** Whether the job runs in streaming mode; in batch mode only bounded questions are answered. */
    private final boolean streaming;
    /** Whether the table keeps rows in a data lake tier ({@code 'table.datalake.enabled'}), which scans refuse. */
    private final boolean lake;
    private int[] projection;
    private DataType producedType;
    /** The rows of a {@code LIMIT} pushed down, or -1. */
    private long limit = -1;
    /** Whether the query is {@code COUNT(*)} of the table, pushed down. */
    private boolean count;
    /** The primary key (in its columns' order) of the one row a batch query reads, or {@code null}. */
    private GenericRowData key;
    /** The partitions the query's filters leave to read, or {@code null} for every one. */
    private PartitionFilter partitionFilter;

    StreamFusionFlussTableSource(
            FlussTableRef table, int buckets, List<String> partitionKeys, RowType tableType, DataType producedType,
            ScanOptions scan, List<String> primaryKey, List<String> prefixKey, ChangelogMode changelogMode,
            LookupSettings lookups, boolean streaming, boolean lake) {
        this.lake = lake;
        this.partitionKeys = List.copyOf(partitionKeys);
        this.partitioned = !partitionKeys.isEmpty();
        this.prefixKey = List.copyOf(prefixKey);
        this.changelogMode = changelogMode;
        this.lookups = lookups;
        this.streaming = streaming;
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
        return streaming && query() == null ? changelogMode : ChangelogMode.insertOnly();
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
        if (lake) {
            // fluss-flink reads the lake's rows first (those the log no longer holds); a read of
            // the log alone would miss them.
            throw new ValidationException("Fluss table " + table + " keeps rows in a data lake tier "
                    + "('table.datalake.enabled' = 'true'), which streamfusion-fluss does not read: scan it with fluss-flink's "
                    + "connector (lookups and writes work)");
        }
        FlussQuery query = query();
        if (query != null) {
            return query.provider(context.createTypeInformation(producedType));
        }
        if (!streaming && changelog) {
            // The planner asks for a bounded scan before it pushes the query down, and for the
            // runtime only after: the refusal waits for the source to be made.
            return new SourceProvider() {
                @Override
                public Source<RowData, ?, ?> createSource() {
                    throw new ValidationException("Primary-key table " + table + " is read in batch mode only to answer a LIMIT "
                            + "of at most " + FlussQuery.MAX_LIMIT + " rows, COUNT(*), or the row of one key (WHERE on each key "
                            + "column, read 'full'); its changelog is read in streaming mode");
                }

                @Override
                public boolean isBounded() {
                    return true;
                }
            };
        }
        return SourceProvider.of(source(context));
    }

    /** The bounded question the server answers whole for this read, or {@code null} for a scan of the log. */
    private FlussQuery query() {
        if (count) {
            return FlussQuery.count(table);
        }
        if (key != null) {
            return FlussQuery.key(new FlussLookupFunction(table, tableType, keyType(primaryKey), identity(primaryKey.size()),
                    projection, null, false, new int[0], new int[0]), keyType(primaryKey), key);
        }
        if (limit > 0 && limit <= FlussQuery.MAX_LIMIT) {
            return FlussQuery.limit(table, projection, (RowType) producedType.getLogicalType(), (int) limit);
        }
        return null;
    }

    private static int[] identity(int n) {
        return java.util.stream.IntStream.range(0, n).toArray();
    }

    @Override
    public void applyLimit(long limit) {
        this.limit = limit;
    }

    /**
     * Takes the filters on a partitioned table's partition columns to leave out the partitions
     * they rule out; in batch mode, a {@code WHERE} that fixes each column of a primary-key table's
     * key (read {@code full}) as the one row to look up. Flink still applies every filter.
     */
    @Override
    public Result applyFilters(List<ResolvedExpression> filters) {
        List<ResolvedExpression> accepted = new ArrayList<>();
        if (partitioned) {
            List<PartitionFilter> onPartitions = new ArrayList<>();
            for (ResolvedExpression filter : filters) {
                PartitionFilter converted = PartitionFilter.of(filter, tableType, partitionKeys);
                if (converted != null) {
                    accepted.add(filter);
                    onPartitions.add(converted);
                }
            }
            this.partitionFilter = PartitionFilter.allOf(onPartitions);
        }
        if (streaming || !changelog || scan.mode != StartupMode.FULL) {
            return Result.of(accepted, filters);
        }
        Map<String, Object> fixed = new HashMap<>();
        for (ResolvedExpression filter : filters) {
            Map.Entry<String, Object> equal = FlussFilters.columnEquals(filter, tableType);
            if (equal != null && primaryKey.contains(equal.getKey()) && fixed.putIfAbsent(equal.getKey(), equal.getValue()) == null
                    && !accepted.contains(filter)) {
                accepted.add(filter);
            }
        }
        if (fixed.size() == primaryKey.size()) {
            GenericRowData values = new GenericRowData(primaryKey.size());
            for (int i = 0; i < primaryKey.size(); i++) {
                values.setField(i, fixed.get(primaryKey.get(i)));
            }
            this.key = values;
        }
        return Result.of(accepted, filters);
    }

    /**
     * Takes, in batch mode, a global {@code COUNT(*)} (or {@code COUNT(1)}, or of a NOT NULL
     * column) of the table, which the server keeps.
     */
    @Override
    public boolean applyAggregates(List<int[]> groupingSets, List<AggregateExpression> aggregates, DataType producedDataType) {
        if (lake || streaming || key != null || limit > 0 || aggregates.size() != 1 || groupingSets.size() != 1
                || groupingSets.get(0).length != 0) {
            return false;
        }
        AggregateExpression aggregate = aggregates.get(0);
        String function = aggregate.getFunctionDefinition().getClass().getSimpleName();
        // COUNT(*) and COUNT(1); COUNT(c) only of NOT NULL columns (it skips NULLs); no DISTINCT or FILTER.
        boolean countsRows = function.equals("Count1AggFunction")
                || function.equals("CountAggFunction")
                        && aggregate.getArgs().stream().noneMatch(arg -> arg.getOutputDataType().getLogicalType().isNullable());
        if (!countsRows || aggregate.isDistinct() || aggregate.getFilterExpression().isPresent()) {
            return false;
        }
        this.count = true;
        this.producedType = producedDataType;
        return true;
    }

    private FlussSource source(ScanContext context) {
        RowType rowType = (RowType) producedType.getLogicalType();
        ScanOptions read = scan.withPartitionFilter(partitionFilter);
        return new FlussSource(
                table, buckets, partitioned, projection, rowType, streaming ? read : read.bounded(),
                context.createTypeInformation(producedType), changelog);
    }

    @Override
    public Optional<String> batchesUnsupported() {
        // A batch carries no row kinds: a primary-key table's changelog stays on rows.
        if (changelog) {
            return Optional.of("a primary-key table is read as its changelog, whose row kinds batches do not carry");
        }
        FlussQuery query = query();
        return query == null ? Optional.empty() : Optional.of("the server answers " + query + " whole, as rows");
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
        // By the primary key, or the prefix key, where the join gives it; the join's other columns
        // filter the rows found, as fluss-flink filters them.
        List<String> lookupColumns;
        if (joined.containsAll(primaryKey)) {
            lookupColumns = primaryKey;
        } else if (!prefixKey.isEmpty() && joined.containsAll(prefixKey)) {
            lookupColumns = prefixKey;
        } else {
            throw new ValidationException("Fluss table " + table + " is looked up by its whole primary key " + primaryKey
                    + (prefixKey.isEmpty() ? "" : " or by its bucket key with its partition keys " + prefixKey)
                    + ", and the join gives " + joined);
        }
        int[] keyOrder = new int[lookupColumns.size()];
        for (int i = 0; i < keyOrder.length; i++) {
            keyOrder[i] = joined.indexOf(lookupColumns.get(i));
        }
        List<Integer> remaining = new ArrayList<>();
        for (int i = 0; i < joined.size(); i++) {
            if (!lookupColumns.contains(joined.get(i))) {
                remaining.add(i);
            }
        }
        if (lookups.insertIfNotExists && (lookupColumns != primaryKey || !remaining.isEmpty())) {
            throw new ValidationException("Fluss table " + table + ": 'lookup.insert-if-not-exists' needs a lookup by the whole "
                    + "primary key " + primaryKey + " alone, and the join looks up by " + joined);
        }
        int[] remainingKeys = remaining.stream().mapToInt(Integer::intValue).toArray();
        int[] remainingFields = remaining.stream().mapToInt(i -> keys[i][0]).toArray();
        FlussLookupFunction function = new FlussLookupFunction(table, tableType, keyType(lookupColumns), keyOrder, projection,
                lookupColumns == primaryKey ? null : lookupColumns, lookups.insertIfNotExists, remainingKeys, remainingFields);
        LookupCache cache = lookups.cache;
        if (!lookups.async) {
            FlussSyncLookupFunction sync = new FlussSyncLookupFunction(function);
            return cache == null ? LookupFunctionProvider.of(sync) : PartialCachingLookupProvider.of(sync, cache);
        }
        return cache == null
                ? AsyncLookupFunctionProvider.of(function)
                : PartialCachingAsyncLookupProvider.of(function, cache);
    }

    /** The row of {@code columns} of the table. */
    private RowType keyType(List<String> columns) {
        List<RowType.RowField> keyFields = new ArrayList<>();
        for (String column : columns) {
            keyFields.add(new RowType.RowField(column, tableType.getTypeAt(tableType.getFieldIndex(column))));
        }
        return new RowType(keyFields);
    }

    @Override
    public DynamicTableSource copy() {
        StreamFusionFlussTableSource copy = new StreamFusionFlussTableSource(
                table, buckets, partitionKeys, tableType, producedType, scan, primaryKey, prefixKey, changelogMode, lookups,
                streaming, lake);
        copy.projection = projection.clone();
        copy.limit = limit;
        copy.count = count;
        copy.key = key;
        copy.partitionFilter = partitionFilter;
        return copy;
    }

    @Override
    public String asSummaryString() {
        FlussQuery query = query();
        return "StreamFusionFluss(" + table + (query == null ? "" : ", " + query)
                + (partitionFilter == null ? "" : ", partitions where " + partitionFilter) + ")";
    }
}
