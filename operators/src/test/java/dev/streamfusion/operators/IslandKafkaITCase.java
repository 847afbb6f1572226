package dev.streamfusion.operators;

import dev.streamfusion.testkit.flink.MiniClusters;
import dev.streamfusion.testkit.kafka.KafkaBrokerExtension;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.streamfusion.operators.IslandTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    /** Events whose times rise in the order they are produced (so in each partition too). */
    private static final String EVENTS_TOPIC = "island-events";

    @BeforeAll
    static void produce() {
        KAFKA.cluster().createTopic(TOPIC, 3);
        KAFKA.cluster().produce(TOPIC, bids(COUNT));
        KAFKA.cluster().createTopic(EVENTS_TOPIC, 3);
        List<String> events = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            long millis = i * 37L;
            events.add(String.format("{\"id\": %d, \"v\": %d, \"ts\": \"2024-03-01 10:%02d:%02d.%03d\"}",
                    i, i % 7, millis / 60_000, millis / 1000 % 60, millis % 1000));
        }
        KAFKA.cluster().produce(EVENTS_TOPIC, events);
    }

    /** The events topic through Flink's connector and ours, bounded and unbounded ({@code *_live}). */
    private static void registerEvents(TableEnvironment env) {
        for (String[] table : new String[][] {{"stock_events", "kafka"}, {"events", "streamfusion-kafka"}}) {
            for (boolean bounded : new boolean[] {true, false}) {
                env.executeSql("CREATE TABLE " + table[0] + (bounded ? "" : "_live") + " (id BIGINT, v BIGINT, ts TIMESTAMP(3), "
                        + "WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ('connector' = '" + table[1] + "', "
                        + "'topic' = '" + EVENTS_TOPIC + "', 'properties.bootstrap.servers' = '" + KAFKA.bootstrapServers()
                        + "', 'properties.group.id' = 'island', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json'"
                        + (bounded ? ", 'scan.bounded.mode' = 'latest-offset'" : "") + ")");
            }
        }
    }

    /**
     * The rows of the first {@code windows} windows {@code query} fires over an unbounded read: a
     * window fires only when the watermark passes its end, so without watermarks none would.
     */
    // CloseableIterator.close() declares Exception.
    @SuppressWarnings("try")
    private static List<String> firstWindows(TableEnvironment env, String query, int windows) throws Exception {
        java.util.Map<String, String> byWindow = new java.util.TreeMap<>();
        try (org.apache.flink.util.CloseableIterator<org.apache.flink.types.Row> it = env.executeSql(query).collect()) {
            while (it.hasNext()) {
                org.apache.flink.types.Row row = it.next();
                byWindow.put(String.valueOf(row.getField(0)), row.toString());
                if (byWindow.size() >= windows + 2) {
                    break;
                }
            }
        }
        return new ArrayList<>(byWindow.values()).subList(0, windows);
    }

    /**
     * Flink pushes a Kafka table's watermark into the scan (per partition): the island's batches
     * carry it, generated over each batch's rows; on-event emission stays on rows. (Waiting for a
     * window that never fires cannot be interrupted, as Flink's result fetcher ignores interrupts:
     * the test runs in a thread of its own, failed when its time is up.)
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWatermarkInTheKafkaScanIsGeneratedOverItsBatches() throws Exception {
        TableEnvironment island = env(true, null);
        TableEnvironment stock = env(false, null);
        registerEvents(island);
        registerEvents(stock);

        String calc = "SELECT id, v * 3, ts FROM %s WHERE MOD(id, 3) <> 0";
        StreamFusion.Explanation explained = StreamFusion.explain(island, String.format(calc, "events"));
        assertThat(explained.nativeNodes())
                .as("%s", explained)
                .containsExactly("NativeSourceBatches(default_catalog.default_database.events)", "NativeCalc", "NativeToRows");
        assertThat(explained.plan()).contains("watermark=[");
        List<String> expected = rows(stock, String.format(calc, "stock_events"));
        assertThat(expected).hasSize(COUNT - (COUNT + 2) / 3);
        assertThat(rows(island, String.format(calc, "events"))).containsExactlyElementsOf(expected);

        String windows = "SELECT window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), "
                + "INTERVAL '10' SECOND)) WHERE v > 1 GROUP BY window_start, window_end";
        assertThat(StreamFusion.explain(island, String.format(windows, "events")).nativeNodes()).contains("NativeCalc");
        List<String> expectedWindows = rows(stock, String.format(windows, "stock_events"));
        assertThat(expectedWindows).hasSizeGreaterThan(10);
        assertThat(rows(island, String.format(windows, "events"))).containsExactlyElementsOf(expectedWindows);
        // Unbounded, windows fire only as the island's watermarks pass them (no end-of-input watermark).
        assertThat(StreamFusion.explain(island, String.format(windows, "events_live")).nativeNodes()).contains("NativeCalc");
        assertThat(firstWindows(island, String.format(windows, "events_live"), 10))
                .containsExactlyElementsOf(expectedWindows.subList(0, 10));

        StreamFusion.Explanation onEvent = StreamFusion.explain(island,
                String.format(calc, "events /*+ OPTIONS('scan.watermark.emit.strategy' = 'on-event') */"));
        assertThat(onEvent.nativeNodes()).isEmpty();
        assertThat(onEvent.fallbacks()).anySatisfy(reason -> assertThat(reason).contains("'on-event'"));
    }

    /** {@code count} bids as JSON, with NULLs, overflowing prices and a unique bidder each. */
    private static List<String> bids(int count) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String channel = i % 11 == 0 ? "null" : "\"channel-" + (i % 5) + "\"";
            String price = i % 13 == 0 ? "null" : String.valueOf(i % 2 == 0 ? (long) i * 1_000_003L : Long.MAX_VALUE - i);
            values.add("{\"auction\": " + (1000 + i % 97) + ", \"bidder\": " + i + ", \"price\": " + price
                    + ", \"channel\": " + channel + ", \"date_time\": \"2024-02-" + (10 + i % 18) + " 10:" + (10 + i % 50)
                    + ":00." + (100 + i % 900) + "\", \"extra\": \"" + "x".repeat(i % 17) + "\"}");
        }
        return values;
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

    /**
     * The planner asks for the columns in the order the query first uses them, not the table's:
     * the batches hand them over in that order (columns of one type swapped would otherwise give
     * wrong rows, and a function of another type's column fail).
     */
    @ParameterizedTest(name = "rung={0}")
    @CsvSource({"NATIVE", "JAVA"})
    void columnsReachTheIslandInTheOrderThePlannerAsksFor(String rung) throws Exception {
        // Without a filter the scan reads the columns in the order the projection first uses them.
        String query = "SELECT DATE_FORMAT(date_time, 'yyyy-MM-dd HH') AS hour_of, bidder - auction AS diff, channel FROM %s";
        TableEnvironment island = env(true, rung);
        StreamFusion.Explanation explained = StreamFusion.explain(island, String.format(query, "bids"));
        assertThat(explained.nativeNodes()).as("%s", explained).contains("NativeCalc");
        assertThat(explained.plan()).contains("fields=[date_time, bidder, auction, channel]");
        List<String> expected = rows(env(false, null), String.format(query, "stock_bids"));
        assertThat(expected).hasSize(COUNT);
        assertThat(rows(island, String.format(query, "bids"))).containsExactlyElementsOf(expected);
    }

    /** A streamfusion-kafka sink of the query's rows into {@code topic}: JSON values, the auction as a JSON key. */
    private static String kafkaSink(String name, String connector, String topic, String extra) {
        return "CREATE TABLE " + name + " (" + WRITTEN + ") WITH ('connector' = '" + connector + "', 'topic' = '" + topic
                + "', 'properties.bootstrap.servers' = '" + KAFKA.bootstrapServers() + "', 'key.format' = 'json', "
                + "'key.fields' = 'auction', 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY', "
                + "'sink.delivery-guarantee' = 'at-least-once'" + extra + ")";
    }

    /** The rows written to {@code topic}, read back by stock Flink as the sink table's rows. */
    private static List<String> written(String topic) throws Exception {
        TableEnvironment reader = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        // One slot: the failover test's job holds the other.
        reader.getConfig().set("table.exec.resource.default-parallelism", "1");
        reader.executeSql("CREATE TABLE written (" + WRITTEN + ") WITH ('connector' = 'kafka', 'topic' = '" + topic
                + "', 'properties.bootstrap.servers' = '" + KAFKA.bootstrapServers() + "', 'properties.group.id' = 'reader', "
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'key.format' = 'json', "
                + "'key.fields' = 'auction', 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY')");
        return rows(reader, "SELECT * FROM written");
    }

    /**
     * A record Flink's format reads into a NULL where the table says NOT NULL (the native decoder
     * hands such a record back to it): the island's batches cannot hold that NULL, so the job
     * fails naming the column, and nothing is written in the NULL's place.
     */
    @Test
    void aNullInANotNullColumnFailsTheIslandNamingTheColumn() throws Exception {
        String topic = "island-not-null";
        KAFKA.cluster().createTopic(topic, 1);
        KAFKA.cluster().produce(topic, List.of("{\"id\": 1, \"v\": 1}", "{\"v\": 2}"));
        TableEnvironment island = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        island.getConfig().set("table.exec.resource.default-parallelism", "1");
        assertThat(StreamFusion.install(island)).isTrue();
        island.executeSql("CREATE TABLE required (id BIGINT NOT NULL, v BIGINT) WITH ('connector' = 'streamfusion-kafka', "
                + "'topic' = '" + topic + "', 'properties.bootstrap.servers' = '" + KAFKA.bootstrapServers() + "', "
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json')");
        Path out = tables.resolve("not-null");
        island.executeSql("CREATE TABLE required_out (id BIGINT NOT NULL, v BIGINT) WITH ("
                + "'connector' = 'streamfusion-parquet', 'path' = '" + out + "')");
        String insert = "INSERT INTO required_out SELECT id, v FROM required";
        assertThat(StreamFusion.explain(island, insert).nativeNodes())
                .contains("NativeSinkBatches(default_catalog.default_database.required_out)");
        assertThatThrownBy(() -> island.executeSql(insert).await())
                .hasStackTraceContaining("column id is NOT NULL, but the batch holds a NULL in it");
        if (Files.exists(out)) {
            try (Stream<Path> files = Files.walk(out)) {
                // Part files in progress are hidden; a committed one is not.
                assertThat(files.filter(Files::isRegularFile)
                                .map(f -> f.getFileName().toString())
                                .filter(name -> !name.startsWith(".") && !name.startsWith("_")))
                        .isEmpty();
            }
        }
    }

    @Test
    void aKafkaSinkTakesTheIslandsBatchesAndWritesWhatFlinkWrites() throws Exception {
        TableEnvironment island = env(true, "NATIVE");
        TableEnvironment stock = env(false, null);
        KAFKA.cluster().createTopic("island-out", 2);
        KAFKA.cluster().createTopic("stock-out", 2);
        island.executeSql(kafkaSink("produced", "streamfusion-kafka", "island-out", ""));
        stock.executeSql(kafkaSink("produced", "kafka", "stock-out", ""));
        String insert = "INSERT INTO produced " + String.format(QUERY, "%s");
        assertThat(StreamFusion.explain(island, String.format(insert, "bids")).nativeNodes())
                .containsExactly(
                        "NativeSourceBatches(default_catalog.default_database.bids)",
                        "NativeCalc",
                        "NativeSinkBatches(default_catalog.default_database.produced)");
        island.executeSql(String.format(insert, "bids")).await();
        stock.executeSql(String.format(insert, "stock_bids")).await();
        List<String> expected = written("stock-out");
        assertThat(expected).hasSizeGreaterThan(COUNT / 2);
        assertThat(written("island-out")).containsExactlyElementsOf(expected);

        // What the batches cannot carry is written from rows, and says why.
        island.executeSql("CREATE TABLE stamped (" + WRITTEN + ", ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp') WITH ("
                + "'connector' = 'streamfusion-kafka', 'topic' = 'unused', 'properties.bootstrap.servers' = '"
                + KAFKA.bootstrapServers() + "', 'format' = 'json', 'sink.delivery-guarantee' = 'at-least-once')");
        assertThat(StreamFusion.explain(island, "INSERT INTO stamped SELECT *, CAST(NULL AS TIMESTAMP_LTZ(3)) FROM ("
                        + String.format(QUERY, "bids") + ")").fallbacks())
                .containsExactly("Sink into default_catalog.default_database.stamped: metadata columns are written from rows");

        // A sink of its own parallelism takes the batches across the exchange.
        KAFKA.cluster().createTopic("island-narrow", 2);
        island.executeSql(kafkaSink("narrow", "streamfusion-kafka", "island-narrow", ", 'sink.parallelism' = '1'"));
        String narrow = "INSERT INTO narrow " + String.format(QUERY, "bids");
        assertThat(StreamFusion.explain(island, narrow).nativeNodes())
                .containsExactly(
                        "NativeSourceBatches(default_catalog.default_database.bids)",
                        "NativeCalc",
                        "NativeSinkBatches(default_catalog.default_database.narrow)");
        island.executeSql(narrow).await();
        assertThat(written("island-narrow")).containsExactlyElementsOf(expected);
    }

    @Test
    void aKafkaSinkFedByTheIslandLosesNothingWhenItsTaskManagerIsLost(@InjectMiniCluster MiniCluster cluster) throws Exception {
        String in = "failover-in";
        String out = "failover-out";
        KAFKA.cluster().createTopic(in, 2);
        KAFKA.cluster().createTopic(out, 2);
        List<String> values = bids(COUNT);
        KAFKA.cluster().produce(in, values.subList(0, COUNT / 2));
        // The same bids as the shared topic's.
        List<String> expected = rows(env(false, null), String.format(QUERY, "stock_bids"));

        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        env.getConfig().set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        env.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        env.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        env.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        assertThat(StreamFusion.install(env)).isTrue();
        env.executeSql("CREATE TABLE src (" + COLUMNS + ") WITH ('connector' = 'streamfusion-kafka', 'topic' = '" + in
                + "', 'properties.bootstrap.servers' = '" + KAFKA.bootstrapServers() + "', 'properties.group.id' = 'failover', "
                + "'scan.startup.mode' = 'earliest-offset', 'format' = 'json')");
        env.executeSql(kafkaSink("produced", "streamfusion-kafka", out, ""));
        String insert = "INSERT INTO produced " + String.format(QUERY, "src");
        assertThat(StreamFusion.explain(env, insert).nativeNodes())
                .containsExactly(
                        "NativeSourceBatches(default_catalog.default_database.src)",
                        "NativeCalc",
                        "NativeSinkBatches(default_catalog.default_database.produced)");
        JobClient job = env.executeSql(insert).getJobClient().orElseThrow();
        try {
            awaitWritten(out, 1);
            cluster.terminateTaskManager(0).get(30, TimeUnit.SECONDS);
            cluster.startTaskManager();
            KAFKA.cluster().produce(in, values.subList(COUNT / 2, COUNT));
            List<String> written = awaitWritten(out, expected.size());
            assertThat(cluster.getExecutionGraph(job.getJobID()).get(30, TimeUnit.SECONDS).getFailureInfo())
                    .as("the job failed and recovered")
                    .isNotNull();
            // At least once: every row, some perhaps twice (those sent after the last checkpoint).
            assertThat(new TreeSet<>(written)).containsExactlyElementsOf(new TreeSet<>(expected));
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    /** Waits until the distinct rows written to {@code topic} are at least {@code rows}; returns all. */
    private static List<String> awaitWritten(String topic, int rows) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        List<String> written = written(topic);
        while (new TreeSet<>(written).size() < rows && System.nanoTime() < deadline) {
            Thread.sleep(500);
            written = written(topic);
        }
        return written;
    }
}
