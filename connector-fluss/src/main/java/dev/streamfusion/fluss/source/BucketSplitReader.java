package dev.streamfusion.fluss.source;

import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.source.ArrowRecords;
import dev.streamfusion.bridge.source.FetchedBatches;
import dev.streamfusion.bridge.writer.RowDataArrowWriter;
import dev.streamfusion.fluss.internal.FlussRowAsFlink;
import dev.streamfusion.fluss.internal.FlussTableRef;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsRemoval;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.fluss.client.Connection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.batch.BatchScanner;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.scanner.log.ScanRecords;
import org.apache.fluss.exception.PartitionNotExistException;
import org.apache.fluss.metadata.TableBucket;
import org.apache.fluss.record.ChangeType;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.utils.CloseableIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Reads the buckets assigned to it with one Fluss log scanner (the query's columns pushed to the
 * server) and turns each poll's records of a bucket into one Arrow batch, column by column (the
 * records are views over the fetched data; the batch owns its copy), with each record's row kind
 * when the log is a primary-key table's changelog. Snapshot splits are read one at a time, taking
 * turns with the log: the client's snapshot scanner gives the snapshot's rows (the query's columns
 * only) batch by batch, and at its end the split is finished (its reader goes on with the log).
 */
// The Fluss client's closeables declare Exception.
@SuppressWarnings("try")
@Internal
final class BucketSplitReader implements SplitReader<BucketBatch.Row, BucketSplit> {

    private static final Logger LOG = LoggerFactory.getLogger(BucketSplitReader.class);

    private static final Duration POLL = Duration.ofMillis(100);
    /** Rows of a key-value snapshot per batch: a poll of a snapshot hands over a whole file's rows. */
    private static final int SNAPSHOT_BATCH_ROWS = 8192;
    private static final Duration PARTITIONS_TIMEOUT = Duration.ofSeconds(30);

    private final FlussTableRef ref;
    private final int[] projection;
    private final RowType rowType;
    private final FetchedBatches fetched;
    /** Whether the table is a primary-key table, whose log is a changelog. */
    private final boolean changelog;
    /** Whether each batch is emitted whole (to the operator island) rather than row by row. */
    private final boolean whole;
    private final ArrayDeque<ArrowRecords<BucketBatch.Row>> ready = new ArrayDeque<>();
    /** Of the buckets read up to an offset (a bounded read), that offset. */
    private final Map<BucketId, Long> stops = new HashMap<>();
    /** Snapshot splits not started yet. */
    private final ArrayDeque<BucketSplit> snapshots = new ArrayDeque<>();
    /** The snapshot split being read, its scanner and the rows of it still to skip. */
    private BucketSplit snapshot;
    private BatchScanner snapshotScanner;
    /** The rows of the snapshot scanner's last poll not read yet, or null. */
    private CloseableIterator<InternalRow> snapshotRows;
    private long snapshotSkip;
    /** The log buckets the scanner is subscribed to. */
    private final Set<BucketId> subscribed = new HashSet<>();
    /** Splits of dropped partitions, no longer read, whose end the next fetch reports. */
    private final Set<String> removed = new HashSet<>();
    /** Whether the last fetch read the snapshot (so this one polls the log). */
    private boolean snapshotTurn;
    private Connection connection;
    private Table table;
    private LogScanner scanner;
    private RowDataArrowWriter writer;
    private FlussRowAsFlink view;

    /** @param whole whether each batch is emitted whole (to the operator island) rather than row by row */
    BucketSplitReader(
            FlussTableRef ref, int[] projection, RowType rowType, boolean changelog, FetchedBatches fetched, boolean whole) {
        this.whole = whole;
        this.ref = ref;
        this.projection = projection;
        this.rowType = rowType;
        this.changelog = changelog;
        this.fetched = fetched;
    }

