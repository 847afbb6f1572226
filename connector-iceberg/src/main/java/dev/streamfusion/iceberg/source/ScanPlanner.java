package dev.streamfusion.iceberg.source;

import dev.streamfusion.iceberg.internal.TaskDescription;

import org.apache.flink.annotation.Internal;

import org.apache.iceberg.BaseMetadataTable;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.IncrementalAppendScan;
import org.apache.iceberg.Scan;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SnapshotUtil;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Plans a table's reads with Iceberg Java: which snapshot (or which appends, when streaming), which
 * files the filter keeps, which deletes apply to each, and how file tasks combine into splits. Each
 * planned task becomes a {@link TaskDescription} of the projected columns, for the native reader or,
 * where that cannot read it correctly, for Iceberg Java's; the plan fails naming the table, the
 * file and the reasons only where neither reads it. A metadata table's tasks ({@code t$files}) are
 * rows Iceberg Java makes, read by Iceberg Java.
 */
@Internal
public final class ScanPlanner implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ScanPlanner.class);

    /** The position of a streaming read that started on a table without snapshots. */
    static final long BEFORE_FIRST_SNAPSHOT = -1L;

    private final String table;
    private final ScanOptions options;
    /** The projected top-level columns, by name. */
    private final List<String> columns;
    /**
     * The projected columns' field ids, fixed when the job was planned ({@link #withColumnsOf}),
     * as iceberg-flink fixes its projection when its source is built; {@code null}: found by name
     * in each plan's schema.
     */
    private final int[] fixedIds;

    public ScanPlanner(String table, ScanOptions options, List<String> columns) {
        this(table, options, columns, null);
    }

    private ScanPlanner(String table, ScanOptions options, List<String> columns, int[] fixedIds) {
        this.table = table;
        this.options = options;
        this.columns = List.copyOf(columns);
        this.fixedIds = fixedIds;
    }

    /**
     * This planner with its columns fixed to the field ids {@code t}'s schema gives them now: a
     * column renamed later reads on under its new name, and one dropped later (even if another
     * of its name is added) fails each later plan, naming it.
     */
    public ScanPlanner withColumnsOf(Table t) {
        return new ScanPlanner(table, options, columns, projectedIds(t.schema()));
    }

    public ScanOptions options() {
        return options;
    }

    /**
     * The bounded read the options describe, planned on {@code t} now, for an {@link IcebergSource}
     * to start its enumeration from.
     */
    public PlannedRead planAhead(Table t) {
        List<TaskSplit> splits = planBounded(t);
        byte[] state = TaskEnumerator.plannedState(splits);
        if (state.length > MAX_CARRIED_PLAN_BYTES) {
            LOG.info("Table {}: the {} splits planned take {} bytes; the enumerator plans them again when the job starts",
                    table, splits.size(), state.length);
            state = null;
        }
        return new PlannedRead(state, splits.size());
    }

    /**
     * The most bytes of planned splits a job carries to its enumerator; a larger plan (each task
     * holds its table's schema) is made again by the enumerator rather than shipped with the job.
     */
    static final int MAX_CARRIED_PLAN_BYTES = 8 << 20;

    /** A bounded read planned before its job runs: how many splits, and the splits themselves. */
    public static final class PlannedRead {
        private final byte[] state;
        private final int splits;

        PlannedRead(byte[] state, int splits) {
            this.state = state;
            this.splits = splits;
        }

        /**
         * What an {@link IcebergSource}'s enumerator starts from; null where the plan is too large
         * to carry with the job.
         */
        public byte[] state() {
            return state;
        }

        public int splits() {
            return splits;
        }
    }

    /** The id of the snapshot {@code tag} names in {@code t}. */
    private Long tagged(Table t, String tag) {
        Snapshot snapshot = t.snapshot(tag);
        if (snapshot == null) {
            throw new IllegalArgumentException("Table " + table + " has no tag " + tag);
        }
        return snapshot.snapshotId();
    }

    /** Splits of the bounded read the options describe. */
    List<TaskSplit> planBounded(Table t) {
        if (options.startSnapshotId != null || options.endSnapshotId != null || options.startTag != null
                || options.endTag != null) {
            // The appends between two snapshots, as iceberg-flink reads them: from the oldest
            // ancestor where no start is set, up to the current snapshot where no end is.
            IncrementalAppendScan scan = configure(t.newIncrementalAppendScan());
            Long start = options.startTag != null ? tagged(t, options.startTag) : options.startSnapshotId;
            if (start != null) {
                scan = scan.fromSnapshotExclusive(start);
            }
            Long end = options.endTag != null ? tagged(t, options.endTag) : options.endSnapshotId;
            if (end != null) {
                scan = scan.toSnapshot(end);
            }
            return plan(t, scan, "bounded");
        }
        // As iceberg-flink picks among them: a snapshot id before a tag before a branch; a time on
        // top of any of them is Iceberg's own error (a scan takes one snapshot).
        TableScan scan = configure(t.newScan());
        if (options.snapshotId != null) {
            scan = scan.useSnapshot(options.snapshotId);
        } else if (options.tag != null) {
            scan = scan.useRef(options.tag);
        } else if (options.branch != null) {
            scan = scan.useRef(options.branch);
        }
        if (options.asOfTimestamp != null) {
            scan = scan.asOfTime(options.asOfTimestamp);
        }
        return plan(t, scan, "bounded");
    }

    /** What one streaming discovery found: the splits, and the snapshot read up to. */
    static final class Increment {
        /** The position the increment was planned from. */
        Long from;
        final List<TaskSplit> splits;
        /** The last snapshot planned, or {@code null} while the table has none. */
        final Long position;

        Increment(List<TaskSplit> splits, Long position) {
            this.splits = splits;
            this.position = position;
        }
    }

    /**
     * The appends after {@code position} (the last snapshot planned), or, when {@code position} is
     * {@code null}, the start the starting strategy names; at most {@code
     * max-planning-snapshot-count} snapshots at a time.
     */
    Increment planIncrement(Table t, Long position) {
        Increment increment = planIncrementFrom(t, position);
        increment.from = position;
        return increment;
    }

    private Increment planIncrementFrom(Table t, Long position) {
        Snapshot current = options.branch == null ? t.currentSnapshot() : t.snapshot(options.branch);
        if (current == null) {
            // An empty table: as iceberg-flink's enumerator, every strategy that starts at a
            // snapshot of the table (the current one, or the oldest) reads the appends of every
            // snapshot committed from now on, from the first; a table scan of whichever snapshot
            // is current at the next discovery would read rows that snapshots after the first
            // deleted or overwrote.
            if (position == null && options.startingStrategy == ScanOptions.StartingStrategy.INCREMENTAL_FROM_SNAPSHOT_ID) {
                throw new IllegalArgumentException("Table " + table + " has no snapshot " + options.startSnapshotId
                        + " (start-snapshot-id); it is empty");
            }
            if (position == null && options.startingStrategy == ScanOptions.StartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP) {
                throw noSnapshotAfterStart(null);
            }
            return new Increment(List.of(), position == null ? BEFORE_FIRST_SNAPSHOT : position);
        }
        if (position == null) {
            return planStart(t, current);
        }
        if (position == BEFORE_FIRST_SNAPSHOT) {
            long oldest = SnapshotUtil.oldestAncestorOf(t, current.snapshotId()).snapshotId();
            Snapshot target = cappedTarget(t, null, current);
            IncrementalAppendScan scan = branch(configure(t.newIncrementalAppendScan()))
                    .fromSnapshotInclusive(oldest)
                    .toSnapshot(target.snapshotId());
            return new Increment(plan(t, scan, String.valueOf(target.snapshotId())), target.snapshotId());
        }
        if (position == current.snapshotId()) {
            return new Increment(List.of(), position);
        }
        Snapshot target = cappedTarget(t, position, current);
        IncrementalAppendScan scan = branch(configure(t.newIncrementalAppendScan()))
                .fromSnapshotExclusive(position)
                .toSnapshot(target.snapshotId());
        return new Increment(plan(t, scan, String.valueOf(target.snapshotId())), target.snapshotId());
    }

    private Increment planStart(Table t, Snapshot current) {
        Long startInclusive;
        switch (options.startingStrategy) {
            case TABLE_SCAN_THEN_INCREMENTAL:
                TableScan scan = configure(t.newScan()).useSnapshot(current.snapshotId());
                return new Increment(plan(t, scan, String.valueOf(current.snapshotId())), current.snapshotId());
            case INCREMENTAL_FROM_LATEST_SNAPSHOT:
                startInclusive = current.snapshotId();
                break;
            case INCREMENTAL_FROM_LATEST_SNAPSHOT_EXCLUSIVE:
                return new Increment(List.of(), current.snapshotId());
            case INCREMENTAL_FROM_EARLIEST_SNAPSHOT:
                startInclusive = SnapshotUtil.oldestAncestorOf(t, current.snapshotId()).snapshotId();
                break;
            case INCREMENTAL_FROM_SNAPSHOT_ID:
                if (options.startSnapshotId == null) {
                    throw new IllegalArgumentException("starting-strategy INCREMENTAL_FROM_SNAPSHOT_ID needs 'start-snapshot-id'");
                }
                if (t.snapshot(options.startSnapshotId) == null) {
                    throw new IllegalArgumentException("Table " + table + " has no snapshot " + options.startSnapshotId
                            + " (start-snapshot-id); it may have expired");
                }
                startInclusive = options.startSnapshotId;
                break;
            case INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP:
                if (options.startSnapshotTimestamp == null) {
                    throw new IllegalArgumentException(
                            "starting-strategy INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP needs 'start-snapshot-timestamp'");
                }
                startInclusive = oldestAncestorAtOrAfter(t, current, options.startSnapshotTimestamp).snapshotId();
                break;
            default:
                throw new IllegalStateException("Unknown starting strategy " + options.startingStrategy);
        }
        Snapshot target = cappedTarget(t, t.snapshot(startInclusive).parentId(), current);
        IncrementalAppendScan scan = branch(configure(t.newIncrementalAppendScan()))
                .fromSnapshotInclusive(startInclusive)
                .toSnapshot(target.snapshotId());
        return new Increment(plan(t, scan, String.valueOf(target.snapshotId())), target.snapshotId());
    }

    /**
     * The oldest ancestor of {@code current} committed at or after {@code timestamp}, as
     * iceberg-flink's enumerator finds it: a start after the current snapshot, or one older than
     * the oldest snapshot the table still holds when older ones have expired, fails planning (and
     * counts against {@code max-allowed-planning-failures}), for the appends before it can no
     * longer be read.
     */
    private Snapshot oldestAncestorAtOrAfter(Table t, Snapshot current, long timestamp) {
        Snapshot found = null;
        for (Snapshot s = current; s != null; s = s.parentId() == null ? null : t.snapshot(s.parentId())) {
            if (s.timestampMillis() < timestamp) {
                if (found == null) {
                    throw noSnapshotAfterStart(current);
                }
                return found;
            }
            found = s;
            if (s.timestampMillis() == timestamp || s.parentId() == null) {
                return s;
            }
        }
        throw new IllegalStateException("Table " + table + ": start-snapshot-timestamp " + timestamp
                + " is older than the oldest snapshot the table still holds (" + found.snapshotId()
                + ", committed at " + found.timestampMillis() + "); the snapshots before it have expired");
    }

    private IllegalArgumentException noSnapshotAfterStart(Snapshot current) {
        return new IllegalArgumentException("Table " + table + " has no snapshot committed at or after start-snapshot-timestamp "
                + options.startSnapshotTimestamp + (current == null ? "; it is empty"
                        : "; its current snapshot " + current.snapshotId() + " was committed at " + current.timestampMillis()));
    }

    /** {@code current}, or the snapshot {@code max-planning-snapshot-count} after {@code from}. */
    private Snapshot cappedTarget(Table t, Long from, Snapshot current) {
        List<Snapshot> after = new ArrayList<>();
        for (Snapshot s = current; s != null && (from == null || s.snapshotId() != from);
                s = s.parentId() == null ? null : t.snapshot(s.parentId())) {
            after.add(s);
        }
        if (from != null && (after.isEmpty() || after.get(after.size() - 1).parentId() == null
                || after.get(after.size() - 1).parentId() != from.longValue())) {
            throw new IllegalStateException("Table " + table + ": snapshot " + from
                    + " is no ancestor of the current snapshot " + current.snapshotId() + "; it may have expired");
        }
        int count = after.size();
        return count <= options.maxPlanningSnapshotCount ? current : after.get(count - options.maxPlanningSnapshotCount);
    }

    private IncrementalAppendScan branch(IncrementalAppendScan scan) {
        return options.branch == null ? scan : scan.useBranch(options.branch);
    }

    private <S extends Scan<S, ?, ?>> S configure(S scan) {
        S s = scan.caseSensitive(options.caseSensitive).filter(options.filter);
        if (options.splitSize != null) {
            s = s.option(TableProperties.SPLIT_SIZE, options.splitSize.toString());
        }
        if (options.splitLookback != null) {
            s = s.option(TableProperties.SPLIT_LOOKBACK, options.splitLookback.toString());
        }
        if (options.splitOpenFileCost != null) {
            s = s.option(TableProperties.SPLIT_OPEN_FILE_COST, options.splitOpenFileCost.toString());
        }
        return s;
    }

    private <S extends Scan<S, FileScanTask, CombinedScanTask>> List<TaskSplit> plan(Table t, S scan, String idPrefix) {
        Schema schema = t.schema();
        TaskDescription.ColumnHistory history = TaskDescription.ColumnHistory.of(schema, t.schemas().values());
        int[] projected = fixedIds == null ? projectedIds(schema) : present(fixedIds, schema);
        String nameMapping = t.properties().get(TableProperties.DEFAULT_NAME_MAPPING);
        // A metadata table's rows are made by Iceberg Java, of the projected fields in its schema's
        // order; a data file's columns are projected by the reader.
        int[] rowPositions = null;
        S planned = scan;
        if (t instanceof BaseMetadataTable) {
            Schema rows = TypeUtil.select(schema, Arrays.stream(projected).boxed().collect(Collectors.toSet()));
            rowPositions = new int[projected.length];
            for (int c = 0; c < projected.length; c++) {
                rowPositions[c] = rows.columns().indexOf(rows.findField(projected[c]));
            }
            planned = scan.project(rows);
        }
        List<TaskSplit> splits = new ArrayList<>();
        int tasksRead = 0;
        List<TaskDescription> javaTasks = new ArrayList<>();
        try (CloseableIterable<CombinedScanTask> tasks = planned.planTasks()) {
            for (CombinedScanTask combined : tasks) {
                List<TaskDescription> described = new ArrayList<>();
                for (FileScanTask task : combined.files()) {
                    TaskDescription description = rowPositions != null
                            ? TaskDescription.forMetadata(task, projected, rowPositions)
                            : describe(task, schema, history, projected, nameMapping);
                    if (description.readByJava()) {
                        javaTasks.add(description);
                    }
                    described.add(description);
                    tasksRead++;
                }
                splits.add(new TaskSplit(idPrefix + "-" + splits.size(), described, 0, 0));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot plan a scan of table " + table, e);
        }
        if (!javaTasks.isEmpty() && rowPositions == null) {
            LOG.info("Table {}: {} of {} file tasks are read by Iceberg Java's reader, the native reader cannot read them; "
                            + "the first: {}", table, javaTasks.size(), tasksRead, javaTasks.get(0).javaReason());
        }
        return splits;
    }

    /**
     * {@code task} for the native reader, or for Iceberg Java's reader where the native one cannot
     * read it correctly; refused naming the table, the file and both reasons where neither can.
     */
    private TaskDescription describe(
            FileScanTask task, Schema schema, TaskDescription.ColumnHistory history, int[] projected, String nameMapping) {
        try {
            return TaskDescription.of(task, schema, history, projected, nameMapping, options.caseSensitive);
        } catch (TaskDescription.UnsupportedTaskException nativeRefusal) {
            try {
                return TaskDescription.forJava(task, projected, nameMapping, options.caseSensitive, nativeRefusal.getMessage());
            } catch (TaskDescription.UnsupportedTaskException javaRefusal) {
                UnsupportedOperationException refused = new UnsupportedOperationException(
                        "Table " + table + ": " + javaRefusal.getMessage() + " (" + nativeRefusal.getMessage() + ")", javaRefusal);
                refused.addSuppressed(nativeRefusal);
                throw refused;
            }
        }
    }

    /** {@code ids}, each of a column {@code schema} has. */
    private int[] present(int[] ids, Schema schema) {
        for (int i = 0; i < ids.length; i++) {
            if (schema.findField(ids[i]) == null) {
                throw new IllegalStateException("Column '" + columns.get(i) + "' (field id " + ids[i] + ") of table " + table
                        + " was dropped after the read was planned; start the job again to read the table as it is now");
            }
        }
        return ids;
    }

    /** The field ids of the projected columns in {@code schema}. */
    int[] projectedIds(Schema schema) {
        int[] ids = new int[columns.size()];
        for (int i = 0; i < ids.length; i++) {
            String name = columns.get(i);
            Types.NestedField field = options.caseSensitive ? schema.findField(name) : schema.caseInsensitiveFindField(name);
            if (field == null) {
                throw new IllegalArgumentException("Table " + table + " has no column '" + name + "'");
            }
            ids[i] = field.fieldId();
        }
        return ids;
    }

    @Override
    public String toString() {
        return table;
    }
}
