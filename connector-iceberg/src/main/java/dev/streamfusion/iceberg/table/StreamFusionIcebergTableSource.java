package dev.streamfusion.iceberg.table;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchScan;
import dev.streamfusion.iceberg.internal.IcebergTableRef;
import dev.streamfusion.iceberg.source.IcebergSource;
import dev.streamfusion.iceberg.source.LimitFilter;
import dev.streamfusion.iceberg.source.ScanOptions;
import dev.streamfusion.iceberg.source.ScanPlanner;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsLimitPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A streamfusion-iceberg table read: Iceberg Java plans which files (and deletes) to read from the
 * snapshot or appends the options name, pruning files with the query's filters; the projected
 * columns are read natively by field id.
 */
@Internal
final class StreamFusionIcebergTableSource
        implements ScanTableSource, SupportsProjectionPushDown, SupportsFilterPushDown, SupportsLimitPushDown, BatchScan {

    private final IcebergTableRef table;
    private final ScanOptions options;
    /** The table's schema when the query was planned. */
    private final Schema schema;
    private RowType producedType;
    /** Rows each reader emits at most ({@code LIMIT} or the {@code limit} option), or -1. */
    private long limit;
    /** The query's filters as iceberg-flink's readers keep rows by them, which its limit counts. */
    private Expression limitCounts = Expressions.alwaysTrue();
    /** Whether rows are handed on in Flink's binary layout ({@code streamfusion.row-layout}). */
    private final boolean binaryRows;
    private final ReadParallelism readParallelism;

    StreamFusionIcebergTableSource(
            IcebergTableRef table, ScanOptions options, Schema schema, RowType rowType, long limit, boolean binaryRows,
            ReadParallelism readParallelism) {
        this.binaryRows = binaryRows;
        this.readParallelism = readParallelism;
        this.table = table;
        this.options = options;
        this.schema = schema;
        this.producedType = rowType;
        this.limit = limit;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        TypeInformation<RowData> type = context.createTypeInformation(producedType);
        if (options.isStreaming()) {
            return SourceProvider.of(source(type, null));
        }
        // Not SourceProvider.of(source, parallelism): the planner would then run the operators after
        // the source at its default parallelism. iceberg-flink's source sets its own parallelism, and
        // the operators chained after it (its writers in a copy) take it on. Planned here, once per
        // translation, as iceberg-flink plans: not when the planner first asks for the provider.
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(ProviderContext provider, StreamExecutionEnvironment env) {
                BoundedRead read = planBounded();
                return env.fromSource(source(type, read.plan), WatermarkStrategy.noWatermarks(), asSummaryString(), type)
                        .setParallelism(read.parallelism);
            }

            @Override
            public boolean isBounded() {
                return true;
            }
        };
    }

    /** For the island: a bounded read's batches at the parallelism its rows would have. */
    @Override
    public Batches batches(ScanContext context) {
        if (options.isStreaming()) {
            return BatchScan.super.batches(context);
        }
        BoundedRead read = planBounded();
        return new Batches(
                source(context.createTypeInformation(producedType), read.plan).batches(), read.parallelism);
    }

    /** The read's batches, planned by the enumerator when the job starts ({@link #batches} plans ahead). */
    @Override
    public Source<ArrowBatch, ?, ?> createBatchSource(ScanContext context) {
        return source(context.createTypeInformation(producedType), null).batches();
    }

    /** A bounded read as planned for one job: its parallelism, and the splits its source reads. */
    private static final class BoundedRead {
        final int parallelism;
        /** The splits planned to infer the parallelism; null where none were (or too many to carry). */
        final byte[] plan;

        BoundedRead(int parallelism, byte[] plan) {
            this.parallelism = parallelism;
            this.plan = plan;
        }
    }

    /**
     * This bounded read planned now: its parallelism as iceberg-flink infers its source's (see
     * {@link ReadParallelism}), and the splits planned for it, which the read then reads as
     * iceberg-flink's does.
     */
    private BoundedRead planBounded() {
        ScanPlanner.PlannedRead[] planned = new ScanPlanner.PlannedRead[1];
        int parallelism = readParallelism.of(limit, () -> {
            try {
                planned[0] = table.withTable(t -> planner().withColumnsOf(t).planAhead(t));
            } catch (ValidationException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new ValidationException("Cannot plan the read of Iceberg table " + table + ": "
                        + (e.getMessage() == null ? e.toString() : e.getMessage()), e);
            }
            return planned[0].splits();
        });
        return new BoundedRead(parallelism, planned[0] == null ? null : planned[0].state());
    }

    private ScanPlanner planner() {
        return new ScanPlanner(table.toString(), options, producedType.getFieldNames());
    }

    /**
     * The source of this read, starting from the splits {@code plan} holds where it is not null;
     * its columns fixed to their field ids in the table now, as iceberg-flink fixes them.
     */
    private IcebergSource source(TypeInformation<RowData> type, byte[] plan) {
        ScanPlanner planner = table.withTable(planner()::withColumnsOf);
        LimitFilter limitFilter;
        try {
            limitFilter = limit < 0
                    ? null
                    : LimitFilter.of(table.toString(), schema, producedType, limitCounts, options.caseSensitive());
        } catch (IllegalArgumentException e) {
            throw new ValidationException(e.getMessage(), e);
        }
        return new IcebergSource(table, planner, producedType, limit, limitFilter, type, binaryRows, plan);
    }

    @Override
    public Optional<String> batchesUnsupported() {
        // Every produced column comes from the data files, deletes applied: the batches are the rows.
        return Optional.empty();
    }

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        producedType = (RowType) producedDataType.getLogicalType();
    }

    /**
     * Keeps the filters Iceberg can evaluate against file metrics, for planning to prune files
     * (and the native reader to skip rows). Those are reported accepted, and every filter
     * remaining, as iceberg-flink reports them: pruning files is not filtering rows, so Flink
     * applies every filter; and the accepted ones are in the scan's digest, so the planner never
     * takes two scans of the table that prune differently for one. Under the {@code limit}
     * option, the filters iceberg-flink's readers keep rows by decide the rows it counts
     * ({@link LimitFilter}), and are reported accepted for the same reason.
     */
    @Override
    public Result applyFilters(List<ResolvedExpression> filters) {
        Expression pruning = options.filter();
        List<ResolvedExpression> accepted = new ArrayList<>();
        for (ResolvedExpression filter : filters) {
            Optional<Expression> converted = IcebergFilters.convert(filter, schema, options.caseSensitive());
            boolean prunes = converted.isPresent() && binds(converted.get());
            if (prunes) {
                pruning = Expressions.and(pruning, converted.get());
            }
            Optional<Expression> counted = IcebergFilters.asIcebergFlinkReads(filter);
            if (counted.isPresent()) {
                limitCounts = Expressions.and(limitCounts, counted.get());
            }
            if (prunes || (limit >= 0 && counted.isPresent())) {
                accepted.add(filter);
            }
        }
        options.filter(pruning);
        return Result.of(accepted, filters);
    }

    private boolean binds(Expression expression) {
        try {
            Binder.bind(schema.asStruct(), expression, options.caseSensitive());
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** A query's LIMIT takes the place of the {@code limit} option, as in iceberg-flink. */
    @Override
    public void applyLimit(long rows) {
        limit = rows;
    }

    @Override
    public DynamicTableSource copy() {
        StreamFusionIcebergTableSource copy = new StreamFusionIcebergTableSource(
                table, options.copy(), schema, producedType, limit, binaryRows, readParallelism);
        copy.limitCounts = limitCounts;
        return copy;
    }

    @Override
    public String asSummaryString() {
        List<String> parts = new ArrayList<>();
        parts.add(table.toString());
        if (options.filter() != Expressions.alwaysTrue()) {
            parts.add("files pruned by " + options.filter());
        }
        return "StreamFusionIceberg(" + String.join(", ", parts) + ")";
    }
}
