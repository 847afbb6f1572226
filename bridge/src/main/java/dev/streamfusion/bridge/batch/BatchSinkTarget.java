package dev.streamfusion.bridge.batch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import java.util.List;
import java.util.Optional;

/**
 * A StreamFusion sink that can take whole Arrow batches from the operator island, so that its
 * encoder reads the batches' buffers directly: implemented by the connectors' {@code
 * DynamicTableSink}s.
 */
@Internal
public interface BatchSinkTarget {

    /**
     * Why this sink, as planned, cannot take whole batches of {@code input} rows (the rows the
     * planner hands it); empty when it can. The same rows and the same guarantees as its row sink
     * are the condition: anything it would do differently is a reason.
     */
    Optional<String> batchesUnsupported(RowType input, boolean streaming);

    /**
     * Writes {@code batches} (of the row type {@link #batchesUnsupported} accepted), at their
     * parallelism; called only when it returned empty.
     */
    DataStreamSink<?> consumeBatches(DataStream<ArrowBatch> batches);

    /**
     * Why batches of {@code input} rows are not written as they are into columns of {@code
     * table}'s types (their types differ beyond nullability, or a NOT NULL column's values would
     * need Flink's check); empty when they are.
     */
    static Optional<String> columnsDiffer(RowType input, RowType table) {
        List<String> names = table.getFieldNames();
        if (input.getFieldCount() != table.getFieldCount()) {
            return Optional.of("the query writes " + input.getFieldCount() + " of the table's " + table.getFieldCount() + " columns");
        }
        for (int i = 0; i < input.getFieldCount(); i++) {
            LogicalType from = input.getTypeAt(i);
            LogicalType to = table.getTypeAt(i);
            if (!from.copy(true).equals(to.copy(true))) {
                return Optional.of("column " + names.get(i) + " is written as " + to + " from " + from);
            }
            if (!to.isNullable() && from.isNullable()) {
                return Optional.of("column " + names.get(i) + " is NOT NULL: Flink checks its values");
            }
        }
        return Optional.empty();
    }
}
