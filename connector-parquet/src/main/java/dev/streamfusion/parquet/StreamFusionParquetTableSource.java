package dev.streamfusion.parquet;

import dev.streamfusion.parquet.source.ParquetSource;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/** A streamfusion-parquet table read: the Parquet files under a path, the projected columns only. */
@Internal
final class StreamFusionParquetTableSource implements ScanTableSource, SupportsProjectionPushDown {

    private final String path;
    private final String pathRegex;
    private DataType producedDataType;

    StreamFusionParquetTableSource(String path, String pathRegex, DataType physicalDataType) {
        this.path = path;
        this.pathRegex = pathRegex;
        this.producedDataType = physicalDataType;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        RowType rowType = (RowType) producedDataType.getLogicalType();
        return SourceProvider.of(
                new ParquetSource(path, pathRegex, rowType, context.createTypeInformation(producedDataType)));
    }

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        this.producedDataType = producedDataType;
    }

    @Override
    public DynamicTableSource copy() {
        return new StreamFusionParquetTableSource(path, pathRegex, producedDataType);
    }

    @Override
    public String asSummaryString() {
        return "StreamFusion Parquet table source (parquet-rs reads the projected columns of each row group)";
    }
}
