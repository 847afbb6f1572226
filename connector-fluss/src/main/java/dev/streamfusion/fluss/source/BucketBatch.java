package dev.streamfusion.fluss.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.source.SplitBatch;

import org.apache.flink.annotation.Internal;

import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.Set;

/**
 * What one fetch of a bucket gave: the records one poll fetched from its log, as one Arrow batch,
 * with their log offsets and (of a primary-key table's changelog) their row kinds; or rows of its
 * key-value snapshot (inserts); or only the splits finished (snapshots read to their end).
 */
@Internal
final class BucketBatch extends SplitBatch<BucketBatch.Row> {

    /** The row the reader emits; one instance is moved along the batch. */
    static final class Row {
        VectorSchemaRoot root;
        /** The batch's rows, or {@code null} when the row is {@link #value}. */
        ArrowColumnarBatch rows;
        /** The row as it came from the client (a view over it), when it is not in an Arrow batch. */
        RowData value;
        /** The row, or {@link SplitBatch#WHOLE} for the whole batch. */
        int index;
        /** The offset of the log record after this row's (after the last row's, for the whole batch). */
        long nextOffset;
        /** Whether the row is one of a key-value snapshot's (which has no log offset). */
        boolean fromSnapshot;
        RowKind kind;

        /** The row to emit: the client's, or the Arrow batch's. */
        RowData rowData() {
            return value != null ? value : rows.row(index);
        }

        /** Moves {@code split} past this row (or this whole batch). */
        void advance(BucketSplit.State split) {
            if (fromSnapshot) {
                split.snapshotRowsEmitted += index == WHOLE ? rows.rowCount() : 1;
            } else {
                split.offset = nextOffset;
            }
        }
    }

    /** The split of the rows ({@code null}: no rows). */
    final String splitId;
    private final long[] offsets;
    /** Each row's kind, or {@code null} when every row is an insert. */
    private final RowKind[] kinds;
    private final Row row = new Row();

    /** No rows. */
    BucketBatch() {
        this(Set.of());
    }

    /** No rows; the splits {@code finished} are read to their end. */
    BucketBatch(Set<String> finished) {
        super(null, null, null, finished);
        this.splitId = null;
        this.offsets = null;
        this.kinds = null;
    }

    /**
     * Rows of {@code splitId}; row {@code i} is the log record at {@code offsets[i]} ({@code
     * offsets} {@code null}: rows of a key-value snapshot), of the kind {@code kinds[i]} ({@code
     * kinds} {@code null}: inserts); emitted as one record when {@code whole} (inserts only).
     */
    BucketBatch(
            String splitId, VectorSchemaRoot root, ArrowColumnarBatch rows, long[] offsets, RowKind[] kinds, boolean whole) {
        super(splitId, root, rows, Set.of(), whole);
        this.splitId = splitId;
        this.offsets = offsets;
        this.kinds = kinds;
        row.root = root;
        row.rows = rows;
        row.kind = RowKind.INSERT;
        row.fromSnapshot = offsets == null;
    }

    @Override
    protected Row record(ArrowColumnarBatch rows, int index) {
        row.index = index;
        if (offsets != null) {
            row.nextOffset = offsets[index == WHOLE ? offsets.length - 1 : index] + 1;
        }
        if (kinds != null && index != WHOLE) {
            row.kind = kinds[index];
        }
        return row;
    }
}
