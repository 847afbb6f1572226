package dev.streamfusion.operators.exec;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.ArrowBatchTypeInfo;
import dev.streamfusion.operators.runtime.NativeCalcOperator;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.batch.BatchExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.types.logical.RowType;

/** A native calc over batches, chained to its input (same parallelism). */
@Internal
public abstract class NativeCalcExec extends IslandExecNode<ArrowBatch> {

    private final String calc;

    /** @param calc the calc's JSON description, checked by the planner against its input */
    private NativeCalcExec(String calc, RowType outputType, String description) {
        super("NativeCalc", 1, outputType, description);
        this.calc = calc;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Transformation<ArrowBatch> translateToPlanInternal(PlannerBase planner, ExecNodeConfig config) {
        Transformation<ArrowBatch> input = (Transformation<ArrowBatch>) getInputEdges().get(0).translateToPlan(planner);
        return ExecNodeUtil.createOneInputTransformation(
                input,
                createTransformationMeta("native-calc", config),
                chained(new NativeCalcOperator(calc)),
                new ArrowBatchTypeInfo((RowType) getOutputType()),
                input.getParallelism(),
                false);
    }

    /** The node in {@code streaming} or batch mode. */
    public static NativeCalcExec of(boolean streaming, String calc, RowType outputType, String description) {
        return streaming ? new Stream(calc, outputType, description) : new Batch(calc, outputType, description);
    }

    private static final class Stream extends NativeCalcExec implements StreamExecNode<ArrowBatch> {
        Stream(String calc, RowType outputType, String description) {
            super(calc, outputType, description);
        }
    }

    private static final class Batch extends NativeCalcExec implements BatchExecNode<ArrowBatch> {
        Batch(String calc, RowType outputType, String description) {
            super(calc, outputType, description);
        }
    }
}
