package dev.streamfusion.iceberg.sink;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What the committer commits at each checkpoint's completion, and what it keeps across a restore. */
class PendingCommitsTest {

    @Test
    void aCheckpointCommitsOnlyWhatItsSnapshotTookAndALateResultWaitsForTheNext() {
        PendingCommits pending = new PendingCommits();
        pending.received(1, "a");
        List<WriteResult> state = pending.snapshot(1);
        assertThat(state).extracting(r -> r.checkpointId + r.files).containsExactly("1a");
        // Subtask b's result for checkpoint 1, overtaken by the barrier: after the snapshot.
        pending.received(1, "b");
        Map<Long, List<String>> first = pending.upTo(1);
        assertThat(first).containsExactly(Map.entry(1L, List.of("a")));
        first.clear();
        pending.received(2, "c");
        pending.snapshot(2);
        assertThat(pending.upTo(2)).containsExactly(Map.entry(1L, List.of("b")), Map.entry(2L, List.of("c")));
    }

    @Test
    void aResultReplayedAfterARestoreIsKeptForItWasNeverCommitted() {
        PendingCommits before = new PendingCommits();
        before.received(1, "a");
        List<WriteResult> state = before.snapshot(1);
        before.received(1, "b");
        before.upTo(1).clear();
        // The job fails before checkpoint 2; the table records checkpoint 1 as committed.
        PendingCommits restored = new PendingCommits();
        restored.restore(state, 1);
        assertThat(restored.upTo(1)).isEmpty();
        // Result b comes again from checkpoint 1's channel state.
        restored.received(1, "b");
        restored.snapshot(2);
        assertThat(restored.upTo(2)).containsExactly(Map.entry(1L, List.of("b")));
    }

    @Test
    void aRestoreCommitsTheCheckpointsTheTableDoesNotRecordAndFilesAtTheEndOfTheInputJoinTheNextCheckpoint() {
        PendingCommits before = new PendingCommits();
        before.received(3, "a");
        before.snapshot(3);
        before.received(4, "b");
        before.received(Long.MAX_VALUE, "end");
        List<WriteResult> state = before.snapshot(4);
        assertThat(state).extracting(r -> r.checkpointId + r.files).containsExactly("3a", "4b", "4end");

        PendingCommits restored = new PendingCommits();
        restored.restore(state, 3);
        assertThat(restored.upTo(4)).containsExactly(Map.entry(4L, List.of("b", "end")));

        PendingCommits unchecked = new PendingCommits();
        unchecked.received(Long.MAX_VALUE, "x");
        assertThat(unchecked.upTo(Long.MAX_VALUE)).isEmpty();
        assertThat(unchecked.all()).containsExactly(Map.entry(Long.MAX_VALUE, List.of("x")));
    }
}
