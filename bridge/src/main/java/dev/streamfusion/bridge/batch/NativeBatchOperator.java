package dev.streamfusion.bridge.batch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.IOUtils;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An island operator that runs each batch through one native object: the object is built for the
 * schema of the first batch, in the operator's own Arrow allocator; every input batch is released
 * after it is processed (see {@link ArrowBatch}); the object, then the allocator, are closed with
 * the operator. Its metrics live in the {@code streamfusion} group ({@link #metrics()}), which
 * always holds {@code nativeBytes}: what the operator's Arrow allocator holds.
 *
 * @param <N> the native object
 */
@Internal
public abstract class NativeBatchOperator<N extends AutoCloseable> extends AbstractStreamOperator<ArrowBatch>
        implements OneInputStreamOperator<ArrowBatch, ArrowBatch> {

    private static final long serialVersionUID = 1L;

    private transient BufferAllocator allocator;
    private transient N nativeObject;
    private transient ArrowBatch out;
    private transient TimestampedCollector<ArrowBatch> collector;
    private transient MetricGroup metrics;

    /** The native object for batches of {@code schema}, its buffers in {@code allocator}. */
    protected abstract N create(BufferAllocator allocator, Schema schema);

    /** Processes {@code batch} with {@code nativeObject}, handing results on with {@link #emit}. */
    protected abstract void process(N nativeObject, VectorSchemaRoot batch);

    @Override
    public void open() throws Exception {
        super.open();
        allocator = new RootAllocator();
        out = new ArrowBatch();
        collector = new TimestampedCollector<>(output);
        metrics = getMetricGroup().addGroup("streamfusion");
        metrics.gauge("nativeBytes", (Gauge<Long>) () -> allocator == null ? 0 : allocator.getAllocatedMemory());
    }

    /** The operator's {@code streamfusion} metric group (after {@link #open()}). */
    protected final MetricGroup metrics() {
        return metrics;
    }

    /** Hands {@code result} on, with the input batch's timestamp. */
    protected final void emit(VectorSchemaRoot result) {
        collector.collect(out.of(result));
    }

    /** Hands {@code result} on, marked for the receiver owning {@code keyGroup} of a keyed exchange. */
    protected final void emit(VectorSchemaRoot result, int keyGroup, int maxParallelism) {
        collector.collect(out.of(result).toKeyGroup(keyGroup, maxParallelism));
    }

    @Override
    public final void processElement(StreamRecord<ArrowBatch> element) {
        ArrowBatch batch = element.getValue();
        try {
            VectorSchemaRoot root = batch.root();
            if (nativeObject == null) {
                nativeObject = create(allocator, root.getSchema());
            }
            collector.setTimestamp(element);
            process(nativeObject, root);
        } finally {
            batch.release();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            // The native object first: it holds buffers of the allocator.
            IOUtils.closeAll(nativeObject, allocator);
            nativeObject = null;
            allocator = null;
        } finally {
            super.close();
        }
    }
}
