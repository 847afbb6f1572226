package dev.streamfusion.parquet.sink;

import dev.streamfusion.bridge.batch.ArrowBatch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.PartFileInfo;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.CheckpointRollingPolicy;

import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.UUID;

/**
 * A non-partitioned Parquet table written from whole Arrow batches of the operator island: Flink's
 * file sink (part files, exactly-once commits on checkpoints, recovery) with the native writer
 * encoding each batch's buffers as they are. The rolling policy is the table sink's: a part file
 * rolls on every checkpoint, at {@code sink.rolling-policy.file-size}, after {@code
 * sink.rolling-policy.rollover-interval}, or when inactive for {@code
 * sink.rolling-policy.inactivity-interval}. With {@code sink.parallelism}, the writers run at that
 * parallelism, fed as Flink feeds a sink of another parallelism (the batches rebalanced across
 * the exchange, forwarded where the parallelisms match).
 */
@Internal
public final class ParquetBatchSink implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String path;
    private final NativeParquetWriterFactory writers;
    private final long fileSize;
    private final long rolloverInterval;
    private final long inactivityInterval;
    private final long checkInterval;
    /** {@code sink.parallelism}, or {@code null} for the input's. */
    private final Integer parallelism;

    public ParquetBatchSink(
            String path,
            NativeParquetWriterFactory writers,
            long fileSize,
            Duration rolloverInterval,
            Duration inactivityInterval,
            Duration checkInterval,
            Integer parallelism) {
        this.path = path;
        this.writers = writers;
        this.fileSize = fileSize;
        this.rolloverInterval = rolloverInterval.toMillis();
        this.inactivityInterval = inactivityInterval.toMillis();
        this.checkInterval = checkInterval.toMillis();
        this.parallelism = parallelism;
    }

    /** Writes {@code batches} at their parallelism, or at {@code sink.parallelism} where it is set. */
    public DataStreamSink<ArrowBatch> consume(DataStream<ArrowBatch> batches) {
        FileSink<ArrowBatch> sink =
                FileSink.forBulkFormat(new Path(path), new BatchWriters(writers))
                        .withBucketAssigner(new BasePathBucketAssigner<>())
                        .withRollingPolicy(new Rolling(fileSize, rolloverInterval, inactivityInterval))
                        .withBucketCheckInterval(checkInterval)
                        .withOutputFileConfig(OutputFileConfig.builder().withPartPrefix("part-" + UUID.randomUUID()).build())
                        .build();
        return batches.sinkTo(sink)
                .setParallelism(parallelism == null ? batches.getParallelism() : parallelism)
                .name("NativeSinkBatches");
    }

    /** The native writer of each part file, fed whole batches. */
    private static final class BatchWriters implements BulkWriter.Factory<ArrowBatch> {
        private static final long serialVersionUID = 1L;

        private final NativeParquetWriterFactory rows;

        BatchWriters(NativeParquetWriterFactory rows) {
            this.rows = rows;
        }

        @Override
        public BulkWriter<ArrowBatch> create(FSDataOutputStream out) {
            NativeParquetBulkWriter writer = rows.create(out);
            return new BulkWriter<>() {
                @Override
                public void addElement(ArrowBatch batch) throws IOException {
                    try {
                        writer.addBatch(batch.root());
                    } finally {
                        batch.release();
                    }
                }

                @Override
                public void flush() throws IOException {
                    writer.flush();
                }

                @Override
                public void finish() throws IOException {
                    writer.finish();
                }
            };
        }
    }

    /** Flink's table rolling policy, for batches. */
    private static final class Rolling extends CheckpointRollingPolicy<ArrowBatch, String> {
        private static final long serialVersionUID = 1L;

        private final long fileSize;
        private final long rolloverInterval;
        private final long inactivityInterval;

        Rolling(long fileSize, long rolloverInterval, long inactivityInterval) {
            this.fileSize = fileSize;
            this.rolloverInterval = rolloverInterval;
            this.inactivityInterval = inactivityInterval;
        }

        @Override
        public boolean shouldRollOnEvent(PartFileInfo<String> part, ArrowBatch batch) throws IOException {
            return part.getSize() > fileSize;
        }

        @Override
        public boolean shouldRollOnProcessingTime(PartFileInfo<String> part, long now) {
            return now - part.getCreationTime() >= rolloverInterval || now - part.getLastUpdateTime() >= inactivityInterval;
        }
    }
}
