package dev.streamfusion.iceberg.sink;

import dev.streamfusion.iceberg.internal.IcebergTableRef;
import dev.streamfusion.iceberg.internal.WrittenFiles;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Commits the data files the writers closed for a checkpoint once that checkpoint completes, in
 * one Iceberg snapshot whose summary carries the job id and the checkpoint id (as iceberg-flink's
 * committer records them), so a commit is made exactly once: after a restore, the files of
 * checkpoints the table's snapshots already record for the restored job are dropped, and the rest
 * are committed. Bounded, whatever is left is committed at the end of the input. Runs as a single
 * subtask.
 */
@Internal
final class CommitterOperator extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<WriteResult, Void>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    static final String JOB_ID = "flink.job-id";
    static final String MAX_COMMITTED_CHECKPOINT_ID = "flink.max-committed-checkpoint-id";
    static final String OPERATOR_ID = "flink.operator-id";

    private final IcebergTableRef tableRef;
    private final String branch;
    /** Files by checkpoint, not committed yet. */
    private final NavigableMap<Long, List<String>> pending = new TreeMap<>();
    private transient ListState<WriteResult> pendingState;
    private transient ListState<String> jobState;
    private transient Catalog catalog;
    private transient Table table;
    private transient String jobId;

    CommitterOperator(IcebergTableRef tableRef, String branch) {
        this.tableRef = tableRef;
        this.branch = branch;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        jobId = getRuntimeContext().getJobInfo().getJobId().toString();
        catalog = tableRef.catalog();
        table = tableRef.loadFrom(catalog);
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
        for (WriteResult result : pendingState.get()) {
            pending.computeIfAbsent(result.checkpointId, k -> new ArrayList<>()).add(result.files);
        }
        long committed = restoredJob == null ? -1 : maxCommittedCheckpoint(restoredJob);
        pending.headMap(committed, true).clear();
        // What is left belongs to the checkpoint restored from, which completed: commit it now.
        long restoredCheckpoint = context.getRestoredCheckpointId().orElse(Long.MAX_VALUE);
        commitUpTo(restoredCheckpoint, restoredJob == null ? jobId : restoredJob);
    }

    /** The highest checkpoint of {@code job} the table's snapshots (of the branch) record as committed. */
    private long maxCommittedCheckpoint(String job) {
        table.refresh();
        Snapshot snapshot = branch == null ? table.currentSnapshot() : table.snapshot(branch);
        while (snapshot != null) {
            Map<String, String> summary = snapshot.summary();
            if (job.equals(summary.get(JOB_ID)) && getOperatorID().toString().equals(summary.get(OPERATOR_ID))) {
                String id = summary.get(MAX_COMMITTED_CHECKPOINT_ID);
                if (id != null) {
                    return Long.parseLong(id);
                }
            }
            snapshot = snapshot.parentId() == null ? null : table.snapshot(snapshot.parentId());
        }
        return -1;
    }

    @Override
    public void processElement(StreamRecord<WriteResult> element) {
        WriteResult result = element.getValue();
        pending.computeIfAbsent(result.checkpointId, k -> new ArrayList<>()).add(result.files);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<WriteResult> state = new ArrayList<>();
        pending.forEach((checkpoint, files) -> files.forEach(f -> state.add(new WriteResult(checkpoint, f))));
        pendingState.update(state);
        jobState.update(List.of(jobId));
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        commitUpTo(checkpointId, jobId);
    }

    @Override
    public void endInput() {
        commitUpTo(Long.MAX_VALUE, jobId);
    }

    /** Commits the files of every pending checkpoint up to {@code checkpointId}, in one snapshot. */
    private void commitUpTo(long checkpointId, String job) {
        NavigableMap<Long, List<String>> ready = pending.headMap(checkpointId, true);
        if (ready.isEmpty()) {
            return;
        }
        table.refresh();
        AppendFiles append = table.newAppend();
        if (branch != null) {
            append = append.toBranch(branch);
        }
        int count = 0;
        for (List<String> files : ready.values()) {
            for (String json : files) {
                for (DataFile file : WrittenFiles.of(json, table.spec())) {
                    append.appendFile(file);
                    count++;
                }
            }
        }
        append.set(JOB_ID, job)
                .set(OPERATOR_ID, getOperatorID().toString())
                .set(MAX_COMMITTED_CHECKPOINT_ID, Long.toString(ready.lastKey()))
                .commit();
        LOG.info("Committed {} data file(s) to Iceberg table {} up to checkpoint {}", count, tableRef, ready.lastKey());
        ready.clear();
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
