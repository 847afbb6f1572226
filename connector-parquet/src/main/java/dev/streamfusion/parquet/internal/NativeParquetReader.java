package dev.streamfusion.parquet.internal;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.source.NativeBatchReader;
import dev.streamfusion.bridge.types.ArrowTypes;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;

import java.time.ZoneId;

/**
 * Row groups of one local Parquet file read natively (parquet-rs) into Arrow batches of a row
 * type: only its columns are decoded, matched to the file's by name; a column the file lacks
 * reads as NULLs.
 */
@Internal
public final class NativeParquetReader extends NativeBatchReader {

    private NativeParquetReader(Created created) {
        super("Parquet reader", created, NativeParquetReader::free0, NativeParquetReader::next);
    }

    /**
     * The number of rows of each row group of a file, -1 for a row group whose statistics prove
     * that no row satisfies {@code predicates}.
     *
     * @throws dev.streamfusion.bridge.NativeIoException naming the file when it cannot be read
     */
    public static long[] rowGroups(String path, ColumnPredicates predicates) {
        return rowGroups(path, null, predicates);
    }

    /**
     * {@link #rowGroups(String, ColumnPredicates)} of a file read through {@code ranges}, or of
     * the local file at {@code path} when {@code ranges} is {@code null}.
     */
    public static long[] rowGroups(String path, FileRanges ranges, ColumnPredicates predicates) {
        NativeLibrary.load();
        return rowGroups0(
                path, ranges, predicates.columns(), predicates.ops(), predicates.kinds(), predicates.values());
    }

    /** {@code parquet.utc-timezone} of a table's (or a format's) options, {@code false} where unset. */
    public static boolean utcTimestamps(java.util.Map<String, String> options) {
        return "true".equalsIgnoreCase(options.getOrDefault("parquet.utc-timezone", "false").trim());
    }

    /**
     * The zone timestamps (INT96, and INT64 with a timestamp annotation) read in under {@code
     * parquet.utc-timezone}: {@code null} (UTC) when it is true, else, as Flink's reader does, the
     * zone of the JVM that reads them.
     */
    public static String timestampZone(boolean utcTimestamps) {
        // A fixed offset however it is spelled (GMT+08:00 reads as +08:00); regions by name.
        return utcTimestamps ? null : ZoneId.systemDefault().normalized().getId();
    }

    /**
     * A reader of {@code rowGroups} of the file read through {@code ranges} (kept in use until the
     * reader is closed), or of the local file at {@code path} when {@code ranges} is {@code null},
     * {@code batchSize} rows a batch; column {@code i} of {@code rowType} is the file's column at
     * the path of names {@code columnsRead[i]} (a top-level column or a field nested in one),
     * skipping pages whose page-index bounds prove that none of their rows satisfies {@code
     * predicates}. Timestamps (INT96, and INT64 with a timestamp annotation) read as wall-clock
     * time of {@code timestampZone} (a zone id), or of UTC when it is {@code null}.
     */
    public static NativeParquetReader open(
            BufferAllocator allocator,
            String path,
            FileRanges ranges,
            int[] rowGroups,
            RowType rowType,
            String[][] columnsRead,
            int batchSize,
            ColumnPredicates predicates,
            String timestampZone) {
        NativeLibrary.load();
        return new NativeParquetReader(create(
                allocator,
                ArrowTypes.toNativeSchema(rowType),
                exported -> create(
                        path,
                        ranges,
                        rowGroups,
                        exported,
                        columnsRead,
                        batchSize,
                        predicates.columns(),
                        predicates.ops(),
                        predicates.kinds(),
                        predicates.values(),
                        timestampZone)));
    }

    /**
     * Bytes of the file the reader holds natively: the footer and the column chunks it decodes of
     * a file read through {@code ranges}; 0 for a local file, read a page at a time.
     */
    public synchronized long heldBytes() {
        return heldBytes0(address());
    }

    /** Rows of the reader's row groups that the page index ruled out (never read). */
    public synchronized long skippedRows() {
        return skippedRows0(address());
    }

    private static native long[] rowGroups0(
            String path, FileRanges ranges, String[] columns, int[] ops, int[] kinds, String[] values);

    private static native long create(
            String path,
            FileRanges ranges,
            int[] rowGroups,
            long schemaAddress,
            String[][] columnsRead,
            int batchSize,
            String[] columns,
            int[] ops,
            int[] kinds,
            String[] values,
            String timestampZone);

    private static native long skippedRows0(long handle);

    private static native long heldBytes0(long handle);

    private static native int next(long handle, long outArrayAddress);

    private static native void free0(long handle);
}
