package dev.streamfusion.operators.runtime;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.columnar.RowViews;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.IOUtils;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The island's edge back to stock Flink: each row of a batch goes on as a view over the batch
 * (the next operator copies what it keeps, as it does with any source's rows). Where the job
 * copies rows between chained operators (object reuse off), the batch's rows are first written
 * natively in Flink's binary layout, which Flink copies as one byte copy each; with object reuse
 * they are columnar views, read in place. Rows handed over are counted in the {@code
 * streamfusion} group ({@code rowsTransposed}).
 */
@Internal
public final class ToRowsOperator extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<ArrowBatch, RowData> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;

    private transient TimestampedCollector<RowData> collector;
    private transient Counter rowsTransposed;
    /** Holds only the C Data structs of the batches crossing to the binary rows writer. */
    private transient BufferAllocator allocator;
    private transient RowViews views;

    public ToRowsOperator(RowType rowType) {
        this.rowType = rowType;
    }

    @Override
    public void open() throws Exception {
        super.open();
        collector = new TimestampedCollector<>(output);
        rowsTransposed = getMetricGroup().addGroup("streamfusion").counter("rowsTransposed");
        allocator = new RootAllocator();
        views = RowViews.of(allocator, rowType, !getExecutionConfig().isObjectReuseEnabled());
    }

    @Override
    public void processElement(StreamRecord<ArrowBatch> element) {
        ArrowBatch batch = element.getValue();
        try (ArrowColumnarBatch rows = views.rows(batch.root())) {
            collector.setTimestamp(element);
            int count = rows.rowCount();
            for (int i = 0; i < count; i++) {
                collector.collect(rows.row(i));
            }
            rowsTransposed.inc(count);
        } finally {
            batch.release();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            // The writer first: it was made in the allocator.
            IOUtils.closeAll(views, allocator);
        } finally {
            views = null;
            allocator = null;
            super.close();
        }
    }
}
