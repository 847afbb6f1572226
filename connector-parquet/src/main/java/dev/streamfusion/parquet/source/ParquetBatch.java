package dev.streamfusion.parquet.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.source.SplitBatch;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.Set;

/**
 * One batch of one split's rows, as the reader emits them (a row at a time, each a view over the
 * batch, or the batch whole), or a split's end.
 */
@Internal
final class ParquetBatch extends SplitBatch<ParquetBatch.Row> {

    /** The row the reader emits; one instance is moved along the batch. */
    static final class Row {
        VectorSchemaRoot root;
        ArrowColumnarBatch rows;
        /** The row, or {@link SplitBatch#WHOLE} for the whole batch. */
        int index;
    }

    private final Row row = new Row();

    /**
     * A batch of {@code splitId}'s rows (or none, with a {@code null} root), and finished splits;
     * emitted as one record when {@code whole}.
     */
    ParquetBatch(String splitId, VectorSchemaRoot root, ArrowColumnarBatch rows, Set<String> finished, boolean whole) {
        super(splitId, root, rows, finished, whole);
        row.root = root;
        row.rows = rows;
    }

    @Override
    protected Row record(ArrowColumnarBatch rows, int index) {
        row.index = index;
        return row;
    }
}
