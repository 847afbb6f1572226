package dev.streamfusion.iceberg.sink;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;

import static org.assertj.core.api.Assertions.assertThat;

/** What the committer commits at each checkpoint's completion, and what it keeps across a restore. */
class PendingCommitsTest {

    /** The files in commit order, each as "takenAt:checkpoint:files"; then forgotten, as once committed. */
    private static List<String> commit(NavigableMap<Long, NavigableMap<Long, List<String>>> ready) {
        List<String> order = new ArrayList<>();
        ready.forEach((takenAt, byCheckpoint) ->
                byCheckpoint.forEach((checkpoint, files) -> order.add(takenAt + ":" + checkpoint + ":" + String.join(",", files))));
        ready.clear();
        return order;
    }

    @Test
    void aCheckpointCommitsOnlyWhatItsSnapshotTookAndALateResultWaitsForTheNext() {
        PendingCommits pending = new PendingCommits();
        pending.received(1, "a");
        List<WriteResult> state = pending.snapshot(1);
        assertThat(state).extracting(r -> r.takenAt + ":" + r.checkpointId + r.files).containsExactly("1:1a");
        // Subtask b's result for checkpoint 1, overtaken by the barrier: after the snapshot.
        pending.received(1, "b");
        assertThat(commit(pending.upTo(1))).containsExactly("1:1:a");
        pending.received(2, "c");
        pending.snapshot(2);
        // Taken by checkpoint 2, the late result still goes before checkpoint 2's own files.
        assertThat(commit(pending.upTo(2))).containsExactly("2:1:b", "2:2:c");
    }

    @Test
    void aResultReplayedAfterARestoreIsKeptForItWasNeverCommitted() {
        PendingCommits before = new PendingCommits();
        before.received(1, "a");
        List<WriteResult> state = before.snapshot(1);
        before.received(1, "b");
        commit(before.upTo(1));
        // The job fails before checkpoint 2; the table records checkpoint 1's files as committed.
        PendingCommits restored = new PendingCommits();
        restored.restore(state, PendingCommits.Position.committed("1:1", 1));
        assertThat(commit(restored.upTo(1))).isEmpty();
        // Result b comes again from checkpoint 1's channel state.
        restored.received(1, "b");
        restored.snapshot(2);
        assertThat(commit(restored.upTo(2))).containsExactly("2:1:b");
    }

    /**
     * A late result taken by the next checkpoint, which completed, but the job failed before its
     * commit: the restore keeps it, though the table records its checkpoint's other files as
     * committed; and after a commit that got halfway, only the rest.
     */
    @Test
    void aLateResultTakenByTheNextCheckpointIsKeptUntilItsOwnCommit() {
        PendingCommits before = new PendingCommits();
        before.received(5, "a");
        before.snapshot(5);
        before.received(5, "b");
        assertThat(commit(before.upTo(5))).containsExactly("5:5:a");
        before.received(6, "c");
        List<WriteResult> state = before.snapshot(6);

        PendingCommits restored = new PendingCommits();
        restored.restore(state, PendingCommits.Position.committed("5:5", 5));
        assertThat(commit(restored.upTo(6))).containsExactly("6:5:b", "6:6:c");

        PendingCommits halfway = new PendingCommits();
        halfway.restore(state, PendingCommits.Position.committed("6:5", 5));
        assertThat(commit(halfway.upTo(6))).containsExactly("6:6:c");

        // A table whose commits recorded only their checkpoint (older builds, iceberg-flink).
        PendingCommits byCheckpoint = new PendingCommits();
        byCheckpoint.restore(state, PendingCommits.Position.committed(null, 5));
        assertThat(commit(byCheckpoint.upTo(6))).containsExactly("6:6:c");
    }

    @Test
    void aRestoreCommitsTheCheckpointsTheTableDoesNotRecordAndFilesAtTheEndOfTheInputJoinTheNextCheckpoint() {
        PendingCommits before = new PendingCommits();
        before.received(3, "a");
        before.snapshot(3);
        before.received(4, "b");
        before.received(Long.MAX_VALUE, "end");
        List<WriteResult> state = before.snapshot(4);
        assertThat(state).extracting(r -> r.takenAt + ":" + r.checkpointId + r.files).containsExactly("3:3a", "4:4b", "4:4end");

        PendingCommits restored = new PendingCommits();
        restored.restore(state, PendingCommits.Position.committed("3:3", 3));
        assertThat(commit(restored.upTo(4))).containsExactly("4:4:b,end");

        // State of a build that kept no positions: each result counts as taken by its checkpoint.
        WriteResult old = new WriteResult(7, "x");
        PendingCommits upgraded = new PendingCommits();
        upgraded.restore(List.of(old), PendingCommits.Position.committed(null, 6));
        assertThat(commit(upgraded.upTo(7))).containsExactly("7:7:x");

        PendingCommits unchecked = new PendingCommits();
        unchecked.received(Long.MAX_VALUE, "x");
        assertThat(unchecked.upTo(Long.MAX_VALUE)).isEmpty();
        assertThat(commit(unchecked.all())).containsExactly(Long.MAX_VALUE + ":" + Long.MAX_VALUE + ":x");
    }
}
