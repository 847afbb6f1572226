package dev.streamfusion.bridge.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.List;
import java.util.Set;

/**
 * What one fetch of a split reader hands its source reader: records backed by Arrow batches, and
 * the splits the fetch finished. A fetcher thread makes it; the reader's thread emits its records
 * and then recycles it, which frees the batches, once. Records never recycled (the reader closed
 * first) are freed by {@link FetchedBatches#close()}.
 *
 * @param <E> the record the reader's emitter takes
 */
@Internal
public abstract class ArrowRecords<E> implements RecordsWithSplitIds<E> {

    private final Set<String> finishedSplits;
    private FetchedBatches owner;
    private boolean recycled;

    protected ArrowRecords(Set<String> finishedSplits) {
        this.finishedSplits = finishedSplits;
    }

    /**
     * The Arrow batches the records are read from, whole: for a consumer that takes batches
     * rather than rows. Valid until {@link #recycle()}; empty for a fetch that only finished splits.
     */
    public abstract List<VectorSchemaRoot> batches();

    /** Frees the batches; called once. */
    protected abstract void free();

    @Override
    public final Set<String> finishedSplits() {
        return finishedSplits;
    }

    /** Frees the batches; idempotent, and safe from the reader's thread and from its close. */
    @Override
    public final synchronized void recycle() {
        if (recycled) {
            return;
        }
        recycled = true;
        try {
            free();
        } finally {
            if (owner != null) {
                owner.forget(this);
            }
        }
    }

    final void ownedBy(FetchedBatches owner) {
        this.owner = owner;
    }
}
