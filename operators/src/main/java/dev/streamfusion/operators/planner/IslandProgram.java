package dev.streamfusion.operators.planner;

import dev.streamfusion.bridge.NativeLibrary;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.config.OptimizerConfigOptions;
import org.apache.flink.table.planner.calcite.CalciteConfig;
import org.apache.flink.table.planner.calcite.CalciteConfigBuilder;
import org.apache.flink.table.planner.plan.optimize.program.BatchOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkBatchProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeContext;
import org.apache.flink.table.planner.plan.optimize.program.FlinkOptimizeProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkStreamProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;
import org.apache.flink.table.planner.utils.TableConfigUtils;

import org.apache.calcite.rel.RelNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import scala.Option;

import java.util.function.Function;

/**
 * Flink's own optimizer programs, then the island: installed in a {@link TableConfig} as its
 * planner config ({@link #install}), it builds Flink's program for each query from the table
 * config of that moment (so every optimizer option keeps working), runs it, and then, when
 * {@code enabled} reads true, replaces what the island supports after the last physical rewrite.
 *
 * @param <OC> the optimization context of the execution mode
 */
@Internal
public final class IslandProgram<OC extends FlinkOptimizeContext> implements FlinkOptimizeProgram<OC> {

    private static final Logger LOG = LoggerFactory.getLogger(IslandProgram.class);

    /** The name the island's program has in the chained program the table config holds. */
    public static final String NAME = "streamfusion-island";

    private final boolean streaming;
    private final Function<TableConfig, FlinkChainedProgram<OC>> flinkPrograms;
    private final ConfigOption<Boolean> enabled;

    private IslandProgram(
            boolean streaming, Function<TableConfig, FlinkChainedProgram<OC>> flinkPrograms, ConfigOption<Boolean> enabled) {
        this.streaming = streaming;
        this.flinkPrograms = flinkPrograms;
        this.enabled = enabled;
    }

    /**
     * Makes {@code config}'s planner run the island after Flink's programs whenever {@code enabled}
     * is true in it; does nothing when it already does. Where the config already holds a program
     * of its own (set by its user or a library), the island runs after that one, as Flink's
     * planner would run it in place of its own.
     */
    public static void install(TableConfig config, ConfigOption<Boolean> enabled) {
        CalciteConfig current = TableConfigUtils.getCalciteConfig(config);
        if (current.getStreamProgram().isDefined() && current.getStreamProgram().get().get(NAME).isDefined()) {
            return;
        }
        FlinkChainedProgram<StreamOptimizeContext> stream = new FlinkChainedProgram<>();
        stream.addLast(
                NAME,
                new IslandProgram<>(true, ownOr(current.getStreamProgram(), FlinkStreamProgram::buildProgram), enabled));
        FlinkChainedProgram<BatchOptimizeContext> batch = new FlinkChainedProgram<>();
        batch.addLast(
                NAME,
                new IslandProgram<>(false, ownOr(current.getBatchProgram(), FlinkBatchProgram::buildProgram), enabled));
        CalciteConfigBuilder builder = CalciteConfig.createBuilder(current);
        config.setPlannerConfig(builder.replaceStreamProgram(stream).replaceBatchProgram(batch).build());
    }

    /** The program a config holds, or else Flink's own, built from the config of each query. */
    private static <OC extends FlinkOptimizeContext> Function<TableConfig, FlinkChainedProgram<OC>> ownOr(
            Option<FlinkChainedProgram<OC>> own, Function<TableConfig, FlinkChainedProgram<OC>> flinks) {
        return own.isDefined() ? config -> own.get() : flinks;
    }

    @Override
    public RelNode optimize(RelNode root, OC context) {
        TableConfig config = context.getTableConfig();
        RelNode optimized = flinkPrograms.apply(config).optimize(root, context);
        IslandReport report = new IslandReport();
        report.tablesOf(optimized);
        if (!config.get(enabled)) {
            report.fellBack(
                    "'" + enabled.key() + "' is false",
                    "SET '" + enabled.key() + "' = 'true' (or StreamFusion.install(tableEnv))");
            report.publish();
            return optimized;
        }
        RelNode result = optimized;
        String unavailable = NativeLibrary.unavailableReason();
        if (unavailable != null) {
            report.fellBack("the native library cannot be used: " + unavailable, "a platform the native library is built for");
        } else if (streaming && !context.needFinalTimeIndicatorConversion()) {
            // Flink's streaming planner optimizes a sub-plan several statements share as a block
            // of its own (the only one without the final time indicator conversion), and plans
            // the statements reading it by the unique and upsert keys its nodes give, which the
            // island's nodes do not. (A batch plan reads such keys to drop an aggregate only,
            // which changes no row.)
            report.fellBack(
                    "a sub-plan that several statements share is optimized on its own, and its keys are taken from "
                            + "Flink's own nodes",
                    "write the statements without a shared view or table object, or SET "
                            + "'table.optimizer.reuse-optimize-block-with-digest-enabled' = 'false'");
        } else if (config.get(OptimizerConfigOptions.TABLE_OPTIMIZER_NONDETERMINISTIC_UPDATE_STRATEGY)
                == OptimizerConfigOptions.NonDeterministicUpdateStrategy.TRY_RESOLVE) {
            report.fellBack(
                    "'table.optimizer.non-deterministic-update.strategy' = 'TRY_RESOLVE' analyses stock nodes only",
                    "SET 'table.optimizer.non-deterministic-update.strategy' = 'IGNORE'");
        } else {
            result = new IslandRewriter(streaming, report).rewriteAll(optimized);
        }
        if (!report.isEmpty()) {
            LOG.info("StreamFusion {}", report);
        }
        report.publish();
        return result;
    }
}
