package dev.streamfusion.parquet.sink;

import dev.streamfusion.bridge.batch.ArrowBatch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.io.OutputFormat;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.file.table.EmptyMetaStoreFactory;
import org.apache.flink.connector.file.table.FileSystemOutputFormat;
import org.apache.flink.connector.file.table.OutputFormatFactory;
import org.apache.flink.connector.file.table.PartitionCommitPolicyFactory;
import org.apache.flink.connector.file.table.PartitionComputer;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
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
import java.util.LinkedHashMap;
import java.util.UUID;

/**
 * A non-partitioned Parquet table written from whole Arrow batches of the operator island, with
 * the native writer encoding each batch's buffers as they are, and committed as Flink's table sink
 * commits it:
 *
 * <ul>
 *   <li>streaming: Flink's file sink (part files, exactly-once commits on checkpoints, recovery),
 *       under the table sink's rolling policy: a part file rolls on every checkpoint, at {@code
 *       sink.rolling-policy.file-size}, after {@code sink.rolling-policy.rollover-interval}, or
 *       when inactive for {@code sink.rolling-policy.inactivity-interval};
 *   <li>batch: Flink's file system output format, as Flink's table sink writes a bounded input.
 *       Each writer writes one file into a hidden staging directory, and the files are moved into
 *       the table when the whole job has finished, so a job that fails leaves nothing visible.
 * </ul>
 *
 * <p>With {@code sink.parallelism}, the writers run at that parallelism, fed as Flink feeds a sink
 * of another parallelism (the batches rebalanced across the exchange, forwarded where the
 * parallelisms match).
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
    // An output format finalized on the JobManager has no other way into a job; Flink's own table
    // sink writes bounded inputs through it.
    @SuppressWarnings("deprecation")
    public DataStreamSink<ArrowBatch> consume(DataStream<ArrowBatch> batches) {
        int subtasks = parallelism == null ? batches.getParallelism() : parallelism;
        boolean bounded = batches.getExecutionEnvironment().getConfiguration().get(ExecutionOptions.RUNTIME_MODE)
                == RuntimeExecutionMode.BATCH;
        if (bounded) {
            FileSystemOutputFormat<ArrowBatch> staged = new FileSystemOutputFormat.Builder<ArrowBatch>()
                    .setPartitionComputer(new Unpartitioned())
                    .setPartitionColumns(new String[0])
                    .setStaticPartitions(new LinkedHashMap<>())
                    .setFormatFactory(new FileFormat(new BatchWriters(writers)))
                    .setMetaStoreFactory(new EmptyMetaStoreFactory(new Path(path)))
                    .setOverwrite(false)
                    .setPath(new Path(path))
                    .setOutputFileConfig(partFiles())
                    // No commit policy: the table takes the island's batches only without one.
                    .setPartitionCommitPolicyFactory(new PartitionCommitPolicyFactory(null, null, null, null))
                    .build();
            return batches.writeUsingOutputFormat(staged).setParallelism(subtasks).name("NativeSinkBatches");
        }
        FileSink<ArrowBatch> sink =
                FileSink.forBulkFormat(new Path(path), new BatchWriters(writers))
                        .withBucketAssigner(new BasePathBucketAssigner<>())
                        .withRollingPolicy(new Rolling(fileSize, rolloverInterval, inactivityInterval))
                        .withBucketCheckInterval(checkInterval)
                        .withOutputFileConfig(partFiles())
                        .build();
        return batches.sinkTo(sink).setParallelism(subtasks).name("NativeSinkBatches");
    }

    /** Part files named as Flink's table sink names them. */
    private static OutputFileConfig partFiles() {
        return OutputFileConfig.builder().withPartPrefix("part-" + UUID.randomUUID()).build();
    }

    /** Every batch goes to the table's one directory, whole. */
    private static final class Unpartitioned implements PartitionComputer<ArrowBatch> {
        private static final long serialVersionUID = 1L;

        @Override
        public LinkedHashMap<String, String> generatePartValues(ArrowBatch batch) {
            return new LinkedHashMap<>();
        }

        @Override
        public ArrowBatch projectColumnsToWrite(ArrowBatch batch) {
            return batch;
        }
    }

    /** A file of whole batches at a path, written by the bulk writer, as Flink's table sink writes one. */
    private static final class FileFormat implements OutputFormatFactory<ArrowBatch> {
        private static final long serialVersionUID = 1L;

        private final BulkWriter.Factory<ArrowBatch> writers;

        FileFormat(BulkWriter.Factory<ArrowBatch> writers) {
            this.writers = writers;
        }

        @Override
        public OutputFormat<ArrowBatch> createOutputFormat(Path file) {
            return new OutputFormat<>() {
                private static final long serialVersionUID = 1L;

                private FSDataOutputStream out;
                private BulkWriter<ArrowBatch> writer;

                @Override
                public void configure(Configuration parameters) {}

                @Override
                public void open(InitializationContext context) throws IOException {
                    out = file.getFileSystem().create(file, FileSystem.WriteMode.OVERWRITE);
                    writer = writers.create(out);
                }

                @Override
                public void writeRecord(ArrowBatch batch) throws IOException {
                    writer.addElement(batch);
                }

                @Override
                public void close() throws IOException {
                    if (out == null) {
                        return;
                    }
                    try {
                        if (writer != null) {
                            writer.finish();
                        }
                    } finally {
                        out.close();
                    }
                }
            };
        }
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
