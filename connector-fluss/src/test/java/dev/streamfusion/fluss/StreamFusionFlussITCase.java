package dev.streamfusion.fluss;

import dev.streamfusion.testkit.fluss.FlussClusterExtension;
import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code streamfusion-fluss} against fluss-flink ({@code fluss-flink-2.2} 0.9.1-incubating) on a
 * real Fluss cluster in a child JVM: the same log tables read by both, rows written by each read
 * by the other, values compared exactly.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
class StreamFusionFlussITCase {

    @RegisterExtension
    @Order(1)
    static final FlussClusterExtension FLUSS = new FlussClusterExtension();

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    private static final String COLUMNS = "id INT, b BOOLEAN, ti TINYINT, si SMALLINT, bi BIGINT, f FLOAT, d DOUBLE, "
            + "dc DECIMAL(10, 2), wide DECIMAL(30, 5), s STRING, bin BYTES, dt DATE, tm TIME, ts TIMESTAMP(3), "
            + "ts6 TIMESTAMP(6), ltz TIMESTAMP_LTZ(3)";

    /** Rows of every type with NULLs, as SQL values. */
    private static String values(int first, int count) {
        return IntStream.range(first, first + count).mapToObj(i -> i % 7 == 3
                ? "(" + i + ", CAST(NULL AS BOOLEAN), CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT), CAST(NULL AS BIGINT), "
                        + "CAST(NULL AS FLOAT), CAST(NULL AS DOUBLE), CAST(NULL AS DECIMAL(10, 2)), CAST(NULL AS DECIMAL(30, 5)), "
                        + "CAST(NULL AS STRING), CAST(NULL AS BYTES), CAST(NULL AS DATE), CAST(NULL AS TIME), "
                        + "CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS TIMESTAMP(6)), CAST(NULL AS TIMESTAMP_LTZ(3)))"
                : "(" + i + ", " + (i % 2 == 0) + ", CAST(" + (i % 120 - 60) + " AS TINYINT), CAST(" + (i * 7 % 30000)
                        + " AS SMALLINT), CAST(" + (i * 1_000_003L) + " AS BIGINT), CAST(" + (i / 3.0f) + " AS FLOAT), "
                        + "CAST(" + (i / 7.0) + " AS DOUBLE), CAST(" + (i * 13 % 100000) / 100.0 + " AS DECIMAL(10, 2)), "
                        + "CAST('" + i + "123456789012345.12345' AS DECIMAL(30, 5)), 'text " + i + " é', "
                        + "CAST('bytes" + i + "' AS BYTES), DATE '2024-0" + (1 + i % 9) + "-1" + (i % 9) + "', "
                        + "TIME '1" + (i % 10) + ":2" + (i % 10) + ":3" + (i % 10) + "', TIMESTAMP '2024-05-0" + (1 + i % 9)
                        + " 10:11:12.345', TIMESTAMP '2024-05-0" + (1 + i % 9) + " 10:11:12.123456', "
                        + "TO_TIMESTAMP_LTZ(" + (1_700_000_000_000L + i * 1000L) + ", 3))")
                .collect(Collectors.joining(", "));
    }

    private static TableEnvironment streaming() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "2");
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')");
        return env;
    }

    /** Our connector's table over the Fluss table {@code fluss.<table>}. */
    private static void createOurs(TableEnvironment env, String name, String table, String columns, String options) {
        env.executeSql("CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = 'streamfusion-fluss', "
                + "'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "', 'database' = 'fluss', 'table' = '" + table + "'"
                + (options.isEmpty() ? "" : ", " + options) + ")");
    }

    /** The first {@code count} rows of an unbounded query, then the job cancelled. */
    private static List<String> take(TableEnvironment env, String sql, int count) throws Exception {
        TableResult result = env.executeSql(sql);
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (rows.size() < count) {
                rows.add(it.next().toString());
            }
            result.getJobClient().orElseThrow().cancel().get();
        }
        return rows;
    }

    @Test
    void rowsOfEveryTypeWrittenByFlussFlinkReadAsItReadsThem() throws Exception {
        TableEnvironment env = streaming();
        env.executeSql("CREATE TABLE stock.fluss.typed (" + COLUMNS + ") WITH ('bucket.num' = '3')");
        env.executeSql("INSERT INTO stock.fluss.typed VALUES " + values(0, 300)).await();
        createOurs(env, "sf_typed", "typed", COLUMNS, "'scan.startup.mode' = 'earliest'");

        List<String> stock = take(env, "SELECT * FROM stock.fluss.typed /*+ OPTIONS('scan.startup.mode' = 'earliest') */", 300);
        assertThat(take(env, "SELECT * FROM sf_typed", 300)).containsExactlyInAnyOrderElementsOf(stock);
        assertThat(stock).anyMatch(r -> r.contains("null")).anyMatch(r -> r.contains("text 5 é"));
        // The query's columns only, in its order.
        assertThat(take(env, "SELECT s, id, ltz FROM sf_typed", 300)).containsExactlyInAnyOrderElementsOf(
                take(env, "SELECT s, id, ltz FROM stock.fluss.typed /*+ OPTIONS('scan.startup.mode' = 'earliest') */", 300));
    }

    @Test
    void rowsWrittenNativelyReadAsFlussFlinkWritesThem() throws Exception {
        TableEnvironment env = streaming();
        env.executeSql("CREATE TABLE stock.fluss.written_ours (" + COLUMNS + ") WITH ('bucket.num' = '2')");
        env.executeSql("CREATE TABLE stock.fluss.written_stock (" + COLUMNS + ") WITH ('bucket.num' = '2')");
        createOurs(env, "sf_written", "written_ours", COLUMNS, "");
        env.executeSql("INSERT INTO sf_written VALUES " + values(1000, 200)).await();
        env.executeSql("INSERT INTO stock.fluss.written_stock VALUES " + values(1000, 200)).await();
        String earliest = " /*+ OPTIONS('scan.startup.mode' = 'earliest') */";
        assertThat(take(env, "SELECT * FROM stock.fluss.written_ours" + earliest, 200))
                .containsExactlyInAnyOrderElementsOf(take(env, "SELECT * FROM stock.fluss.written_stock" + earliest, 200));
    }

    @Test
    void anUnknownTableOrColumnsOfAnotherOrderAreRefusedNamingTheTable() {
        TableEnvironment env = streaming();
        env.executeSql("CREATE TABLE stock.fluss.pair (a INT, b STRING)");
        createOurs(env, "sf_missing", "missing", "a INT", "");
        createOurs(env, "sf_swapped", "pair", "b STRING, a INT", "");
        assertThatThrownBy(() -> env.executeSql("SELECT * FROM sf_missing").collect().close())
                .hasStackTraceContaining("Fluss table fluss.missing")
                .hasStackTraceContaining("does not exist");
        assertThatThrownBy(() -> env.executeSql("INSERT INTO sf_swapped VALUES ('x', 1)").await())
                .hasStackTraceContaining("declare the Fluss table's columns, in its order");
    }
}
