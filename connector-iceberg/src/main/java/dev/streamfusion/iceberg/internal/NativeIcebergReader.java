package dev.streamfusion.iceberg.internal;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.source.NativeBatchReader;
import dev.streamfusion.bridge.types.ArrowTypes;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;

/**
 * One planned Iceberg file task read natively (iceberg-rust over parquet-rs) into Arrow batches of
 * a row type: the task's projected columns by field id, its position and equality deletes
 * applied. {@link #next()} fails naming the data or delete file that cannot be read.
 */
@Internal
public final class NativeIcebergReader extends NativeBatchReader implements IcebergTaskReader {

    private NativeIcebergReader(Created created) {
        super("Iceberg reader", created, NativeIcebergReader::free0, NativeIcebergReader::next);
    }

    /**
     * A reader of {@code task} into batches of {@code rowType} (one field per projected field id
     * of the task), {@code batchSize} rows a batch at most; files that are not local are read
     * through {@code files} ({@code null}: every file is local).
     *
     * @throws dev.streamfusion.bridge.NativeConfigException when the task is not one it reads
     */
    public static NativeIcebergReader open(
            BufferAllocator allocator, TaskDescription task, RowType rowType, int batchSize, TableFiles files) {
        NativeLibrary.load();
        return new NativeIcebergReader(create(
                allocator, ArrowTypes.toNativeSchema(rowType), exported -> create(task.json(), exported, batchSize, files)));
    }

    private static native long create(String taskJson, long schemaAddress, int batchSize, TableFiles files);

    private static native int next(long handle, long outArrayAddress);

    private static native void free0(long handle);
}
