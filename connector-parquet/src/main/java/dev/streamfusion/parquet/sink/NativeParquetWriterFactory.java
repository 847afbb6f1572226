package dev.streamfusion.parquet.sink;

import dev.streamfusion.parquet.internal.MemoryLimit;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.util.HashMap;
import java.util.Map;

/**
 * Creates the native writer of each part file Flink's file sink opens. Each subtask has its own
 * copy of the factory, and with it the {@link WriterMemory} its part files share.
 */
@Internal
public final class NativeParquetWriterFactory implements BulkWriter.Factory<RowData> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final HashMap<String, String> options;
    private final String table;
    private final MemoryLimit limit;
    private transient WriterMemory memory;

    /**
     * @param rowType the columns written (the table's, without partition columns)
     * @param options writer options under Flink's names ({@code parquet.compression}, ...)
     * @param table names the table in errors
     * @param limit what the part files one subtask writes at once may hold outside the heap
     */
    public NativeParquetWriterFactory(RowType rowType, Map<String, String> options, String table, MemoryLimit limit) {
        this.rowType = rowType;
        this.options = new HashMap<>(options);
        this.table = table;
        this.limit = limit;
    }

    @Override
    public NativeParquetBulkWriter create(FSDataOutputStream out) {
        if (memory == null) {
            memory = new WriterMemory(limit, table);
        }
        return new NativeParquetBulkWriter(out, table, rowType, options, memory);
    }
}
