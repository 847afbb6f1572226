package dev.streamfusion.operators;

import dev.streamfusion.bridge.NativeHandle;
import dev.streamfusion.bridge.batch.ArrowBatchSerializer;
import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.planner.calcite.CalciteConfig;
import org.apache.flink.table.planner.plan.optimize.program.FlinkChainedProgram;
import org.apache.flink.table.planner.plan.optimize.program.FlinkStreamProgram;
import org.apache.flink.table.planner.plan.optimize.program.StreamOptimizeContext;
import org.apache.flink.table.runtime.operators.sink.constraint.EnforcerException;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static dev.streamfusion.operators.IslandTesting.nativeCalcGivesStockRows;
import static dev.streamfusion.operators.IslandTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native island in real MiniCluster jobs: queries over streamfusion-parquet with the island
 * give the rows Flink's own filesystem connector and Calc give over the same files, in both
 * execution modes and at parallelism 1 and 2; what the island does not support stays stock with
 * its reason reported; and a compiled plan is refused rather than changed.
 */
class IslandITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final String COLUMNS =
            "b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, d DOUBLE, s STRING, price DECIMAL(10, 2), ts TIMESTAMP(3)";

    /** Queries the native calc admits, with {@code %s} for the table. */
    private static final String[] NATIVE_QUERIES = {
        "SELECT s, i, bi FROM %s WHERE i > 0 AND s IS NOT NULL",
        "SELECT bi + 1, i * 2, si - ti, bi * bi, i + bi FROM %s WHERE b OR bi < 0",
        "SELECT MOD(bi, 7), MOD(i, -3), price, ts FROM %s WHERE NOT (s = 'abc') OR s IS NULL",
        "SELECT CAST(i AS BIGINT), CAST(si AS DOUBLE), d FROM %s WHERE ti <> 5 AND si >= -100",
        "SELECT s, b FROM %s WHERE s < 'm' OR s >= 'x' OR b IS NULL",
        "SELECT i, s FROM %s WHERE bi IS NULL OR NOT b",
        "SELECT CASE WHEN i > 0 THEN bi WHEN i < -100 THEN CAST(si AS BIGINT) ELSE 0 END, COALESCE(s, 'none'), s "
                + "FROM %s WHERE (b IS TRUE OR ti IN (1, 2, 3, 127)) AND si BETWEEN -20000 AND 20000",
        "SELECT i FROM %s WHERE (i > 100) IS NOT TRUE AND b IS NOT FALSE",
        "SELECT d, i, d = 0, d <> d, d < i FROM %s WHERE d > CAST(0.5 AS DOUBLE) OR d <= -1e300 OR d = 0 OR d <> d",
    };

    @TempDir static Path tables;

    private static long handlesBefore;

    @BeforeAll
    static void writeWithFlink() throws Exception {
        handlesBefore = settledOpenHandles();
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        StringBuilder nulls = new StringBuilder();
        for (String column : new String[] {"b", "ti", "si", "i", "bi", "d", "s", "price", "ts"}) {
            nulls.append(", 'fields.").append(column).append(".null-rate' = '0.1'");
        }
        env.executeSql("CREATE TABLE gen (" + COLUMNS + ") WITH ('connector' = 'datagen', 'number-of-rows' = '6000', "
                + "'fields.s.length' = '3'" + nulls + ")");
        env.executeSql(stock("written"));
        env.executeSql("INSERT INTO written SELECT * FROM gen").await();
        // Edge values: overflow at both ends of every integer type, the empty string, 'abc', NaN, -0.0 and
        // -Infinity.
        env.executeSql("INSERT INTO written VALUES "
                + "(true, CAST(127 AS TINYINT), CAST(32767 AS SMALLINT), 2147483647, 9223372036854775807, 0.0, 'abc', 1.00, TIMESTAMP '2024-01-01 00:00:00'), "
                + "(false, CAST(-128 AS TINYINT), CAST(-32768 AS SMALLINT), -2147483648, -9223372036854775808, -0.0, '', -1.00, TIMESTAMP '1970-01-01 00:00:00'), "
                + "(true, CAST(1 AS TINYINT), CAST(1 AS SMALLINT), 1, 1, CAST('NaN' AS DOUBLE), 'nan', 1.00, TIMESTAMP '2024-01-01 00:00:00'), "
                + "(false, CAST(2 AS TINYINT), CAST(2 AS SMALLINT), 2, 2, CAST('-Infinity' AS DOUBLE), 'inf', 2.00, TIMESTAMP '2024-01-01 00:00:00'), "
                + "(CAST(NULL AS BOOLEAN), CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT), CAST(NULL AS INT), CAST(NULL AS BIGINT), CAST(NULL AS DOUBLE), CAST(NULL AS STRING), CAST(NULL AS DECIMAL(10, 2)), CAST(NULL AS TIMESTAMP(3)))")
                .await();
    }

    @AfterAll
    static void nothingIsLeftAllocated() throws Exception {
        assertThat(ArrowBatchSerializer.receivedBytes()).isZero();
        assertThat(settledOpenHandles()).isEqualTo(handlesBefore);
    }

    /**
     * The handles open once those no longer reachable have been freed: the classes run before this
     * one in the JVM may leave handles of failed jobs for the garbage collector, which would
     * otherwise be freed while this class runs and hide a handle it leaks.
     */
    private static long settledOpenHandles() throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        long open = NativeHandle.openHandles();
        int unchanged = 0;
        while (unchanged < 3 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(100);
            long now = NativeHandle.openHandles();
            unchanged = now == open ? unchanged + 1 : 0;
            open = now;
        }
        return open;
    }

    private static String stock(String name) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = 'filesystem', 'path' = '"
                + tables.resolve("t") + "', 'format' = 'parquet')";
    }

    private static String fused(String name) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                + tables.resolve("t") + "')";
    }

    private static TableEnvironment env(boolean streaming, int parallelism, boolean island) {
        return IslandTesting.env(streaming, parallelism, island, stock("stock"), fused("fused"));
    }

    @ParameterizedTest(name = "streaming={0}, parallelism={1}")
    @CsvSource({"true, 1", "true, 2", "false, 2"})
    void nativeCalcGivesFlinksRows(boolean streaming, int parallelism) throws Exception {
        TableEnvironment stock = env(streaming, parallelism, false);
        TableEnvironment island = env(streaming, parallelism, true);
        for (String query : NATIVE_QUERIES) {
            nativeCalcGivesStockRows(stock, island, query, "stock", "fused", 10);
            String plan = StreamFusion.explain(island, String.format(query, "fused")).plan();
            assertThat(plan).contains("NativeCalc(", "NativeSourceBatches(", "NativeToRows");
            assertThat(plan).doesNotContain("Calc(select=");
        }
    }

    /**
     * Two scans of one table that read different partitions (or rows, through a pushed filter)
     * stay two scans: the planner's reuse of equal subplans must not merge them into one.
     */
    @ParameterizedTest(name = "streaming={0}")
    @CsvSource({"true", "false"})
    void twoScansOfOneTableThatReadDifferentPartsStayTwo(boolean streaming) throws Exception {
        String path = tables.resolve("days").toString();
        TableEnvironment writer = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        writer.executeSql("CREATE TABLE days (a INT, s STRING, dt STRING) PARTITIONED BY (dt) WITH ("
                + "'connector' = 'filesystem', 'path' = '" + path + "', 'format' = 'parquet')");
        writer.executeSql("INSERT INTO days VALUES (1, 'x', 'd1'), (2, 'y', 'd1'), (3, 'z', 'd2'), (4, 'w', 'd3')").await();
        String columns = "(a INT, s STRING, dt STRING) PARTITIONED BY (dt) WITH (";
        TableEnvironment stock = IslandTesting.env(streaming, 1, false,
                "CREATE TABLE days " + columns + "'connector' = 'filesystem', 'path' = '" + path + "', 'format' = 'parquet')");
        String fused = "CREATE TABLE days " + columns + "'connector' = 'streamfusion-parquet', 'path' = '" + path + "')";
        TableEnvironment connector = IslandTesting.env(streaming, 1, false, fused);
        TableEnvironment island = IslandTesting.env(streaming, 1, true, fused);
        for (String query : new String[] {
            "SELECT a + 1, s FROM days WHERE dt = 'd1' UNION ALL SELECT a + 1, s FROM days WHERE dt = 'd2'",
            "SELECT a + 1, s FROM days WHERE a < 2 UNION ALL SELECT a + 1, s FROM days WHERE a > 3",
        }) {
            StreamFusion.Explanation explained = StreamFusion.explain(island, query);
            assertThat(explained.nativeNodes()).as("%s", explained).contains("NativeSourceBatches(" + IslandTesting.identifier("days") + ")");
            List<String> expected = rows(stock, query);
            assertThat(expected).as(query).hasSizeGreaterThanOrEqualTo(2);
            assertThat(rows(connector, query)).as("without the island: %s", query).containsExactlyElementsOf(expected);
            assertThat(rows(island, query)).as(query).containsExactlyElementsOf(expected);
        }
    }

    @ParameterizedTest(name = "streaming={0}")
    @CsvSource({"true", "false"})
    void sinksTakeTheIslandsBatchesAndWriteWhatFlinkWrites(boolean streaming) throws Exception {
        String mode = streaming ? "streaming" : "batch";
        TableEnvironment stock = env(streaming, 2, false);
        TableEnvironment island = env(streaming, 2, true);
        String copyColumns = COLUMNS;
        String calcColumns = "s STRING, total BIGINT, m INT, price DECIMAL(10, 2)";
        String calc = "SELECT s, bi + i, MOD(i, 5), price FROM %s WHERE si > 0 OR s IS NULL";
        stock.executeSql(table("stock_copy", "filesystem", copyColumns, mode + "-stock-copy"));
        stock.executeSql(table("stock_calc", "filesystem", calcColumns, mode + "-stock-calc"));
        island.executeSql(table("fused_copy", "streamfusion-parquet", copyColumns, mode + "-fused-copy"));
        island.executeSql(table("fused_calc", "streamfusion-parquet", calcColumns, mode + "-fused-calc"));

        StreamFusion.Explanation copy = StreamFusion.explain(island, "INSERT INTO fused_copy SELECT * FROM fused");
        assertThat(copy.nativeNodes())
                .as("%s", copy)
                .containsExactly(
                        "NativeSourceBatches(default_catalog.default_database.fused)",
                        "NativeSinkBatches(default_catalog.default_database.fused_copy)");
        StreamFusion.Explanation filtered = StreamFusion.explain(island, "INSERT INTO fused_calc " + String.format(calc, "fused"));
        assertThat(filtered.nativeNodes())
                .as("%s", filtered)
                .containsExactly(
                        "NativeSourceBatches(default_catalog.default_database.fused)",
                        "NativeCalc",
                        "NativeSinkBatches(default_catalog.default_database.fused_calc)");
        assertThat(filtered.plan()).doesNotContain("NativeToRows");

        stock.executeSql("INSERT INTO stock_copy SELECT * FROM stock").await();
        stock.executeSql("INSERT INTO stock_calc " + String.format(calc, "stock")).await();
        island.executeSql("INSERT INTO fused_copy SELECT * FROM fused").await();
        island.executeSql("INSERT INTO fused_calc " + String.format(calc, "fused")).await();

        // Both outputs read back by Flink's own connector.
        TableEnvironment reader = env(false, 1, false);
        reader.executeSql(table("stock_copy", "filesystem", copyColumns, mode + "-stock-copy"));
        reader.executeSql(table("stock_calc", "filesystem", calcColumns, mode + "-stock-calc"));
        reader.executeSql(table("fused_copy", "filesystem", copyColumns, mode + "-fused-copy"));
        reader.executeSql(table("fused_calc", "filesystem", calcColumns, mode + "-fused-calc"));
        List<String> copied = rows(reader, "SELECT * FROM stock_copy");
        assertThat(copied).hasSize(6005);
        assertThat(rows(reader, "SELECT * FROM fused_copy")).containsExactlyElementsOf(copied);
        List<String> calculated = rows(reader, "SELECT * FROM stock_calc");
        assertThat(calculated).hasSizeGreaterThan(100);
        assertThat(rows(reader, "SELECT * FROM fused_calc")).containsExactlyElementsOf(calculated);
    }

    /**
     * Flink's blackhole takes the island's batches whole and discards them, never as rows; the
     * calc still evaluates every batch: the one row (of the last file) whose divisor is zero fails
     * the job with Flink's error, and a NULL computed into a NOT NULL column fails it with Flink's
     * sink check. Unchained, the blackhole and the NOT NULL check free every batch they receive over
     * an exchange. (That
     * stock jobs fail with these errors is checked in {@code
     * IslandFunctionsITCase#badValuesFailAsInFlink} and {@link
     * #aNullComputedIntoANotNullColumnFailsAsFlinksSinkCheckFails}; here, stock's failing jobs
     * into a blackhole took 30 s each to stop.)
     */
    @ParameterizedTest(name = "streaming={0}, parallelism={1}, chained={2}")
    @CsvSource({"true, 1, true", "false, 2, false"})
    void theBlackholeDiscardsTheIslandsBatchesWithoutRows(boolean streaming, int parallelism, boolean chained)
            throws Exception {
        TableEnvironment island = IslandTesting.env(streaming, parallelism, true, fused("fused"),
                "CREATE TABLE discarded (s STRING, total BIGINT) WITH ('connector' = 'blackhole')",
                "CREATE TABLE strict (p DECIMAL(4, 1) NOT NULL) WITH ('connector' = 'blackhole')");
        island.getConfig().set("pipeline.operator-chaining.enabled", String.valueOf(chained));
        String[] inserts = {
            "INSERT INTO discarded SELECT s, bi + i FROM fused WHERE si > 0 OR s IS NULL",
            "INSERT INTO strict SELECT CAST(COALESCE(price, 0) AS DECIMAL(4, 1)) FROM fused "
                    + "WHERE price BETWEEN -100 AND 100",
            "INSERT INTO discarded SELECT s, bi / (bi - 9223372036854775807) FROM fused",
            "INSERT INTO strict SELECT CAST(COALESCE(price, 0) AS DECIMAL(4, 1)) FROM fused WHERE price > 1000",
        };
        for (String insert : inserts) {
            StreamFusion.Explanation explained = StreamFusion.explain(island, insert);
            assertThat(explained.fallbacks()).as("%s", explained).isEmpty();
            assertThat(explained.nativeNodes())
                    .as("%s", explained)
                    .containsExactly(
                            "NativeSourceBatches(default_catalog.default_database.fused)",
                            "NativeCalc",
                            "NativeSinkBatches(default_catalog.default_database." + insert.split(" ")[2] + ")");
        }
        // The jobs that pass: every batch received is freed, the checked ones too.
        for (String passing : new String[] {inserts[0], inserts[1]}) {
            long before = ArrowBatchSerializer.receivedBytes();
            island.executeSql(passing).await();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (ArrowBatchSerializer.receivedBytes() > before && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(ArrowBatchSerializer.receivedBytes()).as(passing).isEqualTo(before);
        }
        assertThatThrownBy(() -> island.executeSql(inserts[2]).await())
                .satisfies(e -> assertThat(ExceptionUtils.findThrowable(e, ArithmeticException.class))
                        .hasValueSatisfying(cause -> assertThat(cause).hasMessage("/ by zero")));
        assertThatThrownBy(() -> island.executeSql(inserts[3]).await())
                .satisfies(e -> assertThat(ExceptionUtils.findThrowable(e, EnforcerException.class))
                        .hasValueSatisfying(cause -> assertThat(cause).hasMessageStartingWith(
                                "Column 'p' is NOT NULL, however, a null value is being written into it.")));
    }

    /**
     * In batch mode the island's Parquet writers stage their files, and the files are moved into
     * the table once the whole job has finished, as Flink's table sink does: a job that fails (here
     * on the one row of the last file whose divisor is zero) leaves nothing in the table, whatever
     * its other writer had finished. A job that finishes leaves one file per writer.
     */
    @Test
    void aBatchJobThatFailsLeavesNoFileInTheTable() throws Exception {
        TableEnvironment island = env(false, 2, true);
        String columns = "s STRING, total BIGINT";
        island.executeSql(table("failing", "streamfusion-parquet", columns, "batch-failing"));
        island.executeSql(table("finishing", "streamfusion-parquet", columns, "batch-finishing"));
        String failing = "INSERT INTO failing SELECT s, bi / (bi - 9223372036854775807) FROM fused";
        String finishing = "INSERT INTO finishing SELECT s, bi + i FROM fused";
        for (String insert : new String[] {failing, finishing}) {
            StreamFusion.Explanation explained = StreamFusion.explain(island, insert);
            assertThat(explained.fallbacks()).as("%s", explained).isEmpty();
            assertThat(explained.nativeNodes())
                    .as("%s", explained)
                    .anyMatch(node -> node.startsWith("NativeSinkBatches("));
        }
        // No committer of its own per writer (as Flink's file sink has), which would make each
        // writer's files visible once that writer finished.
        assertThat(island.explainSql(finishing, ExplainDetail.JSON_EXECUTION_PLAN))
                .contains("NativeSinkBatches")
                .doesNotContain("Committer");
        assertThatThrownBy(() -> island.executeSql(failing).await())
                .satisfies(e -> assertThat(ExceptionUtils.findThrowable(e, ArithmeticException.class)).isPresent());
        assertThat(visibleFiles("batch-failing")).isEmpty();

        island.executeSql(finishing).await();
        assertThat(visibleFiles("batch-finishing")).hasSize(2);
        TableEnvironment reader = env(false, 1, false);
        reader.executeSql(table("finished", "filesystem", columns, "batch-finishing"));
        assertThat(rows(reader, "SELECT * FROM finished"))
                .containsExactlyInAnyOrderElementsOf(rows(reader, "SELECT s, bi + i FROM stock"));
    }

    /** The files of the table at {@code directory} that readers see (none hidden or in progress). */
    private static List<String> visibleFiles(String directory) throws IOException {
        Path table = tables.resolve(directory);
        if (!Files.exists(table)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(table)) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> !name.startsWith(".") && !name.startsWith("_"))
                    .collect(Collectors.toList());
        }
    }

    /**
     * A statement set writing one query twice into one table writes its rows twice, as Flink
     * does (which never reuses one sink for another), with or without the island.
     */
    @ParameterizedTest(name = "streaming={0}")
    @CsvSource({"true", "false"})
    void aStatementSetWritingOneQueryTwiceWritesItsRowsTwice(boolean streaming) throws Exception {
        String mode = streaming ? "streaming" : "batch";
        String columns = "s STRING, total BIGINT";
        String query = "SELECT s, bi + i FROM %s WHERE si > 0";
        TableEnvironment island = env(streaming, 2, true);
        island.executeSql(table("twice", "streamfusion-parquet", columns, mode + "-twice"));
        org.apache.flink.table.api.StatementSet set = island.createStatementSet();
        set.addInsertSql("INSERT INTO twice " + String.format(query, "fused"));
        set.addInsertSql("INSERT INTO twice " + String.format(query, "fused"));
        assertThat(set.explain()).contains("NativeSinkBatches");
        set.execute().await();

        TableEnvironment reader = env(false, 1, false);
        reader.executeSql(table("twice", "filesystem", columns, mode + "-twice"));
        List<String> once = rows(reader, String.format(query, "stock"));
        assertThat(once).hasSizeGreaterThan(100);
        List<String> twice = new java.util.ArrayList<>(once);
        twice.addAll(once);
        assertThat(rows(reader, "SELECT * FROM twice")).containsExactlyInAnyOrderElementsOf(twice);
    }

    @Test
    void aSinkOfItsOwnParallelismTakesTheBatchesAcrossTheExchange() throws Exception {
        String columns = "s STRING, total BIGINT, price DECIMAL(10, 2)";
        String query = "SELECT s, bi + i, price FROM %s WHERE si > 0 OR s IS NULL";
        TableEnvironment island = env(false, 2, true);
        String narrow = "CREATE TABLE narrow (" + columns + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                + tables.resolve("narrow") + "', 'sink.parallelism' = '1')";
        island.executeSql(narrow);
        StreamFusion.Explanation explained = StreamFusion.explain(island, "INSERT INTO narrow " + String.format(query, "fused"));
        assertThat(explained.nativeNodes())
                .as("%s", explained)
                .containsExactly(
                        "NativeSourceBatches(default_catalog.default_database.fused)",
                        "NativeCalc",
                        "NativeSinkBatches(default_catalog.default_database.narrow)");
        island.executeSql("INSERT INTO narrow " + String.format(query, "fused")).await();

        TableEnvironment reader = env(false, 1, false);
        reader.executeSql(table("narrow", "filesystem", columns, "narrow"));
        assertThat(rows(reader, "SELECT * FROM narrow"))
                .containsExactlyInAnyOrderElementsOf(rows(reader, String.format(query, "stock")));
        // One writer wrote the rows of both readers: in batch mode, one part file (two writers
        // would each write one).
        assertThat(visibleFiles("narrow")).hasSize(1);

        island.executeSql("CREATE TABLE keyed (" + columns + ", PRIMARY KEY (s) NOT ENFORCED) WITH ('connector' = "
                + "'streamfusion-parquet', 'path' = '" + tables.resolve("keyed") + "', 'sink.parallelism' = '1')");
        assertThat(StreamFusion.explain(island, "INSERT INTO keyed SELECT s, bi + i, price FROM fused WHERE s IS NOT NULL")
                        .fallbacks())
                .anyMatch(reason -> reason.contains("routes the rows to the writers by key"));
    }

    /**
     * A streaming join keeps its state by an input's unique key where Flink's metadata gives one
     * (a row per key), which the island's rows do not carry: over a table with a primary key, the
     * join's input stays in Flink and the join is planned as Flink plans it.
     */
    @Test
    void aJoinOverAKeyedTableKeepsItsStateAsInFlink() throws Exception {
        writeKeys("keys", "(1, 'a'), (2, 'b'), (3, 'c'), (-4, 'd')");
        String keyed = "CREATE TABLE keyed (k BIGINT NOT NULL, v STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                + "'connector' = 'streamfusion-parquet', 'path' = '" + tables.resolve("keys") + "')";
        String join = "SELECT a.k, a.v, b.s FROM keyed a JOIN fused b ON a.k = b.bi WHERE a.k > 0";
        TableEnvironment stock = env(true, 1, false);
        TableEnvironment island = env(true, 1, true);
        stock.executeSql(keyed);
        island.executeSql(keyed);

        StreamFusion.Explanation explained = StreamFusion.explain(island, join);
        assertThat(explained.fallbacks())
                .as("%s", explained)
                .contains("Join's input stays in Flink: the join keeps its state by the input's unique key, which the "
                        + "island's rows do not carry");
        assertThat(joinInputs(island.explainSql(join))).isEqualTo(joinInputs(stock.explainSql(join)))
                .contains("leftInputSpec=[JoinKeyContainsUniqueKey]");
        assertThat(rows(island, join)).containsExactlyElementsOf(rows(stock, join));

        // Without the key, the island reads the table and the join is planned as Flink plans it.
        String unkeyed = "CREATE TABLE unkeyed (k BIGINT NOT NULL, v STRING) WITH ("
                + "'connector' = 'streamfusion-parquet', 'path' = '" + tables.resolve("keys") + "')";
        stock.executeSql(unkeyed);
        island.executeSql(unkeyed);
        String plain = join.replace("keyed a", "unkeyed a");
        assertThat(StreamFusion.explain(island, plain).nativeNodes()).contains("NativeCalc");
        assertThat(joinInputs(island.explainSql(plain))).isEqualTo(joinInputs(stock.explainSql(plain)))
                .contains("leftInputSpec=[NoUniqueKey]");
    }

    /**
     * Statements sharing a sub-plan (here by digest) have it optimized as a block of its own,
     * and Flink plans the statements reading it by the keys its nodes give: the island leaves
     * such a block to Flink, so a join reading it keeps its state by the key, as in Flink.
     */
    @Test
    void aSubPlanSharedByStatementsKeepsItsKeysAsInFlink() throws Exception {
        writeKeys("shared-keys", "(1, 'a'), (2, 'b'), (-3, 'c')");
        List<String> plans = new ArrayList<>();
        for (boolean withIsland : new boolean[] {false, true}) {
            TableEnvironment env = env(true, 1, withIsland);
            env.getConfig().set("table.optimizer.reuse-optimize-block-with-digest-enabled", "true");
            env.executeSql("CREATE TABLE shared_keyed (k BIGINT NOT NULL, v STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                    + "'connector' = 'streamfusion-parquet', 'path' = '" + tables.resolve("shared-keys") + "')");
            env.executeSql("CREATE TEMPORARY VIEW pos AS SELECT k, v FROM shared_keyed WHERE k > 0");
            env.executeSql("CREATE TABLE pos_out (k BIGINT, v STRING) WITH ('connector' = 'blackhole')");
            env.executeSql("CREATE TABLE joined_out (k BIGINT, v STRING, s STRING) WITH ('connector' = 'blackhole')");
            StatementSet set = env.createStatementSet();
            set.addInsertSql("INSERT INTO pos_out SELECT k, v FROM pos");
            set.addInsertSql("INSERT INTO joined_out SELECT a.k, a.v, b.s FROM pos a JOIN fused b ON a.k = b.bi");
            plans.add(set.explain());
        }
        assertThat(plans.get(1)).doesNotContain("NativeCalc");
        assertThat(joinInputs(plans.get(1))).isEqualTo(joinInputs(plans.get(0)))
                .contains("leftInputSpec=[JoinKeyContainsUniqueKey]");
    }

    /**
     * A program the table config already holds (its user's or a library's) keeps running once
     * the island is installed, the island after it, as Flink's planner runs such a program in
     * place of its own.
     */
    @Test
    void aPlannerProgramSetBeforeTheIslandKeepsRunning() throws Exception {
        TableEnvironment env = env(true, 1, false);
        FlinkChainedProgram<StreamOptimizeContext> own = FlinkStreamProgram.buildProgram(env.getConfig());
        AtomicInteger runs = new AtomicInteger();
        own.addLast("counting", (root, context) -> {
            runs.incrementAndGet();
            return root;
        });
        env.getConfig().setPlannerConfig(CalciteConfig.createBuilder().replaceStreamProgram(own).build());
        assertThat(StreamFusion.install(env)).isTrue();
        StreamFusion.Explanation explained = StreamFusion.explain(env, "SELECT s, bi + i FROM fused WHERE si > 0");
        assertThat(explained.nativeNodes()).as("%s", explained).contains("NativeCalc");
        assertThat(runs.get()).as("runs of the program set before the island").isPositive();
    }

    /** Writes rows {@code values} of {@code (k BIGINT NOT NULL, v STRING)} into the Parquet directory {@code dir}. */
    private static void writeKeys(String dir, String values) throws Exception {
        TableEnvironment writer = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        writer.executeSql("CREATE TABLE keys_out (k BIGINT NOT NULL, v STRING) WITH ('connector' = 'filesystem', "
                + "'path' = '" + tables.resolve(dir) + "', 'format' = 'parquet')");
        writer.executeSql("INSERT INTO keys_out VALUES " + values).await();
    }

    /** The input specs of the joins in a plan's physical and execution plans. */
    private static List<String> joinInputs(String explained) {
        List<String> specs = new ArrayList<>();
        Matcher matcher = Pattern.compile("(left|right)InputSpec=\\[\\w+\\]").matcher(explained);
        while (matcher.find()) {
            specs.add(matcher.group());
        }
        return specs;
    }

    /**
     * A NULL the native calc computes into a NOT NULL column (a CAST that overflows gives NULL,
     * as in Flink) fails the job with the error of Flink's sink constraint enforcer, as the stock
     * job fails; where every value fits, the rows are written.
     */
    @Test
    void aNullComputedIntoANotNullColumnFailsAsFlinksSinkCheckFails() throws Exception {
        TableEnvironment stock = env(false, 1, false);
        TableEnvironment island = env(false, 1, true);
        String columns = "p DECIMAL(4, 1) NOT NULL, s STRING";
        String query = "SELECT CAST(COALESCE(price, 0) AS DECIMAL(4, 1)), s FROM %s WHERE ";
        List<String> failures = new ArrayList<>();
        for (String filter : new String[] {"ABS(price) < 999 OR price IS NULL", "price > 1000"}) {
            String directory = filter.startsWith("ABS") ? "fits" : "overflows";
            stock.executeSql(table("strict_" + directory, "filesystem", columns, "stock_" + directory));
            island.executeSql(table("strict_" + directory, "streamfusion-parquet", columns, directory));
            String insert = "INSERT INTO strict_" + directory + " " + String.format(query, "fused") + filter;
            StreamFusion.Explanation explained = StreamFusion.explain(island, insert);
            assertThat(explained.nativeNodes()).as("%s", explained)
                    .containsExactly("NativeSourceBatches(default_catalog.default_database.fused)", "NativeCalc",
                            "NativeSinkBatches(default_catalog.default_database.strict_" + directory + ")");
            for (TableEnvironment env : List.of(stock, island)) {
                try {
                    env.executeSql(insert).await();
                } catch (Exception e) {
                    failures.add(ExceptionUtils.findThrowable(e, EnforcerException.class)
                            .map(Throwable::getMessage)
                            .orElseThrow(() -> e));
                }
            }
        }
        assertThat(failures).containsExactly(
                "Column 'p' is NOT NULL, however, a null value is being written into it. You can set job configuration "
                        + "'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop such records silently.",
                "Column 'p' is NOT NULL, however, a null value is being written into it. You can set job configuration "
                        + "'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop such records silently.");
        TableEnvironment reader = env(false, 1, false);
        reader.executeSql(table("fits", "filesystem", columns, "fits"));
        reader.executeSql(table("stock_fits", "filesystem", columns, "stock_fits"));
        List<String> written = rows(reader, "SELECT * FROM stock_fits");
        assertThat(written).hasSizeGreaterThan(100);
        assertThat(rows(reader, "SELECT * FROM fits")).containsExactlyElementsOf(written);
    }

    @Test
    void sinksTheIslandCannotFeedTakeRowsAndSayWhy() throws Exception {
        TableEnvironment island = env(true, 1, true);
        island.executeSql("CREATE TABLE parted (" + COLUMNS + ", part STRING) PARTITIONED BY (part) WITH ("
                + "'connector' = 'streamfusion-parquet', 'path' = '" + tables.resolve("parted") + "')");
        StreamFusion.Explanation parted =
                StreamFusion.explain(island, "INSERT INTO parted SELECT *, 'x' FROM fused WHERE i > 0");
        assertThat(parted.nativeNodes())
                .containsExactly("NativeSourceBatches(default_catalog.default_database.fused)", "NativeCalc", "NativeToRows");
        assertThat(parted.fallbacks())
                .containsExactly("Sink into default_catalog.default_database.parted: partitioned tables are written by Flink's file sink");

        // In batch mode Flink sorts the rows by partition first: the sink is fed by a stock node.
        TableEnvironment batch = env(false, 1, true);
        batch.executeSql("CREATE TABLE parted (" + COLUMNS + ", part STRING) PARTITIONED BY (part) WITH ("
                + "'connector' = 'streamfusion-parquet', 'path' = '" + tables.resolve("parted") + "')");
        assertThat(StreamFusion.explain(batch, "INSERT INTO parted SELECT *, 'x' FROM fused WHERE i > 0").fallbacks())
                .containsExactly(
                        "Sort over the island runs in Flink: the island has no native Sort yet",
                        "Sink into default_catalog.default_database.parted: its input Sort runs in Flink");
    }

    private static String table(String name, String connector, String columns, String directory) {
        return "CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = '" + connector + "', 'path' = '"
                + tables.resolve(directory) + "'" + (connector.equals("filesystem") ? ", 'format' = 'parquet'" : "") + ")";
    }

    @Test
    void unsupportedExpressionsStayStockWithTheirReasons() throws Exception {
        TableEnvironment stock = env(true, 1, false);
        TableEnvironment island = env(true, 1, true);
        String upper = "SELECT REVERSE(s), i FROM %s WHERE i > 0";
        StreamFusion.Explanation explained = StreamFusion.explain(island, String.format(upper, "fused"));
        assertThat(explained.nativeNodes()).isEmpty();
        assertThat(explained.plan()).doesNotContain("Native");
        assertThat(explained.fallbacks())
                .containsExactly("Calc over default_catalog.default_database.fused: the function REVERSE is not evaluated natively");
        assertThat(rows(island, String.format(upper, "fused")))
                .containsExactlyElementsOf(rows(stock, String.format(upper, "stock")));

        String parsed = "SELECT i FROM %s WHERE POWER(i, 2) > 4";
        assertThat(StreamFusion.explain(island, String.format(parsed, "fused")).fallbacks())
                .singleElement()
                .asString()
                .contains("the function POWER is not evaluated natively");
        assertThat(rows(island, String.format(parsed, "fused")))
                .containsExactlyElementsOf(rows(stock, String.format(parsed, "stock")));

        // Flink truncates a timestamp cast to fewer digits, looks a DOUBLE up in a set of values by
        // its bits (-0.0 is not 0.0), holds timestamps of nanoseconds past 2262 and keeps every
        // digit of a DECIMAL parsed from text: these stay stock, with Flink's rows.
        String[][] stockOnly = {
            {"SELECT i, CAST(ts AS TIMESTAMP(0)) FROM %s WHERE i > 0", "a CAST to a timestamp of fewer fractional digits"},
            {"SELECT i, d FROM %s WHERE d IN (0.0E0, 2.5E0, -1.0E0)", "a FLOAT or DOUBLE tested against a set of values"},
            {"SELECT i, d FROM %s WHERE d NOT IN (0.0E0, 2.5E0)", "a FLOAT or DOUBLE tested against a set of values"},
            {"SELECT i, CAST(ts AS TIMESTAMP(9)) FROM %s WHERE i > 0", "timestamps of more than 6 fractional digits"},
            {"SELECT i, CAST(CAST(CONCAT(CAST(MOD(i, 10) AS STRING), '.99') AS DECIMAL(2, 1)) AS STRING) FROM %s "
                    + "WHERE i IS NOT NULL",
                "a DECIMAL parsed from text is not written back as text natively"},
        };
        for (String[] query : stockOnly) {
            assertThat(StreamFusion.explain(island, String.format(query[0], "fused")).fallbacks())
                    .as(query[0])
                    .singleElement()
                    .asString()
                    .contains(query[1]);
            List<String> expected = rows(stock, String.format(query[0], "stock"));
            assertThat(expected).as(query[0]).isNotEmpty();
            assertThat(rows(island, String.format(query[0], "fused"))).as(query[0]).containsExactlyElementsOf(expected);
        }

        assertThat(StreamFusion.explain(stock, String.format(upper, "fused")).fallbacks())
                .containsExactly("'streamfusion.island.enabled' is false");
    }

    @Test
    void theOptionAloneTurnsTheIslandOn() {
        Configuration configuration = new Configuration();
        configuration.set(StreamFusion.ISLAND_ENABLED, true);
        TableEnvironment env = TableEnvironment.create(
                EnvironmentSettings.newInstance().inBatchMode().withConfiguration(configuration).build());
        env.executeSql(fused("fused"));
        assertThat(env.explainSql("SELECT s FROM fused WHERE i > 0")).contains("NativeCalc(");

        TableEnvironment set = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        set.getConfig().set("streamfusion.island.enabled", "true");
        set.executeSql(fused("fused"));
        assertThat(set.explainSql("SELECT s FROM fused WHERE i > 0")).contains("NativeCalc(");
    }

    @Test
    void aCompiledPlanIsRefusedRatherThanChanged() {
        TableEnvironment island = env(true, 1, true);
        island.executeSql("CREATE TABLE sink (s STRING) WITH ('connector' = 'blackhole')");
        assertThatThrownBy(() -> island.compilePlanSql("INSERT INTO sink SELECT s FROM fused WHERE i > 0"))
                .isInstanceOf(TableException.class)
                .hasMessageContaining("A compiled plan cannot hold the StreamFusion island (NativeSourceBatches)")
                .hasMessageContaining("'streamfusion.island.enabled' = 'false'");
    }
}
