package dev.streamfusion.bridge.columnar;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The rows a source reader hands on from each of its batches: views over the Arrow columns, or,
 * where the reader is asked for the binary layout ({@code streamfusion.row-layout}) and the row
 * type has one, the batch's rows written natively in Flink's binary layout. One per split reader,
 * used from its fetcher thread; the writer is made for the first batch, whose schema every later
 * batch of the reader shares, and writes each batch's rows when the source reader's thread reads
 * the first of them: on a source whose fetcher thread decodes, the fetcher keeps to decoding.
 */
@Internal
public final class RowViews implements AutoCloseable {

    private final BufferAllocator allocator;
    private final RowType rowType;
    private final NestedProjection projection;
    private final boolean binary;
    private BinaryRowsWriter writer;
    private boolean opened;

    private RowViews(BufferAllocator allocator, RowType rowType, NestedProjection projection, boolean binary) {
        this.allocator = allocator;
        this.rowType = rowType;
        this.projection = projection;
        this.binary = binary;
    }

    /** Rows of {@code rowType}, the batches' columns one to one; binary ones when {@code binary}. */
    public static RowViews of(BufferAllocator allocator, RowType rowType, boolean binary) {
        return new RowViews(allocator, rowType, null, binary);
    }

    /** Rows of {@code projection}'s produced columns from batches of its pruned type. */
    public static RowViews of(BufferAllocator allocator, NestedProjection projection, boolean binary) {
        return new RowViews(allocator, projection.producedType(), projection, binary);
    }

    /**
     * The rows of {@code root}, which the caller keeps owning; the caller closes the result when
     * it frees {@code root}. On a failure nothing is left to free.
     */
    public ArrowColumnarBatch rows(VectorSchemaRoot root) {
        ArrowColumnarBatch rows = projection == null ? ArrowColumnarBatch.of(root, rowType) : ArrowColumnarBatch.of(root, projection);
        if (binary && !opened) {
            opened = true;
            writer =
                    projection == null
                            ? BinaryRowsWriter.create(allocator, root.getSchema(), rowType)
                            : BinaryRowsWriter.create(allocator, root.getSchema(), projection);
        }
        return rows.writeBinaryRows(writer, root);
    }

    @Override
    public void close() {
        if (writer != null) {
            writer.close();
            writer = null;
        }
    }
}
