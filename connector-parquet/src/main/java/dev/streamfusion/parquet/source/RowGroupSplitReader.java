package dev.streamfusion.parquet.source;

import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.NativeException;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.columnar.RowViews;
import dev.streamfusion.bridge.source.FetchedBatches;
import dev.streamfusion.parquet.internal.FileRanges;
import dev.streamfusion.parquet.internal.MemoryLimit;
import dev.streamfusion.parquet.internal.NativeParquetReader;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Set;

/**
 * Reads the assigned row groups one after another, a native batch per fetch, skipping the pages
 * the page index rules out for the table's filters. A split restored with rows already emitted
 * skips them (the pages skipped are the same on every read, so the rows emitted are too).
 */
@Internal
final class RowGroupSplitReader implements SplitReader<ParquetBatch.Row, RowGroupSplit> {

    private final RowType rowType;
    /** Per column of {@link #rowType}: the path of names of the file's column. */
    private final String[][] columnsRead;
    private final int batchSize;
    /** The zone INT96 timestamps read as wall-clock time of, or {@code null} for UTC. */
    private final String timestampZone;
    private final FileListing listing;
    private final ReadMetrics metrics;
    /** Rows left to read under a pushed-down LIMIT, or -1 without one. */
    private long remaining;
    private final BufferAllocator allocator;
    /** What this subtask's reader (native and Arrow, batches waiting included) may hold. */
    private final MemoryLimit memoryLimit;
    private final FetchedBatches fetched;
    private final ArrayDeque<RowGroupSplit> splits = new ArrayDeque<>();
    private RowGroupSplit current;
    private NativeParquetReader reader;
    /** The current file's ranges when it is read through Flink's file system, else {@code null}. */
    private FileRanges ranges;
    /** Rows of the current split still to skip (emitted before a restore). */
    private long toSkip;
    /** Whether each batch is emitted whole (for the operator island) rather than row by row. */
    private final boolean whole;
    private final RowViews views;

    RowGroupSplitReader(
            RowType rowType,
            String[][] columnsRead,
            int batchSize,
            long limit,
            FileListing listing,
            String timestampZone,
            ReadMetrics metrics,
            FetchedBatches fetched,
            MemoryLimit memoryLimit,
            boolean whole,
            boolean binaryRows) {
        this.whole = whole;

        this.memoryLimit = memoryLimit;
        this.rowType = rowType;
        this.columnsRead = columnsRead;
        this.listing = listing;
        this.metrics = metrics;
        this.timestampZone = timestampZone;
        this.batchSize = batchSize;
        this.remaining = limit;
        this.allocator = fetched.allocator();
        this.fetched = fetched;
        this.views = RowViews.of(allocator, rowType, binaryRows);
    }

    @Override
    public RecordsWithSplitIds<ParquetBatch.Row> fetch() throws IOException {
        if (current == null) {
            current = splits.poll();
            if (current == null) {
                return fetched.track(new ParquetBatch(null, null, null, Set.of(), whole));
            }
            toSkip = current.emitted;
            if (remaining != 0) {
                try {
                    ranges = listing.ranges(current.path, current.fileSize);
                    reader = NativeParquetReader.open(
                            allocator,
                            current.path,
                            ranges,
                            new int[] {current.rowGroup},
                            rowType,
                            columnsRead,
                            batchSize,
                            listing.predicates(),
                            timestampZone);
                    metrics.pageSkippedRows.inc(reader.skippedRows());
                } catch (NativeException e) {
                    throw new IOException("Cannot read " + current + ": " + e.getMessage(), e);
                }
            }
        }
        while (true) {
            if (remaining == 0) {
                // The LIMIT is reached: the split finishes, and later ones finish unread.
                String finished = current.splitId();
                closeReader();
                return fetched.track(new ParquetBatch(null, null, null, Set.of(finished), whole));
            }
            VectorSchemaRoot batch;
            try {
                batch = reader.next();
            } catch (NativeException e) {
                throw new IOException("Cannot read " + current + ": " + e.getMessage(), e);
            }
            if (batch == null) {
                String finished = current.splitId();
                closeReader();
                return fetched.track(new ParquetBatch(null, null, null, Set.of(finished), whole));
            }
            int rows = batch.getRowCount();
            if (toSkip >= rows) {
                toSkip -= rows;
                continue;
            }
            VectorSchemaRoot own = ArrowRoots.moveTo(batch, (int) toSkip, allocator);
            toSkip = 0;
            long held = allocator.getAllocatedMemory() + reader.heldBytes();
            metrics.memoryBytes = held;
            try {
                memoryLimit.check(
                        held,
                        "The Parquet reader of " + current,
                        "read fewer columns or files of smaller row groups");
            } catch (IOException e) {
                own.close();
                throw e;
            }
            if (remaining >= 0) {
                if (own.getRowCount() > remaining) {
                    own.setRowCount((int) remaining);
                }
                remaining -= own.getRowCount();
            }
            ArrowColumnarBatch view;
            try {
                view = views.rows(own);
            } catch (RuntimeException e) {
                own.close();
                throw e;
            }
            return fetched.track(new ParquetBatch(current.splitId(), own, view, Set.of(), whole));
        }
    }

    @Override
    public void handleSplitsChanges(SplitsChange<RowGroupSplit> change) {
        if (!(change instanceof SplitsAddition)) {
            throw new UnsupportedOperationException("The Parquet reader supports only split additions");
        }
        splits.addAll(change.splits());
    }

    @Override
    public void wakeUp() {}

    private void closeReader() throws IOException {
        if (reader != null) {
            reader.close();
            reader = null;
        }
        if (ranges != null) {
            metrics.bytesRequested.inc(ranges.bytesRead());
            ranges.close();
            ranges = null;
        }
        current = null;
    }

    @Override
    public void close() throws IOException {
        try {
            closeReader();
        } finally {
            views.close();
        }
    }
}
