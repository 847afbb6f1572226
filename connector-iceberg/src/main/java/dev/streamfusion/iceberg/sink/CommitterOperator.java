package dev.streamfusion.iceberg.sink;

import dev.streamfusion.iceberg.internal.IcebergTableRef;
import dev.streamfusion.iceberg.internal.WrittenFiles;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobType;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ReplacePartitions;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.util.PropertyUtil;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;

/**
 * Commits the data files the writers closed for a checkpoint once that checkpoint completes, in
 * one Iceberg snapshot whose summary carries the job id and the checkpoint id (as iceberg-flink's
 * committer records them). Checkpoints with delete files are committed one snapshot each, in
 * order, so that a checkpoint's equality deletes apply to the rows of the checkpoints before it;
 * appends of several checkpoints go in one snapshot. An overwrite (a batch {@code INSERT
 * OVERWRITE}, or {@code overwrite-enabled}) replaces the partitions each commit writes (the whole
 * table when it is unpartitioned). A checkpoint's completion
 * commits the files the committer's snapshots up to it took ({@link PendingCommits}). A commit is
 * made exactly once: after a restore, the files of checkpoints the table's snapshots already
 * record for the restored job are dropped, and the rest are committed; results replayed from an
 * unaligned checkpoint's channel state were never committed, and are kept. Files a writer closed at the end of its input belong to
 * the checkpoint taken after it (the final one, when checkpointing is on); without checkpoints
 * they are committed at the end of the input. Files are rebuilt with the partition spec the job
 * was planned with. Runs as a single subtask.
 */
