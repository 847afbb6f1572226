package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.source.ArrowSourceReader;
import dev.streamfusion.bridge.source.FetchedBatches;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.apache.flink.connector.kafka.source.metrics.KafkaSourceReaderMetrics;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplitState;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A source reader of Kafka partitions whose records arrive decoded, a poll at a time, as Arrow
 * batches. Positions live in Flink's split state (the offset after the last record emitted);
 * offsets are committed to the broker when a checkpoint completes, for monitoring only, as Flink's
 * Kafka reader does ({@code commit.offsets.on.checkpoint}, on when a group id is set).
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class KafkaBatchSourceReader<T>
        extends ArrowSourceReader<KafkaMessage, T, KafkaPartitionSplit, KafkaPartitionSplitState> {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaBatchSourceReader.class);

    private final KafkaBatchFetcherManager fetcherManager;
    private final KafkaSourceReaderMetrics metrics;
    private final boolean commitOffsetsOnCheckpoint;
    private final OffsetsToCommit offsetsToCommit = new OffsetsToCommit();
    /** Final offsets of finished partitions, committed with the next checkpoint. */
    private final ConcurrentMap<TopicPartition, OffsetAndMetadata> offsetsOfFinishedSplits = new ConcurrentHashMap<>();
    /** The dead-letter producer, flushed before each checkpoint's state is taken; or {@code null}. */
    private final DeadLetters deadLetters;

    KafkaBatchSourceReader(
            KafkaBatchFetcherManager fetcherManager,
            RecordEmitter<KafkaMessage, T, KafkaPartitionSplitState> emitter,
            Configuration configuration,
            SourceReaderContext context,
            KafkaSourceReaderMetrics metrics,
            FetchedBatches fetched,
            DeadLetters deadLetters) {
        super(
                fetcherManager,
                emitter,
                configuration,
                context,
                fetched,
                SplitStates.of(KafkaPartitionSplitState::new, KafkaPartitionSplitState::toKafkaPartitionSplit));
        this.fetcherManager = fetcherManager;
        this.metrics = metrics;
        this.commitOffsetsOnCheckpoint = configuration.get(KafkaSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT);
        this.deadLetters = deadLetters;
    }

    @Override
    protected void onSplitFinished(Map<String, KafkaPartitionSplitState> finishedSplitIds) {
        finishedSplitIds.forEach(
                (id, state) -> {
                    if (state.getCurrentOffset() >= 0) {
                        offsetsOfFinishedSplits.put(
                                state.getTopicPartition(), new OffsetAndMetadata(state.getCurrentOffset()));
                    }
                });
    }

    @Override
    public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
        if (deadLetters != null) {
            // Every record before the checkpoint's positions was decoded, and dead-lettered if it
            // had to be, before the records after it were emitted: once flushed, none is lost.
            try {
                deadLetters.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        List<KafkaPartitionSplit> splits = super.snapshotState(checkpointId);
        if (!commitOffsetsOnCheckpoint) {
            return splits;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(offsetsOfFinishedSplits);
        for (KafkaPartitionSplit split : splits) {
            // A split not read yet holds a marker (earliest, latest, committed), not an offset.
            if (split.getStartingOffset() >= 0) {
                offsets.put(split.getTopicPartition(), new OffsetAndMetadata(split.getStartingOffset()));
            }
        }
        offsetsToCommit.taken(checkpointId, offsets);
        return splits;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (!commitOffsetsOnCheckpoint) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = offsetsToCommit.completed(checkpointId);
        if (offsets == null) {
            return;
        }
        fetcherManager.commitOffsets(
                offsets,
                (committed, error) -> {
                    if (error != null) {
                        metrics.recordFailedCommit();
                        LOG.warn("Failed to commit Kafka offsets of checkpoint {}", checkpointId, error);
                        return;
                    }
                    metrics.recordSucceededCommit();
                    committed.forEach((partition, offset) -> metrics.recordCommittedOffset(partition, offset.offset()));
                    offsetsOfFinishedSplits.keySet().removeAll(committed.keySet());
                    offsetsToCommit.committed(checkpointId);
                });
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            if (deadLetters != null) {
                // At the end of a bounded read no checkpoint follows: the last dead letters are
                // written (or their failure reported) here.
                try {
                    deadLetters.flush();
                } finally {
                    deadLetters.close();
                }
            }
        }
    }
}
