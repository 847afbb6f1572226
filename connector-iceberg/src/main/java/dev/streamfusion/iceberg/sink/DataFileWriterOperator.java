package dev.streamfusion.iceberg.sink;

import dev.streamfusion.bridge.NativeException;
import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.sink.EncoderResources;
import dev.streamfusion.bridge.writer.SinkRows;
import dev.streamfusion.iceberg.internal.IcebergTableRef;
import dev.streamfusion.iceberg.internal.NativeIcebergWriter;
import dev.streamfusion.iceberg.internal.TableFiles;
import dev.streamfusion.iceberg.internal.WriterDescription;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.IOException;
import java.util.UUID;

/**
 * Writes what it receives as data files natively, with iceberg-rust: rows ({@link Rows}) or the
 * operator island's Arrow batches ({@link Batches}). Before each checkpoint barrier (and at the
 * end of the input) the open files are closed and their descriptions sent to the committer. Files
 * written after the last checkpoint of a failed attempt are never committed.
 */
@Internal
abstract class DataFileWriterOperator<T> extends AbstractStreamOperator<WriteResult>
        implements OneInputStreamOperator<T, WriteResult>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    /** Rows per native call. */
    static final int BATCH = 4096;

    private final IcebergTableRef table;
    final WriterDescription description;
    final RowType rowType;
    transient EncoderResources held;
    transient NativeIcebergWriter writer;
    /** The table's files that are not local, written through its {@code FileIO}. */
    private transient TableFiles files;
    transient boolean written;

    DataFileWriterOperator(IcebergTableRef table, WriterDescription description, RowType rowType) {
        this.table = table;
        this.description = description;
        this.rowType = rowType;
    }

    /**
     * Rows transposed into Arrow a batch at a time (with their kinds, for a table written from a
     * changelog, whose deleted rows become delete files); rows in Flink's binary layout natively
     * ({@link SinkRows}).
     */
    static final class Rows extends DataFileWriterOperator<RowData> {
        private static final long serialVersionUID = 1L;

        private transient SinkRows rows;
        /** The kinds of the rows appended to {@link #rows}, for a changelog. */
        private transient byte[] kinds;

        Rows(IcebergTableRef table, WriterDescription description, RowType rowType) {
            super(table, description, rowType);
        }

        @Override
        public void open() throws Exception {
            super.open();
            rows = held.open(allocator -> SinkRows.create(rowType, allocator));
            kinds = description.writesChanges() ? new byte[BATCH] : null;
        }

        @Override
        public void processElement(StreamRecord<RowData> element) throws IOException {
            RowData row = element.getValue();
            if (kinds == null && row.getRowKind() != RowKind.INSERT && row.getRowKind() != RowKind.UPDATE_AFTER) {
                throw new IOException("Table " + table() + " is written append-only, and a " + row.getRowKind()
                        + " row arrived; a changelog needs equality fields (a primary key) and a table of format version 2 or later");
            }
            VectorSchemaRoot before;
            try {
                before = rows.add(row);
            } catch (NativeException e) {
                throw writeFailed(e);
            }
            if (before != null) {
                write(before);
            }
            if (kinds != null) {
                // The row is the last one pending, after any batch handed back before it.
                kinds[rows.pending() - 1] = row.getRowKind().toByteValue();
            }
            if (rows.pending() >= BATCH) {
                writePending();
            }
        }

        @Override
        void writePending() throws IOException {
            VectorSchemaRoot pending;
            try {
                pending = rows.finishBatch();
            } catch (NativeException e) {
                throw writeFailed(e);
            }
            if (pending != null) {
                write(pending);
            }
        }

        private void write(VectorSchemaRoot batch) throws IOException {
            try {
                if (kinds != null) {
                    writer.writeChanges(batch, kinds);
                } else {
                    writer.write(batch);
                }
                written = true;
            } catch (NativeException e) {
                throw writeFailed(e);
            }
        }
    }

    /**
     * The operator island's batches, each written whole (the batches' buffers are encoded as they
     * are): inserts into a table without equality fields.
     */
    static final class Batches extends DataFileWriterOperator<ArrowBatch> {
        private static final long serialVersionUID = 1L;

        Batches(IcebergTableRef table, WriterDescription description, RowType rowType) {
            super(table, description, rowType);
        }

        @Override
        public void processElement(StreamRecord<ArrowBatch> element) throws IOException {
            ArrowBatch batch = element.getValue();
            try {
                if (batch.rowCount() > 0) {
                    writer.write(batch.root());
                    written = true;
                }
            } catch (NativeException e) {
                throw writeFailed(e);
            } finally {
                batch.release();
            }
        }

        @Override
        void writePending() {}
    }

    /** Writes what is held back (rows not yet in a batch). */
    abstract void writePending() throws IOException;

    String table() {
        return table.toString();
    }

    IOException writeFailed(NativeException e) {
        return new IOException("Cannot write data files of table " + table + ": " + e.getMessage(), e);
    }

    @Override
    public void open() throws Exception {
        super.open();
        // Unique per subtask and attempt: a restarted attempt never overwrites a file of an
        // earlier one (which a completed checkpoint may have committed).
        String prefix = String.format("%05d-%d-%s",
                getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                getRuntimeContext().getTaskInfo().getAttemptNumber(),
                UUID.randomUUID());
        held = new EncoderResources();
        files = new TableFiles(table);
        writer = held.open(allocator ->
                NativeIcebergWriter.open(allocator, description.withFilePrefix(prefix), rowType, files));
    }

    /** Closes the open files and sends what they hold to the committer, tagged {@code checkpointId}. */
    private void flush(long checkpointId) throws IOException {
        writePending();
        if (!written) {
            return;
        }
        try {
            output.collect(new StreamRecord<>(new WriteResult(checkpointId, writer.finish())));
            written = false;
            files.release();
        } catch (NativeException e) {
            throw new IOException("Cannot close data files of table " + table + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        flush(checkpointId);
    }

    @Override
    public void endInput() throws IOException {
        flush(Long.MAX_VALUE);
    }

    @Override
    public void close() throws Exception {
        try {
            if (held != null) {
                held.close();
            }
        } finally {
            try {
                if (files != null) {
                    files.close();
                }
            } finally {
                super.close();
            }
        }
    }
}
