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
public final class NativeProjection extends NativeHandle {

    private final BufferAllocator allocator;
    private final Schema input;
    private final ArrowBatchImporter output;

    private NativeProjection(BufferAllocator allocator, long address, Schema input, ArrowBatchImporter output) {
        super("projection", address, NativeProjection::free0);
        this.allocator = allocator;
        this.input = input;
        this.output = output;
    }

    /** Creates a projection of {@code columns} (indices into {@code input}'s fields). */
    public static NativeProjection create(BufferAllocator allocator, Schema input, int[] columns) {
        NativeLibrary.load();
        long[] address = {0};
        try {
            ArrowBatchImporter output =
                    ArrowBatchImporter.importSchema(
                            allocator,
                            outSchema ->
                                    address[0] =
                                            ArrowBatchExporter.exportSchema(
                                                    allocator,
                                                    input,
                                                    inSchema -> create(inSchema, columns, outSchema)));
            return new NativeProjection(allocator, address[0], input, output);
        } catch (RuntimeException e) {
            if (address[0] != 0) {
                free0(address[0]);
            }
            throw e;
        }
    }

    public Schema outputSchema() {
        return output.schema();
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
    public synchronized VectorSchemaRoot project(VectorSchemaRoot batch, int offset, int length) {
        long handle = address();
        ArrowRoots.checkLayout(input, batch, "projection");
        return output.importBatch(
                outArray ->
                        ArrowBatchExporter.exportBatch(
                                allocator,
                                batch,
                                inArray -> project(handle, inArray, outArray, offset, length)));
    }


    @Override
    protected void closeJavaResources() {
        output.close();
    }

    private static native long create(long schemaAddress, int[] columns, long outSchemaAddress);

    private static native int project(
            long handle, long arrayAddress, long outArrayAddress, int offset, int length);

    private static native void free0(long handle);
}
