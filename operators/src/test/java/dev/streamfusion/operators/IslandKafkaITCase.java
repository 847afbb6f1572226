package dev.streamfusion.operators;

import dev.streamfusion.testkit.flink.MiniClusters;
import dev.streamfusion.testkit.kafka.KafkaBrokerExtension;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.streamfusion.operators.IslandTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The island fed by streamfusion-kafka on a real broker: each partition's records of a poll go
 * into the island as one batch, on both rungs, and the rows (collected, or written by the
 * Parquet sink taking the batches) are stock Flink's over the same topic.
 */
class IslandKafkaITCase {

    @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final String TOPIC = "island-bids";
    private static final String COLUMNS =
            "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, date_time TIMESTAMP(3), extra STRING";
    private static final String QUERY =
            "SELECT auction, bidder, price * 2, channel, date_time FROM %s WHERE MOD(auction, 10) < 7 OR channel IS NULL";
    private static final String WRITTEN = "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, date_time TIMESTAMP(3)";
    private static final int COUNT = 5000;

    @TempDir static Path tables;

    @BeforeAll
    static void produce() {
        KAFKA.cluster().createTopic(TOPIC, 3);
        List<String> values = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            String channel = i % 11 == 0 ? "null" : "\"channel-" + (i % 5) + "\"";
            String price = i % 13 == 0 ? "null" : String.valueOf(i % 2 == 0 ? (long) i * 1_000_003L : Long.MAX_VALUE - i);
            values.add("{\"auction\": " + (1000 + i % 97) + ", \"bidder\": " + i + ", \"price\": " + price
                    + ", \"channel\": " + channel + ", \"date_time\": \"2024-02-" + (10 + i % 18) + " 10:" + (10 + i % 50)
                    + ":00." + (100 + i % 900) + "\", \"extra\": \"" + "x".repeat(i % 17) + "\"}");
        }
        KAFKA.cluster().produce(TOPIC, values);
    }

    private static String kafka(String name, String connector, String rung) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = '" + connector + "', 'topic' = '" + TOPIC
                + "', 'properties.bootstrap.servers' = '" + KAFKA.bootstrapServers() + "', 'properties.group.id' = 'island', "
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'"
                + (rung == null ? "" : ", 'streamfusion.rung' = '" + rung + "'") + ")";
    }

    private static TableEnvironment env(boolean island, String rung) {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "2");
        if (island) {
            assertThat(StreamFusion.install(env)).isTrue();
        }
        env.executeSql(kafka("stock_bids", "kafka", null));
        env.executeSql(kafka("bids", "streamfusion-kafka", rung));
        return env;
    }

    @ParameterizedTest(name = "rung={0}")
    @CsvSource({"NATIVE", "JAVA"})
    void kafkaBatchesThroughTheIslandGiveFlinksRows(String rung) throws Exception {
        TableEnvironment island = env(true, rung);
        StreamFusion.Explanation explained = StreamFusion.explain(island, String.format(QUERY, "bids"));
        assertThat(explained.nativeNodes())
                .as("%s", explained)
                .containsExactly("NativeSourceBatches(default_catalog.default_database.bids)", "NativeCalc", "NativeToRows");
        List<String> expected = rows(env(false, null), String.format(QUERY, "stock_bids"));
        assertThat(expected).hasSizeGreaterThan(COUNT / 2);
        assertThat(rows(island, String.format(QUERY, "bids"))).containsExactlyElementsOf(expected);

        // Into a Parquet sink that takes the batches whole.
        String out = tables.resolve("out-" + rung).toString();
        island.executeSql("CREATE TABLE sunk (" + WRITTEN + ") WITH ("
                + "'connector' = 'streamfusion-parquet', 'path' = '" + out + "')");
        assertThat(StreamFusion.explain(island, "INSERT INTO sunk " + String.format(QUERY, "bids")).nativeNodes())
                .containsExactly(
                        "NativeSourceBatches(default_catalog.default_database.bids)",
                        "NativeCalc",
                        "NativeSinkBatches(default_catalog.default_database.sunk)");
        island.executeSql("INSERT INTO sunk " + String.format(QUERY, "bids")).await();
        TableEnvironment reader = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        reader.executeSql("CREATE TABLE written (" + WRITTEN + ") WITH ("
                + "'connector' = 'filesystem', 'path' = '" + out + "', 'format' = 'parquet')");
        assertThat(rows(reader, "SELECT * FROM written")).containsExactlyElementsOf(expected);
    }
}
