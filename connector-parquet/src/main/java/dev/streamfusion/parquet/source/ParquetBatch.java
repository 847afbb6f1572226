package dev.streamfusion.parquet.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.source.ArrowRecords;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.List;
import java.util.Set;

/**
 * One batch of one split's rows, as the reader emits them (a row at a time, each a view over the
 * batch), or a split's end.
 */
@Internal
final class ParquetBatch extends ArrowRecords<ParquetBatch.Row> {

    /** The row the reader emits; one instance is moved along the batch. */
    static final class Row {
        ArrowColumnarBatch rows;
        int index;
    }

    private final String splitId;
    private final VectorSchemaRoot root;
    private final ArrowColumnarBatch rows;
    private final Row row = new Row();
    private boolean splitReturned;
    private int next;

    /** A batch of {@code splitId}'s rows (or none, with a {@code null} root), and finished splits. */
    ParquetBatch(String splitId, VectorSchemaRoot root, ArrowColumnarBatch rows, Set<String> finished) {
        super(finished);
        this.splitId = splitId;
        this.root = root;
        this.rows = rows;
        row.rows = rows;
    }

    @Override
    public String nextSplit() {
        if (splitReturned || rows == null) {
            return null;
        }
        splitReturned = true;
        return splitId;
    }

    @Override
    public Row nextRecordFromSplit() {
        if (next >= rows.rowCount()) {
            return null;
        }
        row.index = next++;
        return row;
    }

    @Override
    public List<VectorSchemaRoot> batches() {
        return root == null ? List.of() : List.of(root);
    }

    @Override
    protected void free() {
        if (root != null) {
            root.close();
        }
    }
}
