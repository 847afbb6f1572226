package dev.streamfusion.bridge.batch;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.clock.SystemClock;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A source's watermarks over rows, generated over its batches as over the same rows one by one. */
class RowWatermarksTest {

    private static final RowType ROWS = RowType.of(new IntType(), new BigIntType());

    /** Collects the watermarks a generator emits. */
    private static final class Emitted implements WatermarkOutput {
        final List<Long> watermarks = new ArrayList<>();

        @Override
        public void emitWatermark(Watermark watermark) {
            watermarks.add(watermark.getTimestamp());
        }

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}
    }

    private static final WatermarkGeneratorSupplier.Context CONTEXT = new WatermarkGeneratorSupplier.Context() {
        @Override
        public org.apache.flink.metrics.MetricGroup getMetricGroup() {
            return new UnregisteredMetricsGroup();
        }

        @Override
        public org.apache.flink.util.clock.RelativeClock getInputActivityClock() {
            return SystemClock.getInstance();
        }
    };

    @Test
    void everyRowOfABatchReachesTheRowsGeneratorWithItsAssignedTimestamp() {
        // Event time from the rows' second column; the watermark trails the largest by 100 ms.
        WatermarkStrategy<RowData> rows = WatermarkStrategy.<RowData>forBoundedOutOfOrderness(Duration.ofMillis(100))
                .withTimestampAssigner((row, recordTimestamp) -> row.getLong(1));
        long[] times = {5_000, 9_000, 7_000, 12_345, 11_000};
        try (BufferAllocator allocator = new RootAllocator();
                IntVector ids = new IntVector("id", allocator);
                BigIntVector ts = new BigIntVector("ts", allocator)) {
            ids.allocateNew(times.length);
            ts.allocateNew(times.length);
            for (int i = 0; i < times.length; i++) {
                ids.set(i, i);
                ts.set(i, times[i]);
            }
            VectorSchemaRoot root = new VectorSchemaRoot(List.of(ids, ts));
            root.setRowCount(times.length);

            WatermarkGenerator<ArrowBatch> batches = new RowWatermarks(rows, ROWS).createWatermarkGenerator(CONTEXT);
            WatermarkGenerator<RowData> oneByOne = rows.createWatermarkGenerator(CONTEXT);
            Emitted fromBatches = new Emitted();
            Emitted fromRows = new Emitted();
            batches.onPeriodicEmit(fromBatches);
            batches.onEvent(new ArrowBatch().of(root), 0L, fromBatches);
            batches.onPeriodicEmit(fromBatches);
            oneByOne.onPeriodicEmit(fromRows);
            for (long time : times) {
                oneByOne.onEvent(null, time, fromRows);
            }
            oneByOne.onPeriodicEmit(fromRows);

            assertThat(fromBatches.watermarks).containsExactlyElementsOf(fromRows.watermarks);
            assertThat(fromBatches.watermarks).last().isEqualTo(12_345L - 100 - 1);
            // The batch keeps the timestamp its source gave it.
            assertThat(new RowWatermarks(rows, ROWS).createTimestampAssigner(UnregisteredMetricsGroup::new)
                            .extractTimestamp(new ArrowBatch().of(root), 77L))
                    .isEqualTo(77L);
        }
    }
}
