package dev.streamfusion.e2e;

import dev.streamfusion.testkit.flink.FlinkSqlClient;
import dev.streamfusion.testkit.kafka.KafkaBrokerExtension;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/getting-started.md as a user follows it: Flink's SQL Client ({@code sql-client.sh -f}) in a
 * child JVM whose classpath is a Flink installation's {@code lib/} with StreamFusion's Kafka and
 * Parquet SQL jars dropped in, against a real Kafka broker. The walk-through's SQL is taken from
 * the page and its printed result checked against the page; then the errors a user meets first:
 * a platform without the native library, a JVM without the {@code --add-opens} Arrow needs, and
 * an option value Flink rejects.
 */
class GettingStartedITCase {

    @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String TOPIC = "first-contact";
    private static final int COUNT = 1_000;
    private static final String COLUMNS = "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING";

    @TempDir Path directory;

    private static long priceSum;

    @BeforeAll
    static void produceBids() {
        KAFKA.cluster().createTopic(TOPIC, 2);
        List<String> bids = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            bids.add("{\"auction\": " + i + ", \"bidder\": " + (i % 7) + ", \"price\": " + (i * 3)
                    + ", \"channel\": \"c" + (i % 5) + "\"}");
            priceSum += i * 3L;
        }
        KAFKA.cluster().produce(TOPIC, bids);
    }

    @Test
    void theWalkThroughRunsAsWritten() throws Exception {
        String page = Files.readString(Paths.get(System.getProperty("streamfusion.getting.started")));
        String script = walkThrough(page)
                .replace("localhost:9092", KAFKA.bootstrapServers())
                .replace("/tmp/streamfusion-getting-started", directory.resolve("tables").toString());
        KAFKA.cluster().createTopic("bids", 1);

        FlinkSqlClient.Run run = client().run("walk-through", script);

        assertThat(run.exitCode).as(run.text()).isZero();
        assertThat(run.output).as(run.text()).noneMatch(line -> line.contains("[ERROR]"));
        // What the page says the last query prints is what it printed, and what the rows are.
        List<String> expected = new ArrayList<>();
        for (int channel = 0; channel < 5; channel++) {
            long volume = 0;
            int bids = 0;
            for (long id = 1; id <= 10_000; id++) {
                if (id % 5 == channel) {
                    volume += id * 3;
                    bids++;
                }
            }
            expected.add("c" + channel + " " + bids + " " + volume);
        }
        assertThat(resultRows(run.text())).as(run.text()).isEqualTo(expected);
        assertThat(resultRows(page)).isEqualTo(expected);
        // EXPLAIN shows the columns and the filter pushed into the Parquet scan (the filter prunes
        // row groups by their statistics, and Flink still applies it to the rows above the scan).
        assertThat(run.text())
                .contains("bids_archive, filter=[>(price, 29000)], project=[price, channel], metadata=[]")
                .contains("Calc(select=[channel, price], where=[(price > 29000)])");

        // The log says how each table reads and what was loaded.
        String log = Files.readString(run.log);
        assertThat(log)
                .contains("streamfusion-kafka table `default_catalog`.`default_database`.`bids`: StreamFusion Kafka table source"
                        + " (native rung: librdkafka polls, 'json' decoded natively)")
                .containsPattern("Loaded StreamFusion native \\S+ \\((debug|release)\\) from jar:/native/linux-x86_64/libstreamfusion.so");
    }

    @Test
    void onAPlatformWithoutTheLibraryAutoRunsFlinksKafkaCodeAndTheRestSayWhy() throws Exception {
        String script = String.join(
                "\n",
                "SET 'table.dml-sync' = 'true';",
                "SET 'execution.runtime-mode' = 'batch';",
                table("auto_in", TOPIC, ""),
                table("auto_out", "first-contact-copy", ""),
                "INSERT INTO auto_out SELECT * FROM auto_in;",
                "SELECT COUNT(*) AS n, SUM(price) AS s FROM auto_out;",
                table("native_in", TOPIC, ", 'streamfusion.rung' = 'NATIVE'"),
                "SELECT COUNT(*) FROM native_in;",
                "");
        KAFKA.cluster().createTopic("first-contact-copy", 1);
        List<String> options = new ArrayList<>(FlinkSqlClient.FLINK_JVM_OPTIONS);
        options.add("-Dos.arch=aarch64");

        FlinkSqlClient.Run run = client().withJvmOptions(options).run("aarch64", script);

        // Read and written through Flink's own Kafka code, the rows complete.
        assertThat(countAndSum(run.text())).as(run.text()).isEqualTo(COUNT + " " + priceSum);
        assertThat(Files.readString(run.log))
                .contains("`auto_in`: StreamFusion Kafka table source (Flink's own reader: StreamFusion's native library is built"
                        + " for linux-x86_64 only, and this JVM runs on linux-aarch64");
        assertThat(errorOf(run))
                .contains("'streamfusion.rung' = 'NATIVE', but StreamFusion's native library is built for linux-x86_64 only,"
                        + " and this JVM runs on linux-aarch64");

        FlinkSqlClient.Run parquet = client().withJvmOptions(options).run(
                "aarch64-parquet",
                "SET 'execution.runtime-mode' = 'batch';\n"
                        + "CREATE TABLE p (" + COLUMNS + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                        + directory.resolve("p").toUri() + "', 'format' = 'parquet');\n"
                        + "INSERT INTO p SELECT * FROM (VALUES (1, 2, 3, 'x')) AS t(a, b, c, d);\n");
        assertThat(errorOf(parquet)).contains("built for linux-x86_64 only, and this JVM runs on linux-aarch64");
    }

    @Test
    void aJvmWithoutTheAddOpensFailsAtPlanningNamingTheFlag() throws Exception {
        List<String> options = FlinkSqlClient.FLINK_JVM_OPTIONS.stream()
                .filter(option -> !option.contains("java.nio"))
                .collect(Collectors.toList());
        FlinkSqlClient.Run run = client().withJvmOptions(options).run(
                "no-add-opens",
                "SET 'execution.runtime-mode' = 'batch';\n" + table("bids", TOPIC, "") + "SELECT COUNT(*) FROM bids;\n");
        assertThat(errorOf(run))
                .contains("StreamFusion needs the JVM option --add-opens=java.base/java.nio=ALL-UNNAMED")
                .contains("env.java.opts.all");
    }

    @Test
    void aWrongOptionValueGetsFlinksOwnMessage() throws Exception {
        String wrong = ", 'scan.startup.mode' = 'earliest'";
        String stock = errorOf(clientBesideStockKafka().run(
                "stock-option",
                table("bids", TOPIC, wrong).replace("streamfusion-kafka", "kafka") + "SELECT COUNT(*) FROM bids;\n"));
        String fused = errorOf(clientBesideStockKafka().run(
                "fused-option", table("bids", TOPIC, wrong) + "SELECT COUNT(*) FROM bids;\n"));
        assertThat(stock).contains("Expected one of: [[earliest-offset, latest-offset, group-offsets, timestamp, specific-offsets]]");
        // Flink's message word for word; the enum's class is the SQL jar's relocated copy.
        String connector = "org.apache.flink.streaming.connectors.kafka.";
        assertThat(fused).isEqualTo(stock.replace(connector, "dev.streamfusion.shaded." + connector));
    }

    private FlinkSqlClient client() {
        return new FlinkSqlClient(directory).withLib(List.of(
                Paths.get(System.getProperty("streamfusion.kafka.sql.jar")),
                Paths.get(System.getProperty("streamfusion.parquet.sql.jar"))));
    }

    private FlinkSqlClient clientBesideStockKafka() {
        return client().withLib(List.of(Paths.get(System.getProperty("streamfusion.stock.kafka.sql.jar"))));
    }

    private static String table(String name, String topic, String extra) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = 'streamfusion-kafka', 'topic' = '" + topic
                + "', 'properties.bootstrap.servers' = '" + KAFKA.bootstrapServers()
                + "', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'"
                + extra + ");\n";
    }

    /** The SQL block the page marks as the walk-through. */
    private static String walkThrough(String page) {
        Matcher block = Pattern.compile("<!-- walk-through[^>]*-->\\s*```sql\\n(.*?)```", Pattern.DOTALL).matcher(page);
        assertThat(block.find()).as("the page marks its walk-through").isTrue();
        return block.group(1);
    }

    /** The rows of a tableau result of (channel, count, sum), as "c0 2000 30015000". */
    private static List<String> resultRows(String text) {
        List<String> rows = new ArrayList<>();
        Matcher row = Pattern.compile("\\|\\s+(c\\d)\\s+\\|\\s+(\\d+)\\s+\\|\\s+(\\d+)\\s+\\|").matcher(text);
        while (row.find()) {
            rows.add(row.group(1) + " " + row.group(2) + " " + row.group(3));
        }
        return rows;
    }

    /** The one row of a tableau result of two numbers, as "1000 1498500". */
    private static String countAndSum(String text) {
        Matcher row = Pattern.compile("\\|\\s+(\\d+)\\s+\\|\\s+(\\d+)\\s+\\|").matcher(text);
        assertThat(row.find()).as(text).isTrue();
        return row.group(1) + " " + row.group(2);
    }

    /** The error the client printed for the statement that failed (it stops there). */
    private static String errorOf(FlinkSqlClient.Run run) {
        int at = run.text().indexOf("[ERROR]");
        assertThat(at).as("the client reports an error:\n" + run.text()).isNotNegative();
        return run.text().substring(at);
    }
}
