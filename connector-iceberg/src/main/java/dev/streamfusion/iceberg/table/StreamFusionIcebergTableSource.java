package dev.streamfusion.iceberg.table;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchScan;
import dev.streamfusion.iceberg.internal.IcebergTableRef;
import dev.streamfusion.iceberg.source.IcebergSource;
import dev.streamfusion.iceberg.source.ScanOptions;
import dev.streamfusion.iceberg.source.ScanPlanner;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
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
    /** Whether rows are handed on in Flink's binary layout ({@code streamfusion.row-layout}). */
    private final boolean binaryRows;
    private final ReadParallelism readParallelism;
    /** The parallelism of this bounded read, once inferred; null until then. */
    private Integer parallelism;
    /** The splits planned to infer {@link #parallelism}, which the read then reads; null if none. */
    private ScanPlanner.PlannedRead planned;

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
        Optional<Integer> parallelism = batchParallelism();
        IcebergSource source = source(context);
        if (parallelism.isEmpty()) {
            return SourceProvider.of(source);
        }
        // Not SourceProvider.of(source, parallelism): the planner would then run the operators after
        // the source at its default parallelism. iceberg-flink's source sets its own parallelism, and
        // the operators after it (its writers in a copy) take it on, chained.
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(ProviderContext provider, StreamExecutionEnvironment env) {
                return env.fromSource(source, WatermarkStrategy.noWatermarks(), asSummaryString(), source.getProducedType())
                        .setParallelism(parallelism.get());
            }

            @Override
            public boolean isBounded() {
                return true;
            }
        };
    }

    /**
     * A bounded read's parallelism, as iceberg-flink infers its source's (the splits planned now,
     * see {@link ReadParallelism}; the read then reads those splits, as iceberg-flink's does); none
     * for a streaming read.
     */
    @Override
    public Optional<Integer> batchParallelism() {
        if (options.isStreaming()) {
            return Optional.empty();
        }
        if (parallelism == null) {
            parallelism = readParallelism.of(limit, () -> {
                try {
                    planned = table.withTable(planner()::planAhead);
                } catch (RuntimeException e) {
                    throw new ValidationException("Cannot plan the read of Iceberg table " + table + ": " + e.getMessage(), e);
                }
                return planned.splits;
            });
        }
        return Optional.of(parallelism);
    }

    private ScanPlanner planner() {
        return new ScanPlanner(table.toString(), options, producedType.getFieldNames());
    }

    /** The source of this read: of the splits planned to infer its parallelism, where they were. */
    private IcebergSource source(ScanContext context) {
        batchParallelism();
        return new IcebergSource(table, planner(), producedType, limit, context.createTypeInformation(producedType),
                binaryRows, planned == null ? null : planned.state);
    }

    @Override
    public Optional<String> batchesUnsupported() {
        // Every produced column comes from the data files, deletes applied: the batches are the rows.
        return Optional.empty();
    }

    @Override
    public Source<ArrowBatch, ?, ?> createBatchSource(ScanContext context) {
        return source(context).batches();
    }

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        producedType = (RowType) producedDataType.getLogicalType();
        forgetPlan();
    }

    /** Plans again when next asked: what was pushed into the read changes its splits. */
    private void forgetPlan() {
        parallelism = null;
        planned = null;
    }

    /**
     * Keeps the filters Iceberg can evaluate against file metrics, for planning to prune files;
     * reports none as accepted, since pruning files is not filtering rows: Flink applies every
     * filter to the rows read.
     */
    @Override
    public Result applyFilters(List<ResolvedExpression> filters) {
        Expression pruning = options.filter();
        for (ResolvedExpression filter : filters) {
            Optional<Expression> converted = IcebergFilters.convert(filter, schema, options.caseSensitive());
            if (converted.isPresent() && binds(converted.get())) {
                pruning = Expressions.and(pruning, converted.get());
            }
        }
        options.filter(pruning);
        forgetPlan();
        return Result.of(List.of(), filters);
    }

    private boolean binds(Expression expression) {
        try {
            Binder.bind(schema.asStruct(), expression, options.caseSensitive());
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public void applyLimit(long rows) {
        limit = limit < 0 ? rows : Math.min(limit, rows);
        forgetPlan();
    }

    @Override
    public DynamicTableSource copy() {
        return new StreamFusionIcebergTableSource(
                table, options.copy(), schema, producedType, limit, binaryRows, readParallelism);
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
