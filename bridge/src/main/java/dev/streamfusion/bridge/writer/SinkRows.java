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
 * reuses objects) goes the Java writer's way, with its text and bytes copied value by value from
 * the source's Arrow columns rather than read through the view ({@link ArrowColumnarBatch#viewing},
 * {@link RowDataArrowWriter#copyable}).
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
    private long copiedRows;
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
            return java.appended() > 0 ? java.finishBatch() : null;
        }
        VectorSchemaRoot before = binary != null && binary.appended() > 0 ? binary.finishBatch() : null;
        if (row != lastRow) {
            // A view is one object moved from row to row: looked up once, not per row.
            lastRow = row;
            ArrowColumnarBatch viewed = row instanceof ColumnarRowData ? ArrowColumnarBatch.viewing(row) : null;
            copy = viewed == null ? null : java.copyable(viewed.vectors());
            lastViewed = copy == null ? null : viewed;
        }
        if (lastViewed != null) {
            java.append(row, lastViewed.vectors(), lastViewed.rowId(), copy);
            copiedRows++;
        } else {
            java.append(row);
        }
        return before;
    }

    /** Rows added whose columns were copied, in part or whole, from a source's Arrow columns. */
    public long copiedRows() {
        return copiedRows;
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
        return java.appended() + (binary == null ? 0 : binary.appended());
    }

    /**
     * The rows added and not yet handed back as one batch, or {@code null} if there are none; the
     * batch is valid until the next call.
     */
    public VectorSchemaRoot finishBatch() {
        if (java.appended() > 0) {
            return java.finishBatch();
        }
        return binary != null && binary.appended() > 0 ? binary.finishBatch() : null;
    }

    @Override
    public void close() {
        try {
            java.close();
        } finally {
            if (binary != null) {
                binary.close();
            }
        }
    }
}
