package dev.streamfusion.operators.planner;

import dev.streamfusion.bridge.batch.BatchScan;
import dev.streamfusion.bridge.batch.BatchSinkTarget;
import dev.streamfusion.operators.exec.NativeCalcExec;
import dev.streamfusion.operators.exec.NativeSinkBatchesExec;
import dev.streamfusion.operators.exec.NativeSourceBatchesExec;
import dev.streamfusion.operators.exec.NativeToRowsExec;
import dev.streamfusion.operators.exec.NativeWatermarkAssignerExec;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.nodes.FlinkRelNode;
import org.apache.flink.table.planner.plan.nodes.calcite.Sink;
import org.apache.flink.table.planner.plan.nodes.exec.ExecNode;
import org.apache.flink.table.planner.plan.nodes.physical.batch.BatchPhysicalRel;
import org.apache.flink.table.planner.plan.nodes.physical.common.CommonPhysicalTableSourceScan;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalRel;
import org.apache.flink.table.types.logical.RowType;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.AbstractRelNode;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;

import java.util.ArrayList;
import java.util.List;

/**
 * The island's physical nodes, each in a streaming and a batch flavour (the planner tells the
 * modes apart by the interface a node implements). They are created after Flink's last physical
 * rewrite, copy the traits of the nodes they replace, and translate to the island's exec nodes.
 */
@Internal
public final class IslandRels {

    private IslandRels() {}

    /** Refuses {@code COMPILE PLAN}: the island's nodes have no JSON form yet. */
    static ExecNode<?> notCompiled(String node) {
        throw new TableException(
                "A compiled plan cannot hold the StreamFusion island ("
                        + node
                        + "); compile the plan with 'streamfusion.island.enabled' = 'false'");
    }

    /**
     * The planner's name of an island node: EXPLAIN shows {@code name}, after the prefix Flink's
     * physical nodes of the execution mode carry.
     */
    private static String typeName(RelNode rel, String name) {
        return (rel instanceof StreamPhysicalRel ? "StreamPhysical" : "BatchPhysical") + name;
    }

    /** What EXPLAIN says of the node: every island node is a {@link FlinkRelNode}. */
    private static String description(RelNode rel) {
        return ((FlinkRelNode) rel).getRelDetailedDescription();
    }

    /** The scanned table's identifier. */
    static String tableName(CommonPhysicalTableSourceScan scan) {
        return scan.tableSourceTable().contextResolvedTable().getIdentifier().asSummaryString();
    }

    private static RowType rowType(RelNode rel) {
        return FlinkTypeFactory.toLogicalRowType(rel.getRowType());
    }

    /** A StreamFusion source handing over whole Arrow batches instead of rows. */
    abstract static class SourceBatches extends AbstractRelNode {
        final CommonPhysicalTableSourceScan scan;
        final BatchScan batches;

        SourceBatches(RelTraitSet traits, CommonPhysicalTableSourceScan scan, BatchScan batches) {
            super(scan.getCluster(), traits);
            this.scan = scan;
            this.batches = batches;
        }

        @Override
        protected RelDataType deriveRowType() {
            return scan.getRowType();
        }

        @Override
        public String getRelTypeName() {
            return typeName(this, "NativeSourceBatches");
        }

        @Override
        public RelWriter explainTerms(RelWriter pw) {
            // The scan's own digest (what was pushed into it: partitions, filters, projections,
            // hints), as the planner's reuse of equal subplans tells scans apart, keeps two scans
            // of one table apart.
            return super.explainTerms(pw)
                    .item("table", tableName(scan))
                    .item("fields", String.join(", ", getRowType().getFieldNames()))
                    .item("scan", scan.getDigest());
        }

        @Override
        public double estimateRowCount(RelMetadataQuery mq) {
            return mq.getRowCount(scan);
        }

        public ExecNode<?> translateToExecNode() {
            return NativeSourceBatchesExec.of(this instanceof StreamPhysicalRel, batches, rowType(this), description(this));
        }

        public ExecNode<?> translateToExecNode(boolean isCompiled) {
            return isCompiled ? notCompiled("NativeSourceBatches") : translateToExecNode();
        }
    }

    static final class StreamSourceBatches extends SourceBatches implements StreamPhysicalRel {
        StreamSourceBatches(RelTraitSet traits, CommonPhysicalTableSourceScan scan, BatchScan batches) {
            super(traits, scan, batches);
        }

        @Override
        public boolean requireWatermark() {
            return false;
        }

