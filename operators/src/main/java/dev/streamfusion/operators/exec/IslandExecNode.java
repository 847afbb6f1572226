package dev.streamfusion.operators.exec;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeBase;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNodeContext;
import org.apache.flink.table.planner.plan.nodes.exec.InputProperty;
import org.apache.flink.table.planner.plan.nodes.exec.SingleTransformationTranslator;
import org.apache.flink.table.types.logical.RowType;

import java.util.List;

/**
 * An exec node of the island. Each comes in a streaming and a batch flavour (nested classes
 * {@code Stream} and {@code Batch}), as the planner's exec graph processors tell the modes apart by
 * the marker interface a node implements. Its output type is the rows' type even
 * where its transformation carries Arrow batches: the exec graph reasons about rows, and only the
 * island's own nodes read batches. Island nodes are never part of a compiled plan.
 *
 * @param <T> what its transformation emits
 */
@Internal
abstract class IslandExecNode<T> extends ExecNodeBase<T> implements SingleTransformationTranslator<T> {

    /** The node's name in transformation names, as EXPLAIN names its physical node. */
    private final String name;

    IslandExecNode(String name, int inputs, RowType outputType, String description) {
        super(
                ExecNodeContext.newNodeId(),
                new ExecNodeContext("streamfusion-" + name.toLowerCase(java.util.Locale.ROOT) + "_1"),
                new Configuration(),
                inputs == 0 ? List.of() : List.of(InputProperty.DEFAULT),
                outputType,
                description);
        this.name = name;
    }

    @Override
    protected String getSimplifiedName() {
        return name;
    }

    /** A factory of {@code operator} that chains to its input: batches never leave the task. */
    static <O> StreamOperatorFactory<O> chained(StreamOperator<O> operator) {
        SimpleOperatorFactory<O> factory = SimpleOperatorFactory.of(operator);
        factory.setChainingStrategy(ChainingStrategy.ALWAYS);
        return factory;
    }
}
