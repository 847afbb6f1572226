package dev.streamfusion.bridge.columnar;

import dev.streamfusion.bridge.ArrowBatchExporter;
import dev.streamfusion.bridge.ArrowBatchImporter;
import dev.streamfusion.bridge.NativeHandle;
import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.types.ArrowTypes;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.Arrays;

/**
 * Gathers rows in Flink's binary layout ({@link BinaryRowData}, what Flink's network stack and
 * many of its operators hand a sink) into Arrow batches, transposed natively: each row's bytes are
 * copied as they are, one after another, and one native call per batch reads every column of
 * every row at once. The Arrow schema is the bridge's mapping of the row type ({@link
 * ArrowTypes#toArrowSchema}), so the batches equal those of the Java writer.
 *
 * <p>Every type with a native binary layout ({@link #supports}), nested ARRAY, MAP, MULTISET and
 * ROW values included; a row type with another type is transposed by the Java writer. The row kind
 * is not read, as the Java writer does not read it either.
 */
@Internal
public final class BinaryRowsToArrow extends NativeHandle {

    /** The most bytes a Java array holds. */
    private static final int MAX_BYTES = Integer.MAX_VALUE - 8;

    private final int arity;
    private final ArrowBatchImporter importer;
    private byte[] bytes = new byte[64 * 1024];
    private int[] starts = new int[1025];
    private int length;
    private int count;

    private BinaryRowsToArrow(BufferAllocator allocator, Schema schema, int arity, long address) {
        super("binary rows reader", address, BinaryRowsToArrow::free0);
        this.arity = arity;
        this.importer = ArrowBatchImporter.forSchema(allocator, schema);
    }

    /** Whether every field of {@code rowType}, and every type within it, has a native binary layout. */
    public static boolean supports(RowType rowType) {
        return BinaryRowsWriter.supports(rowType);
    }

    /**
     * A reader of rows of {@code rowType} into batches from {@code allocator}, or {@code null}
     * where a field of {@code rowType} has no native binary layout. Text whose bytes are not UTF-8
     * is an error naming the column.
     */
    public static BinaryRowsToArrow create(BufferAllocator allocator, RowType rowType) {
        return create(allocator, rowType, false);
    }

    /**
     * As {@link #create(BufferAllocator, RowType)}; where {@code textAsJava}, text whose bytes are
     * not UTF-8 (a Flink {@code STRING} holds any bytes) is read as Java reads it, each malformed
     * sequence one U+FFFD as {@code StringData.toString()} gives it, rather than refused.
     */
    public static BinaryRowsToArrow create(BufferAllocator allocator, RowType rowType, boolean textAsJava) {
        if (!supports(rowType)) {
            return null;
        }
        NativeLibrary.load();
        int[][] types = BinaryRowsWriter.describe(rowType);
        Schema schema = ArrowTypes.toArrowSchema(rowType);
        long address =
                ArrowBatchExporter.exportSchema(
                allocator, schema, schemaAddress -> create(schemaAddress, types[0], types[1], textAsJava));
        return new BinaryRowsToArrow(allocator, schema, rowType.getFieldCount(), address);
    }

    /** Whether {@link #append} takes {@code row}: a {@link BinaryRowData} of this reader's arity. */
    public boolean takes(RowData row) {
        return row instanceof BinaryRowData && row.getArity() == arity;
    }

    /**
     * Copies {@code row} into the batch being gathered, if it is a {@link BinaryRowData} of this
     * reader's arity; the row is not referenced afterwards.
     *
     * @return whether the row was taken
     */
    public boolean append(RowData row) {
        if (!takes(row)) {
            return false;
        }
        BinaryRowData binary = (BinaryRowData) row;
        int size = binary.getSizeInBytes();
        long needed = (long) length + size;
        if (needed > MAX_BYTES) {
            throw new IllegalStateException("The rows gathered for one batch would take " + needed
                    + " bytes, more than a Java array holds; write smaller batches");
        }
        if (needed > bytes.length) {
            bytes = Arrays.copyOf(bytes, (int) Math.min(MAX_BYTES, Math.max(needed, 2L * bytes.length)));
        }
        if (count + 2 > starts.length) {
            starts = Arrays.copyOf(starts, starts.length * 2);
        }
        BinarySegmentUtils.copyToBytes(binary.getSegments(), binary.getOffset(), bytes, length, size);
        length += size;
        count++;
        starts[count] = length;
        return true;
    }

    /** Rows appended since the last {@link #finishBatch}. */
    public int appended() {
        return count;
    }

    /**
     * The appended rows as one batch; the root is reused by the next call and belongs to this
     * reader.
     */
    public synchronized VectorSchemaRoot finishBatch() {
        long handle = address();
        int rows = count;
        int used = length;
        count = 0;
        length = 0;
        return importer.importBatch(array -> read(handle, bytes, used, starts, rows, array));
    }

    @Override
    protected void closeJavaResources() {
        importer.close();
    }

    private static native long create(long schemaAddress, int[] codes, int[] precisions, boolean textAsJava);

    private static native int read(long handle, byte[] rows, int length, int[] starts, int count, long arrayAddress);

    private static native void free0(long handle);
}
