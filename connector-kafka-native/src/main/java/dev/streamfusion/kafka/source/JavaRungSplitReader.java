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
import org.apache.flink.table.data.RowData;

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
 * records of a poll are decoded natively in one call into one Arrow batch (and their keys in a
 * second, when the table reads keys).
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class JavaRungSplitReader implements SplitReader<KafkaMessage, KafkaPartitionSplit>, OffsetCommitter {

    private final KafkaPartitionSplitReader consumer;
    private final FormatDecoding decoding;
    private final KafkaMetadata metadata;
    private final NativeFormatDecoder decoder;
    /** The key's decoding and decoder, or {@code null} when the table reads no key. */
    private final FormatDecoding keyDecoding;
    private final NativeFormatDecoder keyDecoder;
    private final BufferAllocator allocator;
    private final LivePolls livePolls;
    private final ReaderMetrics readerMetrics;

    JavaRungSplitReader(
            Properties properties,
            SourceReaderContext context,
            KafkaSourceReaderMetrics metrics,
            FormatDecoding decoding,
            KeyDecoding keys,
            KafkaMetadata metadata,
            BufferAllocator allocator,
            LivePolls livePolls,
            ReaderMetrics readerMetrics) {
        this.consumer = new KafkaPartitionSplitReader(properties, context, metrics);
        this.readerMetrics = readerMetrics;
        this.decoding = decoding;
        this.metadata = metadata;
        this.allocator = allocator;
        this.livePolls = livePolls;
        this.keyDecoding = keys == null ? null : keys.key();
        NativeFormatDecoder opened = null;
        try {
            opened = decoding.openDecoder(allocator);
            this.keyDecoder = keyDecoding == null ? null : keyDecoding.openDecoder(allocator);
        } catch (RuntimeException e) {
            if (opened != null) {
                opened.close();
            }
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
            batches.forEach(DecodedPoll.SplitBatch::close);
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
        RowData[] metadataRows = metadata.isEmpty() ? null : new RowData[count];
        for (int i = 0; i < count; i++) {
            ConsumerRecord<byte[], byte[]> record = records.get(i);
            values.add(record.value());
            offsets[i] = record.offset();
            timestamps[i] = record.timestamp();
            if (metadataRows != null) {
                metadataRows[i] = metadata.of(record);
            }
        }
        DecodedPart valueRows = decodePart(decoder, decoding, "value", values, offsets, split);
        DecodedPart keyRows = null;
        if (keyDecoder != null) {
            List<byte[]> keys = new ArrayList<>(count);
            records.forEach(r -> keys.add(r.key()));
            try {
                keyRows = decodePart(keyDecoder, keyDecoding, "key", keys, offsets, split);
            } catch (IOException | RuntimeException e) {
                valueRows.close();
                throw e;
            }
        }
        return new DecodedPoll.SplitBatch(split, valueRows, keyRows, offsets, timestamps, metadataRows);
    }

    /** Decodes one part of the records (values or keys) into a batch of its own. */
    private DecodedPart decodePart(
            NativeFormatDecoder partDecoder,
            FormatDecoding partDecoding,
            String part,
            List<byte[]> messages,
            long[] offsets,
            String split)
            throws IOException {
        int[] rowStarts = new int[messages.size() + 1];
        VectorSchemaRoot decoded;
        long started = System.nanoTime();
        long skippedBefore = partDecoder.skipped();
        try {
            decoded = partDecoder.decode(messages, rowStarts);
            readerMetrics.decoded(System.nanoTime() - started, partDecoder.skipped() - skippedBefore);
        } catch (NativeDecodeException e) {
            long offset = e.position() >= 0 && e.position() < offsets.length ? offsets[(int) e.position()] : -1;
            throw new IOException(
                    "Failed to decode the " + part + " of the Kafka record at offset " + offset + " of " + split + " ("
                            + partDecoding.format() + "): " + e.getMessage(),
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
        return new DecodedPart(root, partDecoding.rows(root), rowStarts);
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
            if (keyDecoder != null) {
                keyDecoder.close();
            }
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
