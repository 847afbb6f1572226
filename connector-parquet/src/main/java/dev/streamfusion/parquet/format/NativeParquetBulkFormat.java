package dev.streamfusion.parquet.format;

import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.NativeException;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.parquet.internal.ColumnPredicates;
import dev.streamfusion.parquet.internal.FileRanges;
import dev.streamfusion.parquet.internal.MemoryLimit;
import dev.streamfusion.parquet.internal.NativeParquetReader;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.connector.file.src.util.MutableRecordAndPosition;
import org.apache.flink.connector.file.src.util.RecordAndPosition;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Whole Parquet files read natively as a bulk format of Flink's file connectors: what Flink's
 * file sink uses to read part files back when it compacts them ({@code auto-compaction}), and
 * what {@code 'format' = 'streamfusion-parquet'} reads with under the filesystem connector. A
 * file is one split; a restored reader skips the rows emitted before.
 */
@Internal
final class NativeParquetBulkFormat implements BulkFormat<RowData, FileSourceSplit> {

    private static final long serialVersionUID = 1L;
    private static final int BATCH = 4096;
    /** Frees the batches a cancelled task left unreleased. */
    private static final Cleaner BATCHES = Cleaner.create();

    private final RowType rowType;
    private final TypeInformation<RowData> producedType;
    /** {@code parquet.utc-timezone}. */
    private final boolean utcTimestamps;
    /** What one file's reader may hold outside the heap. */
    private final MemoryLimit limit;

    NativeParquetBulkFormat(
            RowType rowType, TypeInformation<RowData> producedType, boolean utcTimestamps, MemoryLimit limit) {
        this.rowType = rowType;
        this.producedType = producedType;
        this.utcTimestamps = utcTimestamps;
        this.limit = limit;
    }

    @Override
    public Reader<RowData> createReader(Configuration config, FileSourceSplit split) throws IOException {
        return new FileReader(split, 0);
    }

    @Override
    public Reader<RowData> restoreReader(Configuration config, FileSourceSplit split) throws IOException {
        long emitted = split.getReaderPosition().map(CheckpointedPosition::getRecordsAfterOffset).orElse(0L);
        return new FileReader(split, emitted);
    }

    @Override
    public boolean isSplittable() {
        return false;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }

    /**
     * Reads every row group of one file, a native batch per {@link #readBatch}.
     *
     * <p>Flink's file source fetches ahead: it closes a file's reader on its fetcher thread when
     * the file ends, while batches of the file may still wait in the queue or be read on the task
     * thread. A batch is therefore freed only by {@link Batch#releaseBatch()} on the thread that
     * consumed it; the allocator closes once the reader is closed and its last batch released. A
     * batch that is never released (the task was cancelled with it queued) is freed when it
     * becomes unreachable.
     */
    private final class FileReader implements Reader<RowData> {

        private final BufferAllocator allocator = new RootAllocator();
        private final String location;
        private final FileRanges ranges;
        private final NativeParquetReader reader;
        private final MutableRecordAndPosition<RowData> position = new MutableRecordAndPosition<>();
        /** The batches handed out and not yet released. */
        private final Set<VectorSchemaRoot> live = new HashSet<>();
        private long emitted;
        private long toSkip;
        /** Guarded by {@code live}. */
        private boolean closed;

        FileReader(FileSourceSplit split, long emitted) throws IOException {
            String uri = split.path().toString();
            this.location = FileRanges.isLocal(uri) ? FileRanges.localPath(uri) : uri;
            this.emitted = emitted;
            this.toSkip = emitted;
            FileRanges opened = null;
            try {
                opened = FileRanges.isLocal(uri) ? null : FileRanges.open(uri, split.fileSize());
                long[] rows = NativeParquetReader.rowGroups(location, opened, ColumnPredicates.NONE);
                int[] groups = IntStream.range(0, rows.length).toArray();
                String[][] columns =
                        rowType.getFieldNames().stream().map(name -> new String[] {name}).toArray(String[][]::new);
                this.reader =
                        NativeParquetReader.open(
                                allocator,
                                location,
                                opened,
                                groups,
                                rowType,
                                columns,
                                BATCH,
                                ColumnPredicates.NONE,
                                NativeParquetReader.timestampZone(utcTimestamps));
            } catch (NativeException | IOException e) {
                if (opened != null) {
                    opened.close();
                }
                allocator.close();
                throw new IOException("Cannot read " + location + ": " + e.getMessage(), e);
            }
            this.ranges = opened;
        }

        @Override
        public RecordIterator<RowData> readBatch() throws IOException {
            while (true) {
                VectorSchemaRoot next;
                try {
                    next = reader.next();
                } catch (NativeException e) {
                    throw new IOException("Cannot read " + location + ": " + e.getMessage(), e);
                }
                if (next == null) {
                    return null;
                }
                int rows = next.getRowCount();
                if (toSkip >= rows) {
                    toSkip -= rows;
                    continue;
                }
                VectorSchemaRoot own;
                synchronized (live) {
                    if (toSkip > 0) {
                        try (VectorSchemaRoot slice = next.slice((int) toSkip)) {
                            own = ArrowRoots.moveTo(slice, allocator);
                        }
                        toSkip = 0;
                    } else {
                        own = ArrowRoots.moveTo(next, allocator);
                    }
                    // Counted only under a limit: the format reports no metric to keep current.
                    if (limit.bounded()) {
                        try {
                            limit.check(
                                    allocator.getAllocatedMemory() + reader.heldBytes(),
                                    "The Parquet reader of " + location,
                                    "read fewer columns or files of smaller row groups");
                        } catch (IOException e) {
                            own.close();
                            throw e;
                        }
                    }
                    live.add(own);
                }
                Batch batch = new Batch(ArrowColumnarBatch.of(own, rowType));
                batch.freeing = BATCHES.register(batch, releasing(own));
                return batch;
            }
        }

        /** What frees {@code root}; it holds the root, never the batch over it. */
        private Runnable releasing(VectorSchemaRoot root) {
            return () -> release(root);
        }

        /** Frees a batch handed out (once), and the allocator after the last one of a closed reader. */
        private void release(VectorSchemaRoot root) {
            synchronized (live) {
                if (live.remove(root)) {
                    root.close();
                }
                closeAllocatorWhenDone();
            }
        }

        private void closeAllocatorWhenDone() {
            if (closed && live.isEmpty()) {
                allocator.close();
            }
        }

        @Override
        public void close() throws IOException {
            try {
                reader.close();
                if (ranges != null) {
                    ranges.close();
                }
            } finally {
                synchronized (live) {
                    if (!closed) {
                        closed = true;
                        closeAllocatorWhenDone();
                    }
                }
            }
        }

        /** The rows of one batch, each a view; the batch is freed when released. */
        private final class Batch implements RecordIterator<RowData> {
            private final ArrowColumnarBatch rows;
            private Cleaner.Cleanable freeing;
            private int next;

            Batch(ArrowColumnarBatch rows) {
                this.rows = rows;
            }

            @Override
            public RecordAndPosition<RowData> next() {
                if (next >= rows.rowCount()) {
                    return null;
                }
                emitted++;
                position.set(rows.row(next++), CheckpointedPosition.NO_OFFSET, emitted);
                return position;
            }

            @Override
            public void releaseBatch() {
                // The views first: a sink holding rows of them copies those before the columns go.
                try {
                    rows.close();
                } finally {
                    freeing.clean();
                }
            }
        }
    }
}
