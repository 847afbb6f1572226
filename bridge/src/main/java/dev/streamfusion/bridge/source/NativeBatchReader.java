package dev.streamfusion.bridge.source;

import dev.streamfusion.bridge.ArrowBatchExporter;
import dev.streamfusion.bridge.ArrowBatchImporter;
import dev.streamfusion.bridge.NativeHandle;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.function.LongConsumer;
import java.util.function.LongUnaryOperator;

/**
 * A native reader of Arrow batches of one schema: created with the schema exported to it, and
 * read a batch at a time, each imported into one root the next call reuses.
 */
@Internal
public abstract class NativeBatchReader extends NativeHandle {

    /** A native method that exports the next batch of a reader into an empty array struct. */
    @FunctionalInterface
    public interface NextBatch {
        /** Rows of the batch exported at {@code outArrayAddress}, or -1 after the last batch. */
        int next(long handle, long outArrayAddress);
    }

    /** A reader created natively, and the importer of its batches. */
    protected static final class Created {
        final long address;
        final ArrowBatchImporter batches;

        private Created(long address, ArrowBatchImporter batches) {
            this.address = address;
            this.batches = batches;
        }
    }

    private final ArrowBatchImporter batches;
    private final NextBatch nextBatch;

    protected NativeBatchReader(String kind, Created created, LongConsumer free, NextBatch nextBatch) {
        super(kind, created.address, free);
        this.batches = created.batches;
        this.nextBatch = nextBatch;
    }

    /**
     * Exports {@code schema} to {@code create} (a native constructor taking the schema struct's
     * address) and prepares to import its batches into {@code allocator}; on failure nothing is
     * left open.
     */
    protected static Created create(BufferAllocator allocator, Schema schema, LongUnaryOperator create) {
        ArrowBatchImporter batches = ArrowBatchImporter.forSchema(allocator, schema);
        try {
            return new Created(ArrowBatchExporter.exportSchema(allocator, schema, create::applyAsLong), batches);
        } catch (RuntimeException e) {
            batches.close();
            throw e;
        }
    }

    /**
     * The next batch, or {@code null} after the last; the root is reused by the next call.
     *
     * @throws dev.streamfusion.bridge.NativeException naming what failed to read
     */
    public final synchronized VectorSchemaRoot next() {
        long handle = address();
        return batches.importBatchIfAny(out -> nextBatch.next(handle, out) >= 0);
    }

    @Override
    protected void closeJavaResources() {
        batches.close();
    }
}
