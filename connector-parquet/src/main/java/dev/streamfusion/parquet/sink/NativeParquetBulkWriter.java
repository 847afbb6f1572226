package dev.streamfusion.parquet.sink;

import dev.streamfusion.bridge.NativeException;
import dev.streamfusion.bridge.sink.EncoderResources;
import dev.streamfusion.bridge.writer.SinkRows;
import dev.streamfusion.parquet.internal.NativeParquetWriter;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.util.Map;

/**
 * One part file of Flink's file sink, encoded natively: rows are transposed into Arrow as they
 * arrive (the sink may reuse a row once handed over, so none is kept; rows in Flink's binary
 * layout are copied as bytes and transposed natively a batch at a time, see {@link SinkRows}),
 * each full batch is encoded
 * by parquet-rs, and the encoded bytes are copied into the part file's stream when a row group is
 * complete and at {@link #finish}.
 *
 * <p>The subtask's {@link WriterMemory} may close this file's row group early to stay under its
 * limit. Flink abandons a part file's writer without a call when a job fails (its file sink only
 * closes the stream); the native writer and the Arrow buffers are then freed when the writer
 * becomes unreachable.
 */
@Internal
final class NativeParquetBulkWriter implements BulkWriter<RowData> {

    /** Rows per native call. */
    static final int BATCH = 4096;

    private static final Cleaner CLEANER = Cleaner.create();

    private final FSDataOutputStream out;
    private final String file;
    private final Resources resources;
    private final WriterMemory memory;
    private final Cleaner.Cleanable cleanable;

    NativeParquetBulkWriter(
            FSDataOutputStream out, String file, RowType rowType, Map<String, String> options, WriterMemory memory) {
        this.out = out;
        this.file = file;
        this.memory = memory;
        this.resources = new Resources(out, file, rowType, options, memory);
        this.cleanable = CLEANER.register(this, resources);
        memory.opened(resources);
    }

    @Override
    public void addElement(RowData row) throws IOException {
        VectorSchemaRoot before;
        try {
            before = resources.rows.add(row);
        } catch (NativeException e) {
            throw failed(file, e);
        }
        if (before != null) {
            encode(before);
        }
        if (resources.rows.pending() >= BATCH) {
            encodePending();
        }
    }

    /**
     * Encodes a whole batch of the file's row type as it is, after the rows appended before it:
     * the batch's buffers are read natively, never transposed.
     */
    void addBatch(VectorSchemaRoot batch) throws IOException {
        encodePending();
        encode(batch);
    }

    @Override
    public void flush() throws IOException {
        encodePending();
    }

    @Override
    public void finish() throws IOException {
        try {
            encodePending();
            resources.writer.finish();
            resources.writer.drainTo(out);
        } catch (NativeException e) {
            throw failed(file, e);
        } finally {
            cleanable.clean();
        }
    }

    private void encodePending() throws IOException {
        VectorSchemaRoot pending;
        try {
            pending = resources.rows.finishBatch();
        } catch (NativeException e) {
            throw failed(file, e);
        }
        if (pending != null) {
            encode(pending);
        }
    }

    private void encode(VectorSchemaRoot batch) throws IOException {
        try {
            resources.writer.write(batch);
            // A completed row group's bytes go out now; the one in progress stays native.
            resources.writer.drainTo(out);
        } catch (NativeException e) {
            throw failed(file, e);
        }
        memory.written();
    }

    private static IOException failed(String file, NativeException e) {
        return new IOException("Failed to write Parquet part file for " + file + ": " + e.getMessage(), e);
    }

    /**
     * What the writer holds natively and in Arrow; closed once, by finish or by the cleaner. It
     * keeps no reference to its {@link NativeParquetBulkWriter}, so the cleaner can run.
     */
    private static final class Resources implements Runnable, WriterMemory.Part {
        final FSDataOutputStream out;
        final String file;
        final WriterMemory memory;
        final EncoderResources held = new EncoderResources();
        final SinkRows rows;
        final NativeParquetWriter writer;

        Resources(FSDataOutputStream out, String file, RowType rowType, Map<String, String> options, WriterMemory memory) {
            this.out = out;
            this.file = file;
            this.memory = memory;
            this.rows = held.open(allocator -> SinkRows.create(rowType, allocator));
            this.writer = held.open(allocator -> NativeParquetWriter.open(allocator, file, rowType, options));
        }

        @Override
        public long memoryBytes() {
            return writer.memoryBytes() + held.allocator().getAllocatedMemory();
        }

        @Override
        public void closeRowGroup() throws IOException {
            try {
                writer.flushRowGroup();
                writer.drainTo(out);
            } catch (NativeException e) {
                throw failed(file, e);
            }
        }

        @Override
        public void run() {
            memory.closed(this);
            held.close();
        }
    }
}
