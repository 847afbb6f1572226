package dev.streamfusion.iceberg.source;

import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.NativeException;
import dev.streamfusion.bridge.columnar.ArrowColumnVectors;
import dev.streamfusion.bridge.columnar.RowViews;
import dev.streamfusion.bridge.source.FetchedBatches;
import dev.streamfusion.iceberg.internal.IcebergTaskReader;
import dev.streamfusion.iceberg.internal.TableFiles;
import dev.streamfusion.iceberg.internal.TaskDescription;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Set;

/**
 * Reads the assigned splits one after another, each split's file tasks in order, a native batch
 * per fetch. A split restored part-way resumes at its task and skips the rows of it emitted
 * before (a task reads the same rows in the same order every time).
 */
@Internal
final class TaskSplitReader implements SplitReader<TaskBatch.Row, TaskSplit> {

    private final RowType rowType;
    private final int batchSize;
    /** Rows left to read under a pushed-down LIMIT, or -1 without one. */
    private long remaining;
    /** The rows the limit counts, where not every row: those a filter keeps. */
    private final LimitFilter limitFilter;
    private final BufferAllocator allocator;
    private final FetchedBatches fetched;
    private final ArrayDeque<TaskSplit> splits = new ArrayDeque<>();
    private TaskSplit current;
    private int task;
    private IcebergTaskReader reader;
    /** Rows of the current task read so far (skipped ones included). */
    private long read;
    /** Rows of the current task to skip (emitted before a restore). */
    private long toSkip;
    /** Whether each batch is emitted whole (to the operator island) rather than row by row. */
    private final boolean whole;
    /** The table's files that are not local, read through its {@code FileIO}. */
    private final TableFiles files;
    private final RowViews views;

    /**
     * @param limitFilter the rows {@code limit} counts, or null for every row
     * @param files the table's files, for those the native reader does not open itself
     * @param whole whether each batch is emitted whole (to the operator island) rather than row by row
     * @param binaryRows whether rows are handed on in Flink's binary layout, where their types have one
     */
    TaskSplitReader(
            RowType rowType,
            int batchSize,
            long limit,
            LimitFilter limitFilter,
            FetchedBatches fetched,
            TableFiles files,
            boolean whole,
            boolean binaryRows) {
        this.whole = whole;
        this.files = files;
        this.rowType = rowType;
        this.batchSize = batchSize;
        this.remaining = limit;
        this.limitFilter = limitFilter;
        this.allocator = fetched.allocator();
        this.fetched = fetched;
        this.views = RowViews.of(allocator, rowType, binaryRows);
    }

    @Override
    public RecordsWithSplitIds<TaskBatch.Row> fetch() throws IOException {
        if (current == null) {
            current = splits.poll();
            if (current == null) {
                return fetched.track(new TaskBatch(Set.of()));
            }
            task = current.task;
            toSkip = current.emitted;
            read = 0;
        }
        while (true) {
            if (remaining == 0 || task >= current.tasks.size()) {
                // Every task read, or the LIMIT reached: the split finishes.
                return fetched.track(new TaskBatch(Set.of(finishSplit())));
            }
            TaskDescription description = current.tasks.get(task);
            VectorSchemaRoot batch;
            try {
                if (reader == null) {
                    reader = IcebergTaskReader.open(allocator, description, rowType, batchSize, files);
                }
                batch = reader.next();
            } catch (NativeException | IOException e) {
                throw new IOException("Cannot read " + description.path() + " (" + current + "): " + e.getMessage(), e);
            }
            if (batch == null) {
                closeReader();
                task++;
                toSkip = 0;
                read = 0;
                continue;
            }
            int rows = batch.getRowCount();
            long first = read;
            read += rows;
            if (toSkip >= rows) {
                toSkip -= rows;
                continue;
            }
            int skip = (int) toSkip;
            toSkip = 0;
            VectorSchemaRoot own = ArrowRoots.moveTo(batch, skip, allocator);
            if (remaining >= 0) {
                own.setRowCount(counted(own));
            }
            return fetched.track(new TaskBatch(current.splitId(), own, views.rows(own), task, first + skip, Set.of(), whole));
        }
    }

    /**
     * The rows of {@code batch} up to the one the limit ends at, each the limit counts taken from
     * what it leaves: every row, or those its filter keeps (the others up to there are handed on
     * for Flink's filter to drop).
     */
    private int counted(VectorSchemaRoot batch) {
        if (limitFilter == null) {
            int rows = (int) Math.min(batch.getRowCount(), remaining);
            remaining -= rows;
            return rows;
        }
        ColumnarRowData row =
                new ColumnarRowData(ArrowColumnVectors.createBatch(batch.getFieldVectors(), rowType, batch.getRowCount()));
        int rows = 0;
        while (rows < batch.getRowCount() && remaining > 0) {
            row.setRowId(rows++);
            if (limitFilter.keeps(row)) {
                remaining--;
            }
        }
        return rows;
    }

    private String finishSplit() throws IOException {
        String finished = current.splitId();
        closeReader();
        current = null;
        return finished;
    }

    @Override
    public void handleSplitsChanges(SplitsChange<TaskSplit> change) {
        if (!(change instanceof SplitsAddition)) {
            throw new UnsupportedOperationException("The Iceberg reader supports only split additions");
        }
        splits.addAll(change.splits());
    }

    @Override
    public void wakeUp() {}

    private void closeReader() throws IOException {
        if (reader != null) {
            reader.close();
            reader = null;
            files.release();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            closeReader();
        } finally {
            try {
                files.close();
            } finally {
                views.close();
            }
        }
    }
}
