package dev.streamfusion.bridge.writer;

import dev.streamfusion.bridge.types.ArrowTypes;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.arrow.vector.util.VectorAppender;

import java.util.List;

/**
 * Transposes Flink rows into one Arrow batch, column by column, for sinks.
 *
 * <p>Each call to {@link #write} clears the reused {@link VectorSchemaRoot}, sizes every top-level
 * column for the batch up front (fixed-width columns for the row count, strings for their total
 * byte length), then fills one column at a time over all rows, which keeps each column's buffers
 * hot in cache. The root belongs to this writer; export it before the next {@code write}.
 *
 * <p>Writers that cannot hold on to the rows they are given (a row may be reused by its producer
 * once handed over) append them one by one instead ({@link #append}), and take the batch with
 * {@link #finishBatch}; vectors then grow as rows arrive.
 */
@Internal
public final class RowDataArrowWriter implements AutoCloseable {

    private final RowType rowType;
    private final VectorSchemaRoot root;
    private final FieldWriter[] writers;
    /** Rows appended to the current batch. */
    private int appended;

    private RowDataArrowWriter(RowType rowType, VectorSchemaRoot root, NullMapKeys nullKeys) {
        this.rowType = rowType;
        this.root = root;
        List<FieldVector> vectors = root.getFieldVectors();
        this.writers = new FieldWriter[vectors.size()];
        for (int c = 0; c < writers.length; c++) {
            writers[c] =
                    FieldWriter.create(
                            rowType.getFieldNames().get(c),
                            rowType.getTypeAt(c),
                            vectors.get(c),
                            ValueAccess.ROW_FIELD,
                            nullKeys);
        }
    }

    /**
     * A writer of rows of {@code rowType} into Arrow vectors from {@code allocator}; a NULL map
     * key is an error.
     */
    public static RowDataArrowWriter create(RowType rowType, BufferAllocator allocator) {
        return create(rowType, allocator, NullMapKeys.REJECT);
    }

    /** A writer that treats NULL map keys as {@code nullKeys} says. */
    public static RowDataArrowWriter create(RowType rowType, BufferAllocator allocator, NullMapKeys nullKeys) {
        VectorSchemaRoot root = VectorSchemaRoot.create(ArrowTypes.toArrowSchema(rowType), allocator);
        try {
            return new RowDataArrowWriter(rowType, root, nullKeys);
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    public RowType rowType() {
        return rowType;
    }

    /** Writes {@code rows} as one batch; the returned root is reused by the next call. */
    public VectorSchemaRoot write(List<? extends RowData> rows) {
        int count = rows.size();
        root.clear();
        for (int c = 0; c < writers.length; c++) {
            allocate(writers[c], rows, c, count);
            FieldWriter writer = writers[c];
            for (int r = 0; r < count; r++) {
                writer.write(r, rows.get(r), c);
            }
        }
        root.setRowCount(count);
        return root;
    }

    /** Writes one row into the batch being appended; the row is not referenced afterwards. */
    public void append(RowData row) {
        if (appended == 0) {
            root.clear();
        }
        for (int c = 0; c < writers.length; c++) {
            writers[c].write(appended, row, c);
        }
        appended++;
    }

    /**
     * Which columns {@link #append(RowData, List, int, boolean[])} copies from {@code vectors}
     * (the Arrow columns a source's row views read, one per field) rather than reading the value
     * through the row: text and bytes of the same Arrow type, whose copy skips making a Flink
     * value object per row. A fixed-width value is read through the row faster than Arrow copies
     * one value (docs/benchmarks.md); null when no column is copied.
     */
    public boolean[] copyable(List<FieldVector> vectors) {
        List<FieldVector> own = root.getFieldVectors();
        if (vectors == null || vectors.size() != own.size()) {
            return null;
        }
        boolean[] copy = new boolean[own.size()];
        boolean any = false;
        for (int c = 0; c < copy.length; c++) {
            copy[c] = own.get(c) instanceof BaseVariableWidthVector
                    && sameFlatType(vectors.get(c).getField(), own.get(c).getField());
            any |= copy[c];
        }
        return any ? copy : null;
    }

    private static boolean sameFlatType(Field from, Field to) {
        return from.getChildren().isEmpty()
                && to.getChildren().isEmpty()
                && from.getDictionary() == null
                && from.getType().equals(to.getType());
    }

    /**
     * Appends {@code row}, a view of row {@code rowId} of {@code vectors}: the columns {@code copy}
     * marks (see {@link #copyable}) are copied from the vectors, the others read through the row.
     */
    public void append(RowData row, List<FieldVector> vectors, int rowId, boolean[] copy) {
        if (appended == 0) {
            root.clear();
        }
        for (int c = 0; c < writers.length; c++) {
            if (copy[c]) {
                writers[c].vector().copyFromSafe(rowId, appended, vectors.get(c));
            } else {
                writers[c].write(appended, row, c);
            }
        }
        appended++;
    }

    /**
     * Whether {@link #appendRun} can copy rows of {@code vectors} (the Arrow columns a source's
     * row views read, one per field): every column is flat and of this writer's Arrow type, so
     * its values are copied as they are, in bulk, as the getters would read them one by one.
     */
    public boolean copiesRuns(List<FieldVector> vectors) {
        List<FieldVector> own = root.getFieldVectors();
        if (vectors == null || vectors.size() != own.size()) {
            return false;
        }
        for (int c = 0; c < own.size(); c++) {
            if (!sameFlatType(vectors.get(c).getField(), own.get(c).getField())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Appends rows {@code start} to {@code start + count} of {@code vectors} (see {@link
     * #copiesRuns}), column by column: each column's slice is appended whole, its values and
     * validity copied in bulk.
     */
    public void appendRun(List<FieldVector> vectors, int start, int count) {
        if (count == 0) {
            return;
        }
        if (appended == 0) {
            root.clear();
        }
        List<FieldVector> own = root.getFieldVectors();
        for (int c = 0; c < own.size(); c++) {
            FieldVector target = own.get(c);
            FieldVector from = vectors.get(c);
            // The rows appended one by one are the column's values so far.
            target.setValueCount(appended);
            TransferPair slice = from.getTransferPair(from.getAllocator());
            slice.splitAndTransfer(start, count);
            try (ValueVector part = slice.getTo()) {
                part.accept(new VectorAppender(target), null);
            }
        }
        appended += count;
    }

    /** Rows appended since the last {@link #finishBatch}. */
    public int appended() {
        return appended;
    }

    /**
     * The appended rows as one batch; the root is reused by the next {@link #append} or {@link
     * #write}.
     */
    public VectorSchemaRoot finishBatch() {
        root.setRowCount(appended);
        appended = 0;
        return root;
    }

    private static void allocate(FieldWriter writer, List<? extends RowData> rows, int column, int count) {
        FieldVector vector = (FieldVector) writer.vector();
        if (vector instanceof BaseVariableWidthVector) {
            long bytes = 0;
            for (int r = 0; r < count; r++) {
                bytes += writer.variableBytes(rows.get(r), column);
            }
            BaseVariableWidthVector varWidth = (BaseVariableWidthVector) vector;
            if (bytes > 0) {
                varWidth.allocateNew(bytes, count);
            } else {
                varWidth.allocateNew(Math.max(count, 1));
            }
        } else if (vector instanceof BaseFixedWidthVector) {
            ((BaseFixedWidthVector) vector).allocateNew(Math.max(count, 1));
        } else {
            vector.setInitialCapacity(Math.max(count, 1));
            vector.allocateNew();
        }
    }

    @Override
    public void close() {
        root.close();
    }
}
