package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;

import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * One part (values, or keys) of a partition's records of a poll, decoded: an Arrow batch of its
 * own and where each record's rows start in it, and the rows Flink's own format made of the
 * records the native decoder handed back.
 */
@Internal
final class DecodedPart implements AutoCloseable {

    final VectorSchemaRoot root;
    final ArrowColumnarBatch rows;
    /** Record {@code i}'s native rows are {@code rowStarts[i]} up to {@code rowStarts[i + 1]}. */
    final int[] rowStarts;
    /** Per record, the rows Flink's format made of it, or {@code null} where it was decoded natively. */
    private final RowData[][] stockRows;

    DecodedPart(VectorSchemaRoot root, ArrowColumnarBatch rows, int[] rowStarts, RowData[][] stockRows) {
        this.root = root;
        this.rows = rows;
        this.rowStarts = rowStarts;
        this.stockRows = stockRows;
    }

    /** How many rows record {@code record} gave. */
    int rowCount(int record) {
        RowData[] stock = stockRows == null ? null : stockRows[record];
        return stock != null ? stock.length : rowStarts[record + 1] - rowStarts[record];
    }

    /** Whether records {@code first} up to {@code first + count} were all decoded natively. */
    boolean nativeOnly(int first, int count) {
        if (stockRows == null) {
            return true;
        }
        for (int r = first; r < first + count; r++) {
            if (stockRows[r] != null) {
                return false;
            }
        }
        return true;
    }

    /** Row {@code k} of record {@code record}. */
    RowData row(int record, int k) {
        RowData[] stock = stockRows == null ? null : stockRows[record];
        return stock != null ? stock[k] : rows.row(rowStarts[record] + k);
    }

    @Override
    public void close() {
        try {
            rows.close();
        } finally {
            root.close();
        }
    }
}
