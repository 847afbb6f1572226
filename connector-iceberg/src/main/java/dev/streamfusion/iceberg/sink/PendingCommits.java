package dev.streamfusion.iceberg.sink;

import org.apache.flink.annotation.Internal;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The committer's written files not committed yet, in two parts as iceberg-flink's committer keeps
 * them: the files received since the committer's state was last snapshotted, by the checkpoint
 * they belong to; and those a snapshot took, by the checkpoint that took them and then the one they
 * belong to (their position).
 *
 * <p>A checkpoint's completion commits only what the snapshots up to it took, in position order.
 * A writer's result that reaches the committer after the committer's snapshot of its checkpoint
 * (an unaligned checkpoint's barrier overtook it) is in that checkpoint's channel state instead:
 * it waits for the next snapshot, and when the job restores from the checkpoint it arrives again,
 * never having been committed. Each commit records its position, so a restore drops exactly what
 * was committed, a late result taken by a later checkpoint included.
 */
@Internal
final class PendingCommits {

    /** Where a commit got to: the checkpoint that took its files and the one they belong to. */
    static final class Position {
        final long takenAt;
        final long checkpoint;

        Position(long takenAt, long checkpoint) {
            this.takenAt = takenAt;
            this.checkpoint = checkpoint;
        }

        /** As a snapshot summary records it. */
        @Override
        public String toString() {
            return takenAt + ":" + checkpoint;
        }

        /**
         * The position a snapshot summary records ({@code position}, or {@code null} where the
         * commit recorded none), or, for a commit that recorded only its checkpoint, that of
         * every file of a checkpoint up to {@code checkpoint}, whenever taken.
         */
        static Position committed(String position, long checkpoint) {
            int colon = position == null ? -1 : position.indexOf(':');
            if (colon < 0) {
                return new Position(Long.MAX_VALUE, checkpoint);
            }
            return new Position(Long.parseLong(position.substring(0, colon)), Long.parseLong(position.substring(colon + 1)));
        }

        /** Whether the files at {@code takenAt} and {@code checkpoint} were committed up to here. */
        boolean covers(long takenAt, long checkpoint) {
            if (this.takenAt == Long.MAX_VALUE) {
                return checkpoint <= this.checkpoint;
            }
            return takenAt < this.takenAt || (takenAt == this.takenAt && checkpoint <= this.checkpoint);
        }
    }

    private final NavigableMap<Long, List<String>> received = new TreeMap<>();
    /** By the checkpoint that took them, then the one they belong to. */
    private final NavigableMap<Long, NavigableMap<Long, List<String>>> snapshotted = new TreeMap<>();

    /** {@code files} arrived, belonging to {@code checkpoint} ({@link Long#MAX_VALUE}: the end of the input). */
    void received(long checkpoint, String files) {
        received.computeIfAbsent(checkpoint, k -> new ArrayList<>()).add(files);
    }

    /**
     * The snapshot of checkpoint {@code checkpointId} takes every file received so far, those
     * closed at the end of a writer's input becoming the checkpoint's own; the state to keep.
     */
    List<WriteResult> snapshot(long checkpointId) {
        take(checkpointId);
        List<WriteResult> state = new ArrayList<>();
        snapshotted.forEach((takenAt, byCheckpoint) -> byCheckpoint.forEach(
                (checkpoint, files) -> files.forEach(f -> state.add(new WriteResult(checkpoint, f, takenAt)))));
        return state;
    }

    /**
     * Restores the files a snapshot took, less those {@code committed} covers. A result of state
     * written before positions were kept counts as taken by its own checkpoint.
     */
    void restore(Iterable<WriteResult> state, Position committed) {
        for (WriteResult result : state) {
            long takenAt = result.takenAt == 0 ? result.checkpointId : result.takenAt;
            if (!committed.covers(takenAt, result.checkpointId)) {
                snapshotted.computeIfAbsent(takenAt, k -> new TreeMap<>())
                        .computeIfAbsent(result.checkpointId, k -> new ArrayList<>())
                        .add(result.files);
            }
        }
    }

    /**
     * The files the snapshots of the checkpoints up to {@code checkpointId} took, by the
     * checkpoint that took them and then the one they belong to: a view, to be {@linkplain
     * java.util.Map#clear() cleared} once committed.
     */
    NavigableMap<Long, NavigableMap<Long, List<String>>> upTo(long checkpointId) {
        return snapshotted.headMap(checkpointId, true);
    }

    /** Every file, received or snapshotted (for a job without checkpoints, at the end of its input). */
    NavigableMap<Long, NavigableMap<Long, List<String>>> all() {
        take(Long.MAX_VALUE);
        return upTo(Long.MAX_VALUE);
    }

    private void take(long takenAt) {
        NavigableMap<Long, List<String>> taken = snapshotted.computeIfAbsent(takenAt, k -> new TreeMap<>());
        received.forEach((checkpoint, files) -> taken
                .computeIfAbsent(checkpoint == Long.MAX_VALUE ? takenAt : checkpoint, k -> new ArrayList<>())
                .addAll(files));
        received.clear();
        if (taken.isEmpty()) {
            snapshotted.remove(takenAt);
        }
    }
}
