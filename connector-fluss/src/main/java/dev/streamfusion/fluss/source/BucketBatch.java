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
        VectorSchemaRoot root;
        ArrowColumnarBatch rows;
        /** The row, or {@link SplitBatch#WHOLE} for the whole batch. */
        int index;
        /** The offset of the record after this row's (after the last row's, for the whole batch). */
        long nextOffset;
        RowKind kind;
    }

    private final long[] offsets;
    /** Each row's kind, or {@code null} when every row is an insert. */
    private final RowKind[] kinds;
    private final Row row = new Row();

    /** No rows. */
    BucketBatch() {
        this(null, null, null, null, null, false);
    }

    /**
     * Rows of {@code splitId}; row {@code i} is the record at {@code offsets[i]}, of the kind
     * {@code kinds[i]} ({@code kinds} {@code null}: inserts); emitted as one record when {@code
     * whole} (inserts only).
     */
    BucketBatch(
            String splitId, VectorSchemaRoot root, ArrowColumnarBatch rows, long[] offsets, RowKind[] kinds, boolean whole) {
        super(splitId, root, rows, Set.of(), whole);
        this.offsets = offsets;
        this.kinds = kinds;
        row.root = root;
        row.rows = rows;
        row.kind = RowKind.INSERT;
    }

    @Override
    protected Row record(ArrowColumnarBatch rows, int index) {
        row.index = index;
        row.nextOffset = offsets[index == WHOLE ? offsets.length - 1 : index] + 1;
        if (kinds != null && index != WHOLE) {
            row.kind = kinds[index];
        }
        return row;
    }
}
