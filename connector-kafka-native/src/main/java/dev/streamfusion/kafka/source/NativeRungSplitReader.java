package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.source.FetchedBatches;
import dev.streamfusion.kafka.internal.LibrdkafkaConfig;
import dev.streamfusion.kafka.internal.LibrdkafkaLog;
import dev.streamfusion.kafka.internal.NativeKafkaConsumer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.connector.kafka.source.metrics.KafkaSourceReaderMetrics;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.metrics.Counter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * The native rung: librdkafka is assigned the reader's partitions and polls; each poll's values
 * (and keys) are decoded natively into one Arrow batch without the bytes entering the JVM. Offsets
 * live in Flink's split state; commits are for monitoring.
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class NativeRungSplitReader extends DecodingSplitReader {

    /** How long a fetch waits for records; bounds how late the fetcher sees new splits or a close. */
    private static final long POLL_TIMEOUT_MS = 100;
    /** Records per poll unless {@code max.poll.records} says otherwise. */
    static final int DEFAULT_MAX_RECORDS = 2048;
    private static final long LAG_INTERVAL_NANOS = 1_000_000_000L;

    private final NativeKafkaConsumer consumer;
    private final KafkaSourceReaderMetrics kafkaMetrics;
    /** Names the consumer in librdkafka's log lines. */
    private final String clientName;
    private final Counter bytesIn;
    private final int maxRecords;
    private final int[] runSplits;
    private final int[] runCounts;
    /** Per split id: the split's id in Flink, and its partition. */
    private final List<String> splitIds = new ArrayList<>();
    private final List<TopicPartition> partitions = new ArrayList<>();
    private final Map<String, Integer> idsBySplit = new HashMap<>();
    private volatile long lag = -1;
    private long lagUpdated;

    NativeRungSplitReader(
            Properties properties,
            SourceReaderContext context,
            KafkaSourceReaderMetrics kafkaMetrics,
            FormatDecoding decoding,
            KeyDecoding keyDecoding,
            KafkaMetadata metadata,
            FetchedBatches fetched,
            ReaderMetrics readerMetrics,
            boolean wholeRuns,
            DeadLetters deadLetters) {
        super(context, decoding, keyDecoding, metadata, fetched, readerMetrics, wholeRuns, deadLetters);
        this.kafkaMetrics = kafkaMetrics;
        LibrdkafkaConfig config = LibrdkafkaConfig.consumer(properties, context.getIndexOfSubtask());
        try {
            if (!config.untranslatable().isEmpty()) {
                throw new IllegalArgumentException(
                        "The native Kafka rung cannot use these properties: " + String.join("; ", config.untranslatable()));
            }
            this.maxRecords =
                    Integer.parseInt(properties.getProperty("max.poll.records", String.valueOf(DEFAULT_MAX_RECORDS)));
            long apiTimeout = Long.parseLong(properties.getProperty("default.api.timeout.ms", "60000"));
            this.runSplits = new int[maxRecords];
            this.runCounts = new int[maxRecords];
            this.bytesIn = context.metricGroup().getIOMetricGroup().getNumBytesInCounter();
            context.metricGroup().setPendingRecordsGauge(() -> lag < 0 ? null : lag);
            this.clientName = "Kafka consumer of source subtask " + context.getIndexOfSubtask();
            // Last: nothing after it can fail and leave the consumer (and its threads) unclosed.
            this.consumer =
                    new NativeKafkaConsumer(
                            config.consumerProperties(),
                            // A dead letter is the whole record.
                            keyDecoding != null || deadLetters != null,
                            metadata.reads("headers") || deadLetters != null,
                            apiTimeout);
        } catch (RuntimeException e) {
            closeDecoders();
            throw e;
        }
    }

    @Override
    public RecordsWithSplitIds<KafkaMessage> fetch() throws IOException {
        int runs;
        try {
            runs = consumer.poll(maxRecords, POLL_TIMEOUT_MS, runSplits, runCounts);
        } finally {
            LibrdkafkaLog.log(clientName, consumer.logs());
        }
        Set<String> finished = new HashSet<>();
        for (int id : consumer.finished()) {
            finished.add(splitIds.get(id));
        }
        updateLag();
        int count = 0;
        for (int r = 0; r < runs; r++) {
            count += runCounts[r];
        }
        if (count == 0) {
            return decoded(List.of(), List.of(), finished);
        }
        long[] offsets = new long[count];
        long[] timestamps = new long[count];
        byte[] timestampTypes = metadata.reads("timestamp-type") ? new byte[count] : null;
        int[] leaderEpochs = metadata.reads("leader-epoch") ? new int[count] : null;
        bytesIn.inc(consumer.records(offsets, timestamps, timestampTypes, leaderEpochs));
        int[] recordSplits = new int[count];
        for (int r = 0, at = 0; r < runs; r++) {
            for (int i = 0; i < runCounts[r]; i++) {
                recordSplits[at++] = runSplits[r];
            }
            // As Flink's reader: the offset of the last record handed out, per partition.
            kafkaMetrics.recordCurrentOffset(partitions.get(runSplits[r]), offsets[at - 1]);
        }
        IntFunction<String> recordSplit = i -> splitIds.get(recordSplits[i]);
        IntFunction<String> recordName = i -> "the Kafka record at offset " + offsets[i] + " of " + recordSplit.apply(i);
        List<DecodedPart> parts = new ArrayList<>(2);
        try {
            Skipped skipped = new Skipped();
            DecodedPart valueRows = decode(values, false, count, recordName, recordSplit, skipped);
            parts.add(valueRows);
            DecodedPart keyRows = null;
            if (keys != null) {
                keyRows = decode(keys, true, count, recordName, recordSplit, skipped);
                parts.add(keyRows);
            }
            deadLetter(skipped, count, recordSplits, offsets, timestamps);
            RowData[] metadataRows = metadataRows(count, recordSplits, offsets, timestamps, timestampTypes, leaderEpochs);
            boolean[] tombstones = null;
            if (upsert) {
                tombstones = new boolean[count];
                consumer.nullValues(tombstones);
            }
            List<DecodedPoll.SplitBatch> batches = new ArrayList<>(runs);
            for (int r = 0, first = 0; r < runs; first += runCounts[r], r++) {
                batches.add(
                        new DecodedPoll.SplitBatch(
                                splitIds.get(runSplits[r]),
                                valueRows,
                                keyRows,
                                first,
                                runCounts[r],
                                offsets,
                                timestamps,
                                metadataRows,
                                tombstones));
            }
            return decoded(batches, parts, finished);
        } catch (IOException | RuntimeException e) {
            parts.forEach(DecodedPart::close);
            throw e;
        }
    }

    /** Produces the skipped records of this poll to the dead-letter topic, if the table has one. */
    private void deadLetter(Skipped skipped, int count, int[] recordSplits, long[] offsets, long[] timestamps)
            throws IOException {
        if (deadLetters == null || skipped.reasons.isEmpty()) {
            return;
        }
        int[] headerCounts = new int[count];
        byte[][] headers = consumer.headers(headerCounts);
        int[] firstHeader = new int[count];
        for (int i = 1; i < count; i++) {
            firstHeader[i] = firstHeader[i - 1] + 2 * headerCounts[i - 1];
        }
        for (Map.Entry<Integer, String> record : skipped.reasons.entrySet()) {
            int i = record.getKey();
            List<Header> recordHeaders = new ArrayList<>(headerCounts[i]);
            for (int h = 0; h < headerCounts[i]; h++) {
                byte[] key = headers[firstHeader[i] + 2 * h];
                recordHeaders.add(new RecordHeader(new String(key, StandardCharsets.UTF_8), headers[firstHeader[i] + 2 * h + 1]));
            }
            TopicPartition partition = partitions.get(recordSplits[i]);
            deadLetters.send(
                    partition.topic(),
                    partition.partition(),
                    offsets[i],
                    timestamps[i],
                    consumer.message(true, i),
                    consumer.message(false, i),
                    recordHeaders,
                    record.getValue());
        }
    }

    private DecodedPart decode(
            PartDecoder part,
            boolean keyPart,
            int count,
            IntFunction<String> recordName,
            IntFunction<String> recordSplit,
            Skipped skipped)
            throws IOException {
        if ("avro-confluent".equals(part.format())) {
            part.decoder().addWriterSchemas(consumer.schemaIds(keyPart));
        }
        return part.decode(
                count,
                (decoder, rowStarts) -> consumer.decode(keyPart, decoder, rowStarts),
                record -> consumer.message(keyPart, record),
                recordName,
                recordSplit,
                skipped);
    }

    private RowData[] metadataRows(
            int count, int[] recordSplits, long[] offsets, long[] timestamps, byte[] timestampTypes, int[] leaderEpochs) {
        if (metadata.isEmpty()) {
            return null;
        }
        int[] headerCounts = metadata.reads("headers") ? new int[count] : null;
        byte[][] headers = headerCounts == null ? null : consumer.headers(headerCounts);
        RowData[] rows = new RowData[count];
        for (int i = 0, header = 0; i < count; i++) {
            TopicPartition partition = partitions.get(recordSplits[i]);
            int firstHeader = header;
            int headerCount = headerCounts == null ? 0 : headerCounts[i];
            header += 2 * headerCount;
            rows[i] =
                    metadata.of(
                            partition.topic(),
                            partition.partition(),
                            () -> {
                                Map<StringData, byte[]> map = new HashMap<>();
                                for (int h = 0; h < headerCount; h++) {
                                    byte[] key = headers[firstHeader + 2 * h];
                                    map.put(
                                            StringData.fromString(new String(key, StandardCharsets.UTF_8)),
                                            headers[firstHeader + 2 * h + 1]);
                                }
                                return map;
                            },
                            leaderEpochs == null || leaderEpochs[i] < 0 ? null : leaderEpochs[i],
                            offsets[i],
                            timestamps[i],
                            timestampTypes == null ? null : timestampType(timestampTypes[i]).toString());
        }
        return rows;
    }

    private static TimestampType timestampType(byte id) {
        return id == 0 ? TimestampType.CREATE_TIME : id == 1 ? TimestampType.LOG_APPEND_TIME : TimestampType.NO_TIMESTAMP_TYPE;
    }

    private void updateLag() {
        long now = System.nanoTime();
        if (now - lagUpdated >= LAG_INTERVAL_NANOS) {
            lagUpdated = now;
            lag = consumer.lag();
        }
    }

    @Override
    public void handleSplitsChanges(SplitsChange<KafkaPartitionSplit> splitsChange) {
        if (!(splitsChange instanceof SplitsAddition)) {
            throw new UnsupportedOperationException(
                    "The Kafka reader supports only split additions, not " + splitsChange.getClass().getSimpleName());
        }
        for (KafkaPartitionSplit split : splitsChange.splits()) {
            TopicPartition partition = split.getTopicPartition();
            int id =
                    consumer.addSplit(
                            partition.topic(),
                            partition.partition(),
                            split.getStartingOffset(),
                            split.getStoppingOffset().orElse(KafkaPartitionSplit.NO_STOPPING_OFFSET));
            splitIds.add(split.splitId());
            partitions.add(partition);
            idsBySplit.put(split.splitId(), id);
            kafkaMetrics.registerTopicPartition(partition);
        }
    }

    @Override
    public void pauseOrResumeSplits(
            Collection<KafkaPartitionSplit> splitsToPause, Collection<KafkaPartitionSplit> splitsToResume) {
        consumer.pause(ids(splitsToPause), true);
        consumer.pause(ids(splitsToResume), false);
    }

    private int[] ids(Collection<KafkaPartitionSplit> splits) {
        return splits.stream()
                .map(split -> idsBySplit.get(split.splitId()))
                .filter(id -> id != null)
                .mapToInt(Integer::intValue)
                .toArray();
    }

    @Override
    public void wakeUp() {
        // A fetch returns within POLL_TIMEOUT_MS by itself.
    }

    @Override
    public void commitOffsets(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        String[] topics = new String[offsets.size()];
        int[] partitionNumbers = new int[offsets.size()];
        long[] positions = new long[offsets.size()];
        int i = 0;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : offsets.entrySet()) {
            topics[i] = entry.getKey().topic();
            partitionNumbers[i] = entry.getKey().partition();
            positions[i] = entry.getValue().offset();
            i++;
        }
        Exception failure = null;
        try {
            consumer.commit(topics, partitionNumbers, positions);
        } catch (RuntimeException e) {
            failure = e;
        }
        LibrdkafkaLog.log(clientName, consumer.logs());
        callback.onComplete(offsets, failure);
    }

    @Override
    void closeConsumer() {
        try {
            if (!consumer.isClosed()) {
                LibrdkafkaLog.log(clientName, consumer.logs());
            }
        } finally {
            consumer.close();
        }
    }
}
