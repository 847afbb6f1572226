package dev.streamfusion.bridge.columnar;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.List;

/**
 * An Arrow batch read by Flink as rows: one {@link ColumnarRowData} view moved from row to row,
 * with no per-row copy (the pattern of Flink's vectorized Parquet reader); or, where {@link
 * #writeBinaryRows} asked for them, {@code BinaryRowData} views over the batch's rows in Flink's
 * binary layout, written when the first row is read (on the thread that emits the rows, not the
 * fetcher's) and freed by {@link #close()}.
 */
@Internal
public final class ArrowColumnarBatch implements AutoCloseable {

    /**
     * The batch whose shared row view was last handed on by this thread, for a sink chained to the
     * source to copy the view's values from the Arrow columns (see {@link #viewing}).
     */
    private static final ThreadLocal<ArrowColumnarBatch> VIEWED = new ThreadLocal<>();

    private final VectorizedColumnBatch batch;
    /** The Arrow columns, one per field of the rows; null where the rows lift nested fields. */
    private final List<FieldVector> vectors;
    private final ColumnarRowData row;
    /** The row the shared view is at. */
    private int rowId = -1;
    private boolean announced;
    /** What copies out rows consumers hold of this batch, run when the batch is closed. */
    private List<Runnable> beforeRelease;
    private boolean closed;
    private BinaryRowsWriter.Rows binaryRows;
    /** The writer and batch of binary rows asked for and not written yet. */
    private BinaryRowsWriter pendingWriter;
    private VectorSchemaRoot pendingRoot;

    private ArrowColumnarBatch(VectorizedColumnBatch batch, List<FieldVector> vectors) {
        this.batch = batch;
        this.vectors = vectors;
        this.row = new ColumnarRowData(batch);
    }

    /** Views the current contents of {@code root} as rows of {@code rowType}. */
    public static ArrowColumnarBatch of(VectorSchemaRoot root, RowType rowType) {
        if (root.getFieldVectors().size() != rowType.getFieldCount()) {
            throw new IllegalArgumentException(
                    "the Arrow batch has "
                            + root.getFieldVectors().size()
                            + " columns but the row type "
                            + rowType.asSummaryString()
                            + " has "
                            + rowType.getFieldCount());
        }
        return new ArrowColumnarBatch(
                ArrowColumnVectors.createBatch(root.getFieldVectors(), rowType, root.getRowCount()),
                root.getFieldVectors());
    }

    /**
     * Views the current contents of {@code root} (a batch of {@code projection}'s pruned type) as
     * the projected columns, nested fields lifted to columns of their own, without copying.
     */
    public static ArrowColumnarBatch of(VectorSchemaRoot root, NestedProjection projection) {
        VectorizedColumnBatch pruned =
                ArrowColumnVectors.createBatch(root.getFieldVectors(), projection.prunedType(), root.getRowCount());
        int[][] paths = projection.prunedPaths();
        ColumnVector[] columns = new ColumnVector[paths.length];
        for (int c = 0; c < paths.length; c++) {
            ColumnVector column = pruned.columns[paths[c][0]];
            for (int depth = 1; depth < paths[c].length; depth++) {
                column = ArrowColumnVectors.rowField(column, paths[c][depth]);
            }
            columns[c] = column;
        }
        VectorizedColumnBatch batch = new VectorizedColumnBatch(columns);
        batch.setNumRows(root.getRowCount());
        return new ArrowColumnarBatch(batch, null);
    }

    public int rowCount() {
        return batch.getNumRows();
    }

    public VectorizedColumnBatch columns() {
        return batch;
    }

    /**
     * Has {@code writer} (null: none) write the rows of {@code root}, the batch these rows view, in
     * Flink's binary layout when {@link #row} is first called; {@link #row} then reads them there.
     * Returns this batch.
     */
    public ArrowColumnarBatch writeBinaryRows(BinaryRowsWriter writer, VectorSchemaRoot root) {
        if (binaryRows == null) {
            pendingWriter = writer;
            pendingRoot = root;
        }
        return this;
    }

    /** Whether {@link #row} reads (or will read) rows in Flink's binary layout. */
    public boolean binary() {
        return binaryRows != null || pendingWriter != null;
    }

    /** The shared row view positioned at {@code rowId}; it moves on the next call. */
    public RowData row(int rowId) {
        if (pendingWriter != null) {
            // A writer closed meanwhile (its reader shut down) leaves the rows columnar: the same values.
            binaryRows = pendingWriter.writeUnlessClosed(pendingRoot);
            pendingWriter = null;
            pendingRoot = null;
        }
        if (binaryRows != null) {
            return binaryRows.row(rowId);
        }
        row.setRowId(rowId);
        this.rowId = rowId;
        if (!announced && vectors != null) {
            VIEWED.set(this);
            announced = true;
        }
        return row;
    }

    /**
     * The batch whose shared row view {@code row} is, where that batch is the one this thread
     * last began to hand rows on from (a sink chained to the source receives the view while the
     * source is at it); else {@code null}, and {@code row} is read through its getters.
     */
    public static ArrowColumnarBatch viewing(RowData row) {
        ArrowColumnarBatch viewed = VIEWED.get();
        return viewed != null && viewed.row == row ? viewed : null;
    }

    /** The Arrow columns the rows view, one per field; null where the rows lift nested fields. */
    public List<FieldVector> vectors() {
        return vectors;
    }

    /** The row the shared view is at. */
    public int rowId() {
        return rowId;
    }

    /** A row view of its own, positioned at {@code rowId}. */
    public ColumnarRowData newRow(int rowId) {
        return new ColumnarRowData(batch, rowId);
    }

    /**
     * Has {@code copy} run when this batch is closed, before its owner frees or reloads the Arrow
     * columns (every owner closes the batch first), unless {@link #notBeforeRelease} takes it back
     * first. A consumer that holds rows of the batch to copy later (a sink's run of views; a
     * source chained to two sinks hands both the same views) copies them then.
     */
    public void beforeRelease(Runnable copy) {
        if (beforeRelease == null) {
            beforeRelease = new ArrayList<>(1);
        }
        beforeRelease.add(copy);
    }

    /** Takes back {@code copy}, given to {@link #beforeRelease}: it no longer runs. */
    public void notBeforeRelease(Runnable copy) {
        if (beforeRelease != null) {
            beforeRelease.remove(copy);
        }
    }

    /** Whether the batch is closed: its Arrow columns may be freed or hold other rows by now. */
    public boolean closed() {
        return closed;
    }

    /**
     * Runs what {@link #beforeRelease} set, then frees the rows written in the binary layout, if
     * any; the Arrow batch is its owner's.
     */
    @Override
    public void close() {
        List<Runnable> copies = beforeRelease;
        beforeRelease = null;
        try {
            // A failed copy fails the job; a consumer whose copy did not run then finds the batch
            // closed rather than reading its freed columns.
            for (Runnable copy : copies == null ? List.<Runnable>of() : copies) {
                copy.run();
            }
        } finally {
            closed = true;
            release();
        }
    }

    private void release() {
        if (VIEWED.get() == this) {
            VIEWED.remove();
        }
        if (binaryRows != null) {
            binaryRows.close();
        }
    }
}
