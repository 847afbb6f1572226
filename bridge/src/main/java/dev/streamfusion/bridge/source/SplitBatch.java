package dev.streamfusion.bridge.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.List;
import java.util.Set;

/**
 * One fetch of a reader that reads one split at a time: one batch of one split's rows (each
 * emitted as a view over the batch, or the batch emitted whole as one record), or only the splits
 * the fetch finished.
 *
 * @param <E> the record the reader's emitter takes for a row
 */
@Internal
public abstract class SplitBatch<E> extends ArrowRecords<E> {

    /** The index {@link #record} is given for the one record of a batch emitted whole. */
    public static final int WHOLE = -1;

    private final String splitId;
    private final VectorSchemaRoot root;
    private final ArrowColumnarBatch rows;
    private final boolean whole;
    private boolean splitReturned;
    private int next;

    /** A batch of {@code splitId}'s rows, or none (a {@code null} root and rows), and finished splits. */
    protected SplitBatch(String splitId, VectorSchemaRoot root, ArrowColumnarBatch rows, Set<String> finished) {
        this(splitId, root, rows, finished, false);
    }

    /**
     * As {@link #SplitBatch(String, VectorSchemaRoot, ArrowColumnarBatch, Set)}; when {@code whole},
     * a batch with rows is one record, {@code record(rows, WHOLE)}.
     */
    protected SplitBatch(
            String splitId, VectorSchemaRoot root, ArrowColumnarBatch rows, Set<String> finished, boolean whole) {
        super(finished);
        this.splitId = splitId;
        this.root = root;
        this.rows = rows;
        this.whole = whole;
    }

    /** The record of row {@code index} of the batch, or of the whole batch ({@link #WHOLE}). */
    protected abstract E record(ArrowColumnarBatch rows, int index);

    @Override
    public final String nextSplit() {
        if (splitReturned || rows == null) {
            return null;
        }
        splitReturned = true;
        return splitId;
    }

    @Override
    public final E nextRecordFromSplit() {
        if (whole) {
            if (next > 0 || rows.rowCount() == 0) {
                return null;
            }
            next = rows.rowCount();
            return record(rows, WHOLE);
        }
        if (next >= rows.rowCount()) {
            return null;
        }
        return record(rows, next++);
    }

    @Override
    public final List<VectorSchemaRoot> batches() {
        return root == null ? List.of() : List.of(root);
    }

    @Override
    protected final void free() {
        try {
            if (rows != null) {
                rows.close();
            }
        } finally {
            if (root != null) {
                root.close();
            }
        }
    }
}
