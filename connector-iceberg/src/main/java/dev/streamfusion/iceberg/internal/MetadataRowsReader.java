package dev.streamfusion.iceberg.internal;

import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.util.List;
import java.util.function.Function;

/**
 * A metadata table's task ({@code t$snapshots}, {@code t$files}, ...; {@link
 * TaskDescription#isMetadata()}): the rows Iceberg Java makes of the table's metadata, their values
 * in Iceberg's internal form (timestamps as microseconds, strings as character sequences, structs,
 * lists and maps of such), turned into Flink's values as iceberg-flink reads them and written into
 * Arrow batches of the row type.
 */
@Internal
final class MetadataRowsReader extends ConvertedRowsReader<StructLike> {

    private MetadataRowsReader(
            String path,
            CloseableIterable<StructLike> rows,
            RowDataArrowWriter writer,
            int batchSize,
            int[] positions,
            List<Function<Object, Object>> converters) {
        super(path, rows, writer, batchSize, positions, converters);
    }

    /** A reader of {@code task} into batches of {@code rowType}, {@code batchSize} rows a batch at most. */
    static MetadataRowsReader open(BufferAllocator allocator, TaskDescription task, RowType rowType, int batchSize)
            throws IOException {
        CloseableIterable<StructLike> rows;
        List<Function<Object, Object>> converters;
        try {
            converters = converters(rowType);
            FileScanTask parsed = ScanTaskParser.fromJson(task.json(), task.caseSensitive());
            rows = parsed.asDataTask().rows();
        } catch (RuntimeException e) {
            throw new IOException("Cannot read the metadata rows of " + task.path() + ": " + e.getMessage(), e);
        }
        RowDataArrowWriter writer;
        try {
            writer = RowDataArrowWriter.create(rowType, allocator);
        } catch (RuntimeException e) {
            try {
                rows.close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return new MetadataRowsReader(task.path(), rows, writer, batchSize, task.rowPositions(), converters);
    }
}
