package dev.streamfusion.iceberg.sink;

import org.apache.flink.annotation.Internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The committer's written files not committed yet, by the checkpoint they belong to, in two parts
 * as iceberg-flink's committer keeps them: the files received since the committer's state was
 * last snapshotted, and those a snapshot took.
 *
 * <p>A checkpoint's completion commits only what the snapshots up to it took. A writer's result
 * that reaches the committer after the committer's snapshot of its checkpoint (an unaligned
 * checkpoint's barrier overtook it) is in that checkpoint's channel state instead: it waits for
 * the next snapshot, and when the job restores from the checkpoint it arrives again, never having
 * been committed.
 */
@Internal
final class PendingCommits {

    private final NavigableMap<Long, List<String>> received = new TreeMap<>();
    private final NavigableMap<Long, List<String>> snapshotted = new TreeMap<>();

    /** {@code files} arrived, belonging to {@code checkpoint} ({@link Long#MAX_VALUE}: the end of the input). */
    void received(long checkpoint, String files) {
        received.computeIfAbsent(checkpoint, k -> new ArrayList<>()).add(files);
    }

    /**
     * The snapshot of checkpoint {@code checkpointId} takes every file received so far, those
     * closed at the end of a writer's input becoming the checkpoint's own; the state to keep.
     */
    List<WriteResult> snapshot(long checkpointId) {
        takeReceived(checkpointId);
        List<WriteResult> state = new ArrayList<>();
        snapshotted.forEach((checkpoint, files) -> files.forEach(f -> state.add(new WriteResult(checkpoint, f))));
        return state;
    }

    /** Restores the files a snapshot took, less those of the checkpoints up to {@code committed}. */
    void restore(Iterable<WriteResult> state, long committed) {
        for (WriteResult result : state) {
            if (result.checkpointId > committed) {
                snapshotted.computeIfAbsent(result.checkpointId, k -> new ArrayList<>()).add(result.files);
            }
        }
    }

    /**
     * The files the snapshots took for the checkpoints up to {@code checkpointId}, by checkpoint:
     * a view, to be {@linkplain Map#clear() cleared} once committed.
     */
    NavigableMap<Long, List<String>> upTo(long checkpointId) {
        return snapshotted.headMap(checkpointId, true);
    }

    /** Every file, received or snapshotted (for a job without checkpoints, at the end of its input). */
    NavigableMap<Long, List<String>> all() {
        takeReceived(Long.MAX_VALUE);
        return upTo(Long.MAX_VALUE);
    }

    private void takeReceived(long endOfInput) {
        received.forEach((checkpoint, files) -> snapshotted
                .computeIfAbsent(checkpoint == Long.MAX_VALUE ? endOfInput : checkpoint, k -> new ArrayList<>())
                .addAll(files));
        received.clear();
    }
}
