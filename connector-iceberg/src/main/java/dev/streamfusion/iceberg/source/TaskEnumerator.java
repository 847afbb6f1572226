package dev.streamfusion.iceberg.source;

import dev.streamfusion.iceberg.internal.IcebergTableRef;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.util.FlinkRuntimeException;

import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Hands the splits Iceberg Java plans to readers as they ask.
 *
 * <p>Bounded, the read starts from the splits planned when the job was translated (where they were,
 * to infer its parallelism, and were small enough to carry), or is planned once, off the
 * coordinator thread, when the job starts. Streaming,
 * the table is refreshed every {@code monitor-interval} and the appends of the snapshots after the
 * last one planned become splits. The checkpoint holds the splits not handed out and the last
 * snapshot planned, so a restored job neither reads a snapshot twice nor skips one.
 */
@Internal
final class TaskEnumerator implements SplitEnumerator<TaskSplit, TaskEnumerator.Checkpoint> {

    private static final Logger LOG = LoggerFactory.getLogger(TaskEnumerator.class);

    private final SplitEnumeratorContext<TaskSplit> context;
    private final IcebergTableRef tableRef;
    private final ScanPlanner planner;
    private final ArrayDeque<TaskSplit> pending;
    private final LinkedHashSet<Integer> waiting = new LinkedHashSet<>();
    /** The last snapshot planned (streaming), or {@code null} before the first. */
    private volatile Long position;
    /** Bounded: the plan is done and its splits are pending. */
    private boolean planned;
    /** Discoveries of new snapshots failed in a row (coordinator thread only). */
    private int failedDiscoveries;
    private Catalog catalog;
    private Table table;

    TaskEnumerator(SplitEnumeratorContext<TaskSplit> context, IcebergTableRef tableRef, ScanPlanner planner, Checkpoint restored) {
        this.context = context;
        this.tableRef = tableRef;
        this.planner = planner;
        this.pending = new ArrayDeque<>(restored.pending);
        this.position = restored.position;
        this.planned = restored.planned;
    }

    @Override
    public void start() {
        if (planner.options().isStreaming()) {
            long interval = planner.options().monitorInterval.toMillis();
            context.callAsync(this::discover, this::addIncrement, 0, interval);
        } else if (!planned) {
            context.callAsync(() -> planner.planBounded(table()), this::addPlan);
        }
    }

    /** The table, loaded once and refreshed for every discovery. */
    private synchronized Table table() {
        if (table == null) {
            catalog = tableRef.catalog();
            table = tableRef.loadFrom(catalog);
        } else {
            table.refresh();
        }
        return table;
    }

    private ScanPlanner.Increment discover() {
        // position is changed on the coordinator thread only; an increment planned from a stale
        // position is dropped there (addIncrement).
        return planner.planIncrement(table(), position);
    }

    private void addPlan(List<TaskSplit> splits, Throwable error) {
        if (error != null) {
            throw new FlinkRuntimeException("Cannot plan the read of Iceberg table " + tableRef + ": " + error.getMessage(), error);
        }
        LOG.info("Planned {} split(s) of Iceberg table {}", splits.size(), tableRef);
        pending.addAll(splits);
        planned = true;
        assignWaiting();
    }

    private void addIncrement(ScanPlanner.Increment increment, Throwable error) {
        if (error != null) {
            // As iceberg-flink's enumerator: a discovery may fail 'max-allowed-planning-failures'
            // times in a row (-1: any number) and is tried again at the next interval.
            failedDiscoveries++;
            int allowed = planner.options().maxAllowedPlanningFailures();
            if (allowed >= 0 && failedDiscoveries > allowed) {
                throw new FlinkRuntimeException("Cannot plan the appends of Iceberg table " + tableRef + " ("
                        + failedDiscoveries + " failures in a row, 'max-allowed-planning-failures' is " + allowed + "): "
                        + error.getMessage(), error);
            }
            LOG.warn("Cannot plan the appends of Iceberg table {} ({} of {} failures in a row allowed); trying again",
                    tableRef, failedDiscoveries, allowed < 0 ? "any number of" : String.valueOf(allowed), error);
            return;
        }
        failedDiscoveries = 0;
        if (!java.util.Objects.equals(increment.from, position)) {
            // Planned from a position an earlier discovery has moved past: planned again next time.
            return;
        }
        if (!increment.splits.isEmpty()) {
            LOG.info("Planned {} split(s) of Iceberg table {} up to snapshot {}", increment.splits.size(), tableRef, increment.position);
        }
        pending.addAll(increment.splits);
        position = increment.position;
        assignWaiting();
    }

