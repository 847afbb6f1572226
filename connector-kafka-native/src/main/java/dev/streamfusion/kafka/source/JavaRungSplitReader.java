package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.source.FetchedBatches;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.connector.kafka.source.metrics.KafkaSourceReaderMetrics;
import org.apache.flink.connector.kafka.source.reader.KafkaPartitionSplitReader;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.table.data.RowData;

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
import java.util.function.IntFunction;

/**
 * The Java rung: Flink's own Kafka split reader (kafka-clients) polls, and each partition's
 * records of a poll are decoded natively in one call into one Arrow batch (and their keys in a
 * second, when the table reads keys).
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class JavaRungSplitReader extends DecodingSplitReader {

    private final KafkaPartitionSplitReader consumer;

    JavaRungSplitReader(
            Properties properties,
            SourceReaderContext context,
            KafkaSourceReaderMetrics metrics,
            FormatDecoding decoding,
            KeyDecoding keys,
            KafkaMetadata metadata,
            FetchedBatches fetched,
            ReaderMetrics readerMetrics,
            boolean wholeRuns,
            DeadLetters deadLetters) {
        super(context, decoding, keys, metadata, fetched, readerMetrics, wholeRuns, deadLetters);
        try {
            this.consumer = new KafkaPartitionSplitReader(properties, context, metrics);
        } catch (RuntimeException e) {
            closeDecoders();
            throw e;
        }
    }

    @Override
    public RecordsWithSplitIds<KafkaMessage> fetch() throws IOException {
        RecordsWithSplitIds<ConsumerRecord<byte[], byte[]>> records = consumer.fetch();
        Set<String> finishedSplits = new HashSet<>(records.finishedSplits());
        List<DecodedPoll.SplitBatch> batches = new ArrayList<>();
        List<DecodedPart> parts = new ArrayList<>();
        try {
            String split;
            while ((split = records.nextSplit()) != null) {
                List<ConsumerRecord<byte[], byte[]>> polled = new ArrayList<>();
                ConsumerRecord<byte[], byte[]> record;
                while ((record = records.nextRecordFromSplit()) != null) {
                    polled.add(record);
                }
                if (!polled.isEmpty()) {
                    batches.add(decode(split, polled, parts));
                }
            }
        } catch (IOException | RuntimeException e) {
            parts.forEach(DecodedPart::close);
            throw e;
        } finally {
            records.recycle();
        }
        return decoded(batches, parts, finishedSplits);
    }

    private DecodedPoll.SplitBatch decode(
            String split, List<ConsumerRecord<byte[], byte[]>> records, List<DecodedPart> parts) throws IOException {
        int count = records.size();
        List<byte[]> messages = new ArrayList<>(count);
        long[] offsets = new long[count];
        long[] timestamps = new long[count];
        RowData[] metadataRows = metadata.isEmpty() ? null : new RowData[count];
        boolean[] tombstones = upsert ? new boolean[count] : null;
        for (int i = 0; i < count; i++) {
            ConsumerRecord<byte[], byte[]> record = records.get(i);
            messages.add(record.value());
            if (tombstones != null) {
                tombstones[i] = record.value() == null;
            }
            offsets[i] = record.offset();
            timestamps[i] = record.timestamp();
            if (metadataRows != null) {
                metadataRows[i] = metadata.of(record);
            }
        }
        IntFunction<String> recordName = i -> "the Kafka record at offset " + offsets[i] + " of " + split;
        IntFunction<String> recordSplit = i -> split;
        Skipped skipped = new Skipped();
        DecodedPart valueRows =
                values.decode(
                        count, (d, starts) -> d.decode(messages, starts), messages::get, recordName, recordSplit, skipped);
        parts.add(valueRows);
        DecodedPart keyRows = null;
        if (keys != null) {
            List<byte[]> keyBytes = new ArrayList<>(count);
            records.forEach(r -> keyBytes.add(r.key()));
            keyRows =
                    keys.decode(
                            count, (d, starts) -> d.decode(keyBytes, starts), keyBytes::get, recordName, recordSplit, skipped);
            parts.add(keyRows);
        }
        if (deadLetters != null) {
            for (Map.Entry<Integer, String> skip : skipped.reasons.entrySet()) {
                ConsumerRecord<byte[], byte[]> record = records.get(skip.getKey());
                deadLetters.send(
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        record.timestamp(),
                        record.key(),
                        record.value(),
                        record.headers(),
                        skip.getValue());
            }
        }
        return new DecodedPoll.SplitBatch(
                split, valueRows, keyRows, 0, count, offsets, timestamps, metadataRows, tombstones);
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
    void closeConsumer() throws Exception {
        consumer.close();
    }
}
