package dev.streamfusion.operators.exec;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchSinkTarget;
import dev.streamfusion.operators.runtime.NotNullCheckOperator;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.transformations.PhysicalTransformation;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.batch.BatchExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.types.logical.RowType;

/** A StreamFusion sink taking the island's batches whole, at their parallelism. */
@Internal
public abstract class NativeSinkBatchesExec extends IslandExecNode<Object> {

    private final BatchSinkTarget target;
    /** The NOT NULL columns checked before the sink (by position), and their names in its table. */
    private final int[] notNull;
    private final String[] notNullNames;

    private NativeSinkBatchesExec(
            BatchSinkTarget target, RowType inputType, int[] notNull, String[] notNullNames, String description) {
        super("NativeSinkBatches", 1, inputType, description);
        this.target = target;
        this.notNull = notNull.clone();
        this.notNullNames = notNullNames.clone();
    }

    @Override
    // The planner's execution environment has no replacement accessor; Flink's own sinks use it.
    @SuppressWarnings({"deprecation", "unchecked"})
    protected Transformation<Object> translateToPlanInternal(PlannerBase planner, ExecNodeConfig config) {
        Transformation<ArrowBatch> input = (Transformation<ArrowBatch>) getInputEdges().get(0).translateToPlan(planner);
        DataStream<ArrowBatch> batches = new DataStream<>(planner.getExecEnv(), input);
        if (notNull.length > 0) {
            // Chained to its input, at the input's parallelism, as Flink's enforcer is.
            batches = batches.transform(
                    "NotNullEnforcer(fields=[" + String.join(", ", notNullNames) + "])",
                    input.getOutputType(),
                    new NotNullCheckOperator(notNull, notNullNames));
            PhysicalTransformation<ArrowBatch> check = (PhysicalTransformation<ArrowBatch>) batches.getTransformation();
            check.setParallelism(input.getParallelism(), input.isParallelismConfigured());
            check.setChainingStrategy(ChainingStrategy.ALWAYS);
        }
        return (Transformation<Object>) (Transformation<?>) target.consumeBatches(batches).getTransformation();
    }

    /**
     * The node in {@code streaming} or batch mode, which checks the {@code notNull} columns
     * (named {@code notNullNames} in the table) as Flink's sink constraint enforcer checks them.
     */
    public static NativeSinkBatchesExec of(
            boolean streaming,
            BatchSinkTarget target,
            RowType inputType,
            int[] notNull,
            String[] notNullNames,
            String description) {
        return streaming
                ? new Stream(target, inputType, notNull, notNullNames, description)
                : new Batch(target, inputType, notNull, notNullNames, description);
    }

    private static final class Stream extends NativeSinkBatchesExec implements StreamExecNode<Object> {
        Stream(BatchSinkTarget target, RowType inputType, int[] notNull, String[] notNullNames, String description) {
            super(target, inputType, notNull, notNullNames, description);
        }
    }

    private static final class Batch extends NativeSinkBatchesExec implements BatchExecNode<Object> {
        Batch(BatchSinkTarget target, RowType inputType, int[] notNull, String[] notNullNames, String description) {
            super(target, inputType, notNull, notNullNames, description);
        }
    }
}
