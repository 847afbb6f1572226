package dev.streamfusion.operators.planner;

import dev.streamfusion.bridge.NativeException;
import dev.streamfusion.bridge.batch.BatchScan;
import dev.streamfusion.bridge.batch.BatchSinkTarget;
import dev.streamfusion.bridge.types.ArrowTypes;
import dev.streamfusion.operators.internal.NativeCalc;
import dev.streamfusion.operators.runtime.DiscardedBatches;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.planner.calcite.FlinkTypeFactory;
import org.apache.flink.table.planner.plan.metadata.FlinkRelMetadataQuery;
import org.apache.flink.table.planner.plan.nodes.calcite.Sink;
import org.apache.flink.table.planner.plan.nodes.physical.batch.BatchPhysicalCalc;
import org.apache.flink.table.planner.plan.nodes.physical.batch.BatchPhysicalSink;
import org.apache.flink.table.planner.plan.nodes.physical.common.CommonPhysicalTableSourceScan;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalCalc;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalDeltaJoin;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalJoin;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalMultiJoin;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalSink;
import org.apache.flink.table.planner.plan.nodes.physical.stream.StreamPhysicalWatermarkAssigner;
import org.apache.flink.table.planner.utils.ShortcutUtils;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Calc;
import org.apache.calcite.rel.core.Exchange;
import org.apache.calcite.util.ImmutableBitSet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Places the island in an optimized physical plan, bottom up:
 *
 * <ul>
 *   <li>a {@code Calc} reading a StreamFusion source that hands over whole batches (directly, or
 *       through the table's watermark assigner) becomes the source's batches, the watermark
 *       assigned over them, a native calc, and an edge back to rows;
 *   <li>a StreamFusion sink that takes whole batches, fed by the island (or directly by such a
 *       source), takes them without the edge back to rows; so does Flink's {@code blackhole},
 *       which discards them.
 * </ul>
 *
 * Every other node stays as Flink planned it; a candidate that stays stock leaves its reason in
 * the report. Shared sub-plans stay shared.
 */
@Internal
final class IslandRewriter {

    private final boolean streaming;
    private final IslandReport report;
    private final Map<RelNode, RelNode> rewritten = new IdentityHashMap<>();

    IslandRewriter(boolean streaming, IslandReport report) {
        this.streaming = streaming;
        this.report = report;
    }

    /** {@code root} with the island placed; its nodes are listed in the report, inputs first. */
    RelNode rewriteAll(RelNode root) {
        RelNode result = rewrite(root);
        listIsland(result, Collections.newSetFromMap(new IdentityHashMap<>()));
        return result;
    }

    private RelNode rewrite(RelNode rel) {
        RelNode done = rewritten.get(rel);
        if (done != null) {
            return done;
        }
        RelNode result = nativeCalc(rel).or(() -> nativeSink(rel)).orElseGet(() -> withInputs(rel));
        rewritten.put(rel, result);
        return result;
    }

    private RelNode withInputs(RelNode rel) {
        List<RelNode> inputs = new ArrayList<>();
        boolean changed = false;
        for (RelNode input : rel.getInputs()) {
            RelNode next = rewrite(input);
            if (next != input && readsUpsertKeys(rel) && hasUpsertKeys(input)) {
                // The island's nodes carry no upsert keys, so the join would keep its state
                // otherwise than Flink's (a row per key where the input's key holds the join key).
                report.fellBack(
                        rel.getRelTypeName().replaceFirst("^StreamPhysical", "") + "'s input stays in Flink: the join keeps "
                                + "its state by the input's unique key, which the island's rows do not carry",
                        null);
                next = input;
            }
            changed |= next != input;
            inputs.add(next);
            reportEdge(rel, next);
        }
        return changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    }

    /** Whether Flink's translation of {@code rel} asks for its inputs' upsert keys: a streaming join's. */
    private boolean readsUpsertKeys(RelNode rel) {
        return streaming
                && (rel instanceof StreamPhysicalJoin
                        || rel instanceof StreamPhysicalMultiJoin
                        || rel instanceof StreamPhysicalDeltaJoin);
    }

    private static boolean hasUpsertKeys(RelNode rel) {
        Set<ImmutableBitSet> keys =
                FlinkRelMetadataQuery.reuseOrCreate(rel.getCluster().getMetadataQuery()).getUpsertKeys(rel);
        return keys != null && !keys.isEmpty();
    }

    /** Where the island (or a source that could start one) feeds a node it has no native form of. */
    private void reportEdge(RelNode consumer, RelNode input) {
        if (consumer instanceof Exchange) {
            return; // reported by the node the exchange feeds
        }
        String exchanged = "";
        if (input instanceof Exchange) {
            exchanged = " (after an exchange)";
            input = input.getInput(0);
        }
        String over;
        if (input instanceof IslandRels.ToRows) {
            over = "the island";
        } else if (input instanceof CommonPhysicalTableSourceScan
                && ((CommonPhysicalTableSourceScan) input).tableSource() instanceof BatchScan) {
            over = IslandRels.tableName((CommonPhysicalTableSourceScan) input);
        } else {
            return;
        }
        if (consumer instanceof Sink || consumer instanceof Calc) {
            return; // reported by nativeSink and nativeCalc
        }
        String name = consumer.getRelTypeName().replaceFirst("^(Stream|Batch)Physical", "");
        if (consumer instanceof StreamPhysicalWatermarkAssigner) {
            report.fellBack(name + " over " + over + " runs in Flink: no calc or sink the island runs reads it", null);
            return;
        }
        report.fellBack(
                name + exchanged + " over " + over + " runs in Flink: the island has no native " + name + " yet", null);
    }

    private void listIsland(RelNode rel, Set<RelNode> seen) {
        if (!seen.add(rel)) {
            return;
        }
        rel.getInputs().forEach(input -> listIsland(input, seen));
        if (rel instanceof IslandRels.SourceBatches) {
            report.placed("NativeSourceBatches(" + IslandRels.tableName(((IslandRels.SourceBatches) rel).scan) + ")");
        } else if (rel instanceof IslandRels.SinkBatches) {
            Sink sink = ((IslandRels.SinkBatches) rel).sink;
            report.placed("NativeSinkBatches(" + sink.contextResolvedTable().getIdentifier().asSummaryString() + ")");
        } else if (rel instanceof IslandRels.StreamWatermarkAssigner) {
            report.placed("NativeWatermarkAssigner");
        } else if (rel instanceof IslandRels.Calc) {
            report.placed("NativeCalc");
        } else if (rel instanceof IslandRels.ToRows) {
            report.placed("NativeToRows");
        }
    }

    /** The scan's batches, if it is a StreamFusion source that can hand them over. */
    private Optional<RelNode> sourceBatches(RelNode rel) {
        if (!(rel instanceof CommonPhysicalTableSourceScan)) {
            return Optional.empty();
        }
        CommonPhysicalTableSourceScan scan = (CommonPhysicalTableSourceScan) rel;
        if (!(scan.tableSource() instanceof BatchScan)) {
            return Optional.empty();
        }
        BatchScan batches = (BatchScan) scan.tableSource();
        Optional<String> unsupported = FlinkTypeFactory.toLogicalRowType(scan.getRowType()).getFields().stream()
                .filter(field -> ArrowTypes.holdsVariant(field.getType()))
                .findFirst()
                .map(field -> "its column '" + field.getName() + "' is of type "
                        + field.getType().asSummaryString() + ", which the island has no native form of")
                .or(batches::batchesUnsupported);
        if (unsupported.isPresent()) {
            report.fellBack(IslandRels.tableName(scan) + ": " + unsupported.get(), null);
            return Optional.empty();
        }
        return Optional.of(
                streaming
                        ? new IslandRels.StreamSourceBatches(scan.getTraitSet(), scan, batches)
                        : new IslandRels.BatchSourceBatches(scan.getTraitSet(), scan, batches));
    }

    private Optional<RelNode> nativeCalc(RelNode rel) {
        if (!isStockCalc(rel)) {
            return Optional.empty();
        }
        Calc stock = (Calc) rel;
        Optional<CommonPhysicalTableSourceScan> scan = batchScanBelow(stock.getInput());
        if (scan.isEmpty()) {
            return Optional.empty();
        }
        String description;
        try {
            description = CalcDescription.describe(
                    stock.getProgram(), stock.getRowType().getFieldNames(), stock.getCluster().getRexBuilder(),
                    ShortcutUtils.unwrapTableConfig(stock).get(ExecutionConfigOptions.TABLE_EXEC_LEGACY_CAST_BEHAVIOUR).isEnabled());
            checkNatively(stock.getInput(), description);
        } catch (CalcDescription.Unsupported e) {
            report.fellBack("Calc over " + IslandRels.tableName(scan.get()) + ": " + e.getMessage(), e.admit());
            return Optional.empty();
        } catch (NativeException | ValidationException e) {
            // ValidationException: a column native code does not take (a VARIANT).
            report.fellBack("Calc over " + IslandRels.tableName(scan.get()) + ": " + e.getMessage(), null);
            return Optional.empty();
        }
        return batchesOf(stock.getInput()).map(source -> {
            RelNode nativeCalc =
                    streaming
                            ? new IslandRels.StreamCalc(stock.getCluster(), stock.getTraitSet(), source, stock.getProgram(), description)
                            : new IslandRels.BatchCalc(stock.getCluster(), stock.getTraitSet(), source, stock.getProgram(), description);
            return streaming
                    ? new IslandRels.StreamToRows(stock.getCluster(), stock.getTraitSet(), nativeCalc)
                    : new IslandRels.BatchToRows(stock.getCluster(), stock.getTraitSet(), nativeCalc);
        });
    }

    /**
     * The StreamFusion scan that could feed the island in place of {@code rel}: {@code rel} itself,
     * or the scan under a table's watermark assigner or a calc over one.
     */
    private Optional<CommonPhysicalTableSourceScan> batchScanBelow(RelNode rel) {
        if (rel instanceof CommonPhysicalTableSourceScan) {
            CommonPhysicalTableSourceScan scan = (CommonPhysicalTableSourceScan) rel;
            return scan.tableSource() instanceof BatchScan ? Optional.of(scan) : Optional.empty();
        }
        return isStockCalc(rel) || isStockWatermarkAssigner(rel) ? batchScanBelow(rel.getInput(0)) : Optional.empty();
    }

    /** Whether {@code rel} is Flink's own calc of this execution mode (not a subclass of it). */
    private boolean isStockCalc(RelNode rel) {
        return rel.getClass() == (streaming ? StreamPhysicalCalc.class : BatchPhysicalCalc.class);
    }

    /** Whether {@code rel} is Flink's watermark assigner (streaming only: batch plans have none). */
    private boolean isStockWatermarkAssigner(RelNode rel) {
        return streaming && rel.getClass() == StreamPhysicalWatermarkAssigner.class;
    }

    /**
     * The island's batches in place of the stock node {@code rel}: a StreamFusion scan's, a
     * native calc's (when {@code rel} is a calc the island runs), or a table's watermark assigned
     * over either; empty where {@code rel} stays stock.
     */
    private Optional<RelNode> batchesOf(RelNode rel) {
        if (isStockWatermarkAssigner(rel)) {
            StreamPhysicalWatermarkAssigner assigner = (StreamPhysicalWatermarkAssigner) rel;
            return batchesOf(assigner.getInput()).map(input -> new IslandRels.StreamWatermarkAssigner(
                    assigner.getCluster(),
                    assigner.getTraitSet(),
                    input,
                    assigner.rowtimeFieldIndex(),
                    assigner.watermarkExpr(),
                    assigner.getRowType()));
        }
        RelNode rewrittenRel = rewrite(rel);
        return rewrittenRel instanceof IslandRels.ToRows ? Optional.of(rewrittenRel.getInput(0)) : sourceBatches(rewrittenRel);
    }

    // Sink#targetColumns is deprecated without a replacement; the planner still fills it for an
    // INSERT that names its columns.
    @SuppressWarnings("deprecation")
    private Optional<RelNode> nativeSink(RelNode rel) {
        boolean sink = streaming ? rel.getClass() == StreamPhysicalSink.class : rel.getClass() == BatchPhysicalSink.class;
        if (!sink) {
            return Optional.empty();
        }
        Sink stock = (Sink) rel;
        BatchSinkTarget target = stock.tableSink() instanceof BatchSinkTarget
                ? (BatchSinkTarget) stock.tableSink()
                : DiscardedBatches.ofBlackhole(stock.tableSink(), IslandRels.SinkBatches.tableType(stock)).orElse(null);
        if (target == null) {
            return Optional.empty();
        }
        String table = stock.contextResolvedTable().getIdentifier().asSummaryString();
        Optional<RelNode> batches = batchesOf(stock.getInput());
        if (batches.isEmpty()) {
            RelNode input = rewrite(stock.getInput());
            String name = input.getRelTypeName().replaceFirst("^(Stream|Batch)Physical", "");
            report.fellBack(
                    "Sink into " + table + ": its input " + name + " runs in Flink",
                    "a projection and filter the island evaluates, directly over a StreamFusion source");
            return Optional.empty();
        }
        Optional<String> refused;
        String admit = null;
        if (stock.targetColumns() != null) {
            refused = Optional.of("an INSERT naming its columns is written by the table's row sink");
            admit = "INSERT INTO " + table + " SELECT every column, in the table's order, without a column list";
        } else if (streaming && ((StreamPhysicalSink) stock).upsertMaterialize()) {
            refused = Optional.of("the sink materializes upserts");
        } else {
            refused = target.batchesUnsupported(FlinkTypeFactory.toLogicalRowType(batches.get().getRowType()), streaming);
            if (refused.isEmpty() && enforcesConstraints(stock, batches.get())) {
                refused = Optional.of("Flink's sink constraint enforcer would check or change its rows (NOT NULL columns "
                        + "of a nullable input or under 'table.exec.sink.not-null-enforcer' = DROP, lengths under "
                        + "'table.exec.sink.type-length-enforcer', nested values under "
                        + "'table.exec.sink.nested-constraint-enforcer')");
                admit = "the enforcers' defaults, and columns of the sink as nullable as its input";
            }
        }
        if (refused.isPresent()) {
            report.fellBack("Sink into " + table + ": " + refused.get(), admit);
            return Optional.empty();
        }
        return Optional.of(
                streaming
                        ? new IslandRels.StreamSinkBatches(stock.getTraitSet(), batches.get(), stock, target)
                        : new IslandRels.BatchSinkBatches(stock.getTraitSet(), batches.get(), stock, target));
    }

    /**
     * Whether Flink's sink constraint enforcer (which the batches bypass) would check or change
     * rows written by {@code sink} from {@code input}: a NOT NULL column fed by a nullable one, or
     * any NOT NULL column where NULL rows are dropped; a length-bounded CHAR, VARCHAR, BINARY or
     * VARBINARY column under a type-length enforcer; a nested column under a nested one.
     */
    private static boolean enforcesConstraints(Sink sink, RelNode input) {
        org.apache.flink.table.api.TableConfig config = ShortcutUtils.unwrapTableConfig(sink);
        org.apache.flink.table.types.logical.RowType table = IslandRels.SinkBatches.tableType(sink);
        org.apache.flink.table.types.logical.RowType fed = FlinkTypeFactory.toLogicalRowType(input.getRowType());
        boolean dropNulls = config.get(ExecutionConfigOptions.TABLE_EXEC_SINK_NOT_NULL_ENFORCER)
                == ExecutionConfigOptions.NotNullEnforcer.DROP;
        boolean lengths = config.get(ExecutionConfigOptions.TABLE_EXEC_SINK_TYPE_LENGTH_ENFORCER)
                != ExecutionConfigOptions.TypeLengthEnforcer.IGNORE;
        boolean nested = config.get(ExecutionConfigOptions.TABLE_EXEC_SINK_NESTED_CONSTRAINT_ENFORCER)
                != ExecutionConfigOptions.NestedEnforcer.IGNORE;
        for (int i = 0; i < table.getFieldCount(); i++) {
            org.apache.flink.table.types.logical.LogicalType column = table.getTypeAt(i);
            boolean nullableInput = i >= fed.getFieldCount() || fed.getTypeAt(i).isNullable();
            if (!column.isNullable() && (dropNulls || nullableInput)) {
                return true;
            }
            switch (column.getTypeRoot()) {
                case CHAR:
                case BINARY:
                    if (lengths) {
                        return true;
                    }
                    break;
                case VARCHAR:
                case VARBINARY:
                    // STRING and BYTES have no bound to enforce.
                    if (lengths && org.apache.flink.table.types.logical.utils.LogicalTypeChecks.getLength(column)
                            != org.apache.flink.table.types.logical.VarCharType.MAX_LENGTH) {
                        return true;
                    }
                    break;
                case ARRAY:
                case MAP:
                case MULTISET:
                case ROW:
                    if (nested) {
                        return true;
                    }
                    break;
                default:
                    break;
            }
        }
        return false;
    }

    /** Builds the native calc once over its input's Arrow schema: what it refuses stays stock. */
    private static void checkNatively(RelNode input, String description) {
        try (BufferAllocator allocator = new RootAllocator();
                NativeCalc calc =
                        NativeCalc.create(
                                allocator,
                                ArrowTypes.toNativeSchema(FlinkTypeFactory.toLogicalRowType(input.getRowType())),
                                description)) {
            calc.outputSchema();
        }
    }
}
