package dev.streamfusion.operators;

import dev.streamfusion.testkit.flink.MiniClusters;
import dev.streamfusion.testkit.kafka.KafkaBrokerExtension;
import dev.streamfusion.testkit.nexmark.NexmarkBids;
import dev.streamfusion.testkit.nexmark.NexmarkQueries;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.streamfusion.operators.IslandTesting.nativeCalcGivesStockRows;
import static dev.streamfusion.operators.IslandTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Nexmark queries whose work is a Calc over the bids (q0, q1, q2, q10, q14 without its UDF,
 * q21, q22), with the island over streamfusion-parquet and streamfusion-kafka, against stock Flink
 * over the same bids: row for row, at parallelism 1 and 2, streaming and batch; q10 also written
 * to Parquet by the sink taking the island's batches.
 */
class IslandNexmarkITCase {

    @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final String BID =
            "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time TIMESTAMP(3), extra STRING";
    private static final String TOPIC = "nexmark-bids";
    private static final int BIDS = 3000;

    @TempDir static Path tables;

    /** The bids as JSON records in a topic, and copied by stock Flink from there into Parquet files. */
    @BeforeAll
    static void writeBids() throws Exception {
        DateTimeFormatter sql = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");
        List<String> json = new ArrayList<>(BIDS);
        for (RowData bid : new NexmarkBids(7).next(BIDS)) {
            json.add("{\"auction\": " + bid.getLong(0) + ", \"bidder\": " + bid.getLong(1) + ", \"price\": " + bid.getLong(2)
                    + ", \"channel\": \"" + bid.getString(3) + "\", \"url\": \"" + bid.getString(4) + "\", \"date_time\": \""
                    + sql.format(bid.getTimestamp(5, 3).toLocalDateTime()) + "\", \"extra\": \"" + bid.getString(6) + "\"}");
        }
        KAFKA.cluster().createTopic(TOPIC, 2);
        KAFKA.cluster().produce(TOPIC, json);
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        env.executeSql(parquet("written", "filesystem", BID, "bids"));
        env.executeSql(kafka("topic", "kafka"));
        env.executeSql("INSERT INTO written SELECT * FROM topic").await();
    }

    private static String parquet(String name, String connector, String columns, String directory) {
        return "CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = '" + connector + "', 'path' = '"
                + tables.resolve(directory) + "'" + (connector.equals("filesystem") ? ", 'format' = 'parquet'" : "") + ")";
    }

    private static String kafka(String name, String connector) {
        return "CREATE TABLE " + name + " (" + BID + ") WITH ('connector' = '" + connector + "', 'topic' = '" + TOPIC
                + "', 'properties.bootstrap.servers' = '" + KAFKA.bootstrapServers() + "', 'properties.group.id' = 'nexmark', "
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json')";
    }

    private static TableEnvironment env(boolean streaming, int parallelism, boolean island) {
        return IslandTesting.env(
                streaming,
                parallelism,
                island,
                parquet("stock_parquet", "filesystem", BID, "bids"),
                parquet("parquet_bids", "streamfusion-parquet", BID, "bids"),
                kafka("stock_kafka", "kafka"),
                kafka("kafka_bids", "streamfusion-kafka"));
    }

    /** Every query's rows with the island over {@code fused}, checked against stock over {@code stock}. */
    private static void queriesGiveFlinksRows(TableEnvironment stock, TableEnvironment island, String stockTable, String fused)
            throws Exception {
        for (Map.Entry<String, String> query : NexmarkQueries.bidCalcs().entrySet()) {
            if (query.getKey().equals("q0")) {
                // A projection the scan takes: no Calc is left for the island.
                String sql = String.format(query.getValue(), fused);
                assertThat(StreamFusion.explain(island, sql).fallbacks()).isEmpty();
                assertThat(rows(island, sql)).containsExactlyElementsOf(rows(stock, String.format(query.getValue(), stockTable)));
            } else {
                nativeCalcGivesStockRows(stock, island, query.getValue(), stockTable, fused, query.getKey().equals("q2") ? 5 : 100);
            }
        }
    }

    @ParameterizedTest(name = "streaming={0}, parallelism={1}")
    @CsvSource({"true, 1", "true, 2", "false, 1", "false, 2"})
    void overParquet(boolean streaming, int parallelism) throws Exception {
        queriesGiveFlinksRows(env(streaming, parallelism, false), env(streaming, parallelism, true), "stock_parquet", "parquet_bids");
    }

    @ParameterizedTest(name = "parallelism={0}")
    @CsvSource({"1", "2"})
    void overKafka(int parallelism) throws Exception {
        queriesGiveFlinksRows(env(true, parallelism, false), env(true, parallelism, true), "stock_kafka", "kafka_bids");
    }

    @Test
    void q10IntoParquetThroughTheIsland() throws Exception {
        String columns = "auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP(3), extra STRING, dt STRING, hm STRING";
        String q10 = NexmarkQueries.bidCalcs().get("q10");
        TableEnvironment stock = env(true, 2, false);
        TableEnvironment island = env(true, 2, true);
        stock.executeSql(parquet("stock_q10", "filesystem", columns, "stock-q10"));
        island.executeSql(parquet("fused_q10", "streamfusion-parquet", columns, "fused-q10"));
        assertThat(StreamFusion.explain(island, "INSERT INTO fused_q10 " + String.format(q10, "kafka_bids")).nativeNodes())
                .containsExactly(
                        "NativeSourceBatches(default_catalog.default_database.kafka_bids)",
                        "NativeCalc",
                        "NativeSinkBatches(default_catalog.default_database.fused_q10)");
        stock.executeSql("INSERT INTO stock_q10 " + String.format(q10, "stock_kafka")).await();
        island.executeSql("INSERT INTO fused_q10 " + String.format(q10, "kafka_bids")).await();

        TableEnvironment reader = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        reader.executeSql(parquet("stock_q10", "filesystem", columns, "stock-q10"));
        reader.executeSql(parquet("fused_q10", "filesystem", columns, "fused-q10"));
        List<String> expected = rows(reader, "SELECT * FROM stock_q10");
        assertThat(expected).hasSize(BIDS);
        assertThat(rows(reader, "SELECT * FROM fused_q10")).containsExactlyElementsOf(expected);
    }
}
