package dev.streamfusion.bridge.writer;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.columnar.BinaryRowsToArrow;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.List;

/**
 * The rows a sink is handed, gathered into Arrow batches in their order: rows in Flink's binary
 * layout are transposed natively ({@link BinaryRowsToArrow}), every other row by the Java writer
 * ({@link RowDataArrowWriter}). A batch holds rows gathered one way; where the next row goes the
 * other way, the rows before it are handed back as a batch first. Rows are never referenced after
 * they are added.
 *
 * <p>The native reader rejects a NULL map key, so where NULL keys are dropped or replaced ({@link
 * NullMapKeys}), rows of a type holding a map all go the Java writer's way.
 *
 * <p>A StreamFusion source's row view handed straight to the sink (a chained copy, in a job that
 * reuses objects) goes the Java writer's way. Where every column of the view's batch is flat and
 * of the sink's Arrow type, consecutive views of one batch are gathered as a run and copied from
 * the source's Arrow columns in bulk ({@link RowDataArrowWriter#copiesRuns}): when the run breaks
 * or reaches the batch's last row, before rows are handed back, and before the batch is released
 * ({@link ArrowColumnarBatch#beforeRelease}). Otherwise its text and bytes are copied value by
 * value from the source's columns, and the rest read through the view ({@link
 * ArrowColumnarBatch#viewing}, {@link RowDataArrowWriter#copyable}).
 */
@Internal
public final class SinkRows implements AutoCloseable {

    private final RowDataArrowWriter java;
    private final BinaryRowsToArrow binary;
    /**
     * The last row added; the batch it is the shared view of, where columns of it are copied (else
     * null); and which columns. A view belongs to one batch for good, and that batch keeps the row
     * it is at.
     */
    private RowData lastRow;
    private ArrowColumnarBatch lastViewed;
    private boolean[] copy;
    /** Whether the last row's batch has every column copied in runs ({@link #add}). */
    private boolean runs;
    /**
     * Views added and not yet copied: rows {@code runStart} to {@code runEnd} of {@code run}'s
     * columns, copied in bulk when the run ends, before the batch is released, or before rows
     * are handed back.
     */
    private ArrowColumnarBatch run;
    private int runStart;
    private int runEnd;
    /** What the run's batch runs before it is released: one object, so it can be taken back. */
    private final Runnable copyBeforeRelease = this::copyRun;
    private long copiedRows;
    private long runRows;
    private long binaryRows;

    private SinkRows(RowDataArrowWriter java, BinaryRowsToArrow binary) {
        this.java = java;
        this.binary = binary;
    }

    /**
     * Rows of {@code rowType} into batches from {@code allocator}, for a sink that stores them: a
     * NULL map key is an error, and so is text whose bytes are not UTF-8 (where the natively read
     * batch is made, or where the Java writer's batch is checked as it crosses to Rust).
     */
    public static SinkRows create(RowType rowType, BufferAllocator allocator) {
        return create(rowType, allocator, NullMapKeys.REJECT, false);
    }

    /**
     * Rows of {@code rowType} into batches from {@code allocator}, for a format: NULL map keys as
     * {@code nullKeys} says; where {@code textAsJava}, text whose bytes are not UTF-8 is read as
     * {@code StringData.toString()} reads it where the batch is read natively from binary rows
     * (the encoder reads the Java writer's batch that way as it crosses), else it is an error.
     */
    public static SinkRows forFormat(RowType rowType, BufferAllocator allocator, NullMapKeys nullKeys, boolean textAsJava) {
        return create(rowType, allocator, nullKeys, textAsJava);
    }

    private static SinkRows create(RowType rowType, BufferAllocator allocator, NullMapKeys nullKeys, boolean textAsJava) {
        RowDataArrowWriter java = RowDataArrowWriter.create(rowType, allocator, nullKeys);
        try {
            boolean nativeReader = nullKeys == NullMapKeys.REJECT || !holdsMap(rowType);
            return new SinkRows(java, nativeReader ? BinaryRowsToArrow.create(allocator, rowType, textAsJava) : null);
        } catch (RuntimeException e) {
            java.close();
            throw e;
        }
    }

    private static boolean holdsMap(LogicalType type) {
        LogicalTypeRoot root = type.getTypeRoot();
        return root == LogicalTypeRoot.MAP
                || root == LogicalTypeRoot.MULTISET
                || type.getChildren().stream().anyMatch(SinkRows::holdsMap);
    }

