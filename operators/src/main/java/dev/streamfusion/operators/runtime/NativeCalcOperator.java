package dev.streamfusion.operators.runtime;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.operators.internal.NativeCalc;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Flink's {@code Calc} over Arrow batches: each batch is filtered and projected natively, and the
 * result (when it has rows) goes on as one batch. The native calc is built for the schema of the
 * first batch; the planner has checked the description against the same types.
 *
 * <p>Metrics in the {@code streamfusion} group: {@code rowsIn}, {@code rowsOut} and {@code
 * nativeBytes} (what the operator's Arrow allocator holds).
 */
@Internal
public final class NativeCalcOperator extends AbstractStreamOperator<ArrowBatch>
        implements OneInputStreamOperator<ArrowBatch, ArrowBatch> {

    private static final long serialVersionUID = 1L;

    private final String description;

    private transient BufferAllocator allocator;
    private transient NativeCalc calc;
    private transient ArrowBatch out;
    private transient TimestampedCollector<ArrowBatch> collector;
    private transient Counter rowsIn;
    private transient Counter rowsOut;

    public NativeCalcOperator(String description) {
        this.description = description;
    }

    @Override
    public void open() throws Exception {
        super.open();
        allocator = new RootAllocator();
        out = new ArrowBatch();
        collector = new TimestampedCollector<>(output);
        MetricGroup metrics = getMetricGroup().addGroup("streamfusion");
        rowsIn = metrics.counter("rowsIn");
        rowsOut = metrics.counter("rowsOut");
        metrics.gauge("nativeBytes", (Gauge<Long>) () -> allocator.getAllocatedMemory());
    }

    @Override
    public void processElement(StreamRecord<ArrowBatch> element) {
        ArrowBatch batch = element.getValue();
        try {
            VectorSchemaRoot root = batch.root();
            if (calc == null) {
                calc = NativeCalc.create(allocator, root.getSchema(), description);
            }
            rowsIn.inc(root.getRowCount());
            VectorSchemaRoot result = calc.apply(root);
            if (result.getRowCount() > 0) {
                rowsOut.inc(result.getRowCount());
                collector.setTimestamp(element);
                collector.collect(out.of(result));
            }
        } finally {
            batch.release();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            if (calc != null) {
                calc.close();
                calc = null;
            }
            if (allocator != null) {
                allocator.close();
                allocator = null;
            }
        } finally {
            super.close();
        }
    }
}
