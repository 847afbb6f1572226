package dev.streamfusion.operators;

import dev.streamfusion.bridge.batch.ArrowBatchSerializer;
import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;

import static dev.streamfusion.operators.IslandTesting.identifier;
import static dev.streamfusion.operators.IslandTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Tables with a watermark: the watermark is assigned over the source's batches and the calc above
 * it runs natively, with Flink's rows, windows and late rows (a watermark emitted mid-batch cuts
 * the batch where Flink's assigner would emit it), and Flink's error for a NULL rowtime.
 */
class IslandWatermarkITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final String BID =
            "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time TIMESTAMP(3), extra STRING";
    private static final String EVENTS = "id BIGINT, ts TIMESTAMP(3)";

    @TempDir static Path tables;

    /**
     * Nexmark's bids in two Parquet files; and events out of order in one file, in the order the
     * rows are listed (two of them late once the watermark has passed their window).
     */
    @BeforeAll
    static void writeTables() throws Exception {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "2");
        env.executeSql("CREATE TABLE gen (" + BID + ") WITH ('connector' = 'streamfusion-nexmark', 'table' = 'bid', "
                + "'events' = '20000', 'seed' = '3')");
        env.executeSql(parquet("bids_out", "filesystem", BID, "bids", ""));
        env.executeSql("INSERT INTO bids_out SELECT * FROM gen").await();
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        env.executeSql(parquet("events_out", "filesystem", EVENTS, "events", ""));
        env.executeSql("INSERT INTO events_out VALUES "
                + "(1, TIMESTAMP '2024-01-01 00:00:00.000'), "
                + "(2, TIMESTAMP '2024-01-01 00:00:05.000'), "
                + "(3, TIMESTAMP '2024-01-01 00:00:01.500'), "
                + "(4, TIMESTAMP '2024-01-01 00:00:06.000'), "
                + "(5, TIMESTAMP '2024-01-01 00:00:04.500'), "
                + "(6, TIMESTAMP '2024-01-01 00:00:05.500')").await();
        env.executeSql(parquet("nulls_out", "filesystem", EVENTS, "nulls", ""));
        env.executeSql("INSERT INTO nulls_out VALUES (1, TIMESTAMP '2024-01-01 00:00:00.000'), (2, CAST(NULL AS TIMESTAMP(3)))")
                .await();
    }

    private static String parquet(String name, String connector, String columns, String directory, String watermark) {
        return "CREATE TABLE " + name + " (" + columns + watermark + ") WITH ('connector' = '" + connector + "', 'path' = '"
                + tables.resolve(directory) + "'" + (connector.equals("filesystem") ? ", 'format' = 'parquet'" : "") + ")";
    }

    private static TableEnvironment env(int parallelism, boolean island) {
        String bidWatermark = ", WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND";
        String eventWatermark = ", WATERMARK FOR ts AS ts - INTERVAL '1' SECOND";
        return IslandTesting.env(
                true,
                parallelism,
                island,
                parquet("stock_bids", "filesystem", BID, "bids", bidWatermark),
                parquet("bids", "streamfusion-parquet", BID, "bids", bidWatermark),
                parquet("stock_events", "filesystem", EVENTS, "events", eventWatermark),
                parquet("events", "streamfusion-parquet", EVENTS, "events", eventWatermark),
                parquet("nulls", "streamfusion-parquet", EVENTS, "nulls", eventWatermark));
    }

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2})
    void aCalcOverAWatermarkedTableRunsNativelyWithFlinksRowsAndWindows(int parallelism) throws Exception {
        TableEnvironment stock = env(parallelism, false);
        TableEnvironment island = env(parallelism, true);

        String calc = "SELECT auction, price * 2, date_time FROM %s WHERE price > 5000";
        StreamFusion.Explanation explained = StreamFusion.explain(island, String.format(calc, "bids"));
        assertThat(explained.fallbacks()).as("%s", explained).isEmpty();
        assertThat(explained.nativeNodes()).as("%s", explained).containsExactly(
                "NativeSourceBatches(" + identifier("bids") + ")", "NativeWatermarkAssigner", "NativeCalc", "NativeToRows");
        List<String> expected = rows(stock, String.format(calc, "stock_bids"));
        assertThat(expected).hasSizeGreaterThan(100);
        assertThat(rows(island, String.format(calc, "bids"))).containsExactlyElementsOf(expected);

        String windows = "SELECT window_start, window_end, COUNT(*), MAX(price), SUM(bidder) "
                + "FROM TABLE(TUMBLE(TABLE %s, DESCRIPTOR(date_time), INTERVAL '0.1' SECOND)) "
                + "WHERE price > 1000 GROUP BY window_start, window_end";
        assertThat(windowsGiveFlinksRows(stock, island, windows, "bids")).hasSizeGreaterThan(3);
    }

    /**
     * Without chaining every island operator takes its batches over an exchange, and frees each
     * one it received, also the watermark assigner, which hands on a batch it does not cut.
     */
    @Test
    void withoutChainingEveryReceivedBatchIsFreed() throws Exception {
        TableEnvironment stock = env(1, false);
        TableEnvironment island = env(1, true);
        island.getConfig().set("pipeline.operator-chaining.enabled", "false");
        String calc = "SELECT auction, price * 2, date_time FROM %s WHERE price > 5000";
        assertThat(StreamFusion.explain(island, String.format(calc, "bids")).nativeNodes())
                .contains("NativeWatermarkAssigner", "NativeCalc");
        long before = ArrowBatchSerializer.receivedBytes();
        assertThat(rows(island, String.format(calc, "bids"))).containsExactlyElementsOf(rows(stock, String.format(calc, "stock_bids")));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (ArrowBatchSerializer.receivedBytes() > before && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(ArrowBatchSerializer.receivedBytes()).isEqualTo(before);
    }

    /**
     * Checks that {@code query} ({@code %s} for the table) assigns the watermark and runs its calc
     * natively over {@code table}, and gives the rows stock Flink gives over {@code stock_<table>};
     * returns those rows.
     */
    private static List<String> windowsGiveFlinksRows(TableEnvironment stock, TableEnvironment island, String query, String table)
            throws Exception {
        assertThat(StreamFusion.explain(island, String.format(query, table)).nativeNodes())
                .contains("NativeWatermarkAssigner", "NativeCalc");
        List<String> expected = rows(stock, String.format(query, "stock_" + table));
        assertThat(rows(island, String.format(query, table))).containsExactlyElementsOf(expected);
        return expected;
    }

    @Test
    void aWatermarkEmittedMidBatchMakesTheRowsAfterItLateAsInFlink() throws Exception {
        TableEnvironment stock = env(1, false);
        TableEnvironment island = env(1, true);
        String windows = "SELECT window_start, COUNT(*), SUM(id) "
                + "FROM TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE id > 0 "
                + "GROUP BY window_start, window_end";
        // Rows 3 and 5 come after watermarks past their windows' ends: Flink drops them.
        assertThat(windowsGiveFlinksRows(stock, island, windows, "events")).containsExactly(
                "+I[2024-01-01T00:00, 1, 1]", "+I[2024-01-01T00:00:05, 2, 8]", "+I[2024-01-01T00:00:06, 1, 4]");
    }

    @Test
    void aNullRowtimeFailsWithFlinksError() {
        String query = "SELECT id FROM %s WHERE id > 0";
        TableEnvironment island = env(1, true);
        assertThat(StreamFusion.explain(island, String.format(query, "nulls")).nativeNodes())
                .contains("NativeWatermarkAssigner");
        // Flink's assigner over the same source's rows (Flink's file source takes 30 s to stop after a failure).
        assertFailsWithFlinksNullRowtimeError(env(1, false), String.format(query, "nulls"));
        assertFailsWithFlinksNullRowtimeError(island, String.format(query, "nulls"));
    }

    private static void assertFailsWithFlinksNullRowtimeError(TableEnvironment env, String query) {
        env.executeSql("CREATE TEMPORARY TABLE discarded (id BIGINT) WITH ('connector' = 'blackhole')");
        assertThatThrownBy(() -> env.executeSql("INSERT INTO discarded " + query).await())
                .satisfies(e -> assertThat(ExceptionUtils.findThrowableWithMessage(
                        e, "RowTime field should not be null, please convert it to a non-null long value."))
                        .as("%s", e)
                        .isPresent());
    }

    @Test
    void aWatermarkNoNativeCalcReadsStaysInFlinkNamingWhy() {
        StreamFusion.Explanation explained = StreamFusion.explain(env(1, true), "SELECT REVERSE(channel), date_time FROM bids");
        assertThat(explained.nativeNodes()).isEmpty();
        assertThat(explained.fallbacks()).anySatisfy(reason -> assertThat(reason)
                .startsWith("WatermarkAssigner over " + identifier("bids") + " runs in Flink"));
    }
}
