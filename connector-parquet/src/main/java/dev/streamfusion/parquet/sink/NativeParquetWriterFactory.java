package dev.streamfusion.parquet.sink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.util.HashMap;
import java.util.Map;

/** Creates the native writer of each part file Flink's file sink opens. */
@Internal
public final class NativeParquetWriterFactory implements BulkWriter.Factory<RowData> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;
    private final HashMap<String, String> options;
    private final String table;

    /**
     * @param rowType the columns written (the table's, without partition columns)
     * @param options writer options under Flink's names ({@code parquet.compression}, ...)
     * @param table names the table in errors
     */
    public NativeParquetWriterFactory(RowType rowType, Map<String, String> options, String table) {
        this.rowType = rowType;
        this.options = new HashMap<>(options);
        this.table = table;
    }

    @Override
    public BulkWriter<RowData> create(FSDataOutputStream out) {
        return new NativeParquetBulkWriter(out, table, rowType, options);
    }
}
