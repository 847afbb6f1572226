package dev.streamfusion.parquet.table;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchSinkTarget;
import dev.streamfusion.parquet.sink.ParquetBatchSink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.file.table.FileSystemTableSink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.table.types.logical.RowType;

import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Writes Parquet files through Flink's file sink with the native writer as its bulk format. Part
 * files, rolling policies, exactly-once commits on checkpoints, recovery, partitions, partition
 * commit and overwrite are Flink's file sink's; encoding is native. Where the operator island feeds
 * it and the table needs none of what only the table sink does (partitions, partition commit,
 * compaction, overwrite, its own parallelism), it takes the island's batches whole.
 */
@Internal
final class StreamFusionParquetTableSink
        implements DynamicTableSink, SupportsPartitioning, SupportsOverwrite, BatchSinkTarget {

    private final FileSystemTableSink files;
    /** The table's physical columns. */
    private final RowType physicalType;
    /** Makes the writer of island batches, or {@code null} with the reason in {@link #batchesRefused}. */
    private final Supplier<ParquetBatchSink> batches;
    private final String batchesRefused;
    private boolean overwrite;
    private boolean staticPartition;

    StreamFusionParquetTableSink(
            FileSystemTableSink files, RowType physicalType, Supplier<ParquetBatchSink> batches, String batchesRefused) {
        this.files = files;
        this.physicalType = physicalType;
        this.batches = batches;
        this.batchesRefused = batchesRefused;
    }

    @Override
    public Optional<String> batchesUnsupported(RowType input, boolean streaming) {
        if (batches == null) {
            return Optional.of(batchesRefused);
        }
        if (overwrite || staticPartition) {
            return Optional.of("INSERT OVERWRITE and static partitions are written by Flink's file sink");
        }
        return BatchSinkTarget.columnsDiffer(input, physicalType);
    }

    @Override
    public DataStreamSink<?> consumeBatches(DataStream<ArrowBatch> stream) {
        return batches.get().consume(stream);
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
        staticPartition = !partition.isEmpty();
        files.applyStaticPartition(partition);
    }

    @Override
    public void applyOverwrite(boolean overwrite) {
        this.overwrite = overwrite;
        files.applyOverwrite(overwrite);
    }

    @Override
    public DynamicTableSink copy() {
        StreamFusionParquetTableSink copy =
                new StreamFusionParquetTableSink((FileSystemTableSink) files.copy(), physicalType, batches, batchesRefused);
        copy.overwrite = overwrite;
        copy.staticPartition = staticPartition;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "StreamFusion Parquet";
    }
}