    @Override
    public RecordsWithSplitIds<BucketBatch.Row> fetch() throws IOException {
        if (!removed.isEmpty()) {
            BucketBatch finished = new BucketBatch(Set.copyOf(removed));
            removed.clear();
            return fetched.track(finished);
        }
        if (ready.isEmpty()) {
            // The log scanner fails a poll with no bucket subscribed (its splits may all be of
            // dropped partitions): it takes its turn only with one.
            boolean logs = scanner != null && !subscribed.isEmpty();
            boolean readSnapshot = (snapshot != null || !snapshots.isEmpty()) && (!logs || !snapshotTurn);
            snapshotTurn = readSnapshot;
            if (readSnapshot) {
                ready.add(readSnapshot());
            } else if (logs) {
                ScanRecords records = scanner.poll(POLL);
                List<BucketRows.Part> parts = new ArrayList<>();
                List<String> ended = new ArrayList<>();
                for (TableBucket bucket : records.buckets()) {
                    BucketId id = new BucketId(bucket.getPartitionId() == null ? BucketId.NO_PARTITION
                            : bucket.getPartitionId(), bucket.getBucket());
                    List<ScanRecord> of = records.records(bucket);
                    Long stop = stops.get(id);
                    if (stop != null && !of.isEmpty() && of.get(of.size() - 1).logOffset() + 1 >= stop) {
                        of = upTo(of, stop);
                        stops.remove(id);
                        unsubscribe(id);
                        ended.add(id.toString());
                    }
                    if (of.isEmpty()) {
                        continue;
                    }
                    if (whole) {
                        ready.add(batch(id, of));
                    } else if (!of.isEmpty()) {
                        List<InternalRow> rows = new ArrayList<>(of.size());
                        of.forEach(record -> rows.add(record.getRow()));
                        parts.add(new BucketRows.Part(id.toString(), rows, offsets(of), kinds(of)));
                    }
                }
                if (!parts.isEmpty()) {
                    ready.add(new BucketRows(rowType, parts));
                }
                // A bounded bucket read to its end finishes after its last rows.
                ended.forEach(split -> ready.add(new BucketBatch(Set.of(split))));
            }
        }
        ArrowRecords<BucketBatch.Row> next = ready.poll();
        return fetched.track(next == null ? new BucketBatch() : next);
    }

    /** The next rows of the snapshot being read (the next snapshot split's first), or its end. */
    private BucketBatch readSnapshot() throws IOException {
        if (snapshot == null) {
            snapshot = snapshots.poll();
            snapshotSkip = snapshot.snapshotRowsEmitted;
            TableBucket bucket = snapshot.id.toTableBucket(table.getTableInfo().getTableId());
            try {
                snapshotScanner = table.newScan().project(projection).createBatchScanner(bucket, snapshot.snapshotId);
            } catch (RuntimeException e) {
                // The server answers for a dropped partition's snapshot that it does not exist
                // (the client wraps that in a FlussRuntimeException): whether the partition is
                // gone is asked of the cluster.
                if (!partitionGone(e) && !(snapshot.id.isPartitioned() && partitionDropped(snapshot.id.partitionId, e))) {
                    throw e;
                }
                LOG.info("Partition {} of Fluss table {} no longer exists; its split {} is finished", snapshot.partitionName,
                        ref, snapshot.splitId());
                String finished = snapshot.splitId();
                snapshot = null;
                return new BucketBatch(Set.of(finished));
            }
        }
        if (snapshotRows == null) {
            try {
                snapshotRows = snapshotScanner.pollBatch(POLL);
            } catch (IOException | RuntimeException e) {
                throw new IOException("Cannot read key-value snapshot " + snapshot.snapshotId + " of " + snapshot
                        + " of Fluss table " + ref + ": " + e.getMessage(), e);
            }
            if (snapshotRows == null) {
                BucketSplit done = snapshot;
                closeSnapshot();
                return new BucketBatch(Set.of(done.splitId()));
            }
        }
        // A poll's rows (a whole snapshot file's) go out a batch at a time.
        int appended = 0;
        try {
            while (appended < SNAPSHOT_BATCH_ROWS && snapshotRows.hasNext()) {
                InternalRow row = snapshotRows.next();
                if (snapshotSkip > 0) {
                    snapshotSkip--;
                } else {
                    writer.append(view.wrap(row));
                    appended++;
                }
            }
        } catch (RuntimeException e) {
            closeSnapshotRows();
            throw e;
        }
        if (!snapshotRows.hasNext()) {
            closeSnapshotRows();
        }
        if (appended == 0) {
            return new BucketBatch();
        }
        VectorSchemaRoot own = ArrowRoots.moveTo(writer.finishBatch(), fetched.allocator());
        return new BucketBatch(snapshot.splitId(), own, ArrowColumnarBatch.of(own, rowType), null, null, whole);
    }

