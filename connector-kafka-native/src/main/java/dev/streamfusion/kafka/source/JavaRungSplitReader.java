package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.formats.NativeFormatDecoder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.connector.kafka.source.metrics.KafkaSourceReaderMetrics;
import org.apache.flink.connector.kafka.source.reader.KafkaPartitionSplitReader;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The Java rung: Flink's own Kafka split reader (kafka-clients) polls, and each partition's
 * records of a poll are decoded natively in one call into one Arrow batch.
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class JavaRungSplitReader implements SplitReader<KafkaMessage, KafkaPartitionSplit>, OffsetCommitter {

    private final KafkaPartitionSplitReader consumer;
    private final NativeValueDecoding decoding;
    private final NativeFormatDecoder decoder;
    private final BufferAllocator allocator;
    private final LivePolls livePolls;

    JavaRungSplitReader(
            Properties properties,
            SourceReaderContext context,
            KafkaSourceReaderMetrics metrics,
            NativeValueDecoding decoding,
            BufferAllocator allocator,
            LivePolls livePolls) {
        this.consumer = new KafkaPartitionSplitReader(properties, context, metrics);
        this.decoding = decoding;
        this.allocator = allocator;
        this.livePolls = livePolls;
        NativeFormatDecoder opened;
        try {
            opened = decoding.openDecoder(allocator);
        } catch (RuntimeException e) {
            closeQuietly(consumer, e);
            throw e;
        }
        this.decoder = opened;
    }

    @Override
    public RecordsWithSplitIds<KafkaMessage> fetch() throws IOException {
        RecordsWithSplitIds<ConsumerRecord<byte[], byte[]>> records = consumer.fetch();
        Set<String> finishedSplits = new HashSet<>(records.finishedSplits());
        List<DecodedPoll.SplitBatch> batches = new ArrayList<>();
        try {
            String split;
            while ((split = records.nextSplit()) != null) {
                List<ConsumerRecord<byte[], byte[]>> polled = new ArrayList<>();
                ConsumerRecord<byte[], byte[]> record;
                while ((record = records.nextRecordFromSplit()) != null) {
                    polled.add(record);
                }
                if (!polled.isEmpty()) {
                    batches.add(decode(split, polled));
                }
            }
        } catch (IOException | RuntimeException e) {
            batches.forEach(b -> b.root.close());
            throw e;
        } finally {
            records.recycle();
        }
        return livePolls.register(batches, finishedSplits);
    }

    private DecodedPoll.SplitBatch decode(String split, List<ConsumerRecord<byte[], byte[]>> records)
            throws IOException {
        int count = records.size();
        List<byte[]> values = new ArrayList<>(count);
        long[] offsets = new long[count];
        long[] timestamps = new long[count];
        for (int i = 0; i < count; i++) {
            ConsumerRecord<byte[], byte[]> record = records.get(i);
            values.add(record.value());
            offsets[i] = record.offset();
            timestamps[i] = record.timestamp();
        }
        int[] rowStarts = new int[count + 1];
        VectorSchemaRoot decoded;
        try {
            decoded = decoder.decode(values, rowStarts);
        } catch (NativeDecodeException e) {
            long offset = e.position() >= 0 && e.position() < count ? offsets[(int) e.position()] : -1;
            throw new IOException(
                    "Failed to decode the value of the Kafka record at offset " + offset + " of " + split + " ("
                            + decoding.format() + "): " + e.getMessage(),
                    e);
        }
        // The decoder reuses its root: the batch moves to one of its own, which the reader frees
        // once every row is emitted.
        List<FieldVector> vectors = new ArrayList<>(decoded.getFieldVectors().size());
        for (FieldVector vector : decoded.getFieldVectors()) {
            var transfer = vector.getTransferPair(allocator);
            transfer.transfer();
            vectors.add((FieldVector) transfer.getTo());
        }
        VectorSchemaRoot root = new VectorSchemaRoot(vectors);
        root.setRowCount(decoded.getRowCount());
        return new DecodedPoll.SplitBatch(split, root, decoding.rows(root), rowStarts, offsets, timestamps);
    }

    @Override
    public void handleSplitsChanges(SplitsChange<KafkaPartitionSplit> splitsChange) {
        consumer.handleSplitsChanges(splitsChange);
    }

    @Override
    public void pauseOrResumeSplits(
            Collection<KafkaPartitionSplit> splitsToPause, Collection<KafkaPartitionSplit> splitsToResume) {
        consumer.pauseOrResumeSplits(splitsToPause, splitsToResume);
    }

    @Override
    public void wakeUp() {
        consumer.wakeUp();
    }

    @Override
    public void commitOffsets(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        consumer.notifyCheckpointComplete(offsets, callback);
    }

    @Override
    public void close() throws Exception {
        try {
            consumer.close();
        } finally {
            decoder.close();
        }
    }

    private static void closeQuietly(AutoCloseable closeable, Exception failure) {
        try {
            closeable.close();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }
}
