package dev.streamfusion.parquet.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.file.table.FileSystemTableSink;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;

import java.util.Map;

/**
 * Writes Parquet files through Flink's file sink with the native writer as its bulk format. Part
 * files, rolling policies, exactly-once commits on checkpoints, recovery, partitions, partition
 * commit and overwrite are Flink's file sink's; encoding is native.
 */
@Internal
final class StreamFusionParquetTableSink implements DynamicTableSink, SupportsPartitioning, SupportsOverwrite {

    private final FileSystemTableSink files;

    StreamFusionParquetTableSink(FileSystemTableSink files) {
        this.files = files;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        return files.getChangelogMode(requestedMode);
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        return files.getSinkRuntimeProvider(context);
    }

    @Override
    public boolean requiresPartitionGrouping(boolean supportsGrouping) {
        return files.requiresPartitionGrouping(supportsGrouping);
    }

    @Override
    public void applyStaticPartition(Map<String, String> partition) {
        files.applyStaticPartition(partition);
    }

    @Override
    public void applyOverwrite(boolean overwrite) {
        files.applyOverwrite(overwrite);
    }

    @Override
    public DynamicTableSink copy() {
        return new StreamFusionParquetTableSink((FileSystemTableSink) files.copy());
    }

    @Override
    public String asSummaryString() {
        return "StreamFusion Parquet";
    }
}
