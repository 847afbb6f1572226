package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;

import java.util.Map;

/** A split reader that commits offsets to the broker (for monitoring; Flink's state is the truth). */
@Internal
interface OffsetCommitter {

    /** Commits {@code offsets} asynchronously; called on the fetcher thread. */
    void commitOffsets(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback);
}
