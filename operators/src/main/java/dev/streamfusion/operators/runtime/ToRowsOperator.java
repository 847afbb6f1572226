package dev.streamfusion.operators.runtime;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The island's edge back to stock Flink: each row of a batch goes on as a view over the batch
 * (the next operator copies what it keeps, as it does with any source's rows). Rows handed over
 * are counted in the {@code streamfusion} group ({@code rowsTransposed}).
 */
@Internal
public final class ToRowsOperator extends AbstractStreamOperator<RowData>
        implements OneInputStreamOperator<ArrowBatch, RowData> {

    private static final long serialVersionUID = 1L;

    private final RowType rowType;

    private transient TimestampedCollector<RowData> collector;
    private transient Counter rowsTransposed;

    public ToRowsOperator(RowType rowType) {
        this.rowType = rowType;
    }

    @Override
    public void open() throws Exception {
        super.open();
        collector = new TimestampedCollector<>(output);
        rowsTransposed = getMetricGroup().addGroup("streamfusion").counter("rowsTransposed");
    }

    @Override
    public void processElement(StreamRecord<ArrowBatch> element) {
        ArrowBatch batch = element.getValue();
        try {
            ArrowColumnarBatch rows = ArrowColumnarBatch.of(batch.root(), rowType);
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
}
