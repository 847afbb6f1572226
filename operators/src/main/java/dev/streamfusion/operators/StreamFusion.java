package dev.streamfusion.operators;

import dev.streamfusion.operators.planner.IslandProgram;
import dev.streamfusion.operators.planner.IslandReport;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.api.TableEnvironment;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The native operator island: where a query reads a StreamFusion source, the nodes it supports
 * run natively over the source's Arrow batches, and everything else stays stock Flink.
 *
 * <p>Turn it on with {@link #install(TableEnvironment)}, or with no code by setting {@link
 * #ISLAND_ENABLED} in the table config or the Flink configuration: StreamFusion's table factories
 * then install it in the table config they are planned in, before the planner optimizes. Either
 * way it needs {@code flink-table-planner_2.12} on the classpath (in {@code lib/} in place of
 * {@code flink-table-planner-loader}, which hides the planner's classes); without it queries run
 * stock and one log line says why.
 *
 * @since 0.1
 */
@PublicEvolving
public final class StreamFusion {

    private static final Logger LOG = LoggerFactory.getLogger(StreamFusion.class);

    /** Whether queries run their supported parts in the native island. */
    public static final ConfigOption<Boolean> ISLAND_ENABLED =
            ConfigOptions.key("streamfusion.island.enabled")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Run the parts of a query the native operator island supports over Arrow batches, "
                                    + "between StreamFusion sources and sinks. Needs flink-table-planner_2.12 "
                                    + "on the classpath instead of flink-table-planner-loader.");

    private static final String PLANNER_CLASS = "org.apache.flink.table.planner.delegation.PlannerBase";

    private static final AtomicBoolean LOADER_LOGGED = new AtomicBoolean();

    private StreamFusion() {}

    /**
     * Turns the island on for every query {@code tableEnv} plans from now on.
     *
     * @return whether it can run: false when only the planner loader is on the classpath (logged)
     */
    public static boolean install(TableEnvironment tableEnv) {
        tableEnv.getConfig().set(ISLAND_ENABLED, true);
        return installInto(tableEnv.getConfig());
    }

    /** Installs the island's program into {@code config} (idempotent), if the planner is visible. */
    static boolean installInto(TableConfig config) {
        if (!plannerVisible()) {
            if (LOADER_LOGGED.compareAndSet(false, true)) {
                LOG.warn(
                        "'{}' is set but the planner's classes are hidden by flink-table-planner-loader: queries run "
                                + "stock Flink. Put flink-table-planner_2.12 in lib/ in place of the loader to use "
                                + "the native island.",
                        ISLAND_ENABLED.key());
            }
            return false;
        }
        IslandProgram.install(config, ISLAND_ENABLED);
        return true;
    }

    private static boolean plannerVisible() {
        try {
            Class.forName(PLANNER_CLASS, false, StreamFusion.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Explains {@code statement} in {@code tableEnv} as it would run now: Flink's plan (with the
     * island's nodes where it placed them), the island's nodes, and why each candidate stayed
     * stock.
     */
    public static Explanation explain(TableEnvironment tableEnv, String statement) {
        String[] plan = {null};
        List<IslandReport> reports = IslandReport.collect(() -> plan[0] = tableEnv.explainSql(statement));
        List<String> nodes = new ArrayList<>();
        List<String> fallbacks = new ArrayList<>();
        for (IslandReport report : reports) {
            nodes.addAll(report.nativeNodes());
            report.fallbacks().stream().filter(r -> !fallbacks.contains(r)).forEach(fallbacks::add);
        }
        if (reports.isEmpty() && !tableEnv.getConfig().get(ISLAND_ENABLED)) {
            fallbacks.add("'" + ISLAND_ENABLED.key() + "' is false");
        } else if (reports.isEmpty()) {
            fallbacks.add("the island is not installed in this table environment's planner");
        }
        return new Explanation(plan[0], nodes, fallbacks);
    }

    /**
     * Advises on {@code statement} (a query or an INSERT) over the tables of {@code tableEnv}: plans
     * it with the island, with StreamFusion's connector in place of every stock one it has a
     * counterpart for (same options), lists what stays stock and what would admit it, then runs it
     * on a sample of each such table both ways (stock Flink, then StreamFusion; an INSERT's query
     * is run, nothing is written), compares the rows and times the runs. Uses {@link
     * Advice.Options#defaults()}.
     *
     * <p>It needs {@code flink-table-planner_2.12} on the class path (as the island does). The
     * table environment is left as it was: the tables swapped for the advice are put back, and
     * {@link #ISLAND_ENABLED} keeps its value.
     *
     * @throws IllegalArgumentException when a table cannot be sampled (naming it and the option)
     * @throws IllegalStateException when a run fails or does not finish within the timeout
     */
    public static Advice advise(TableEnvironment tableEnv, String statement) {
        return advise(tableEnv, statement, Advice.Options.defaults());
    }

    /** {@link #advise(TableEnvironment, String)} with the sample's size, rounds and timeout given. */
    public static Advice advise(TableEnvironment tableEnv, String statement, Advice.Options options) {
        return Advisor.advise(tableEnv, statement, options);
    }

    /**
     * Executes every statement of {@code script} but the last ({@code CREATE TABLE}, {@code SET
     * 'key' = 'value'} as the SQL Client sets it, views, ...; statements end at semicolons outside
     * quotes and comments) in {@code tableEnv},
     * then advises on the last, as {@link #advise(TableEnvironment, String, Advice.Options)}.
     *
     * @throws IllegalArgumentException when the script holds no statement
     */
    public static Advice adviseScript(TableEnvironment tableEnv, String script, Advice.Options options) {
        List<String> statements = SqlScript.statements(script);
        if (statements.isEmpty()) {
            throw new IllegalArgumentException("the script holds no statement");
        }
        statements.subList(0, statements.size() - 1).forEach(statement -> Advisor.execute(tableEnv, statement));
        return advise(tableEnv, statements.get(statements.size() - 1), options);
    }

    /** A statement's plan with the island, and why the rest stays stock. */
    @PublicEvolving
    public static final class Explanation {
        private final String plan;
        private final List<String> nativeNodes;
        private final List<String> fallbacks;

        Explanation(String plan, List<String> nativeNodes, List<String> fallbacks) {
            this.plan = plan;
            this.nativeNodes = List.copyOf(nativeNodes);
            this.fallbacks = List.copyOf(fallbacks);
        }

        /** Flink's EXPLAIN output. */
        public String plan() {
            return plan;
        }

        /** The island's nodes, in plan order. */
        public List<String> nativeNodes() {
            return nativeNodes;
        }

        /** Why each candidate stayed stock, once per reason. */
        public List<String> fallbacks() {
            return fallbacks;
        }

        @Override
        public String toString() {
            return plan + "\nisland: " + nativeNodes + "\nstock: " + fallbacks;
        }
    }
}
