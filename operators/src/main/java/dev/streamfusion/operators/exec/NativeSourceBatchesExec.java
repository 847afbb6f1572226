package dev.streamfusion.operators.exec;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.ArrowBatchTypeInfo;
import dev.streamfusion.bridge.batch.BatchScan;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.runtime.connector.source.ScanRuntimeProviderContext;
import org.apache.flink.table.planner.plan.nodes.exec.batch.BatchExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.types.logical.RowType;

/** A StreamFusion source whose readers emit whole Arrow batches. */
@Internal
public abstract class NativeSourceBatchesExec extends IslandExecNode<ArrowBatch> {

    private final BatchScan scan;

    private NativeSourceBatchesExec(BatchScan scan, RowType outputType, String description) {
        super("NativeSourceBatches", 0, outputType, description);
        this.scan = scan;
    }

    @Override
    // The planner's execution environment has no replacement accessor; Flink's own scans use it.
    @SuppressWarnings("deprecation")
    protected Transformation<ArrowBatch> translateToPlanInternal(PlannerBase planner, ExecNodeConfig config) {
        BatchScan.Batches batches = scan.batches(ScanRuntimeProviderContext.INSTANCE);
        DataStreamSource<ArrowBatch> source = planner.getExecEnv()
                .fromSource(
                        batches.source(),
                        scan.batchWatermarks(),
                        createTransformationName(config),
                        new ArrowBatchTypeInfo((RowType) getOutputType()));
        batches.parallelism().ifPresent(source::setParallelism);
        return source.getTransformation();
    }

    /** The node in {@code streaming} or batch mode. */
    public static NativeSourceBatchesExec of(boolean streaming, BatchScan scan, RowType outputType, String description) {
        return streaming ? new Stream(scan, outputType, description) : new Batch(scan, outputType, description);
    }

    private static final class Stream extends NativeSourceBatchesExec implements StreamExecNode<ArrowBatch> {
        Stream(BatchScan scan, RowType outputType, String description) {
            super(scan, outputType, description);
        }
    }

    private static final class Batch extends NativeSourceBatchesExec implements BatchExecNode<ArrowBatch> {
        Batch(BatchScan scan, RowType outputType, String description) {
            super(scan, outputType, description);
        }
    }
}
