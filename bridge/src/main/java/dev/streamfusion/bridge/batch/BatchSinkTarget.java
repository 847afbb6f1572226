package dev.streamfusion.bridge.batch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.types.logical.RowType;

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
}
