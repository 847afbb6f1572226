package dev.streamfusion.fluss.table;

import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.sink.FlussSink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.table.connector.sink.abilities.SupportsTargetColumnWriting;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.apache.fluss.metadata.MergeEngineType;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A streamfusion-fluss table written through the Fluss client: a log table takes inserts (and,
 * with {@code sink.ignore-delete}, drops retractions), a primary-key table takes upserts and
 * deletes, and {@code INSERT INTO t (columns)} into a primary-key table updates only those
 * columns, as fluss-flink's sink does. A table of the {@code aggregation} merge engine is refused:
 * fluss-flink undoes its writes after the last checkpoint when a job restores (its undo recovery),
 * which this sink does not, and the replayed rows would be aggregated twice.
 */
@Internal
final class StreamFusionFlussTableSink implements DynamicTableSink, SupportsTargetColumnWriting, SupportsPartitioning {

    private final FlussTableRef table;
    private final RowType rowType;
    /** The primary key's column indexes; empty for a log table. */
    private final int[] primaryKey;
    /** The table's merge engine, or {@code null} for the default. */
    private final MergeEngineType mergeEngine;
    private final boolean ignoreDelete;
    /** The columns of {@code INSERT INTO t (columns)}, or {@code null}. */
    private int[][] targetColumns;

    StreamFusionFlussTableSink(
            FlussTableRef table, RowType rowType, int[] primaryKey, MergeEngineType mergeEngine, boolean ignoreDelete) {
        this.table = table;
        this.rowType = rowType;
        this.primaryKey = primaryKey.clone();
        this.mergeEngine = mergeEngine;
        this.ignoreDelete = ignoreDelete;
    }

    /**
     * As fluss-flink's sink: a primary-key table (or a log table ignoring deletes) takes the kinds
     * asked for but update-befores, with whole rows in deletes (not key-only deletes, which would
     * let the planner drop a {@code ChangelogNormalize} before it and write repeated upserts into
     * the table's changelog); a log table takes inserts.
     */
    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        if (primaryKey.length > 0 || ignoreDelete) {
            ChangelogMode.Builder mode = ChangelogMode.newBuilder();
            requestedMode.getContainedKinds().stream()
                    .filter(kind -> kind != RowKind.UPDATE_BEFORE)
                    .forEach(mode::addContainedKind);
            return mode.build();
        }
        return ChangelogMode.insertOnly();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        if (mergeEngine == MergeEngineType.AGGREGATION) {
            throw new ValidationException("Fluss table " + table + " uses the 'aggregation' merge engine, whose writes "
                    + "after the last checkpoint streamfusion-fluss cannot undo when a job restores (fluss-flink's sink "
                    + "does), so they would be aggregated twice; write it with fluss-flink's sink");
        }
        return SinkV2Provider.of(new FlussSink(table, primaryKey.length > 0, ignoreDelete, partialColumns()));
    }

    @Override
    public boolean applyTargetColumns(int[][] targetColumns) {
        this.targetColumns = targetColumns;
        return true;
    }

    /**
     * The columns {@code INSERT INTO t (columns)} writes, or {@code null} where it writes every
     * column; refused where fluss-flink refuses a partial update, with its messages.
     */
    private int[] partialColumns() {
        int[][] target = targetColumns;
        if (target == null || target.length == 0 || target.length == rowType.getFieldCount()) {
            return null;
        }
        if (primaryKey.length == 0) {
            throw new ValidationException("Fluss table sink does not support partial updates for table without primary "
                    + "key. Please make sure the number of specified columns in INSERT INTO matches columns of the Fluss table.");
        }
        if (mergeEngine != null) {
            throw new ValidationException(String.format("Table %s uses the '%s' merge engine which does not support partial "
                    + "updates. Please make sure the number of specified columns in INSERT INTO matches columns of the Fluss "
                    + "table.", table.path(), mergeEngine));
        }
        int[] columns = new int[target.length];
        for (int i = 0; i < target.length; i++) {
            if (target[i].length != 1) {
                throw new ValidationException("Fluss sink table doesn't support partial updates for nested columns.");
            }
            columns[i] = target[i][0];
        }
        for (int key : primaryKey) {
            if (Arrays.stream(columns).noneMatch(c -> c == key)) {
                throw new ValidationException(String.format("Fluss table sink does not support partial updates without fully "
                        + "specifying the primary key columns. The insert columns are %s, but the primary key columns are %s. "
                        + "Please make sure the specified columns in INSERT INTO contains the primary key columns.",
                        names(columns), names(primaryKey)));
            }
        }
        return columns;
    }

    private List<String> names(int[] columns) {
        return Arrays.stream(columns).mapToObj(rowType.getFieldNames()::get).collect(Collectors.toList());
    }

    @Override
    public DynamicTableSink copy() {
        StreamFusionFlussTableSink copy = new StreamFusionFlussTableSink(table, rowType, primaryKey, mergeEngine, ignoreDelete);
        copy.targetColumns = targetColumns;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "StreamFusionFluss(" + table + ")";
    }

    /**
     * Nothing to do: the planner writes a static partition's values into the rows, and Fluss
     * routes each row to its partition by them, as fluss-flink's sink does.
     */
    @Override
    public void applyStaticPartition(Map<String, String> partition) {}
}
