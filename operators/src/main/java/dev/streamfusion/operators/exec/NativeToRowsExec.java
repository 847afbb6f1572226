package dev.streamfusion.operators.exec;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.operators.runtime.ToRowsOperator;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.planner.delegation.PlannerBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeConfig;
import org.apache.flink.table.planner.plan.nodes.exec.batch.BatchExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.stream.StreamExecNode;
import org.apache.flink.table.planner.plan.nodes.exec.utils.ExecNodeUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

/** The island's edge to stock Flink: batches in, rows out, chained to its input. */
@Internal
public abstract class NativeToRowsExec extends IslandExecNode<RowData> {

    private NativeToRowsExec(RowType outputType, String description) {
        super("NativeToRows", 1, outputType, description);
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Transformation<RowData> translateToPlanInternal(PlannerBase planner, ExecNodeConfig config) {
        Transformation<ArrowBatch> input = (Transformation<ArrowBatch>) getInputEdges().get(0).translateToPlan(planner);
        RowType rowType = (RowType) getOutputType();
        return ExecNodeUtil.createOneInputTransformation(
                input,
                createTransformationMeta("native-to-rows", config),
                chained(new ToRowsOperator(rowType)),
                InternalTypeInfo.of(rowType),
                input.getParallelism(),
                false);
    }

    /** The node in {@code streaming} or batch mode. */
    public static NativeToRowsExec of(boolean streaming, RowType outputType, String description) {
        return streaming ? new Stream(outputType, description) : new Batch(outputType, description);
    }

    private static final class Stream extends NativeToRowsExec implements StreamExecNode<RowData> {
        Stream(RowType outputType, String description) {
            super(outputType, description);
        }
    }

    private static final class Batch extends NativeToRowsExec implements BatchExecNode<RowData> {
        Batch(RowType outputType, String description) {
            super(outputType, description);
        }
    }
}
