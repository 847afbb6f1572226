package dev.streamfusion.fluss.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.source.SplitBatch;

import org.apache.flink.annotation.Internal;

import org.apache.flink.types.RowKind;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.Set;

/**
 * The records one poll fetched from one bucket, as one Arrow batch, with their log offsets and
 * (of a primary-key table's changelog) their row kinds.
 */
@Internal
final class BucketBatch extends SplitBatch<BucketBatch.Row> {

    /** The row the reader emits; one instance is moved along the batch. */
    static final class Row {
        ArrowColumnarBatch rows;
        int index;
        /** The offset of the record after this row's. */
        long nextOffset;
        RowKind kind;
    }

    private final long[] offsets;
    /** Each row's kind, or {@code null} when every row is an insert. */
    private final RowKind[] kinds;
    private final Row row = new Row();

    /** No rows. */
    BucketBatch() {
        this(null, null, null, null, null);
    }

    /**
     * Rows of {@code splitId}; row {@code i} is the record at {@code offsets[i]}, of the kind
     * {@code kinds[i]} ({@code kinds} {@code null}: inserts).
     */
    BucketBatch(String splitId, VectorSchemaRoot root, ArrowColumnarBatch rows, long[] offsets, RowKind[] kinds) {
        super(splitId, root, rows, Set.of());
        this.offsets = offsets;
        this.kinds = kinds;
        row.rows = rows;
        row.kind = RowKind.INSERT;
    }

    @Override
    protected Row record(ArrowColumnarBatch rows, int index) {
        row.index = index;
        row.nextOffset = offsets[index] + 1;
        if (kinds != null) {
            row.kind = kinds[index];
        }
        return row;
    }
}
