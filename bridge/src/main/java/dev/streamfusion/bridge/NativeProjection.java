package dev.streamfusion.bridge;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A native column projection over batches of one schema: each batch goes to Rust, is imported
 * and checked there (offsets, UTF-8, lengths), projected (and optionally sliced), and comes back.
 *
 * <p>It uses both directions of the bridge in one call, the way a native operator between a
 * source and a sink would, which makes it the bridge's end-to-end check.
 */
@Internal
public final class NativeProjection extends NativeBatchTransform {

    private NativeProjection(BufferAllocator allocator, Schema input, Created created) {
        super("projection", allocator, input, created, NativeProjection::free0);
    }

    /** Creates a projection of {@code columns} (indices into {@code input}'s fields). */
    public static NativeProjection create(BufferAllocator allocator, Schema input, int[] columns) {
        return new NativeProjection(
                allocator,
                input,
                create(allocator, input, (inSchema, outSchema) -> create(inSchema, columns, outSchema), NativeProjection::free0));
    }

    /** Projects all rows of {@code batch}. The result is reused by the next call. */
    public VectorSchemaRoot project(VectorSchemaRoot batch) {
        return project(batch, 0, -1);
    }

    /**
     * Projects {@code batch} and keeps {@code length} rows from {@code offset}; native code slices
     * without copying and the export normalises the slice for Java.
     *
     * @throws IllegalArgumentException if {@code batch} does not have the projection's input schema
     */
    public VectorSchemaRoot project(VectorSchemaRoot batch, int offset, int length) {
        return transform(batch, (handle, inArray, outArray) -> project(handle, inArray, outArray, offset, length));
    }

    private static native long create(long schemaAddress, int[] columns, long outSchemaAddress);

    private static native int project(
            long handle, long arrayAddress, long outArrayAddress, int offset, int length);

    private static native void free0(long handle);
}
