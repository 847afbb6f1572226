package dev.streamfusion.iceberg.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.Closeable;
import java.io.IOException;

/**
 * One planned Iceberg file task read into Arrow batches of a row type, its deletes applied: by the
 * native reader, or by Iceberg Java's generic reader for what the native one cannot read; or a
 * metadata table's task, whose rows Iceberg Java makes.
 */
@Internal
public interface IcebergTaskReader extends Closeable {

    /**
     * The next batch ({@code null} at the task's end), owned by the reader: valid until the next
     * call, its buffers free to be moved out.
     */
    VectorSchemaRoot next() throws IOException;

    /**
     * A reader of {@code task} into batches of {@code rowType} (one field per projected field id
     * of the task), {@code batchSize} rows a batch at most; files that are not local are read
     * through {@code files}, and every file of a task for Iceberg Java's reader.
     */
    static IcebergTaskReader open(
            BufferAllocator allocator, TaskDescription task, RowType rowType, int batchSize, TableFiles files)
            throws IOException {
        if (task.isMetadata()) {
            return MetadataRowsReader.open(allocator, task, rowType, batchSize);
        }
        if (task.readByJava()) {
            return JavaIcebergReader.open(allocator, task, rowType, batchSize, files::io);
        }
        return NativeIcebergReader.open(allocator, task, rowType, batchSize, files);
    }
}
