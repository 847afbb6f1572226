package dev.streamfusion.operators.runtime;

import dev.streamfusion.bridge.batch.NativeBatchOperator;
import dev.streamfusion.operators.internal.NativeCalc;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Flink's {@code Calc} over Arrow batches: each batch is filtered and projected natively, and the
 * result (when it has rows) goes on as one batch. The native calc is built for the schema of the
 * first batch; the planner has checked the description against the same types.
 *
 * <p>Metrics in the {@code streamfusion} group: {@code rowsIn}, {@code rowsOut} and {@code
 * nativeBytes} (what the operator's Arrow allocator holds).
 */
@Internal
public final class NativeCalcOperator extends NativeBatchOperator<NativeCalc> {

    private static final long serialVersionUID = 1L;

    private final String description;

    private transient Counter rowsIn;
    private transient Counter rowsOut;

    public NativeCalcOperator(String description) {
        this.description = description;
    }

    @Override
    public void open() throws Exception {
        super.open();
        rowsIn = metrics().counter("rowsIn");
        rowsOut = metrics().counter("rowsOut");
    }

    @Override
    protected NativeCalc create(BufferAllocator allocator, Schema schema) {
        return NativeCalc.create(allocator, schema, description);
    }

    @Override
    protected void process(NativeCalc calc, VectorSchemaRoot batch) {
        rowsIn.inc(batch.getRowCount());
        VectorSchemaRoot result = calc.apply(batch);
        if (result.getRowCount() > 0) {
            rowsOut.inc(result.getRowCount());
            emit(result);
        }
    }
}
