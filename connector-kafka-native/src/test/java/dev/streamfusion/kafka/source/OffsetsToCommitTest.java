package dev.streamfusion.kafka.source;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A reader's offsets to commit are kept until done with, as Flink's Kafka reader keeps them. */
class OffsetsToCommitTest {

    private static final TopicPartition PARTITION = new TopicPartition("t", 0);

    /**
     * A checkpoint with no offsets (a reader without partitions, or with all of them committed)
     * keeps nothing once completed: before, each such checkpoint was kept for the life of the job.
     */
    @Test
    void checkpointsWithoutOffsetsAreDroppedWhenTheyComplete() {
        OffsetsToCommit offsets = new OffsetsToCommit();
        for (long checkpoint = 1; checkpoint <= 100; checkpoint++) {
            offsets.taken(checkpoint, Map.of());
            assertThat(offsets.completed(checkpoint)).isNull();
        }
        assertThat(offsets.size()).isZero();
    }

    @Test
    void offsetsAreKeptUntilTheirCheckpointOrALaterOneIsDoneWith() {
        OffsetsToCommit offsets = new OffsetsToCommit();
        offsets.taken(1, Map.of(PARTITION, new OffsetAndMetadata(5)));
        offsets.taken(2, Map.of());
        offsets.taken(3, Map.of(PARTITION, new OffsetAndMetadata(7)));
        offsets.taken(4, Map.of(PARTITION, new OffsetAndMetadata(9)));
        // Checkpoint 2 completes first (1 was aborted): it has nothing, and 1 is superseded.
        assertThat(offsets.completed(2)).isNull();
        assertThat(offsets.size()).isEqualTo(2);
        assertThat(offsets.completed(3)).isEqualTo(Map.of(PARTITION, new OffsetAndMetadata(7)));
        // Kept until the commit succeeds: a failed commit leaves them for the next checkpoint.
        assertThat(offsets.size()).isEqualTo(2);
        offsets.committed(3);
        assertThat(offsets.size()).isEqualTo(1);
        assertThat(offsets.completed(5)).isNull();
        assertThat(offsets.completed(4)).isEqualTo(Map.of(PARTITION, new OffsetAndMetadata(9)));
        offsets.committed(4);
        assertThat(offsets.size()).isZero();
    }
}
