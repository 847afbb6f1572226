package dev.streamfusion.iceberg.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.source.SplitBatch;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.Set;

/**
 * One batch of one file task of a split, as the reader emits it (a row at a time, each a view over
 * the batch), or finished splits only.
 */
@Internal
final class TaskBatch extends SplitBatch<TaskBatch.Row> {

    /** The row the reader emits; one instance is moved along the batch. */
    static final class Row {
        VectorSchemaRoot root;
        ArrowColumnarBatch rows;
        /** The row, or {@link SplitBatch#WHOLE} for the whole batch. */
        int index;
        /** The file task of the split the row belongs to. */
        int task;
        /** The row's position among the task's rows (deletes applied). */
        long position;
    }

    private final long firstPosition;
    private final Row row = new Row();

    /** Finished splits, no rows. */
    TaskBatch(Set<String> finished) {
        this(null, null, null, 0, 0, finished, false);
    }

    /**
     * Rows of task {@code task} of {@code splitId}, the first at {@code firstPosition} in the task;
     * emitted as one record when {@code whole}.
     */
    TaskBatch(
            String splitId,
            VectorSchemaRoot root,
            ArrowColumnarBatch rows,
            int task,
            long firstPosition,
            Set<String> finished,
            boolean whole) {
        super(splitId, root, rows, finished, whole);
        this.firstPosition = firstPosition;
        row.root = root;
        row.rows = rows;
        row.task = task;
    }

    @Override
    protected Row record(ArrowColumnarBatch rows, int index) {
        row.index = index;
        row.position = firstPosition + (index == WHOLE ? 0 : index);
        return row;
    }
}
