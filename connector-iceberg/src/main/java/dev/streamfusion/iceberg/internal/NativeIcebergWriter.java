package dev.streamfusion.iceberg.internal;

import dev.streamfusion.bridge.ArrowBatchExporter;
import dev.streamfusion.bridge.NativeHandle;
import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.types.ArrowTypes;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Parquet data files of an Iceberg table written natively (iceberg-rust over parquet-rs) from
 * Arrow batches of the table's columns: the table's field ids and column metrics in every file,
 * one open file per partition, rolled at the target file size. {@link #finish()} closes the open
 * files and describes them for the commit.
 */
@Internal
public final class NativeIcebergWriter extends NativeHandle {

    private final BufferAllocator allocator;

    private NativeIcebergWriter(long address, BufferAllocator allocator) {
        super("Iceberg writer", address, NativeIcebergWriter::free0);
        this.allocator = allocator;
    }

    /**
     * A writer of batches of {@code rowType} (the table's columns, in order) as {@code
     * description} (see {@link WriterDescription}) says; files that are not local are written
     * through {@code files} ({@code null}: every file is local).
     *
     * @throws dev.streamfusion.bridge.NativeConfigException when the description does not fit
     */
    public static NativeIcebergWriter open(
            BufferAllocator allocator, WriterDescription description, RowType rowType, TableFiles files) {
        NativeLibrary.load();
        long address = ArrowBatchExporter.exportSchema(
                allocator, ArrowTypes.toNativeSchema(rowType), exported -> create(description.json(), exported, files));
        return new NativeIcebergWriter(address, allocator);
    }

    /**
     * Writes the batch in {@code root}.
     *
     * @throws dev.streamfusion.bridge.NativeIoException naming the data location when a file fails
     */
    public synchronized void write(VectorSchemaRoot root) {
        long handle = address();
        ArrowBatchExporter.exportBatch(allocator, root, exported -> {
            write0(handle, exported);
            return null;
        });
    }

    /**
     * Writes the batch in {@code root} as changelog rows: row {@code i} of the kind {@code
     * kinds[i]} (Flink's {@code RowKind} byte values). Only for a description {@link
     * WriterDescription#writesChanges() with equality fields}.
     *
     * @throws dev.streamfusion.bridge.NativeIoException naming the data location when a file fails
     */
    public synchronized void writeChanges(VectorSchemaRoot root, byte[] kinds) {
        long handle = address();
        ArrowBatchExporter.exportBatch(allocator, root, exported -> {
            writeChanges0(handle, exported, kinds);
            return null;
        });
    }

    /** Closes the open files; the JSON description of every file written since the last call. */
    public synchronized String finish() {
        return finish0(address());
    }

    private static native long create(String description, long schemaAddress, TableFiles files);

    private static native void write0(long handle, long arrayAddress);

    private static native void writeChanges0(long handle, long arrayAddress, byte[] kinds);

    private static native String finish0(long handle);

    private static native void free0(long handle);
}
