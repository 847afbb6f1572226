package dev.streamfusion.bridge.batch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.table.connector.source.ScanTableSource;

import java.util.Optional;

/**
 * A StreamFusion scan that can hand its rows over as whole Arrow batches, for the operator
 * island: implemented by the connectors' {@code ScanTableSource}s, after the planner pushed its
 * projection, filters and limit into them.
 */
@Internal
public interface BatchScan {

    /** Why this scan, as planned, cannot hand over whole batches; empty when it can. */
    Optional<String> batchesUnsupported();

    /**
     * The source of this scan's rows as batches of its produced row type (the same rows, splits
     * and checkpointed positions as its row source), with the context the planner would give its
     * row source. Called only when {@link #batchesUnsupported} is empty.
     */
    Source<ArrowBatch, ?, ?> createBatchSource(ScanTableSource.ScanContext context);

    /**
     * The parallelism this scan's readers run at where the scan sets its own, as its row source's
     * provider does (a bounded Iceberg read's splits, for instance); empty for the planner's.
     */
    default Optional<Integer> batchParallelism() {
        return Optional.empty();
    }

    /**
     * The watermarks of {@link #createBatchSource}'s batches: those the scan's rows would have
     * (where the planner pushed a watermark into the scan), or none.
     */
    default WatermarkStrategy<ArrowBatch> batchWatermarks() {
        return WatermarkStrategy.noWatermarks();
    }
}
