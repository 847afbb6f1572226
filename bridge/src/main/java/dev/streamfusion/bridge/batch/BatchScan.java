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
     * This scan's batches as the planner translates it: {@link #createBatchSource}'s, at the
     * planner's parallelism unless the scan sets its own as its row source's provider does (a
     * bounded Iceberg read runs at its number of splits, planned here, once per translation).
     */
    default Batches batches(ScanTableSource.ScanContext context) {
        return new Batches(createBatchSource(context), null);
    }

    /**
     * The watermarks of {@link #createBatchSource}'s batches: those the scan's rows would have
     * (where the planner pushed a watermark into the scan), or none.
     */
    default WatermarkStrategy<ArrowBatch> batchWatermarks() {
        return WatermarkStrategy.noWatermarks();
    }

    /** A scan's source of batches, and the parallelism its readers run at where the scan sets one. */
    final class Batches {
        private final Source<ArrowBatch, ?, ?> source;
        private final Integer parallelism;

        /** {@code source}'s batches, at {@code parallelism}, or at the planner's when it is null. */
        public Batches(Source<ArrowBatch, ?, ?> source, Integer parallelism) {
            this.source = source;
            this.parallelism = parallelism;
        }

        public Source<ArrowBatch, ?, ?> source() {
            return source;
        }

        public Optional<Integer> parallelism() {
            return Optional.ofNullable(parallelism);
        }
    }
}
