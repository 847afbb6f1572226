package dev.streamfusion.bridge.columnar;

import dev.streamfusion.bridge.ArrowBatchExporter;
import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.NativeHandle;
import dev.streamfusion.bridge.NativeLibrary;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes each Arrow batch of one schema as rows in Flink's binary layout, natively, into one
 * buffer outside the heap; the rows are read as {@link BinaryRowData} views over it. Where a stock
 * operator follows a source, Flink copies each row it is handed into the next chained operator
 * (unless the job reuses objects): a {@link BinaryRowData} is copied as one byte copy, where a
 * {@code ColumnarRowData} view is copied field by field into a new object per value.
 *
 * <p>The rows hold exactly the bytes Flink's {@code RowDataSerializer#toBinaryRow} writes for the
 * same values, nested ARRAY, MAP, MULTISET and ROW values as Flink's {@code BinaryArrayData}, {@code
 * BinaryMapData} and nested {@code BinaryRowData}. Types with a native layout: every type the
 * bridge maps to Arrow but VARIANT ({@link #supports}); a row type with any other keeps {@code
 * ColumnarRowData}.
 */
@Internal
public final class BinaryRowsWriter extends NativeHandle {

    private final BufferAllocator allocator;
    private final Schema schema;
    private final int arity;

    private BinaryRowsWriter(BufferAllocator allocator, Schema schema, int arity, long address) {
        super("binary rows writer", address, BinaryRowsWriter::free0);
        this.allocator = allocator;
        this.schema = schema;
        this.arity = arity;
    }

    /** Whether every field of {@code rowType} has a native binary layout. */
    public static boolean supports(RowType rowType) {
        return rowType.getChildren().stream().allMatch(BinaryRowsWriter::supports);
    }

    private static boolean supports(LogicalType type) {
        return code(type) >= 0 && type.getChildren().stream().allMatch(BinaryRowsWriter::supports);
    }

    /**
     * A writer of batches of {@code batchSchema} as rows of its columns, one to one, of {@code
     * rowType}, or {@code null} where {@code rowType} has a field with no native layout.
     */
    public static BinaryRowsWriter create(BufferAllocator allocator, Schema batchSchema, RowType rowType) {
        int[][] paths = new int[rowType.getFieldCount()][];
        for (int c = 0; c < paths.length; c++) {
            paths[c] = new int[] {c};
        }
        return create(allocator, batchSchema, rowType, paths);
    }

    /**
     * A writer of batches of {@code batchSchema} (of {@code projection}'s pruned type) as rows of
     * the projected columns, nested fields lifted to columns of their own (NULL where a row
     * holding them is), or {@code null} where a projected field has no native layout.
     */
    public static BinaryRowsWriter create(BufferAllocator allocator, Schema batchSchema, NestedProjection projection) {
        return create(allocator, batchSchema, projection.producedType(), projection.prunedPaths());
    }

    private static BinaryRowsWriter create(BufferAllocator allocator, Schema batchSchema, RowType rowType, int[][] paths) {
        if (!supports(rowType)) {
            return null;
        }
        NativeLibrary.load();
        int fields = rowType.getFieldCount();
        int[][] types = describe(rowType);
        int[] codes = types[0];
        int[] precisions = types[1];
        int pathInts = 0;
        for (int[] path : paths) {
            pathInts += 1 + path.length;
        }
        int[] flatPaths = new int[pathInts];
        int at = 0;
        for (int[] path : paths) {
            flatPaths[at++] = path.length;
            for (int index : path) {
                flatPaths[at++] = index;
            }
        }
        long address =
                ArrowBatchExporter.exportSchema(
                        allocator, batchSchema, schemaAddress -> create(schemaAddress, codes, precisions, flatPaths));
        return new BinaryRowsWriter(allocator, batchSchema, fields, address);
    }

    /**
     * The rows of {@code batch}; the caller closes them, after which no row read from them may be
     * used.
     *
     * @throws IllegalArgumentException if {@code batch} does not have the writer's schema
     */
    public synchronized Rows write(VectorSchemaRoot batch) {
        long handle = address();
        ArrowRoots.checkLayout(schema, batch, "binary rows writer");
        ByteBuffer buffer = ArrowBatchExporter.exportBatch(allocator, batch, array -> write(handle, array));
        return new Rows(buffer, batch.getRowCount(), arity);
    }

    /**
     * As {@link #write}, or {@code null} when this writer is closed (its reader shut down while
     * the batch's rows were still being handed on); safe from any thread.
     */
    public synchronized Rows writeUnlessClosed(VectorSchemaRoot batch) {
        return isClosed() ? null : write(batch);
    }

    /**
     * One batch's rows in one native buffer: the start of each row and the end of the last as
     * {@code int}s, then the rows.
     */
    public static final class Rows implements AutoCloseable {

        private final ByteBuffer buffer;
        private final MemorySegment segment;
        private final BinaryRowData view;
        private final int rowCount;
        private boolean closed;

        private Rows(ByteBuffer buffer, int rowCount, int arity) {
            this.buffer = buffer.order(ByteOrder.LITTLE_ENDIAN);
            this.segment = MemorySegmentFactory.wrapOffHeapMemory(buffer);
            this.rowCount = rowCount;
            this.view = new BinaryRowData(arity);
        }

        public int rowCount() {
            return rowCount;
        }

        /** The shared view of row {@code rowId}; it moves on the next call. */
        public BinaryRowData row(int rowId) {
            if (closed) {
                throw new IllegalStateException("the rows are closed");
            }
            int start = buffer.getInt(rowId * Integer.BYTES);
            int end = buffer.getInt((rowId + 1) * Integer.BYTES);
            view.pointTo(segment, start, end - start);
            return view;
        }

        /**
         * Frees the buffer; once. The segment is freed first, so a view still held (a string or
         * nested value read from a row) fails when read, rather than reading freed memory.
         */
        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                segment.free();
                release(buffer);
            }
        }
    }

    /**
     * The field types of {@code rowType} as the native code reads them ({@link #describe(LogicalType,
     * List)}): their codes, then their precisions.
     */
    static int[][] describe(RowType rowType) {
        List<int[]> types = new ArrayList<>();
        for (LogicalType field : rowType.getChildren()) {
            describe(field, types);
        }
        return new int[][] {
            types.stream().mapToInt(t -> t[0]).toArray(), types.stream().mapToInt(t -> t[1]).toArray()
        };
    }

    /**
     * Adds {@code type} to {@code types} as the native writer reads types: in pre-order, a code
     * and a precision per type (a ROW's arity as its precision), then an ARRAY's or MULTISET's
     * element, a MAP's key and value, a ROW's fields.
     */
    private static void describe(LogicalType type, List<int[]> types) {
        int precision = type.getTypeRoot() == LogicalTypeRoot.ROW ? type.getChildren().size() : precision(type);
        types.add(new int[] {code(type), precision});
        for (LogicalType child : type.getChildren()) {
            describe(child, types);
        }
    }

    /**
     * The native code of a type's layout, or -1 where it has none: the codes {@code
     * ColumnType::read} reads in {@code crates/operators/src/binary_rows.rs}.
     */
    static int code(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return 0;
            case TINYINT:
                return 1;
            case SMALLINT:
                return 2;
            case INTEGER:
                return 3;
            case BIGINT:
                return 4;
            case FLOAT:
                return 5;
            case DOUBLE:
                return 6;
            case DECIMAL:
                return 7;
            case CHAR:
            case VARCHAR:
            case BINARY:
            case VARBINARY:
                return 8;
            case DATE:
                return 9;
            case TIME_WITHOUT_TIME_ZONE:
                return 10;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return 11;
            case INTERVAL_YEAR_MONTH:
                return 12;
            case INTERVAL_DAY_TIME:
                return 13;
            case ARRAY:
                return 14;
            case MAP:
                return 15;
            case MULTISET:
                return 16;
            case ROW:
                return 17;
            default:
                return -1;
        }
    }

    static int precision(LogicalType type) {
        switch (type.getTypeRoot()) {
            case DECIMAL:
                return ((DecimalType) type).getPrecision();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return ((TimestampType) type).getPrecision();
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return ((LocalZonedTimestampType) type).getPrecision();
            default:
                return 0;
        }
    }

    private static native long create(long schemaAddress, int[] codes, int[] precisions, int[] paths);

    private static native ByteBuffer write(long handle, long arrayAddress);

    private static native void release(ByteBuffer buffer);

    private static native void free0(long handle);
}