    /**
     * Adds {@code row} to the batch being gathered.
     *
     * @return the rows added before {@code row} as one batch, where they must go before it (they
     *     were gathered the other way), else {@code null}; the batch is valid until the next call
     */
    public VectorSchemaRoot add(RowData row) {
        if (binary != null && binary.append(row)) {
            binaryRows++;
            copyRun();
            return java.appended() > 0 ? java.finishBatch() : null;
        }
        VectorSchemaRoot before = binary != null && binary.appended() > 0 ? binary.finishBatch() : null;
        if (row != lastRow) {
            // A view is one object moved from row to row: looked up once, not per row.
            lastRow = row;
            ArrowColumnarBatch viewed = row instanceof ColumnarRowData ? ArrowColumnarBatch.viewing(row) : null;
            runs = viewed != null && java.copiesRuns(viewed.vectors());
            copy = viewed == null || runs ? null : java.copyable(viewed.vectors());
            lastViewed = runs || copy != null ? viewed : null;
        }
        if (runs) {
            addToRun(lastViewed);
            copiedRows++;
            runRows++;
            return before;
        }
        copyRun();
        if (lastViewed != null) {
            java.append(row, lastViewed.vectors(), lastViewed.rowId(), copy);
            copiedRows++;
        } else {
            java.append(row);
        }
        return before;
    }

    /**
     * Adds the row {@code viewed}'s view is at to the run of views not yet copied, which it
     * extends where it is the run's next row of the same batch; otherwise the run is copied and a
     * new one begins. A run that reaches its batch's last row is copied at once.
     */
    private void addToRun(ArrowColumnarBatch viewed) {
        int rowId = viewed.rowId();
        if (viewed == run && rowId == runEnd) {
            runEnd++;
        } else {
            copyRun();
            run = viewed;
            runStart = rowId;
            runEnd = rowId + 1;
            viewed.beforeRelease(copyBeforeRelease);
        }
        if (runEnd == viewed.rowCount()) {
            copyRun();
        }
    }

    /** Copies the run of views not yet copied, if any, into the batch being gathered. */
    private void copyRun() {
        if (run == null) {
            return;
        }
        ArrowColumnarBatch from = run;
        run = null;
        from.notBeforeRelease(copyBeforeRelease);
        if (from.closed()) {
            // Owners close a batch before freeing it, which copies the run first: never reached.
            throw new IllegalStateException("the rows " + runStart + " to " + runEnd + " of a released batch were not copied");
        }
        java.appendRun(from.vectors(), runStart, runEnd - runStart);
    }

    /** Rows added whose columns were copied, in part or whole, from a source's Arrow columns. */
    public long copiedRows() {
        return copiedRows;
    }

    /** Rows added as views and copied in runs, in bulk, from a source's Arrow columns. */
    public long runRows() {
        return runRows;
    }

    /** Rows added or written that were read natively from Flink's binary layout. */
    public long binaryRows() {
        return binaryRows;
    }

    /**
     * Writes {@code rows} as one batch, natively where every one of them is in Flink's binary
     * layout; nothing may be pending. The returned root is reused by the next call.
     */
    public VectorSchemaRoot write(List<? extends RowData> rows) {
        if (pending() > 0) {
            throw new IllegalStateException(pending() + " rows added are pending");
        }
        if (binary != null && !rows.isEmpty() && rows.stream().allMatch(binary::takes)) {
            rows.forEach(binary::append);
            binaryRows += rows.size();
            return binary.finishBatch();
        }
        return java.write(rows);
    }

    /** Rows added and not yet handed back. */
    public int pending() {
        return java.appended() + (run == null ? 0 : runEnd - runStart) + (binary == null ? 0 : binary.appended());
    }

    /**
     * The rows added and not yet handed back as one batch, or {@code null} if there are none; the
     * batch is valid until the next call.
     */
    public VectorSchemaRoot finishBatch() {
        copyRun();
        if (java.appended() > 0) {
            return java.finishBatch();
        }
        return binary != null && binary.appended() > 0 ? binary.finishBatch() : null;
    }

    @Override
    public void close() {
        if (run != null) {
            // Rows not handed back are dropped with the writer: the batch need not copy them.
            run.notBeforeRelease(copyBeforeRelease);
            run = null;
        }
        try {
            java.close();
        } finally {
            if (binary != null) {
                binary.close();
            }
        }
    }
}
