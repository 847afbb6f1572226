package dev.streamfusion.operators.exec;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchSinkTarget;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.batch.BatchExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.types.logical.RowType;

/** A StreamFusion sink taking the island's batches whole, at their parallelism. */
@Internal
public abstract class NativeSinkBatchesExec extends IslandExecNode<Object> {

    private final BatchSinkTarget target;

    private NativeSinkBatchesExec(BatchSinkTarget target, RowType inputType, String description) {
        super("NativeSinkBatches", 1, inputType, description);
        this.target = target;
    }

    @Override
    // The planner's execution environment has no replacement accessor; Flink's own sinks use it.
    @SuppressWarnings({"deprecation", "unchecked"})
    protected Transformation<Object> translateToPlanInternal(PlannerBase planner, ExecNodeConfig config) {
        Transformation<ArrowBatch> input = (Transformation<ArrowBatch>) getInputEdges().get(0).translateToPlan(planner);
        return (Transformation<Object>) (Transformation<?>) target.consumeBatches(new DataStream<>(planner.getExecEnv(), input)).getTransformation();
    }

    /** The node in {@code streaming} or batch mode. */
    public static NativeSinkBatchesExec of(boolean streaming, BatchSinkTarget target, RowType inputType, String description) {
        return streaming ? new Stream(target, inputType, description) : new Batch(target, inputType, description);
    }

    private static final class Stream extends NativeSinkBatchesExec implements StreamExecNode<Object> {
        Stream(BatchSinkTarget target, RowType inputType, String description) {
            super(target, inputType, description);
        }
    }

    private static final class Batch extends NativeSinkBatchesExec implements BatchExecNode<Object> {
        Batch(BatchSinkTarget target, RowType inputType, String description) {
            super(target, inputType, description);
        }
    }
}