@Internal
final class CommitterOperator extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<WriteResult, Void>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    static final String JOB_ID = "flink.job-id";
    static final String MAX_COMMITTED_CHECKPOINT_ID = "flink.max-committed-checkpoint-id";
    static final String OPERATOR_ID = "flink.operator-id";
    /** Where the commit got to ({@link PendingCommits.Position}). */
    static final String COMMITTED_POSITION = "streamfusion.committed-position";
    /**
     * The table property iceberg-flink's committer reads: after this many completed checkpoints
     * in a row without files, one is committed as an empty snapshot (recording the job's
     * progress); the others are skipped.
     */
    static final String MAX_CONTINUOUS_EMPTY_COMMITS = "flink.max-continuous-empty-commits";
    private static final int DEFAULT_MAX_CONTINUOUS_EMPTY_COMMITS = 10;

    private final IcebergTableRef tableRef;
    private final String branch;
    /** The partition spec the writers write with. */
    private final int specId;
    /** Replace the partitions written instead of appending to them. */
    private final boolean overwrite;
    /** Files by checkpoint, not committed yet. */
    private transient PendingCommits pending;
    private transient ListState<WriteResult> pendingState;
    private transient ListState<String> jobState;
    private transient Catalog catalog;
    private transient Table table;
    private transient String jobId;
    private transient int maxContinuousEmptyCommits;
    /** Completed checkpoints in a row without files since the last commit. */
    private transient int continuousEmptyCheckpoints;
    /** The latest checkpoint whose completion was handled; older notifications commit nothing. */
    private transient long completedCheckpoint;

    CommitterOperator(IcebergTableRef tableRef, String branch, int specId, boolean overwrite) {
        this.tableRef = tableRef;
        this.branch = branch;
        this.specId = specId;
        this.overwrite = overwrite;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        jobId = getRuntimeContext().getJobInfo().getJobId().toString();
        pending = new PendingCommits();
        catalog = tableRef.catalog();
        table = tableRef.loadFrom(catalog);
        maxContinuousEmptyCommits = PropertyUtil.propertyAsInt(
                table.properties(), MAX_CONTINUOUS_EMPTY_COMMITS, DEFAULT_MAX_CONTINUOUS_EMPTY_COMMITS);
        if (maxContinuousEmptyCommits <= 0) {
            throw new IllegalArgumentException("Table property " + MAX_CONTINUOUS_EMPTY_COMMITS + " of Iceberg table "
                    + tableRef + " must be positive, not " + maxContinuousEmptyCommits);
        }
        completedCheckpoint = context.getRestoredCheckpointId().orElse(-1L);
        pendingState = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>("streamfusion-iceberg-pending", TypeInformation.of(WriteResult.class)));
        jobState = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>("streamfusion-iceberg-job", TypeInformation.of(String.class)));
        if (!context.isRestored()) {
            return;
        }
        String restoredJob = null;
        for (String id : jobState.get()) {
            restoredJob = id;
        }
        PendingCommits.Position done = restoredJob == null ? new PendingCommits.Position(-1, -1) : committed(restoredJob);
        pending.restore(pendingState.get(), done);
        // What is left belongs to the checkpoint restored from, which completed: commit it now.
        // Where its commit had not happened, it counts as a checkpoint (without files, perhaps),
        // as iceberg-flink's committer counts it.
        NavigableMap<Long, NavigableMap<Long, List<String>>> ready =
                pending.upTo(context.getRestoredCheckpointId().orElse(Long.MAX_VALUE));
        if (!ready.isEmpty() || done.checkpoint < completedCheckpoint) {
            commit(ready, restoredJob == null ? jobId : restoredJob, completedCheckpoint);
        }
    }

    /** Where the last commit of {@code job} the table's snapshots (of the branch) record got to. */
    private PendingCommits.Position committed(String job) {
        table.refresh();
        Snapshot snapshot = branch == null ? table.currentSnapshot() : table.snapshot(branch);
        while (snapshot != null) {
            Map<String, String> summary = snapshot.summary();
            if (job.equals(summary.get(JOB_ID)) && getOperatorID().toString().equals(summary.get(OPERATOR_ID))) {
                String id = summary.get(MAX_COMMITTED_CHECKPOINT_ID);
                if (id != null) {
                    return PendingCommits.Position.committed(summary.get(COMMITTED_POSITION), Long.parseLong(id));
                }
            }
            snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
        }
        return new PendingCommits.Position(-1, -1);
    }

    @Override
    public void processElement(StreamRecord<WriteResult> element) {
        WriteResult result = element.getValue();
        pending.received(result.checkpointId, result.files);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        pendingState.update(pending.snapshot(context.getCheckpointId()));
        jobState.update(List.of(jobId));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (checkpointId > completedCheckpoint) {
            completedCheckpoint = checkpointId;
            commit(pending.upTo(checkpointId), jobId, checkpointId);
        }
    }

    /**
     * Without a final checkpoint (a batch job, a streaming job without a checkpoint interval, or
     * one whose tasks take no checkpoint once finished:
     * {@code execution.checkpointing.checkpoints-after-tasks-finish} = false), commits what is
     * left, as iceberg-flink's committer does; with one, that checkpoint commits, so that a
     * failure between the two cannot commit the same rows twice.
     */
    @Override
    public void endInput() {
        Configuration job = getRuntimeContext().getJobConfiguration();
        boolean finalCheckpoint = getRuntimeContext().getJobType() == JobType.STREAMING
                && job.getOptional(CheckpointingOptions.CHECKPOINTING_INTERVAL)
                        .map(interval -> !interval.isZero() && !interval.isNegative())
                        .orElse(false)
                && job.get(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH);
        if (!finalCheckpoint) {
            commit(pending.all(), jobId, Long.MAX_VALUE);
        }
    }

    /**
     * Commits the files {@code ready} holds (by the checkpoint that took them, then the one they
     * belong to) at the completion of {@code checkpointId}: in one snapshot, or, when there are
     * delete files, one snapshot for each checkpoint's files in that order, so that a
     * checkpoint's equality deletes apply to the rows of the checkpoints before it; then clears
     * {@code ready}. Each snapshot records where it got to. Without files, only every {@link
     * #MAX_CONTINUOUS_EMPTY_COMMITS}th such checkpoint in a row commits, an empty snapshot, as
     * iceberg-flink's committer does.
     */
    private void commit(NavigableMap<Long, NavigableMap<Long, List<String>>> ready, String job, long checkpointId) {
        table.refresh();
        PartitionSpec spec = table.specs().get(specId);
        MetricsConfig metrics = MetricsConfig.forTable(table);
        List<PendingCommits.Position> positions = new ArrayList<>();
        List<WrittenFiles> written = new ArrayList<>();
        ready.forEach((takenAt, byCheckpoint) -> byCheckpoint.forEach((checkpoint, files) -> {
            positions.add(new PendingCommits.Position(takenAt, checkpoint));
            written.add(WrittenFiles.of(files, spec, table.schema(), metrics));
        }));
        int deletes = written.stream().mapToInt(files -> files.deletes.size()).sum();
        int total = deletes + written.stream().mapToInt(files -> files.data.size()).sum();
        continuousEmptyCheckpoints = total == 0 ? continuousEmptyCheckpoints + 1 : 0;
        if (total == 0 && continuousEmptyCheckpoints % maxContinuousEmptyCommits != 0) {
            LOG.info("Skipped the commit of checkpoint {} to Iceberg table {}: no data or delete files", checkpointId, tableRef);
            ready.clear();
            return;
        }
        continuousEmptyCheckpoints = 0;
        if (overwrite && deletes > 0) {
            // A table with equality fields is written as a changelog: two rows of one key in the
            // overwriting input leave a position delete, which replacing partitions cannot
            // carry. iceberg-flink's committer refuses the same. Checked before any commit.
            throw new IllegalStateException("An overwrite (INSERT OVERWRITE, or 'overwrite-enabled') of Iceberg table "
                    + tableRef + " wrote " + deletes
                    + " delete file(s) (rows of the same key in its input), and partitions cannot be replaced with "
                    + "delete files; none of the files of checkpoints " + ready.keySet() + " was committed");
        }
        if (deletes == 0) {
            List<DataFile> data = new ArrayList<>();
            written.forEach(files -> data.addAll(files.data));
            commit(data, List.of(), positions.isEmpty()
                    ? new PendingCommits.Position(checkpointId, checkpointId)
                    : positions.get(positions.size() - 1), job);
        } else {
            for (int i = 0; i < written.size(); i++) {
                if (!written.get(i).data.isEmpty() || !written.get(i).deletes.isEmpty()) {
                    commit(written.get(i).data, written.get(i).deletes, positions.get(i), job);
                }
            }
        }
        ready.clear();
    }

    /**
     * Commits {@code data} and {@code deletes} in one snapshot (empty when both are), recorded as
     * having got to {@code position}.
     */
    private void commit(List<DataFile> data, List<DeleteFile> deletes, PendingCommits.Position position, String job) {
        if (overwrite && data.isEmpty()) {
            // Iceberg cannot replace partitions with no file (iceberg-flink's job fails on it,
            // under flink.max-continuous-empty-commits = 1); an overwrite without rows replaces
            // nothing.
            LOG.info("Nothing to replace in Iceberg table {} for checkpoint {}", tableRef, position.checkpoint);
            return;
        }
        if (overwrite) {
            ReplacePartitions replace = table.newReplacePartitions();
            data.forEach(replace::addFile);
            commit(replace, position, job);
        } else if (deletes.isEmpty()) {
            AppendFiles append = table.newAppend();
            data.forEach(append::appendFile);
            commit(append, position, job);
        } else {
            RowDelta delta = table.newRowDelta();
            data.forEach(delta::addRows);
            deletes.forEach(delta::addDeletes);
            commit(delta, position, job);
        }
        LOG.info("Committed {} data and {} delete file(s) to Iceberg table {} for checkpoint {}{}",
                data.size(), deletes.size(), tableRef, position.checkpoint, overwrite ? ", replacing their partitions" : "");
    }

    /**
     * Commits {@code update} to the branch, its summary naming the job, the operator and the
     * checkpoint as iceberg-flink's committer records them, and the position reached.
     */
    private <T extends SnapshotUpdate<T>> void commit(T update, PendingCommits.Position position, String job) {
        T onBranch = branch == null ? update : update.toBranch(branch);
        onBranch.set(JOB_ID, job)
                .set(OPERATOR_ID, getOperatorID().toString())
                .set(MAX_COMMITTED_CHECKPOINT_ID, Long.toString(position.checkpoint))
                .set(COMMITTED_POSITION, position.toString())
                .commit();
    }

    @Override
    public void close() throws Exception {
        try {
            IcebergTableRef.close(catalog);
        } finally {
            super.close();
        }
    }
}
