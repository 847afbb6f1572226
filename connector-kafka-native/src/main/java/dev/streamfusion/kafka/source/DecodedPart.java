package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One part (values, or keys) of a partition's records of a poll, decoded: an Arrow batch of its
 * own, and where each record's rows start in it.
 */
@Internal
final class DecodedPart implements AutoCloseable {

    final VectorSchemaRoot root;
    final ArrowColumnarBatch rows;
    /** Record {@code i}'s rows are {@code rowStarts[i]} up to {@code rowStarts[i + 1]}. */
    final int[] rowStarts;

    DecodedPart(VectorSchemaRoot root, ArrowColumnarBatch rows, int[] rowStarts) {
        this.root = root;
        this.rows = rows;
        this.rowStarts = rowStarts;
    }

    @Override
    public void close() {
        root.close();
    }
}
