package dev.streamfusion.operators.internal;

import dev.streamfusion.bridge.NativeBatchTransform;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A native calc (filter and projections, {@code crates/operators/src/calc.rs}) built for one input
 * schema from the planner's JSON description. Building it checks every expression against the
 * schema, so the planner builds one to admit a calc, and the operator builds its own per task.
 */
@Internal
public final class NativeCalc extends NativeBatchTransform {

    private NativeCalc(BufferAllocator allocator, Schema input, Created created) {
        super("calc", allocator, input, created, NativeCalc::free0);
    }

    /**
     * Builds the calc {@code spec} describes over batches of {@code input}.
     *
     * @throws dev.streamfusion.bridge.NativeConfigException naming the expression the native calc
     *     does not evaluate
     */
    public static NativeCalc create(BufferAllocator allocator, Schema input, String spec) {
        return new NativeCalc(
                allocator, input, create(allocator, input, (inSchema, outSchema) -> create(inSchema, spec, outSchema), NativeCalc::free0));
    }

    /** The rows of {@code batch} the filter keeps, projected; the result is reused by the next call. */
    public VectorSchemaRoot apply(VectorSchemaRoot batch) {
        return transform(batch, NativeCalc::apply);
    }

    private static native long create(long schemaAddress, String spec, long outSchemaAddress);

    private static native int apply(long handle, long arrayAddress, long outArrayAddress);

    private static native void free0(long handle);
}
