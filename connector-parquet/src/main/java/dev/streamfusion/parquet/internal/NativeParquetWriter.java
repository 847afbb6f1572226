package dev.streamfusion.parquet.internal;

import dev.streamfusion.bridge.ArrowBatchExporter;
import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.NativeHandle;
import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.types.ArrowTypes;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

/**
 * One Parquet file encoded natively (parquet-rs) from Arrow batches of a row type. The encoded
 * bytes stay native until {@link #drainTo} copies them into the caller's stream; a row group's
 * bytes appear when it is full ({@code parquet.block.size}) or the file is finished.
 */
@Internal
public final class NativeParquetWriter extends NativeHandle {

    /** Largest copy from native memory into the stream at once. */
    private static final int CHUNK = 1 << 20;

    private final BufferAllocator allocator;
    /** The schema the native writer reads every batch by. */
    private final Schema schema;
    private final String file;

    private NativeParquetWriter(long address, BufferAllocator allocator, Schema schema, String file) {
        super("Parquet writer", address, NativeParquetWriter::free0);
        this.allocator = allocator;
        this.schema = schema;
        this.file = file;
    }

    /**
     * Checks writer options ({@code parquet.*} keys, as Flink's parquet format names them).
     *
     * @throws dev.streamfusion.bridge.NativeConfigException naming the option and its value
     */
    public static void validate(Map<String, String> options) {
        NativeLibrary.load();
        validate0(keys(options), values(options));
    }

    /**
     * A writer of rows of {@code rowType}; {@code file} names the file in errors. Under {@code
     * parquet.utc-timezone} = {@code false} (the default) timestamps are written as the instants
     * their wall-clock time names in this JVM's zone, as Flink's writer writes them; as UTC
     * wall-clock time when it is {@code true}.
     */
    public static NativeParquetWriter open(
            BufferAllocator allocator, String file, RowType rowType, Map<String, String> options) {
        NativeLibrary.load();
        Schema schema = ArrowTypes.toNativeSchema(rowType);
        Map<String, String> zoned = new java.util.LinkedHashMap<>(options);
        String zone = NativeParquetReader.timestampZone(NativeParquetReader.utcTimestamps(options));
        if (zone != null) {
            zoned.put(TIMESTAMP_ZONE_OPTION, zone);
        }
        long address =
                ArrowBatchExporter.exportSchema(
                        allocator, schema, exported -> create(file, exported, keys(zoned), values(zoned)));
        return new NativeParquetWriter(address, allocator, schema, file);
    }

    /** The native writer's option naming the zone timestamps are wall-clock time of. */
    static final String TIMESTAMP_ZONE_OPTION = "streamfusion.timestamp-zone";

    /**
     * Encodes the batch in {@code root}.
     *
     * @throws IllegalArgumentException if the batch's column types are not the writer's (a batch
     *     another component made: the native side would read it by the writer's schema)
     */
    public synchronized void write(VectorSchemaRoot root) {
        long handle = address();
        ArrowRoots.checkLayout(schema, root, "Parquet writer of " + file);
        ArrowBatchExporter.exportBatch(allocator, root, exported -> {
            write0(handle, exported);
            return null;
        });
    }

    /** Closes the row group in progress early, as when it is full; {@link #drainTo} then hands it out. */
    public synchronized void flushRowGroup() {
        flushRowGroup0(address());
    }

    /** Bytes the writer holds natively: the row group it encodes and the encoded bytes not drained. */
    public synchronized long memoryBytes() {
        return memoryBytes0(address());
    }

    /** Writes the last row group and the footer; {@link #drainTo} then hands out the rest. */
    public synchronized void finish() {
        finish0(address());
    }

    /** Copies every encoded byte waiting natively into {@code out}. */
    public synchronized void drainTo(OutputStream out) throws IOException {
        long handle = address();
        long waiting = spooledBytes0(handle);
        if (waiting == 0) {
            return;
        }
        byte[] chunk = new byte[(int) Math.min(waiting, CHUNK)];
        int n;
        while ((n = drain0(handle, chunk)) > 0) {
            out.write(chunk, 0, n);
        }
    }

    private static String[] keys(Map<String, String> options) {
        return options.keySet().toArray(new String[0]);
    }

    private static String[] values(Map<String, String> options) {
        return options.keySet().stream().map(options::get).toArray(String[]::new);
    }

    private static native void validate0(String[] keys, String[] values);

    private static native long create(String file, long schemaAddress, String[] keys, String[] values);

    private static native void write0(long handle, long arrayAddress);

    private static native void flushRowGroup0(long handle);

    private static native long memoryBytes0(long handle);

    private static native void finish0(long handle);

    private static native int drain0(long handle, byte[] chunk);

    private static native long spooledBytes0(long handle);

    private static native void free0(long handle);
}
