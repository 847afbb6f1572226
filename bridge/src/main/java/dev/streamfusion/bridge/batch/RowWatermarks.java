package dev.streamfusion.bridge.batch;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.WatermarkAlignmentParams;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * A source's watermarks for its rows, applied to its batches: the rows' generator sees every row
 * of a batch, in order, through a view over the batch, with the timestamp the rows' assigner gives
 * it, after the batch is emitted, as it would see them one by one. A batch keeps the timestamp the source gave it (a table's rows carry their
 * rowtime as a column; Flink's SQL operators read that). Exact for generators that emit on their
 * periodic call; one that emits on events would emit a batch's watermarks after all its rows
 * (sources refuse those before they get here).
 */
@Internal
public final class RowWatermarks implements WatermarkStrategy<ArrowBatch> {

    private static final long serialVersionUID = 1L;

    private final WatermarkStrategy<RowData> rows;
    private final RowType rowType;

    /** @param rowType the batches' row type */
    public RowWatermarks(WatermarkStrategy<RowData> rows, RowType rowType) {
        this.rows = rows;
        this.rowType = rowType;
    }

    @Override
    public WatermarkGenerator<ArrowBatch> createWatermarkGenerator(WatermarkGeneratorSupplier.Context context) {
        WatermarkGenerator<RowData> generator = rows.createWatermarkGenerator(context);
        TimestampAssigner<RowData> timestamps = rows.createTimestampAssigner(context::getMetricGroup);
        return new WatermarkGenerator<>() {
            @Override
            public void onEvent(ArrowBatch batch, long timestamp, WatermarkOutput output) {
                ArrowColumnarBatch view = ArrowColumnarBatch.of(batch.root(), rowType);
                int count = view.rowCount();
                for (int i = 0; i < count; i++) {
                    RowData row = view.row(i);
                    generator.onEvent(row, timestamps.extractTimestamp(row, timestamp), output);
                }
            }

            @Override
            public void onPeriodicEmit(WatermarkOutput output) {
                generator.onPeriodicEmit(output);
            }
        };
    }

    @Override
    public TimestampAssigner<ArrowBatch> createTimestampAssigner(TimestampAssignerSupplier.Context context) {
        return (batch, timestamp) -> timestamp;
    }

    @Override
    public WatermarkAlignmentParams getAlignmentParameters() {
        return rows.getAlignmentParameters();
    }
}
