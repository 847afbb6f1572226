package dev.streamfusion.bridge;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.function.LongConsumer;

/**
 * A native object that turns each batch of one input schema into a batch of its output schema:
 * the input schema crosses once, at creation, when the native side answers with its output
 * schema; each batch then crosses to Rust, is checked there, transformed, and comes back into the
 * owner's allocator (reused by the next call).
 */
@Internal
public abstract class NativeBatchTransform extends NativeHandle {

    /** The native creation: takes the exported input schema, fills the output schema, returns the handle. */
    @FunctionalInterface
    protected interface Creation {
        long create(long inSchemaAddress, long outSchemaAddress);
    }

    /** One native call on a batch: the handle, the exported input array, the array to fill. */
    @FunctionalInterface
    protected interface Call {
        int call(long handle, long inArrayAddress, long outArrayAddress);
    }

    /** One native call given a batch, with nothing imported back: the handle, the exported input array. */
    @FunctionalInterface
    protected interface Pass<R> {
        R call(long handle, long inArrayAddress);
    }

    /** One native call filling an output batch without an input: the handle, the array to fill. */
    @FunctionalInterface
    protected interface Produce {
        int call(long handle, long outArrayAddress);
    }

    /** What creation made: the native object and the importer of its output schema. */
    protected static final class Created {
        final long address;
        final ArrowBatchImporter output;

        private Created(long address, ArrowBatchImporter output) {
            this.address = address;
            this.output = output;
        }
    }

    private final String kind;
    private final BufferAllocator allocator;
    private final Schema input;
    private final ArrowBatchImporter output;

    protected NativeBatchTransform(String kind, BufferAllocator allocator, Schema input, Created created, LongConsumer free) {
        super(kind, created.address, free);
        this.kind = kind;
        this.allocator = allocator;
        this.input = input;
        this.output = created.output;
    }

    /** Runs {@code creation} over {@code input}; frees what it made if the output schema fails to import. */
    protected static Created create(BufferAllocator allocator, Schema input, Creation creation, LongConsumer free) {
        NativeLibrary.load();
        long[] address = {0};
        try {
            ArrowBatchImporter output =
                    ArrowBatchImporter.importSchema(
                            allocator,
                            outSchema ->
                                    address[0] =
                                            ArrowBatchExporter.exportSchema(
                                                    allocator, input, inSchema -> creation.create(inSchema, outSchema)));
            return new Created(address[0], output);
        } catch (RuntimeException e) {
            if (address[0] != 0) {
                free.accept(address[0]);
            }
            throw e;
        }
    }

    public Schema outputSchema() {
        return output.schema();
    }

    /**
     * {@code call} over {@code batch}; the result is reused by the next call.
     *
     * @throws IllegalArgumentException if {@code batch} does not have the input schema
     */
    protected final synchronized VectorSchemaRoot transform(VectorSchemaRoot batch, Call call) {
        long handle = address();
        ArrowRoots.checkLayout(input, batch, kind);
        return output.importBatch(
                outArray -> ArrowBatchExporter.exportBatch(allocator, batch, inArray -> call.call(handle, inArray, outArray)));
    }

    /**
     * {@code call} over {@code batch}, importing nothing.
     *
     * @throws IllegalArgumentException if {@code batch} does not have the input schema
     */
    protected final synchronized <R> R pass(VectorSchemaRoot batch, Pass<R> call) {
        long handle = address();
        ArrowRoots.checkLayout(input, batch, kind);
        return ArrowBatchExporter.exportBatch(allocator, batch, inArray -> call.call(handle, inArray));
    }

    /** The batch {@code call} fills; it is reused by the next call. */
    protected final synchronized VectorSchemaRoot produce(Produce call) {
        long handle = address();
        return output.importBatch(outArray -> call.call(handle, outArray));
    }

    @Override
    protected void closeJavaResources() {
        output.close();
    }
}
