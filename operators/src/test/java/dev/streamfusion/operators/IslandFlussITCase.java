package dev.streamfusion.operators;

import dev.streamfusion.testkit.flink.MiniClusters;
import dev.streamfusion.testkit.fluss.FlussClusterExtension;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.stream.LongStream;

import static dev.streamfusion.operators.IslandTesting.identifier;
import static dev.streamfusion.testkit.flink.UnboundedQueries.take;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The island fed by streamfusion-fluss on a real Fluss cluster: a log table's polled records, one
 * Arrow batch per bucket and poll, go to the native calc whole and give the rows Flink's own Calc
 * gives over the same table; a primary-key table's changelog stays on rows.
 */
class IslandFlussITCase {

    @RegisterExtension
    @Order(1)
    static final FlussClusterExtension FLUSS = new FlussClusterExtension();

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final int ROWS = 3000;
    private static final String TABLE = "sf.island.events";
    private static final String QUERY = "SELECT id, UPPER(s), price * 2, SUBSTRING(s, 2, 3) FROM " + TABLE
            + " WHERE qty > 0 OR s IS NULL";

    private static String catalog() {
        return "CREATE CATALOG sf WITH ('type' = 'streamfusion-fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')";
    }

    /** A log table of two buckets with {@link #ROWS} rows whose values follow from their ids. */
    @BeforeAll
    static void writeLog() throws Exception {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql(catalog());
        env.executeSql("CREATE DATABASE sf.island");
        env.executeSql("CREATE TABLE " + TABLE + " (id BIGINT, s STRING, price DECIMAL(10, 2), flag BOOLEAN, qty INT) "
                + "WITH ('bucket.num' = '2')");
        env.executeSql("CREATE TABLE sf.island.kv (id BIGINT NOT NULL, s STRING, PRIMARY KEY (id) NOT ENFORCED) "
                + "WITH ('bucket.num' = '2')");
        env.executeSql("CREATE TEMPORARY TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '" + ROWS
                + "', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '" + ROWS + "')");
        env.executeSql("INSERT INTO " + TABLE + " SELECT id, CASE WHEN MOD(id, 10) = 0 THEN CAST(NULL AS STRING) "
                + "ELSE CONCAT('r', CAST(id AS STRING), 'é') END, CAST(id AS DECIMAL(10, 2)) / 4, MOD(id, 3) = 0, "
                + "CAST(MOD(id, 7) AS INT) - 2 FROM ids").await();
    }

    /** The rows the query keeps: {@code qty > 0 OR s IS NULL}, from the values the ids give. */
    private static int expectedRows() {
        return (int) LongStream.rangeClosed(1, ROWS).filter(id -> id % 7 - 2 > 0 || id % 10 == 0).count();
    }

    private static TableEnvironment env(int parallelism, boolean island) {
        return IslandTesting.env(true, parallelism, island, catalog());
    }

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2})
    void flussBatchesThroughTheIslandGiveFlinksRows(int parallelism) throws Exception {
        TableEnvironment island = env(parallelism, true);
        StreamFusion.Explanation plan = StreamFusion.explain(island, QUERY);
        assertThat(plan.nativeNodes()).containsExactly("NativeSourceBatches(" + identifier(TABLE) + ")", "NativeCalc", "NativeToRows");
        assertThat(plan.fallbacks()).isEmpty();

        int expected = expectedRows();
        List<String> stock = take(env(parallelism, false), QUERY, expected);
        assertThat(stock).hasSize(expected).doesNotHaveDuplicates();
        assertThat(take(island, QUERY, expected)).containsExactlyInAnyOrderElementsOf(stock);
    }

    @Test
    void aPrimaryKeyTablesChangelogStaysOnRows() {
        // An aggregate takes every change, so the calc sits right on the changelog scan.
        StreamFusion.Explanation plan = StreamFusion.explain(env(1, true), "SELECT u, COUNT(*) FROM (SELECT UPPER(s) AS u "
                + "FROM sf.island.kv /*+ OPTIONS('scan.startup.mode' = 'earliest') */ WHERE id > 3) GROUP BY u");
        assertThat(plan.nativeNodes()).isEmpty();
        assertThat(plan.fallbacks()).anyMatch(reason -> reason.contains("row kinds"));
    }
}
