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
     * is true in it; does nothing when it already does.
     */
    public static void install(TableConfig config, ConfigOption<Boolean> enabled) {
        CalciteConfig current = TableConfigUtils.getCalciteConfig(config);
        if (current.getStreamProgram().isDefined() && current.getStreamProgram().get().get(NAME).isDefined()) {
            return;
        }
        FlinkChainedProgram<StreamOptimizeContext> stream = new FlinkChainedProgram<>();
        stream.addLast(NAME, new IslandProgram<>(true, FlinkStreamProgram::buildProgram, enabled));
        FlinkChainedProgram<BatchOptimizeContext> batch = new FlinkChainedProgram<>();
        batch.addLast(NAME, new IslandProgram<>(false, FlinkBatchProgram::buildProgram, enabled));
        CalciteConfigBuilder builder = CalciteConfig.createBuilder(current);
        config.setPlannerConfig(builder.replaceStreamProgram(stream).replaceBatchProgram(batch).build());
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
