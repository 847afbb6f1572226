package dev.streamfusion.bridge;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Hands Java batches to native code through the Arrow C Data Interface.
 *
 * <p>The schema crosses once, when the native handle is created ({@link #exportSchema}); each
 * {@link #exportBatch} exports only the array. Native code takes ownership of what the struct
 * points to (it calls the release callback when done, which drops Java's references to the
 * buffers); the struct memory itself is freed here after the call.
 */
@Internal
public final class ArrowBatchExporter {

    /** A native call that takes the exported struct at an address. */
    @FunctionalInterface
    public interface NativeImport<T> {
        T importFrom(long address);
    }

    private ArrowBatchExporter() {}

    /** Exports {@code schema} and passes it to {@code consumer}, which must take it. */
    public static <T> T exportSchema(BufferAllocator allocator, Schema schema, NativeImport<T> consumer) {
        try (ArrowSchema struct = ArrowSchema.allocateNew(allocator)) {
            Data.exportSchema(allocator, schema, null, struct);
            try {
                return consumer.importFrom(struct.memoryAddress());
            } finally {
                releaseIfNotTaken(struct.snapshot().release, struct::release);
            }
        }
    }

    /**
     * Exports the batch in {@code root} and passes it to {@code consumer}, which must take it. The
     * struct comes from {@code allocator}; the export goes through the allocator of the batch's
     * own buffers, as Arrow requires, so a batch another component allocated (a source's, handed
     * to an operator) exports as well as the caller's own.
     */
    public static <T> T exportBatch(BufferAllocator allocator, VectorSchemaRoot root, NativeImport<T> consumer) {
        BufferAllocator owner = root.getFieldVectors().isEmpty() ? allocator : root.getVector(0).getAllocator();
        try (ArrowArray struct = ArrowArray.allocateNew(allocator)) {
            Data.exportVectorSchemaRoot(owner, root, null, struct);
            try {
                return consumer.importFrom(struct.memoryAddress());
            } finally {
                releaseIfNotTaken(struct.snapshot().release, struct::release);
            }
        }
    }

    /**
     * If native code failed before taking an export (its release callback is still set), releases
     * it here so no Java buffer stays referenced.
     */
    private static void releaseIfNotTaken(long releaseCallback, Runnable release) {
        if (releaseCallback != 0) {
            release.run();
        }
    }
}