    private void closeSnapshot() throws IOException {
        closeSnapshotRows();
        BatchScanner open = snapshotScanner;
        snapshot = null;
        snapshotScanner = null;
        if (open != null) {
            open.close();
        }
    }

    private void closeSnapshotRows() {
        CloseableIterator<InternalRow> open = snapshotRows;
        snapshotRows = null;
        if (open != null) {
            open.close();
        }
    }

    /** The records before offset {@code stop}. */
    private static List<ScanRecord> upTo(List<ScanRecord> records, long stop) {
        int end = 0;
        while (end < records.size() && records.get(end).logOffset() < stop) {
            end++;
        }
        return records.subList(0, end);
    }

    private void unsubscribe(BucketId id) {
        subscribed.remove(id);
        if (id.isPartitioned()) {
            scanner.unsubscribe(id.partitionId, id.bucket);
        } else {
            scanner.unsubscribe(id.bucket);
        }
    }

    /** The records of one bucket's poll as one Arrow batch, for a consumer of batches. */
    private BucketBatch batch(BucketId bucket, List<ScanRecord> records) {
        for (ScanRecord record : records) {
            writer.append(view.wrap(record.getRow()));
        }
        VectorSchemaRoot own = ArrowRoots.moveTo(writer.finishBatch(), fetched.allocator());
        return new BucketBatch(bucket.toString(), own, ArrowColumnarBatch.of(own, rowType), offsets(records), kinds(records), whole);
    }

    private static long[] offsets(List<ScanRecord> records) {
        long[] offsets = new long[records.size()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = records.get(i).logOffset();
        }
        return offsets;
    }

    /** The records' row kinds, or {@code null} when the log is not a changelog (every row an insert). */
    private RowKind[] kinds(List<ScanRecord> records) {
        if (!changelog) {
            return null;
        }
        RowKind[] kinds = new RowKind[records.size()];
        for (int i = 0; i < kinds.length; i++) {
            kinds[i] = kind(records.get(i).getChangeType());
        }
        return kinds;
    }

    private static RowKind kind(ChangeType change) {
        switch (change) {
            case UPDATE_BEFORE:
                return RowKind.UPDATE_BEFORE;
            case UPDATE_AFTER:
                return RowKind.UPDATE_AFTER;
            case DELETE:
                return RowKind.DELETE;
            default:
                return RowKind.INSERT;
        }
    }

