package dev.streamfusion.parquet.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.Set;
import java.util.function.Consumer;

/**
 * One batch of one split's rows, as the reader emits them (a row at a time, each a view over the
 * batch), or a split's end. The batch is freed when the reader has emitted it, or on close.
 */
@Internal
final class ParquetBatch implements RecordsWithSplitIds<ParquetBatch.Row> {

    /** The row the reader emits; one instance is moved along the batch. */
    static final class Row {
        ArrowColumnarBatch rows;
        int index;
    }

    private final String splitId;
    private final VectorSchemaRoot root;
    private final ArrowColumnarBatch rows;
    private final Set<String> finished;
    private final Consumer<ParquetBatch> onRecycle;
    private final Row row = new Row();
    private boolean splitReturned;
    private int next;
    private boolean recycled;

    /** A batch of {@code splitId}'s rows (or none, with a {@code null} root), and finished splits. */
    ParquetBatch(
            String splitId,
            VectorSchemaRoot root,
            ArrowColumnarBatch rows,
            Set<String> finished,
            Consumer<ParquetBatch> onRecycle) {
        this.splitId = splitId;
        this.root = root;
        this.rows = rows;
        this.finished = finished;
        this.onRecycle = onRecycle;
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
    public Set<String> finishedSplits() {
        return finished;
    }

    @Override
    public synchronized void recycle() {
        if (recycled) {
            return;
        }
        recycled = true;
        if (root != null) {
            root.close();
        }
        onRecycle.accept(this);
    }
}