    @Override
    public void handleSplitRequest(int subtask, String requesterHostname) {
        waiting.add(subtask);
        assignWaiting();
    }

    private void assignWaiting() {
        Iterator<Integer> readers = waiting.iterator();
        while (readers.hasNext()) {
            int subtask = readers.next();
            if (!context.registeredReaders().containsKey(subtask)) {
                readers.remove();
                continue;
            }
            TaskSplit split = pending.poll();
            if (split != null) {
                context.assignSplit(split, subtask);
                readers.remove();
            } else if (planned && !planner.options().isStreaming()) {
                context.signalNoMoreSplits(subtask);
                readers.remove();
            } else {
                return;
            }
        }
    }

    @Override
    public void addSplitsBack(List<TaskSplit> splits, int subtask) {
        // A failed reader's splits, as it last checkpointed them: read again from there.
        for (int i = splits.size() - 1; i >= 0; i--) {
            pending.addFirst(splits.get(i));
        }
        assignWaiting();
    }

    @Override
    public void addReader(int subtask) {}

    @Override
    public Checkpoint snapshotState(long checkpointId) {
        return new Checkpoint(new ArrayList<>(pending), position, planned);
    }

    @Override
    public void close() throws IOException {
        IcebergTableRef.close(catalog);
    }

    /** The splits not handed out, the last snapshot planned, and whether a bounded plan is done. */
    static final class Checkpoint {
        static final Checkpoint EMPTY = new Checkpoint(List.of(), null, false);

        final List<TaskSplit> pending;
        final Long position;
        final boolean planned;

        Checkpoint(Collection<TaskSplit> pending, Long position, boolean planned) {
            this.pending = List.copyOf(pending);
            this.position = position;
            this.planned = planned;
        }
    }

    /** A bounded read's splits planned before the job ran, as the state its enumerator starts from. */
    static byte[] plannedState(List<TaskSplit> splits) {
        try {
            return new StateSerializer().serialize(new Checkpoint(splits, null, true));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot hold the planned splits of an Iceberg read", e);
        }
    }

    /** The state {@link #plannedState} holds. */
    static Checkpoint planned(byte[] state) {
        StateSerializer serializer = new StateSerializer();
        try {
            return serializer.deserialize(serializer.getVersion(), state);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the planned splits of an Iceberg read", e);
        }
    }

    static final class StateSerializer implements SimpleVersionedSerializer<Checkpoint> {

        private static final int VERSION = 1;

        @Override
        public int getVersion() {
            return VERSION;
        }

        @Override
        public byte[] serialize(Checkpoint checkpoint) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(1024);
            out.writeInt(TaskSplit.Serializer.INSTANCE.getVersion());
            out.writeInt(checkpoint.pending.size());
            for (TaskSplit split : checkpoint.pending) {
                TaskSplit.Serializer.write(split, out);
            }
            out.writeBoolean(checkpoint.position != null);
            if (checkpoint.position != null) {
                out.writeLong(checkpoint.position);
            }
            out.writeBoolean(checkpoint.planned);
            return out.getCopyOfBuffer();
        }

        @Override
        public Checkpoint deserialize(int version, byte[] serialized) throws IOException {
            if (version != VERSION) {
                throw new IOException("Unknown version " + version + " of an Iceberg enumerator checkpoint");
            }
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            int splitVersion = in.readInt();
            TaskSplit.Serializer.checkVersion(splitVersion);
            int count = in.readInt();
            List<TaskSplit> pending = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                pending.add(TaskSplit.Serializer.read(in, splitVersion));
            }
            Long position = in.readBoolean() ? in.readLong() : null;
            return new Checkpoint(pending, position, in.readBoolean());
        }
    }
}
