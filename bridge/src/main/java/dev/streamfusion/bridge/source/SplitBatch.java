package dev.streamfusion.bridge.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.List;
import java.util.Set;

/**
 * One fetch of a reader that reads one split at a time: one batch of one split's rows (each
 * emitted as a view over the batch), or only the splits the fetch finished.
 *
 * @param <E> the record the reader's emitter takes for a row
 */
@Internal
public abstract class SplitBatch<E> extends ArrowRecords<E> {

    private final String splitId;
    private final VectorSchemaRoot root;
    private final ArrowColumnarBatch rows;
    private boolean splitReturned;
    private int next;

    /** A batch of {@code splitId}'s rows, or none (a {@code null} root and rows), and finished splits. */
    protected SplitBatch(String splitId, VectorSchemaRoot root, ArrowColumnarBatch rows, Set<String> finished) {
        super(finished);
        this.splitId = splitId;
        this.root = root;
        this.rows = rows;
    }

    /** The record of row {@code index} of the batch. */
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
        if (root != null) {
            root.close();
        }
    }
}
