package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A reader's offsets to commit, per checkpoint, until that checkpoint or a later one is done with,
 * as Flink's Kafka reader keeps them. Thread-safe: commits complete on the consumer's thread.
 */
@Internal
final class OffsetsToCommit {

    private final SortedMap<Long, Map<TopicPartition, OffsetAndMetadata>> byCheckpoint = new TreeMap<>();

    /** What {@code checkpointId}'s state held (empty where no split had an offset yet). */
    synchronized void taken(long checkpointId, Map<TopicPartition, OffsetAndMetadata> offsets) {
        byCheckpoint.put(checkpointId, Map.copyOf(offsets));
    }

    /**
     * The offsets to commit now that {@code checkpointId} completed, or {@code null} for none. A
     * checkpoint with none (a reader without partitions, or whose partitions are all committed) is
     * done with at once, with every one before it, as Flink's reader drops them.
     */
    synchronized Map<TopicPartition, OffsetAndMetadata> completed(long checkpointId) {
        Map<TopicPartition, OffsetAndMetadata> offsets = byCheckpoint.get(checkpointId);
        if (offsets != null && offsets.isEmpty()) {
            committed(checkpointId);
            return null;
        }
        return offsets;
    }

    /** {@code checkpointId}'s offsets were committed: it and every checkpoint before it are done. */
    synchronized void committed(long checkpointId) {
        byCheckpoint.headMap(checkpointId + 1).clear();
    }

    /** How many checkpoints' offsets are kept. */
    @VisibleForTesting
    synchronized int size() {
        return byCheckpoint.size();
    }
}