    @Override
    public void handleSplitsChanges(SplitsChange<BucketSplit> change) {
        if (change instanceof SplitsRemoval) {
            change.splits().forEach(this::remove);
            return;
        }
        if (!(change instanceof SplitsAddition)) {
            throw new UnsupportedOperationException("The Fluss reader does not take " + change);
        }
        if (connection == null) {
            connection = ref.connect();
            table = connection.getTable(ref.path());
            writer = RowDataArrowWriter.create(rowType, fetched.allocator());
            view = new FlussRowAsFlink(rowType);
        }
        long tableId = table.getTableInfo().getTableId();
        for (BucketSplit split : change.splits()) {
            if (split.tableId != BucketSplit.NO_TABLE_ID && split.tableId != tableId) {
                // As fluss-flink's reader fails: the offsets are another table's.
                throw new IllegalStateException("Table ID mismatch: expected " + tableId + ", but split contains " + split.tableId
                        + " for table '" + ref.path() + "'. This usually happens when a table with the same name was dropped and "
                        + "recreated between job runs, causing metadata inconsistency. To resolve this, please restart the job "
                        + "**without** using the previous savepoint or checkpoint.");
            }
            if (split.isSnapshot()) {
                snapshots.add(split);
                continue;
            }
            if (split.isBounded()) {
                if (split.offset >= split.stoppingOffset) {
                    // Nothing to read: the bucket's log ended where this read starts.
                    ready.add(new BucketBatch(Set.of(split.splitId())));
                    continue;
                }
                stops.put(split.id, split.stoppingOffset);
            }
            if (scanner == null) {
                scanner = table.newScan().project(projection).createLogScanner();
            }
            try {
                if (split.id.isPartitioned()) {
                    scanner.subscribe(split.id.partitionId, split.id.bucket, split.offset);
                } else {
                    scanner.subscribe(split.id.bucket, split.offset);
                }
                subscribed.add(split.id);
            } catch (PartitionNotExistException e) {
                // Dropped before this reader heard of it (while the job was down, say): the split is
                // finished, as fluss-flink's reader finishes it, rather than failing every restart.
                LOG.info("Partition {} of Fluss table {} no longer exists; its split {} is finished", split.partitionName,
                        ref, split.splitId());
                stops.remove(split.id);
                removed.add(split.splitId());
            }
        }
    }

    /** Whether the table no longer has partition {@code partitionId}; {@code error} gains what asking failed with. */
    private boolean partitionDropped(long partitionId, RuntimeException error) {
        try (Admin admin = connection.getAdmin()) {
            return admin.listPartitionInfos(ref.path()).get(PARTITIONS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).stream()
                    .noneMatch(p -> p.getPartitionId() == partitionId);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            error.addSuppressed(e);
            return false;
        }
    }

    /** Whether {@code error} says the partition is gone. */
    private static boolean partitionGone(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof PartitionNotExistException) {
                return true;
            }
        }
        return false;
    }

    /** Stops reading {@code split} (of a dropped partition); its batches not handed out are freed. */
    private void remove(BucketSplit split) {
        String id = split.splitId();
        if (split.isSnapshot()) {
            snapshots.removeIf(queued -> queued.splitId().equals(id));
            if (snapshot != null && snapshot.splitId().equals(id)) {
                try {
                    closeSnapshot();
                } catch (IOException e) {
                    throw new UncheckedIOException("Cannot close the snapshot scanner of " + split, e);
                }
            }
        } else if (scanner != null && (!split.isBounded() || stops.remove(split.id) != null)) {
            unsubscribe(split.id);
        }
        ready.removeIf(queued -> {
            boolean emptied = queued instanceof BucketRows ? ((BucketRows) queued).drop(id) : id.equals(((BucketBatch) queued).splitId);
            if (emptied) {
                fetched.track(queued).recycle();
            }
            return emptied;
        });
        removed.add(id);
    }

    @Override
    public void wakeUp() {
        if (scanner != null) {
            scanner.wakeup();
        }
    }

    @Override
    public void close() throws Exception {
        // Queued batches were never handed out: they are freed with the rest the reader fetched.
        ready.forEach(fetched::track);
        ready.clear();
        closeSnapshotRows();
        try (AutoCloseable c = connection; AutoCloseable t = table; AutoCloseable s = scanner; AutoCloseable w = writer;
                AutoCloseable b = snapshotScanner) {
            // Closed in reverse order: the snapshot scanner, the writer's vectors, the log scanner,
            // the table, the connection.
        }
    }
}
