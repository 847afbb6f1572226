package dev.streamfusion.bridge.batch;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The element of the island's streams: one Arrow batch of rows.
 *
 * <p>Ownership: a batch is valid only during the {@code collect} call that carries it. The
 * producer (a source reader, an operator) keeps ownership and frees or reuses the batch after the
 * call returns, so a consumer that needs rows later copies them. A batch that crossed a network
 * exchange was made by the receiving side's deserializer: it is <em>received</em>, and the operator
 * that consumes it frees it by calling {@link #release()} when done, which every island operator
 * does for each input batch (a no-op for batches their producer owns).
 */
@Internal
public final class ArrowBatch {

    private VectorSchemaRoot root;
    private final boolean received;
    /** Where a keyed exchange sends the batch: a key group of its receiver (see {@link KeyedBatches}). */
    private int keyGroup = -1;
    private int maxParallelism;

    /** A holder a producer moves from batch to batch with {@link #of}. */
    public ArrowBatch() {
        this(null, false);
    }

    private ArrowBatch(VectorSchemaRoot root, boolean received) {
        this.root = root;
        this.received = received;
    }

    /** A batch its consumer owns and frees ({@link #release()}): what a deserializer returns. */
    public static ArrowBatch received(VectorSchemaRoot root) {
        return new ArrowBatch(root, true);
    }

    /** This holder, now carrying {@code root} (which its producer still owns). */
    public ArrowBatch of(VectorSchemaRoot root) {
        if (received) {
            throw new IllegalStateException("a received batch is not reused");
        }
        this.root = root;
        this.keyGroup = -1;
        return this;
    }

    /**
     * This holder, marked for the receiver of a keyed exchange that owns {@code keyGroup} of
     * {@code maxParallelism} key groups; the mark lasts until the next {@link #of}.
     */
    public ArrowBatch toKeyGroup(int keyGroup, int maxParallelism) {
        this.keyGroup = keyGroup;
        this.maxParallelism = maxParallelism;
        return this;
    }

    /** The key group {@link #toKeyGroup} marked, or -1 for a batch no keyed exchange routes. */
    public int keyGroup() {
        return keyGroup;
    }

    /** The number of key groups {@link #keyGroup()} is one of. */
    public int maxParallelism() {
        return maxParallelism;
    }

    public VectorSchemaRoot root() {
        if (root == null) {
            throw new IllegalStateException("the batch was released");
        }
        return root;
    }

    public int rowCount() {
        return root().getRowCount();
    }

    /** Frees a received batch (once); does nothing to a batch its producer owns. */
    public void release() {
        if (received && root != null) {
            root.close();
            root = null;
        }
    }

    @Override
    public String toString() {
        return root == null ? "ArrowBatch(released)" : "ArrowBatch(" + root.getRowCount() + " rows)";
    }
}
