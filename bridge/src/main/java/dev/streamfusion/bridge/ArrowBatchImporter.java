package dev.streamfusion.bridge;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.ArrowSchema;
import org.apache.arrow.c.CDataDictionaryProvider;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Receives batches that native code exports, into one reused {@link VectorSchemaRoot}.
 *
 * <p>The schema crosses once: native code exports it when its handle is created ({@link
 * #importSchema}), and every batch after that carries only its array. Each {@link #importBatch}
 * hands native code an empty {@code ArrowArray} struct, moves what native code wrote into the
 * root's vectors (releasing the previous batch's native buffers) and frees the struct. The root
 * and its buffers belong to this importer until {@link #close()}.
 */
@Internal
public final class ArrowBatchImporter implements AutoCloseable {

    /** A native call that exports one batch into the empty struct at an address. */
    @FunctionalInterface
    public interface NativeExport {
        void exportInto(long arrayAddress);
    }

    /** A native call that may export one batch into the empty struct at an address. */
    @FunctionalInterface
    public interface OptionalExport {
        /** @return whether a batch was exported (nothing is, after the last) */
        boolean exportInto(long arrayAddress);
    }

    /** A native call that exports a schema into the empty struct at an address. */
    @FunctionalInterface
    public interface NativeSchemaExport {
        void exportInto(long schemaAddress);
    }

    private final BufferAllocator allocator;
    private final CDataDictionaryProvider dictionaries = new CDataDictionaryProvider();
    private final VectorSchemaRoot root;

    private ArrowBatchImporter(BufferAllocator allocator, Schema schema) {
        this.allocator = allocator;
        this.root = VectorSchemaRoot.create(schema, allocator);
    }

    /** Imports the schema that {@code export} writes, and prepares a root for its batches. */
    public static ArrowBatchImporter importSchema(BufferAllocator allocator, NativeSchemaExport export) {
        try (ArrowSchema struct = ArrowSchema.allocateNew(allocator);
                CDataDictionaryProvider provider = new CDataDictionaryProvider()) {
            export.exportInto(struct.memoryAddress());
            Schema schema = Data.importSchema(allocator, struct, provider);
            return new ArrowBatchImporter(allocator, schema);
        }
    }

    /** An importer of batches of a schema Java already knows. */
    public static ArrowBatchImporter forSchema(BufferAllocator allocator, Schema schema) {
        return new ArrowBatchImporter(allocator, schema);
    }

    public Schema schema() {
        return root.getSchema();
    }

    /** Imports the batch that {@code export} writes; the returned root is reused by the next call. */
    public VectorSchemaRoot importBatch(NativeExport export) {
        try (ArrowArray struct = ArrowArray.allocateNew(allocator)) {
            export.exportInto(struct.memoryAddress());
            Data.importIntoVectorSchemaRoot(allocator, struct, root, dictionaries);
        }
        return root;
    }

    /**
     * Imports the batch that {@code export} writes, or returns {@code null} when it writes none;
     * the returned root is reused by the next call.
     */
    public VectorSchemaRoot importBatchIfAny(OptionalExport export) {
        try (ArrowArray struct = ArrowArray.allocateNew(allocator)) {
            if (!export.exportInto(struct.memoryAddress())) {
                return null;
            }
            Data.importIntoVectorSchemaRoot(allocator, struct, root, dictionaries);
        }
        return root;
    }

    @Override
    public void close() {
        root.close();
        dictionaries.close();
    }
}
