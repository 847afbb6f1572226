package dev.streamfusion.parquet.source;

import dev.streamfusion.bridge.table.ErrorPolicy;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.FlinkRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * added; a reader that asks when no split is left waits for the next files. Footers are read
 * after listing, {@value #FILES_PER_PLAN} files at a time off the coordinator thread, and each
 * file's row groups are handed out as soon as its footer is read: the first split does not wait
 * for every footer. What listing and footers find is added on the coordinator thread, where
 * checkpoints are taken, so a checkpoint never holds a file as seen without its splits.
 *
 * <p>Continuous, a listing that fails and a file whose footer cannot be read are logged and
 * tried again at the next listing, as Flink's file source does; bounded, both fail the job,
 * naming the path or file.
 *
 * <p>The checkpoint holds the splits not handed out, the files whose footers are not read yet
 * and, continuous, every file seen. Counts row groups listed and pruned in the metric group
 * {@code streamfusion} ({@code rowGroups}, {@code prunedRowGroups}).
 */
@Internal
final class RowGroupEnumerator implements SplitEnumerator<RowGroupSplit, RowGroupEnumerator.Checkpoint> {

    private static final Logger LOG = LoggerFactory.getLogger(RowGroupEnumerator.class);

    /** Footers read per task of the coordinator's worker thread. */
    static final int FILES_PER_PLAN = 16;

    private final SplitEnumeratorContext<RowGroupSplit> context;
    private final FileListing listing;
    /** The listing interval, or {@code null} when bounded. */
    private final Duration monitorInterval;
    private final ArrayDeque<RowGroupSplit> pending;
    /** Files listed whose footers are not read yet, in listing order. */
    private final ArrayDeque<FileListing.ListedFile> unplanned;
    /** The files whose footers are being read, or empty. */
    private List<FileListing.ListedFile> planning = List.of();
    /** Files with splits; read by the listing thread, changed on the coordinator thread only. */
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    /** Files listed but not yet with splits (unplanned or planning); as {@link #seen}. */
    private final Set<String> queued = ConcurrentHashMap.newKeySet();
    /** Readers that asked when no split was left. */
    private final LinkedHashSet<Integer> waiting = new LinkedHashSet<>();
    private volatile long rowGroups;
    private volatile long prunedRowGroups;
    /** Bounded: whether a file whose footer cannot be read is skipped rather than failing the job. */
    private final boolean skipUnreadable;
    private volatile long skippedFiles;
    /**
     * Continuous, started afresh, and not listed yet: its first listing failing fails the job, as
     * Flink's file source fails when it cannot list its paths at the start (later listings that
     * fail are tried again, as there).
     */
    private boolean firstListing;

    RowGroupEnumerator(
            SplitEnumeratorContext<RowGroupSplit> context,
            FileListing listing,
            Duration monitorInterval,
            Checkpoint restored,
            boolean skipUnreadable) {
        this.context = context;
        this.listing = listing;
        this.monitorInterval = monitorInterval;
        this.skipUnreadable = skipUnreadable;
        this.pending = new ArrayDeque<>(restored.pending);
        this.unplanned = new ArrayDeque<>(restored.unplanned);
        this.seen.addAll(restored.seen);
        restored.unplanned.forEach(file -> queued.add(file.location));
        MetricGroup metrics = context.metricGroup().addGroup("streamfusion");
        metrics.gauge("rowGroups", () -> rowGroups);
        metrics.gauge("prunedRowGroups", () -> prunedRowGroups);
        metrics.gauge("skippedFiles", () -> skippedFiles);
    }

    /**
     * A bounded enumerator over the files listed now (their footers are read once it starts).
     *
     * @param skipUnreadable whether a file whose footer cannot be read is skipped (logged and
     *     counted in {@code skippedFiles}) rather than failing the job
     * @throws java.io.UncheckedIOException naming the path when it cannot be listed
     */
    static RowGroupEnumerator listed(
            SplitEnumeratorContext<RowGroupSplit> context, FileListing listing, boolean skipUnreadable) {
        List<FileListing.ListedFile> files = listing.files(location -> false);
        return new RowGroupEnumerator(context, listing, null, new Checkpoint(List.of(), List.of(), files), skipUnreadable);
    }

    /** A continuous enumerator started afresh, listing the files every {@code monitorInterval}. */
    static RowGroupEnumerator continuous(
            SplitEnumeratorContext<RowGroupSplit> context, FileListing listing, Duration monitorInterval, boolean skipUnreadable) {
        RowGroupEnumerator enumerator = new RowGroupEnumerator(context, listing, monitorInterval, Checkpoint.EMPTY, skipUnreadable);
        enumerator.firstListing = true;
        return enumerator;
    }

    @Override
    public void start() {
        if (monitorInterval != null) {
            context.callAsync(
                    () -> listing.files(location -> seen.contains(location) || queued.contains(location)),
                    this::listed,
                    0,
                    monitorInterval.toMillis());
        }
        planNext();
    }

    private void listed(List<FileListing.ListedFile> files, Throwable error) {
        if (error != null && firstListing) {
            throw new FlinkRuntimeException("Cannot list the table's Parquet files when the source starts", error);
        }
        firstListing = false;
        if (error != null) {
            LOG.warn("Cannot list the table's Parquet files; listing again in {}", monitorInterval, error);
            return;
        }
        for (FileListing.ListedFile file : files) {
            // Two listings may overlap: a file is queued once.
            if (!seen.contains(file.location) && queued.add(file.location)) {
                unplanned.add(file);
            }
        }
        planNext();
    }

    /** Reads the footers of the next files off the coordinator thread, unless some are being read. */
    private void planNext() {
        if (!planning.isEmpty() || unplanned.isEmpty()) {
            return;
        }
        List<FileListing.ListedFile> next = new ArrayList<>();
        while (next.size() < FILES_PER_PLAN && !unplanned.isEmpty()) {
            next.add(unplanned.poll());
        }
        planning = next;
        context.callAsync(() -> plan(next), this::planned);
    }

    /** One file's row groups, or why its footer could not be read. */
    private static final class Outcome {
        final FileListing.ListedFile file;
        /** {@code null} when the footer could not be read. */
        final FileListing.Planned plan;
        final Exception failure;

        Outcome(FileListing.ListedFile file, FileListing.Planned plan, Exception failure) {
            this.file = file;
            this.plan = plan;
            this.failure = failure;
        }
    }

    private List<Outcome> plan(List<FileListing.ListedFile> files) {
        List<Outcome> outcomes = new ArrayList<>(files.size());
        for (FileListing.ListedFile file : files) {
            try {
                outcomes.add(new Outcome(file, listing.plan(file), null));
            } catch (IOException | RuntimeException e) {
                outcomes.add(new Outcome(file, null, e));
            }
        }
        return outcomes;
    }

    private void planned(List<Outcome> outcomes, Throwable error) {
        List<FileListing.ListedFile> files = planning;
        planning = List.of();
        if (error != null) {
            throw new FlinkRuntimeException("Cannot read the footers of " + files + ": " + error.getMessage(), error);
        }
        for (Outcome outcome : outcomes) {
            FileListing.ListedFile file = outcome.file;
            if (outcome.plan == null) {
                if (monitorInterval == null && skipUnreadable) {
                    // Skipped for good: seen, so a restored enumerator does not read it either.
                    skippedFiles++;
                    seen.add(file.location);
                    queued.remove(file.location);
                    LOG.warn(
                            "Cannot read the footer of {}; skipped under '{}' = 'SKIP' ({} files skipped)",
                            file,
                            ErrorPolicy.KEY,
                            skippedFiles,
                            outcome.failure);
                    continue;
                }
                if (monitorInterval == null) {
                    throw new FlinkRuntimeException(
                            "Cannot read the footer of " + file + ": " + outcome.failure.getMessage(), outcome.failure);
                }
                // Not seen: the next listing finds it again.
                queued.remove(file.location);
                LOG.warn("Cannot read the footer of {}; reading it again after the next listing", file, outcome.failure);
                continue;
            }
            pending.addAll(outcome.plan.splits);
            rowGroups += outcome.plan.rowGroups;
            prunedRowGroups += outcome.plan.prunedRowGroups;
            seen.add(file.location);
            queued.remove(file.location);
        }
        planNext();
        assignWaiting();
    }

    /** Whether every split there will be is known (bounded, every footer read). */
    private boolean allPlanned() {
        return monitorInterval == null && unplanned.isEmpty() && planning.isEmpty();
    }

    private void assignWaiting() {
        Iterator<Integer> readers = waiting.iterator();
        while (readers.hasNext() && (!pending.isEmpty() || allPlanned())) {
            int subtask = readers.next();
            readers.remove();
            if (context.registeredReaders().containsKey(subtask)) {
                if (pending.isEmpty()) {
                    context.signalNoMoreSplits(subtask);
                } else {
                    context.assignSplit(pending.poll(), subtask);
                }
            }
        }
    }

    @Override
    public void handleSplitRequest(int subtask, String requesterHostname) {
        RowGroupSplit next = pending.poll();
        if (next != null) {
            context.assignSplit(next, subtask);
        } else if (allPlanned()) {
            context.signalNoMoreSplits(subtask);
        } else {
            waiting.add(subtask);
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
        List<FileListing.ListedFile> toPlan = new ArrayList<>(planning);
        toPlan.addAll(unplanned);
        return new Checkpoint(
                new ArrayList<>(pending), monitorInterval == null ? List.of() : new ArrayList<>(seen), toPlan);
    }

    @Override
    public void close() {}

    /** The splits not handed out, the files seen (continuous mode), and those to read footers of. */
    static final class Checkpoint {
        static final Checkpoint EMPTY = new Checkpoint(List.of(), List.of(), List.of());

        final Collection<RowGroupSplit> pending;
        final Collection<String> seen;
        final Collection<FileListing.ListedFile> unplanned;

        Checkpoint(
                Collection<RowGroupSplit> pending,
                Collection<String> seen,
                Collection<FileListing.ListedFile> unplanned) {
            this.pending = pending;
            this.seen = seen;
            this.unplanned = unplanned;
        }
    }

    /** Writes a checkpoint as its splits, its files seen, then its files to read footers of. */
    static final class StateSerializer implements SimpleVersionedSerializer<Checkpoint> {

        @Override
        public int getVersion() {
            return 3;
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
            out.writeInt(checkpoint.unplanned.size());
            for (FileListing.ListedFile file : checkpoint.unplanned) {
                out.writeUTF(file.location);
                out.writeLong(file.length);
                out.writeLong(file.modificationTime);
            }
            return out.getCopyOfBuffer();
        }

        /** Reads versions 3 and 2 (which had no files to read footers of). */
        @Override
        public Checkpoint deserialize(int version, byte[] serialized) throws IOException {
            if (version != 3 && version != 2) {
                throw new IOException("Unknown version " + version + " of a Parquet source checkpoint");
            }
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
            List<FileListing.ListedFile> unplanned = new ArrayList<>();
            if (version == 3) {
                int left = in.readInt();
                for (int i = 0; i < left; i++) {
                    unplanned.add(new FileListing.ListedFile(in.readUTF(), in.readLong(), in.readLong()));
                }
            }
            return new Checkpoint(splits, seen, unplanned);
        }
    }
}
