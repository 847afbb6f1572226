package dev.streamfusion.parquet.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.FlinkRuntimeException;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands the row groups of the table's files to readers as they ask.
 *
 * <p>Bounded, the files are listed once, when the job starts. Continuous ({@code
 * source.monitor-interval}), they are listed at every interval, and files not seen before are
 * split and added; a reader that asks when no split is left waits for the next files. Listing and
 * reading footers run off the coordinator thread; what they find is added on it, where checkpoints
 * are taken, so a checkpoint never holds a file as seen without its splits.
 *
 * <p>The checkpoint holds the splits not handed out and, continuous, every file seen. Counts row
 * groups listed and pruned in the metric group {@code streamfusion} ({@code rowGroups}, {@code
 * prunedRowGroups}).
 */
@Internal
final class RowGroupEnumerator implements SplitEnumerator<RowGroupSplit, RowGroupEnumerator.Checkpoint> {

    private final SplitEnumeratorContext<RowGroupSplit> context;
    private final FileListing listing;
    /** The listing interval, or {@code null} when bounded. */
    private final Duration monitorInterval;
    private final ArrayDeque<RowGroupSplit> pending;
    /** Files listed already; read by the listing thread, changed on the coordinator thread only. */
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    /** Readers that asked when no split was left (continuous only). */
    private final LinkedHashSet<Integer> waiting = new LinkedHashSet<>();
    private volatile long rowGroups;
    private volatile long prunedRowGroups;

    RowGroupEnumerator(
            SplitEnumeratorContext<RowGroupSplit> context,
            FileListing listing,
            Duration monitorInterval,
            Checkpoint restored) {
        this.context = context;
        this.listing = listing;
        this.monitorInterval = monitorInterval;
        this.pending = new ArrayDeque<>(restored.pending);
        this.seen.addAll(restored.seen);
        MetricGroup metrics = context.metricGroup().addGroup("streamfusion");
        metrics.gauge("rowGroups", () -> rowGroups);
        metrics.gauge("prunedRowGroups", () -> prunedRowGroups);
    }

    /** A bounded enumerator over the files listed now. */
    static RowGroupEnumerator listed(SplitEnumeratorContext<RowGroupSplit> context, FileListing listing) {
        RowGroupEnumerator enumerator = new RowGroupEnumerator(context, listing, null, Checkpoint.EMPTY);
        enumerator.add(listing.list(Set.of()));
        return enumerator;
    }

    @Override
    public void start() {
        if (monitorInterval != null) {
            context.callAsync(() -> listing.list(seen), this::listed, 0, monitorInterval.toMillis());
        }
    }

    private void listed(FileListing.Found found, Throwable error) {
        if (error != null) {
            throw new FlinkRuntimeException("Cannot list the table's Parquet files: " + error.getMessage(), error);
        }
        add(found);
        assignWaiting();
    }

    /** Adds what a listing found, but files seen meanwhile (two listings may overlap). */
    private void add(FileListing.Found found) {
        Set<String> fresh = new LinkedHashSet<>();
        for (String file : found.files) {
            if (seen.add(file)) {
                fresh.add(file);
            }
        }
        for (RowGroupSplit split : found.splits) {
            if (fresh.contains(split.path)) {
                pending.add(split);
            }
        }
        rowGroups += found.rowGroups;
        prunedRowGroups += found.prunedRowGroups;
    }

    private void assignWaiting() {
        Iterator<Integer> readers = waiting.iterator();
        while (readers.hasNext() && !pending.isEmpty()) {
            int subtask = readers.next();
            readers.remove();
            if (context.registeredReaders().containsKey(subtask)) {
                context.assignSplit(pending.poll(), subtask);
            }
        }
    }

    @Override
    public void handleSplitRequest(int subtask, String requesterHostname) {
        RowGroupSplit next = pending.poll();
        if (next != null) {
            context.assignSplit(next, subtask);
        } else if (monitorInterval != null) {
            waiting.add(subtask);
        } else {
            context.signalNoMoreSplits(subtask);
        }
    }

    @Override
    public void addSplitsBack(List<RowGroupSplit> splits, int subtaskId) {
        splits.forEach(pending::addFirst);
        assignWaiting();
    }

    @Override
    public void addReader(int subtaskId) {}

    @Override
    public Checkpoint snapshotState(long checkpointId) {
        return new Checkpoint(new ArrayList<>(pending), monitorInterval == null ? List.of() : new ArrayList<>(seen));
    }

    @Override
    public void close() {}

    /** The splits not handed out, and the files seen (continuous mode). */
    static final class Checkpoint {
        static final Checkpoint EMPTY = new Checkpoint(List.of(), List.of());

        final Collection<RowGroupSplit> pending;
        final Collection<String> seen;

        Checkpoint(Collection<RowGroupSplit> pending, Collection<String> seen) {
            this.pending = pending;
            this.seen = seen;
        }
    }

    /** Writes a checkpoint as its splits, then its files seen. */
    static final class StateSerializer implements SimpleVersionedSerializer<Checkpoint> {

        @Override
        public int getVersion() {
            return 2;
        }

        @Override
        public byte[] serialize(Checkpoint checkpoint) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(256);
            out.writeInt(checkpoint.pending.size());
            for (RowGroupSplit split : checkpoint.pending) {
                RowGroupSplit.Serializer.write(split, out);
            }
            out.writeInt(checkpoint.seen.size());
            for (String file : checkpoint.seen) {
                out.writeUTF(file);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public Checkpoint deserialize(int version, byte[] serialized) throws IOException {
            RowGroupSplit.Serializer.checkVersion(version);
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            int count = in.readInt();
            List<RowGroupSplit> splits = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                splits.add(RowGroupSplit.Serializer.read(in));
            }
            int files = in.readInt();
            List<String> seen = new ArrayList<>(files);
            for (int i = 0; i < files; i++) {
                seen.add(in.readUTF());
            }
            return new Checkpoint(splits, seen);
        }
    }
}