        @Override
        public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
            return new StreamSourceBatches(traitSet, scan, batches);
        }
    }

    static final class BatchSourceBatches extends SourceBatches implements BatchPhysicalRel {
        BatchSourceBatches(RelTraitSet traits, CommonPhysicalTableSourceScan scan, BatchScan batches) {
            super(traits, scan, batches);
        }

        @Override
        public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
            return new BatchSourceBatches(traitSet, scan, batches);
        }
    }

    /** Flink's {@code Calc} (filter and projections) evaluated natively over batches. */
    abstract static class Calc extends SingleRel {
        final RexProgram program;
        final String description;

        Calc(RelOptCluster cluster, RelTraitSet traits, RelNode input, RexProgram program, String description) {
            super(cluster, traits, input);
            this.program = program;
            this.description = description;
        }

        @Override
        protected RelDataType deriveRowType() {
            return program.getOutputRowType();
        }

        @Override
        public String getRelTypeName() {
            return typeName(this, "NativeCalc");
        }

        @Override
        public RelWriter explainTerms(RelWriter pw) {
            return program.explainCalc(super.explainTerms(pw));
        }

        @Override
        public double estimateRowCount(RelMetadataQuery mq) {
            return mq.getRowCount(getInput()) * (program.getCondition() == null ? 1.0 : 0.5);
        }

        public ExecNode<?> translateToExecNode() {
            return NativeCalcExec.of(this instanceof StreamPhysicalRel, description, rowType(this), description(this));
        }

        public ExecNode<?> translateToExecNode(boolean isCompiled) {
            return isCompiled ? notCompiled("NativeCalc") : translateToExecNode();
        }
    }

    static final class StreamCalc extends Calc implements StreamPhysicalRel {
        StreamCalc(RelOptCluster cluster, RelTraitSet traits, RelNode input, RexProgram program, String description) {
            super(cluster, traits, input, program, description);
        }

        @Override
        public boolean requireWatermark() {
            return false;
        }

        @Override
        public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
            return new StreamCalc(getCluster(), traitSet, sole(inputs), program, description);
        }
    }

    static final class BatchCalc extends Calc implements BatchPhysicalRel {
        BatchCalc(RelOptCluster cluster, RelTraitSet traits, RelNode input, RexProgram program, String description) {
            super(cluster, traits, input, program, description);
        }

        @Override
        public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
            return new BatchCalc(getCluster(), traitSet, sole(inputs), program, description);
        }
    }

    /**
     * A table's watermark assigned over batches (streaming only): the rows go on unchanged, the
     * rowtime column now a time attribute.
     */
    static final class StreamWatermarkAssigner extends SingleRel implements StreamPhysicalRel {
        final int rowtimeIndex;
        final RexNode watermarkExpr;
        private final RelDataType outputType;

        /** @param outputType the stock assigner's row type (its rowtime column a time attribute) */
        StreamWatermarkAssigner(
                RelOptCluster cluster, RelTraitSet traits, RelNode input, int rowtimeIndex, RexNode watermarkExpr, RelDataType outputType) {
            super(cluster, traits, input);
            this.rowtimeIndex = rowtimeIndex;
            this.watermarkExpr = watermarkExpr;
            this.outputType = outputType;
        }

        @Override
        protected RelDataType deriveRowType() {
            return outputType;
        }

        @Override
        public String getRelTypeName() {
            return typeName(this, "NativeWatermarkAssigner");
        }

        @Override
        public RelWriter explainTerms(RelWriter pw) {
            List<String> names = getInput().getRowType().getFieldNames();
            return super.explainTerms(pw)
                    .item("rowtime", names.get(rowtimeIndex))
                    .item("watermark", watermarkExpr.toString());
        }

        @Override
        public double estimateRowCount(RelMetadataQuery mq) {
            return mq.getRowCount(getInput());
        }

        @Override
        public boolean requireWatermark() {
            return false;
        }

        @Override
        public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
            return new StreamWatermarkAssigner(getCluster(), traitSet, sole(inputs), rowtimeIndex, watermarkExpr, outputType);
        }

        public ExecNode<?> translateToExecNode() {
            return new NativeWatermarkAssignerExec(
                    rowtimeIndex, watermarkExpr, rowType(getInput()), rowType(this), description(this));
        }

        public ExecNode<?> translateToExecNode(boolean isCompiled) {
            return isCompiled ? notCompiled("NativeWatermarkAssigner") : translateToExecNode();
        }
    }

    /** The island's edge back to Flink: each batch's rows handed on as views over the batch. */
    abstract static class ToRows extends SingleRel {
        ToRows(RelOptCluster cluster, RelTraitSet traits, RelNode input) {
            super(cluster, traits, input);
        }

        @Override
        public String getRelTypeName() {
            return typeName(this, "NativeToRows");
        }

        @Override
        public double estimateRowCount(RelMetadataQuery mq) {
            return mq.getRowCount(getInput());
        }

        public ExecNode<?> translateToExecNode() {
            return NativeToRowsExec.of(this instanceof StreamPhysicalRel, rowType(this), description(this));
        }

        public ExecNode<?> translateToExecNode(boolean isCompiled) {
            return isCompiled ? notCompiled("NativeToRows") : translateToExecNode();
        }
    }

    static final class StreamToRows extends ToRows implements StreamPhysicalRel {
        StreamToRows(RelOptCluster cluster, RelTraitSet traits, RelNode input) {
            super(cluster, traits, input);
        }

        @Override
        public boolean requireWatermark() {
            return false;
        }

        @Override
        public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
            return new StreamToRows(getCluster(), traitSet, sole(inputs));
        }
    }

    static final class BatchToRows extends ToRows implements BatchPhysicalRel {
        BatchToRows(RelOptCluster cluster, RelTraitSet traits, RelNode input) {
            super(cluster, traits, input);
        }

        @Override
        public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
            return new BatchToRows(getCluster(), traitSet, sole(inputs));
        }
    }

    /** A StreamFusion sink taking the island's batches whole. */
    abstract static class SinkBatches extends SingleRel {
        final Sink sink;
        final BatchSinkTarget target;

        SinkBatches(RelTraitSet traits, RelNode input, Sink sink, BatchSinkTarget target) {
            super(sink.getCluster(), traits, input);
            this.sink = sink;
            this.target = target;
        }

        @Override
        protected RelDataType deriveRowType() {
            return sink.getRowType();
        }

        @Override
        public String getRelTypeName() {
            return typeName(this, "NativeSinkBatches");
        }

        @Override
        public RelWriter explainTerms(RelWriter pw) {
            // The stock sink's own id: Flink never reuses a sink for another (two INSERTs of one
            // query into one table in a statement set write twice), and the planner's reuse of
            // equal subplans must not merge two of these either.
            return super.explainTerms(pw)
                    .item("table", sink.contextResolvedTable().getIdentifier().asSummaryString())
                    .item("fields", String.join(", ", getInput().getRowType().getFieldNames()))
                    .item("sink", sink.getId());
        }

        @Override
        public double estimateRowCount(RelMetadataQuery mq) {
            return mq.getRowCount(getInput());
        }

        public ExecNode<?> translateToExecNode() {
            // The island's calc may compute a NULL where Flink's type says NOT NULL (as Flink's
            // code may), which Flink's sink checks for; a source's batches hold none (their
            // columns are built to the table's nullability).
            List<Integer> notNull = new ArrayList<>();
            List<String> names = new ArrayList<>();
            if (computes(getInput())) {
                RowType table = tableType(sink);
                for (int i = 0; i < table.getFieldCount(); i++) {
                    if (!table.getTypeAt(i).isNullable()) {
                        notNull.add(i);
                        names.add(table.getFieldNames().get(i));
                    }
                }
            }
            return NativeSinkBatchesExec.of(
                    this instanceof StreamPhysicalRel,
                    target,
                    rowType(getInput()),
                    notNull.stream().mapToInt(Integer::intValue).toArray(),
                    names.toArray(new String[0]),
                    description(this));
        }

        public ExecNode<?> translateToExecNode(boolean isCompiled) {
            return isCompiled ? notCompiled("NativeSinkBatches") : translateToExecNode();
        }

        /** The physical row type of {@code sink}'s table. */
        static RowType tableType(Sink sink) {
            return (RowType) sink.contextResolvedTable().getResolvedSchema().toPhysicalRowDataType().getLogicalType();
        }

        /** Whether {@code rel}'s batches hold values the native calc computed (under a watermark assigner, say). */
        private static boolean computes(RelNode rel) {
            return rel instanceof Calc || (rel instanceof StreamWatermarkAssigner && computes(rel.getInput(0)));
        }
    }

    static final class StreamSinkBatches extends SinkBatches implements StreamPhysicalRel {
        StreamSinkBatches(RelTraitSet traits, RelNode input, Sink sink, BatchSinkTarget target) {
            super(traits, input, sink, target);
        }

        @Override
        public boolean requireWatermark() {
            return false;
        }

        @Override
        public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
            return new StreamSinkBatches(traitSet, sole(inputs), sink, target);
        }
    }

    static final class BatchSinkBatches extends SinkBatches implements BatchPhysicalRel {
        BatchSinkBatches(RelTraitSet traits, RelNode input, Sink sink, BatchSinkTarget target) {
            super(traits, input, sink, target);
        }

        @Override
        public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
            return new BatchSinkBatches(traitSet, sole(inputs), sink, target);
        }
    }
}
