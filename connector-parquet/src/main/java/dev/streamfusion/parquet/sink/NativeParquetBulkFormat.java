package dev.streamfusion.parquet.sink;

import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.NativeException;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.parquet.ColumnPredicates;
import dev.streamfusion.parquet.FileRanges;
import dev.streamfusion.parquet.NativeParquetReader;

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

    private final RowType rowType;
    private final TypeInformation<RowData> producedType;
    /** {@code parquet.utc-timezone}. */
    private final boolean utcTimestamps;

    NativeParquetBulkFormat(RowType rowType, TypeInformation<RowData> producedType, boolean utcTimestamps) {
        this.rowType = rowType;
        this.producedType = producedType;
        this.utcTimestamps = utcTimestamps;
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

    /** Reads every row group of one file, a native batch per {@link #readBatch}. */
    private final class FileReader implements Reader<RowData> {

        private final BufferAllocator allocator = new RootAllocator();
        private final String location;
        private final FileRanges ranges;
        private final NativeParquetReader reader;
        private final MutableRecordAndPosition<RowData> position = new MutableRecordAndPosition<>();
        private long emitted;
        private long toSkip;
        /** The batch handed out last, until released. */
        private volatile VectorSchemaRoot current;

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
                                NativeParquetReader.int96Zone(utcTimestamps));
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
                if (toSkip > 0) {
                    try (VectorSchemaRoot slice = next.slice((int) toSkip)) {
                        own = ArrowRoots.moveTo(slice, allocator);
                    }
                    toSkip = 0;
                } else {
                    own = ArrowRoots.moveTo(next, allocator);
                }
                current = own;
                return new Batch(own, ArrowColumnarBatch.of(own, rowType));
            }
        }

        @Override
        public void close() throws IOException {
            try {
                reader.close();
                if (current != null) {
                    current.close();
                    current = null;
                }
                if (ranges != null) {
                    ranges.close();
                }
            } finally {
                allocator.close();
            }
        }

        /** The rows of one batch, each a view; the batch is freed when released. */
        private final class Batch implements RecordIterator<RowData> {
            private final VectorSchemaRoot root;
            private final ArrowColumnarBatch rows;
            private int next;

            Batch(VectorSchemaRoot root, ArrowColumnarBatch rows) {
                this.root = root;
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
                root.close();
                if (current == root) {
                    current = null;
                }
            }
        }
    }
}
