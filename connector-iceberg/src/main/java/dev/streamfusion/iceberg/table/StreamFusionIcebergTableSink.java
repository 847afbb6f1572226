package dev.streamfusion.iceberg.table;

import dev.streamfusion.iceberg.internal.IcebergTableRef;
import dev.streamfusion.iceberg.internal.WriterDescription;
import dev.streamfusion.iceberg.sink.IcebergSink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.types.logical.RowType;

import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * A streamfusion-iceberg table written: rows become Parquet data files written natively, and
 * Iceberg Java commits them when checkpoints complete (at the end of the input, bounded), exactly
 * once. Append-only.
 */
@Internal
final class StreamFusionIcebergTableSink implements DynamicTableSink {

    private final IcebergTableRef table;
    private final RowType rowType;
    private final Map<String, String> options;

    StreamFusionIcebergTableSink(IcebergTableRef table, RowType rowType, Map<String, String> options) {
        this.table = table;
        this.rowType = rowType;
        this.options = options;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        return ChangelogMode.insertOnly();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        WriterDescription description;
        Catalog catalog = table.catalog();
        try {
            Table loaded = table.loadFrom(catalog);
            // Batches reach the writer by position: the Flink table's columns must be the Iceberg
            // table's, in its order.
            java.util.List<String> icebergColumns = new java.util.ArrayList<>();
            loaded.schema().columns().forEach(c -> icebergColumns.add(c.name()));
            if (!icebergColumns.equals(rowType.getFieldNames())) {
                throw new ValidationException("Table " + table + " has the columns " + icebergColumns
                        + ", and the Flink table writes " + rowType.getFieldNames()
                        + "; declare the Iceberg table's columns, in its order");
            }
            description = WriterDescription.of(loaded, options);
        } catch (UnsupportedOperationException e) {
            throw new ValidationException(e.getMessage(), e);
        } finally {
            try {
                IcebergTableRef.close(catalog);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        IcebergSink sink = new IcebergSink(table, description, rowType, options.get(IcebergOptions.BRANCH.key()));
        return (DataStreamSinkProvider) (providerContext, rows) -> sink.consume(rows, providerContext::generateUid);
    }

    @Override
    public DynamicTableSink copy() {
        return new StreamFusionIcebergTableSink(table, rowType, options);
    }

    @Override
    public String asSummaryString() {
        return "StreamFusionIceberg(" + table + ")";
    }
}
