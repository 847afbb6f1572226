package dev.streamfusion.fluss.source;

import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.source.FetchedBatches;
import dev.streamfusion.bridge.writer.RowDataArrowWriter;
import dev.streamfusion.fluss.internal.FlussRowAsFlink;
import dev.streamfusion.fluss.internal.FlussTableRef;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.fluss.client.Connection;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.scanner.log.ScanRecords;
import org.apache.fluss.metadata.TableBucket;
import org.apache.fluss.record.ChangeType;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Reads the buckets assigned to it with one Fluss log scanner (the query's columns pushed to the
 * server) and turns each poll's records of a bucket into one Arrow batch, column by column (the
 * records are views over the fetched data; the batch owns its copy), with each record's row kind
 * when the log is a primary-key table's changelog.
 */
// The Fluss client's closeables declare Exception.
@SuppressWarnings("try")
@Internal
final class BucketSplitReader implements SplitReader<BucketBatch.Row, BucketSplit> {

    private static final Duration POLL = Duration.ofMillis(100);

    private final FlussTableRef ref;
    private final int[] projection;
    private final RowType rowType;
    private final FetchedBatches fetched;
    /** Whether the table is a primary-key table, whose log is a changelog. */
    private final boolean changelog;
    /** Whether each batch is emitted whole (to the operator island) rather than row by row. */
    private final boolean whole;
    private final ArrayDeque<BucketBatch> ready = new ArrayDeque<>();
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
    public RecordsWithSplitIds<BucketBatch.Row> fetch() {
        if (ready.isEmpty() && scanner != null) {
            ScanRecords records = scanner.poll(POLL);
            for (TableBucket bucket : records.buckets()) {
                ready.add(batch(bucket.getBucket(), records.records(bucket)));
            }
        }
        BucketBatch next = ready.poll();
        return fetched.track(next == null ? new BucketBatch() : next);
    }

    private BucketBatch batch(int bucket, List<ScanRecord> records) {
        long[] offsets = new long[records.size()];
        RowKind[] kinds = changelog ? new RowKind[offsets.length] : null;
        for (int i = 0; i < offsets.length; i++) {
            ScanRecord record = records.get(i);
            writer.append(view.wrap(record.getRow()));
            offsets[i] = record.logOffset();
            if (kinds != null) {
                kinds[i] = kind(record.getChangeType());
            }
        }
        VectorSchemaRoot own = ArrowRoots.moveTo(writer.finishBatch(), fetched.allocator());
        return new BucketBatch("bucket-" + bucket, own, ArrowColumnarBatch.of(own, rowType), offsets, kinds, whole);
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
        if (!(change instanceof SplitsAddition)) {
            throw new UnsupportedOperationException("The Fluss reader supports only split additions");
        }
        if (scanner == null) {
            connection = ref.connect();
            table = connection.getTable(ref.path());
            scanner = table.newScan().project(projection).createLogScanner();
            writer = RowDataArrowWriter.create(rowType, fetched.allocator());
            view = new FlussRowAsFlink(rowType);
        }
        for (BucketSplit split : change.splits()) {
            scanner.subscribe(split.bucket, split.offset);
        }
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
        try (AutoCloseable c = connection; AutoCloseable t = table; AutoCloseable s = scanner; AutoCloseable w = writer) {
            // Closed in reverse order: the writer's vectors, the scanner, the table, the connection.
        }
    }
}
