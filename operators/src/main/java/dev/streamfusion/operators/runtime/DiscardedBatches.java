package dev.streamfusion.operators.runtime;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchSinkTarget;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.types.logical.RowType;

import java.util.Optional;

/**
 * Flink's {@code blackhole} sink fed the island's batches whole: it discards every row, as
 * Flink's does, so the batches are released as they arrive and never become rows. Flink's sink
 * constraint checks, which would fail a job on a value the blackhole never keeps, are the
 * island's as for every sink it feeds.
 */
@Internal
public final class DiscardedBatches implements BatchSinkTarget, Sink<ArrowBatch> {

    private static final long serialVersionUID = 1L;

    /** The class of the table sink of Flink's {@code blackhole} connector. */
    private static final String BLACKHOLE = "org.apache.flink.connector.blackhole.table.BlackHoleTableSinkFactory$BlackHoleSink";

    private final RowType table;

    private DiscardedBatches(RowType table) {
        this.table = table;
    }

    /** The batch target of {@code sink} when it is Flink's blackhole, writing a table of {@code table}'s columns. */
    public static Optional<BatchSinkTarget> ofBlackhole(DynamicTableSink sink, RowType table) {
        return sink.getClass().getName().equals(BLACKHOLE) ? Optional.of(new DiscardedBatches(table)) : Optional.empty();
    }

    @Override
    public Optional<String> batchesUnsupported(RowType input, boolean streaming) {
        return BatchSinkTarget.columnsDiffer(input, table);
    }

    @Override
    public DataStreamSink<?> consumeBatches(DataStream<ArrowBatch> batches) {
        return batches.sinkTo(this).setParallelism(batches.getParallelism()).name("NativeSinkBatches");
    }

    @Override
    public SinkWriter<ArrowBatch> createWriter(WriterInitContext context) {
        return new SinkWriter<>() {
            @Override
            public void write(ArrowBatch batch, Context context) {
                batch.release();
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
