package dev.streamfusion.fluss.source;

import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.internal.ScanOptions;
import dev.streamfusion.fluss.internal.StartupMode;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.KvSnapshotLease;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.metadata.KvSnapshots;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.metadata.PartitionInfo;
import org.apache.fluss.metadata.TableBucket;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Hands each bucket of the table (of each of its partitions) to one reader (bucket {@code b} of a
 * table without partitions to subtask {@code b % parallelism}), starting where {@code
 * scan.startup.mode} says: the log's first record, its end, or the first record at a timestamp
 * (offsets looked up when the table or partition is first seen); a primary-key table read {@code
 * full} from each bucket's latest key-value snapshot, then its log from the offset the snapshot was
 * taken at (a bucket without a snapshot from its log's start). A partitioned table's partitions are
 * listed when the job starts and every {@code scan.partition.discovery.interval}: new ones are read
 * as the startup mode says, as fluss-flink reads them, and the readers of dropped ones let them go.
 * A bounded read (a batch job's) reads each bucket up to the end its log had when the job started,
 * of the partitions listed then, and tells each reader when no more buckets are left.
 *
 * <p>Key-value snapshots are held by a lease while they are read, so the server does not delete
 * them: a reader that has read a bucket's snapshot says so at its next checkpoint, and the
 * enumerator lets the snapshot go when the checkpoint after that message completes (restoring from
 * it never reads the snapshot again); the lease is dropped when no snapshot is held any more, or
 * when the job ends before any checkpoint completed. A failover between those two points leaves the
 * snapshot to the lease's expiry ({@code scan.kv.snapshot.lease.duration}).
 *
 * <p>Its checkpoint holds the buckets not handed out yet, the partitions seen, the lease and the
 * buckets it still holds.
 */
// The Fluss client's closeables declare Exception.
@SuppressWarnings("try")
@Internal
final class BucketEnumerator implements SplitEnumerator<BucketSplit, BucketEnumerator.Checkpoint> {

    private static final Logger LOG = LoggerFactory.getLogger(BucketEnumerator.class);

    private static final long TIMEOUT_SECONDS = 60;
    /** How often a snapshot deleted between its listing and its lease is looked up again. */
    private static final int LEASE_ATTEMPTS = 5;

    private final SplitEnumeratorContext<BucketSplit> context;
    private final FlussTableRef table;
    private final int buckets;
    private final ScanOptions scan;
    /** Whether the table has a primary key (and so key-value snapshots). */
    private final boolean primaryKey;
    private final boolean partitioned;
    /** Splits not handed out yet; {@code null} until a table without partitions is planned. */
    private List<BucketSplit> pending;
    /** The partitions whose splits were made, by id: their names. */
    private final Map<Long, String> partitions = new HashMap<>();
    /** Partitions whose splits are being made. */
    private final Set<Long> planning = new HashSet<>();
    /** The snapshot lease's id, or {@code null} until one is taken. */
    private String leaseId;
    /** The buckets whose snapshots the lease holds. */
    private final Set<BucketId> leased = new HashSet<>();
    /** Buckets whose snapshots readers have read since the last checkpoint. */
    private final Set<BucketId> readSinceCheckpoint = new HashSet<>();
    /** Per checkpoint, the buckets let go when it completes. */
    private final TreeMap<Long, Set<BucketId>> releasedAt = new TreeMap<>();
    /** Whether this enumerator's state is in a completed checkpoint (so a restore may need its lease). */
    private boolean checkpointed;
    /** Set when closing: a listing still scheduled does nothing. */
    private volatile boolean closed;
    /** Of a bounded read: whether its one listing of the partitions was made. */
    private boolean partitionsListedOnce;
    /** Of a bounded read: whether every bucket it reads is planned (so it ends once they are handed out). */
    private boolean everyBucketPlanned;
    /** Of a bounded read: the readers told no splits are left. */
    private final Set<Integer> toldNoMoreSplits = new HashSet<>();
    private Connection connection;
    private Admin admin;
    private long tableId = -1;

    BucketEnumerator(
            SplitEnumeratorContext<BucketSplit> context, FlussTableRef table, int buckets, ScanOptions scan,
            boolean primaryKey, boolean partitioned, Checkpoint restored) {
        this.context = context;
        this.table = table;
        this.buckets = buckets;
        this.scan = scan;
        this.primaryKey = primaryKey;
        this.partitioned = partitioned;
        if (restored != null) {
            this.pending = new ArrayList<>(restored.pending);
            this.partitions.putAll(restored.partitions);
            this.leaseId = restored.leaseId;
            this.leased.addAll(restored.leased);
            this.checkpointed = true;
        } else if (partitioned) {
            this.pending = new ArrayList<>();
        }
    }

    @Override
    public void start() {
        if (partitioned) {
            long interval = scan.partitionDiscoveryInterval.toMillis();
            if (interval > 0 && !scan.bounded) {
                context.callAsync(this::listPartitions, this::partitionsListed, 0, interval);
            } else {
                context.callAsync(this::listPartitions, this::partitionsListed);
            }
            return;
        }
        if (pending == null) {
            Planned planned = call("look up where to start reading", () -> plan(null, null));
            pending = new ArrayList<>(planned.splits);
            leased.addAll(planned.leased);
        }
        everyBucketPlanned = true;
        assignPending();
    }

    /** The splits of one partition ({@code null}: of the table without partitions), and the snapshots leased for them. */
    private static final class Planned {
        final List<BucketSplit> splits = new ArrayList<>();
        final Set<BucketId> leased = new HashSet<>();
    }

    /** Where each bucket of the partition {@code partitionId} named {@code name} (or of the table) starts. */
    private Planned plan(Long partitionId, String name) throws Exception {
        List<Integer> all = IntStream.range(0, buckets).boxed().collect(Collectors.toList());
        long partition = partitionId == null ? BucketId.NO_PARTITION : partitionId;
        Planned planned = new Planned();
        if (scan.mode == StartupMode.FULL && primaryKey) {
            snapshotsThenLogs(partition, name, all, planned);
        } else if (scan.mode == StartupMode.FULL || scan.mode == StartupMode.EARLIEST) {
            all.forEach(b -> planned.splits.add(
                    new BucketSplit(new BucketId(partition, b), name, LogScanner.EARLIEST_OFFSET, BucketSplit.NO_SNAPSHOT, 0)));
        } else {
            OffsetSpec spec = scan.mode == StartupMode.LATEST
                    ? new OffsetSpec.LatestSpec()
                    : new OffsetSpec.TimestampSpec(scan.timestamp);
            Map<Integer, Long> offsets = offsets(name, all, spec);
            all.forEach(b -> planned.splits.add(
                    new BucketSplit(new BucketId(partition, b), name, offsets.get(b), BucketSplit.NO_SNAPSHOT, 0)));
        }
        if (scan.bounded) {
            // Each log is read from its first offset (as a number, to know an empty one) to its end now.
            Map<Integer, Long> starts = planned.splits.stream().anyMatch(split -> split.offset == LogScanner.EARLIEST_OFFSET)
                    ? offsets(name, all, new OffsetSpec.EarliestSpec())
                    : Map.of();
            Map<Integer, Long> ends = offsets(name, all, new OffsetSpec.LatestSpec());
            List<BucketSplit> bounded = new ArrayList<>();
            for (BucketSplit split : planned.splits) {
                int bucket = split.id.bucket;
                BucketSplit from = split.offset == LogScanner.EARLIEST_OFFSET ? split.log(starts.get(bucket)) : split;
                bounded.add(from.stoppingAt(ends.get(bucket)));
            }
            planned.splits.clear();
            planned.splits.addAll(bounded);
        }
        long table = tableId();
        planned.splits.replaceAll(split -> split.ofTable(table));
        return planned;
    }

    /** The {@code spec} offsets of the {@code buckets} of the table (of its partition {@code name}). */
    private Map<Integer, Long> offsets(String name, List<Integer> buckets, OffsetSpec spec) throws Exception {
        return (name == null
                ? admin().listOffsets(table.path(), buckets, spec)
                : admin().listOffsets(table.path(), name, buckets, spec)).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Each bucket's latest snapshot (held by the lease) then its log, or its log from its start
     * where it has no snapshot.
     */
    private void snapshotsThenLogs(long partition, String name, List<Integer> all, Planned planned) throws Exception {
        synchronized (this) {
            if (leaseId == null) {
                leaseId = scan.leaseId != null ? scan.leaseId : "streamfusion-" + UUID.randomUUID();
            }
        }
        Map<Integer, BucketSplit> splits = new HashMap<>();
        Set<Integer> toLease = new HashSet<>(all);
        for (int attempt = 1; !toLease.isEmpty(); attempt++) {
            KvSnapshots latest = (name == null
                    ? admin().getLatestKvSnapshots(table.path())
                    : admin().getLatestKvSnapshots(table.path(), name)).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            tableId = latest.getTableId();
            Map<TableBucket, Long> wanted = new HashMap<>();
            for (int bucket : toLease) {
                BucketId id = new BucketId(partition, bucket);
                if (latest.getSnapshotId(bucket).isPresent()) {
                    long snapshot = latest.getSnapshotId(bucket).getAsLong();
                    splits.put(bucket, new BucketSplit(id, name, latest.getLogOffset(bucket).getAsLong(), snapshot, 0));
                    wanted.put(id.toTableBucket(tableId), snapshot);
                } else {
                    splits.put(bucket, new BucketSplit(id, name, LogScanner.EARLIEST_OFFSET, BucketSplit.NO_SNAPSHOT, 0));
                }
            }
            Set<TableBucket> unavailable = wanted.isEmpty()
                    ? Set.of()
                    : lease().acquireSnapshots(wanted).get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getUnavailableTableBucketSet();
            toLease.clear();
            for (TableBucket bucket : wanted.keySet()) {
                if (unavailable.contains(bucket)) {
                    toLease.add(bucket.getBucket());
                } else {
                    planned.leased.add(new BucketId(partition, bucket.getBucket()));
                }
            }
            if (!toLease.isEmpty() && attempt == LEASE_ATTEMPTS) {
                throw new IllegalStateException("The key-value snapshots of buckets " + toLease + " of Fluss table " + table
                        + (name == null ? "" : " partition " + name) + " were deleted " + LEASE_ATTEMPTS
                        + " times before they could be leased");
            }
        }
        LOG.info("Reading Fluss table {}{} from key-value snapshots of buckets {} (lease {}), then their logs", table,
                name == null ? "" : " partition " + name, planned.leased, leaseId);
        all.forEach(b -> planned.splits.add(splits.get(b)));
    }

    private List<PartitionInfo> listPartitions() throws Exception {
        if (closed) {
            return List.of();
        }
        List<PartitionInfo> listed = new ArrayList<>(admin().listPartitionInfos(table.path()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        // Partitions the query's filters rule out are never read (nor seen, so never dropped).
        listed.removeIf(partition -> !scan.reads(partition.getPartitionSpec().getSpecMap()));
        return listed;
    }

    /** New partitions are planned (off this thread); dropped ones are let go, and their readers told. */
    private void partitionsListed(List<PartitionInfo> listed, Throwable error) {
        if (closed) {
            return;
        }
        if (error != null) {
            // A bounded read lists its partitions once: it fails rather than never ending.
            if (scan.bounded || (scan.partitionDiscoveryInterval.toMillis() <= 0 && partitions.isEmpty())) {
                throw new IllegalStateException("Cannot list the partitions of Fluss table " + table, error);
            }
            LOG.warn("Cannot list the partitions of Fluss table {}; trying again in {}", table,
                    scan.partitionDiscoveryInterval, error);
            return;
        }
        Map<Long, String> now = new HashMap<>();
        listed.forEach(p -> now.put(p.getPartitionId(), p.getPartitionName()));
        Set<Long> dropped = new HashSet<>(partitions.keySet());
        dropped.removeAll(now.keySet());
        if (!dropped.isEmpty()) {
            LOG.info("Partitions {} of Fluss table {} were dropped; their buckets are no longer read", dropped, table);
            dropped.forEach(partitions::remove);
            pending.removeIf(split -> dropped.contains(split.id.partitionId));
            leased.removeIf(bucket -> dropped.contains(bucket.partitionId));
            context.registeredReaders().keySet().forEach(
                    reader -> context.sendEventToSourceReader(reader, new PartitionsRemoved(dropped)));
        }
        now.forEach((id, name) -> {
            if (!partitions.containsKey(id) && planning.add(id)) {
                context.callAsync(() -> plan(id, name), (planned, failure) -> partitionPlanned(id, name, planned, failure));
            }
        });
        if (scan.bounded) {
            // A bounded read lists the partitions once: it ends with the buckets of those.
            partitionsListedOnce = true;
            everyBucketPlanned = planning.isEmpty();
            assignPending();
        }
    }

    private void partitionPlanned(long id, String name, Planned planned, Throwable failure) {
        planning.remove(id);
        if (closed) {
            return;
        }
        if (failure != null) {
            throw new IllegalStateException("Cannot look up where to start reading partition " + name + " of Fluss table "
                    + table + ": " + failure.getMessage(), failure);
        }
        LOG.info("Reading partition {} of Fluss table {}", name, table);
        partitions.put(id, name);
        pending.addAll(planned.splits);
        leased.addAll(planned.leased);
        everyBucketPlanned = partitionsListedOnce && planning.isEmpty();
        assignPending();
    }

    /** Runs a call to the cluster, its failures as one exception saying what was being done. */
    private <R> R call(String what, java.util.concurrent.Callable<R> call) {
        try {
            return call.call();
        } catch (ExecutionException e) {
            throw new IllegalStateException("Cannot " + what + " Fluss table " + table + ": " + e.getCause().getMessage(),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted trying to " + what + " Fluss table " + table, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("The Fluss cluster of table " + table + " did not answer within "
                    + TIMEOUT_SECONDS + " s", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Cannot " + what + " Fluss table " + table, e);
        }
    }

    private synchronized Admin admin() {
        if (admin == null) {
            connection = table.connect();
            admin = connection.getAdmin();
        }
        return admin;
    }

    private KvSnapshotLease lease() {
        return admin().createKvSnapshotLease(leaseId, scan.leaseDuration.toMillis());
    }

    private void assignPending() {
        int parallelism = context.currentParallelism();
        List<BucketSplit> left = new ArrayList<>();
        for (BucketSplit split : pending) {
            int owner = split.id.isPartitioned()
                    ? Math.floorMod(split.id.hashCode(), parallelism)
                    : split.id.bucket % parallelism;
            if (context.registeredReaders().containsKey(owner)) {
                context.assignSplit(split, owner);
            } else {
                left.add(split);
            }
        }
        pending = left;
        if (scan.bounded && everyBucketPlanned && pending.isEmpty()) {
            for (int reader : context.registeredReaders().keySet()) {
                if (toldNoMoreSplits.add(reader)) {
                    context.signalNoMoreSplits(reader);
                }
            }
        }
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        // Buckets are handed out as readers register and partitions appear.
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (event instanceof SnapshotsRead) {
            readSinceCheckpoint.addAll(((SnapshotsRead) event).buckets);
        }
    }

    @Override
    public void addSplitsBack(List<BucketSplit> splits, int subtaskId) {
        pending.addAll(splits);
    }

    @Override
    public void addReader(int subtaskId) {
        // A reader registering again (a restarted attempt) has not been told there are no more
        // splits; it is told once its splits handed back are assigned again.
        toldNoMoreSplits.remove(subtaskId);
        if (pending != null) {
            assignPending();
        }
    }

    @Override
    public Checkpoint snapshotState(long checkpointId) {
        if (!readSinceCheckpoint.isEmpty()) {
            releasedAt.put(checkpointId, new HashSet<>(readSinceCheckpoint));
            readSinceCheckpoint.clear();
        }
        return new Checkpoint(pending == null ? List.of() : pending, partitions, leaseId, leased);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        checkpointed = true;
        Map<Long, Set<BucketId>> done = releasedAt.headMap(checkpointId, true);
        if (done.isEmpty()) {
            return;
        }
        Set<BucketId> release = new HashSet<>();
        done.values().forEach(release::addAll);
        done.clear();
        release.retainAll(leased);
        if (release.isEmpty()) {
            return;
        }
        leased.removeAll(release);
        CompletableFuture<Void> let = leased.isEmpty() && planning.isEmpty()
                ? lease().dropLease()
                : lease().releaseSnapshots(release.stream().map(b -> b.toTableBucket(tableId())).collect(Collectors.toSet()));
        let.whenComplete((ignored, error) -> {
            if (error != null) {
                LOG.warn("Cannot let the key-value snapshots of {} of Fluss table {} go (lease {}); they are kept until "
                        + "the lease expires", release, table, leaseId, error);
            }
        });
    }

    private long tableId() {
        if (tableId < 0) {
            tableId = call("read the metadata of",
                    () -> admin().getTableInfo(table.path()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS).getTableId());
        }
        return tableId;
    }

    @Override
    public void close() throws IOException {
        closed = true;
        try {
            if (!checkpointed && !leased.isEmpty()) {
                // No checkpoint names the lease: nothing could restore from it.
                lease().dropLease().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("Cannot drop the key-value snapshot lease {} of Fluss table {}; it expires by itself", leaseId, table, e);
        } finally {
            try (AutoCloseable c = connection; AutoCloseable a = admin) {
                // Closed in reverse order: the admin, then the connection.
            } catch (Exception e) {
                throw new IOException("Cannot close the connection to the Fluss cluster of " + table, e);
            }
        }
    }

    /**
     * The enumerator's checkpoint: the splits not handed out, the partitions seen, the lease and the
     * buckets it holds.
     */
    static final class Checkpoint {
        final List<BucketSplit> pending;
        final Map<Long, String> partitions;
        /** The lease's id, or {@code null} when none was taken. */
        final String leaseId;
        final Set<BucketId> leased;

        Checkpoint(List<BucketSplit> pending, Map<Long, String> partitions, String leaseId, Set<BucketId> leased) {
            this.pending = List.copyOf(pending);
            this.partitions = Map.copyOf(partitions);
            this.leaseId = leaseId;
            this.leased = Set.copyOf(leased);
        }
    }

    /**
     * The checkpoint as bytes: version 3 is the splits (each as the split serializer's version 3
     * writes it), the partitions seen (id and name), the lease's id (empty for none) and the buckets
     * it holds (partition id and bucket); version 2 (its splits of version 2) and version 1 (the
     * splits alone) are still read.
     */
    static final class StateSerializer implements SimpleVersionedSerializer<Checkpoint> {

        private final BucketSplit.Serializer splits = new BucketSplit.Serializer();

        @Override
        public int getVersion() {
            return 3;
        }

        @Override
        public byte[] serialize(Checkpoint state) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(state.pending.size());
                for (BucketSplit split : state.pending) {
                    byte[] one = splits.serialize(split);
                    out.writeInt(one.length);
                    out.write(one);
                }
                out.writeInt(state.partitions.size());
                for (Map.Entry<Long, String> partition : state.partitions.entrySet()) {
                    out.writeLong(partition.getKey());
                    out.writeUTF(partition.getValue());
                }
                out.writeUTF(state.leaseId == null ? "" : state.leaseId);
                out.writeInt(state.leased.size());
                for (BucketId bucket : state.leased) {
                    out.writeLong(bucket.partitionId);
                    out.writeInt(bucket.bucket);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public Checkpoint deserialize(int version, byte[] serialized) throws IOException {
            if (version < 1 || version > 3) {
                throw new IOException("Unknown version " + version + " of a Fluss enumerator checkpoint");
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                int count = in.readInt();
                List<BucketSplit> pending = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    byte[] one = new byte[in.readInt()];
                    in.readFully(one);
                    pending.add(splits.deserialize(version, one));
                }
                if (version == 1) {
                    return new Checkpoint(pending, Map.of(), null, Set.of());
                }
                Map<Long, String> partitions = new HashMap<>();
                for (int i = in.readInt(); i > 0; i--) {
                    partitions.put(in.readLong(), in.readUTF());
                }
                String leaseId = in.readUTF();
                Set<BucketId> leased = new HashSet<>();
                for (int i = in.readInt(); i > 0; i--) {
                    leased.add(new BucketId(in.readLong(), in.readInt()));
                }
                return new Checkpoint(pending, partitions, leaseId.isEmpty() ? null : leaseId, leased);
            }
        }
    }
}
