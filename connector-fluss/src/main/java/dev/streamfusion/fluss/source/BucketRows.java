package dev.streamfusion.fluss.source;

import dev.streamfusion.bridge.source.ArrowRecords;
import dev.streamfusion.fluss.internal.FlussRowAsFlink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.fluss.row.InternalRow;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The records one poll fetched, bucket by bucket, emitted as views over the client's rows (no
 * Arrow batch in between), for a consumer that takes rows: Flink copies each as it passes it on,
 * as it copies any row. One poll is handed to the reader at once, as fluss-flink hands it.
 */
@Internal
final class BucketRows extends ArrowRecords<BucketBatch.Row> {

    /** One bucket's records of the poll: row {@code i} is the log record at {@code offsets[i]}, of the kind {@code kinds[i]}. */
    static final class Part {
        final String splitId;
        final List<InternalRow> rows;
        final long[] offsets;
        /** Each row's kind, or {@code null} when every row is an insert. */
        final RowKind[] kinds;

        Part(String splitId, List<InternalRow> rows, long[] offsets, RowKind[] kinds) {
            this.splitId = splitId;
            this.rows = rows;
            this.offsets = offsets;
            this.kinds = kinds;
        }
    }

    private final List<Part> parts;
    private final FlussRowAsFlink view;
    private final BucketBatch.Row row = new BucketBatch.Row();
    private int part = -1;
    private int next;

    /** The {@code parts} (none empty) of a poll, of rows of {@code rowType}. */
    BucketRows(RowType rowType, List<Part> parts) {
        super(Set.of());
        this.parts = new ArrayList<>(parts);
        this.view = new FlussRowAsFlink(rowType);
    }

    @Override
    public String nextSplit() {
        if (++part >= parts.size()) {
            return null;
        }
        next = 0;
        row.kind = RowKind.INSERT;
        return parts.get(part).splitId;
    }

    @Override
    public BucketBatch.Row nextRecordFromSplit() {
        Part current = parts.get(part);
        if (next >= current.rows.size()) {
            return null;
        }
        int index = next++;
        row.index = index;
        row.value = view.wrap(current.rows.get(index));
        row.nextOffset = current.offsets[index] + 1;
        if (current.kinds != null) {
            row.kind = current.kinds[index];
        }
        return row;
    }

    /** Drops the rows of split {@code splitId}, not handed out yet; whether no rows are left. */
    boolean drop(String splitId) {
        parts.removeIf(p -> p.splitId.equals(splitId));
        return parts.isEmpty();
    }

    @Override
    public List<VectorSchemaRoot> batches() {
        return List.of();
    }

    @Override
    protected void free() {
        // The rows are the client's.
    }
}
