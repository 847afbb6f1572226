package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.operators.StreamFusion;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;

import org.apache.flink.table.api.TableEnvironment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator island measured: Nexmark q0, q1, q2, q10, q14, q21 and q22 over Kafka into Parquet
 * or a blackhole, q0 and q2 back into Kafka, and Parquet copies and filter-and-project queries
 * over the scan benchmark's twenty-column files;
 * each run by stock Flink, by the StreamFusion connectors alone (rows between them and Flink's
 * operators), and by the StreamFusion connectors with the island (batches from source to sink).
 * One JVM, parallelism 1, best of three runs after a warm-up; the Parquet island runs check
 * their plan is native.
 */
public final class IslandBenchmark {

    private static final Map<String, String[]> JOBS = new LinkedHashMap<>();

    static {
        // name -> {select over %s, sink connector}
        JOBS.put("copy 10 columns to Parquet", new String[] {
            "SELECT id, k1, k3, qty, price, discount, flag, name, shipped, created FROM %s", "parquet"});
        JOBS.put("filter and project to Parquet", new String[] {
            "SELECT id, qty * 2 AS qty2, k3 + k1 AS k, price, name, created FROM %s WHERE k1 < 500 AND flag", "parquet"});
        JOBS.put("filter and project to blackhole", new String[] {
            "SELECT id, qty * 2 AS qty2, k3 + k1 AS k, price, name, created FROM %s WHERE k1 < 500 AND flag", "blackhole"});
    }

    private IslandBenchmark() {}

    /** Nexmark queries over Kafka, and where they are written. */
    private static final List<String[]> KAFKA_JOBS =
            List.of(
                    new String[] {"q0", "parquet"},
                    new String[] {"q1", "parquet"},
                    new String[] {"q2", "parquet"},
                    new String[] {"q0", "blackhole"},
                    new String[] {"q1", "blackhole"},
                    new String[] {"q2", "blackhole"},
                    new String[] {"q10", "parquet"},
                    new String[] {"q14", "blackhole"},
                    new String[] {"q21", "blackhole"},
                    new String[] {"q22", "blackhole"});

    /** Nexmark queries written back to Kafka. */
    private static final List<String> KAFKA_TO_KAFKA = List.of("q0", "q2");

    public static void main(String[] args) throws Exception {
        NativeLibrary.requireRelease("the island benchmark");
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000L;
        int events = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
        Path directory = Files.createTempDirectory("streamfusion-island-bench");
        try {
            if (events > 0) {
                kafka(directory, events);
            }
            ParquetScanBenchmark.write(directory, rows);
            System.out.printf("%n| job (%,d rows in) | stock (rows/s) | streamfusion-parquet (rows/s) | with the island (rows/s) "
                    + "| streamfusion / stock | island / stock |%n", rows);
            System.out.println("|---|---|---|---|---|---|");
            for (Map.Entry<String, String[]> job : JOBS.entrySet()) {
                String select = job.getValue()[0];
                String sink = job.getValue()[1];
                double stock = ParquetScanBenchmark.bestRate(() -> run(directory, "filesystem", sink, select, false), rows);
                double fused = ParquetScanBenchmark.bestRate(() -> run(directory, "streamfusion-parquet", sink, select, false), rows);
                double island = ParquetScanBenchmark.bestRate(() -> run(directory, "streamfusion-parquet", sink, select, true), rows);
                System.out.printf("| %s | %,.0f | %,.0f | %,.0f | %.2fx | %.2fx |%n",
                        job.getKey(), stock, fused, island, fused / stock, island / stock);
            }
        } finally {
            ParquetScanBenchmark.delete(directory);
        }
    }

    /**
     * Nexmark queries over a topic of {@code events} bids in JSON and Avro, into Parquet files
     * and a blackhole, and q0 and q2 back into Kafka: stock {@code kafka} (and the filesystem
     * connector), streamfusion-kafka's native rung (and streamfusion-parquet), and the same with
     * the island.
     */
    private static void kafka(Path directory, int events) throws Exception {
        try (ChildJvmKafkaBroker broker = ChildJvmKafkaBroker.start()) {
            System.out.printf("%n| format | query | sink | stock (rows/s) | streamfusion (rows/s) | with the island (rows/s) "
                    + "| streamfusion / stock | island / stock |%n");
            System.out.println("|---|---|---|---|---|---|---|---|");
            List<String> sinks = new ArrayList<>();
            for (String format : List.of("json", "avro")) {
                String topic = "island-bids-" + format;
                broker.createTopic(topic, 1);
                NexmarkKafka kafka = new NexmarkKafka(broker.bootstrapServers(), topic, format);
                kafka.produce(events);
                for (String[] job : KAFKA_JOBS) {
                    double stock = rate(directory, events, out -> kafka.runIntoSink(NexmarkKafka.STOCK, job[0], job[1], out, false));
                    double fused = rate(directory, events, out -> kafka.runIntoSink(NexmarkKafka.FUSED, job[0], job[1], out, false));
                    double island = rate(directory, events, out -> kafka.runIntoSink(NexmarkKafka.FUSED, job[0], job[1], out, true));
                    System.out.printf("| %s | %s | %s | %,.0f | %,.0f | %,.0f | %.2fx | %.2fx |%n",
                            format, job[0], job[1], stock, fused, island, fused / stock, island / stock);
                }
                for (String query : KAFKA_TO_KAFKA) {
                    sinks.add(kafkaToKafka(broker, kafka, format, query, events));
                }
            }
            System.out.printf("%n| format | query | records | stock sink (rows/s) | streamfusion-kafka sink (rows/s) "
                    + "| with the island (rows/s) | streamfusion / stock | island / stock |%n");
            System.out.println("|---|---|---|---|---|---|---|---|");
            sinks.forEach(System.out::println);
        }
    }

    /**
     * A query over the topic (read through streamfusion-kafka's native rung) written back to
     * Kafka at least once by the stock sink, the streamfusion-kafka sink, and the latter fed by
     * the island; every run must write the same number of records. One Markdown table row.
     */
    private static String kafkaToKafka(ChildJvmKafkaBroker broker, NexmarkKafka kafka, String format, String query, int events)
            throws Exception {
        long[] stock = KafkaSinkBenchmark.best(broker, kafka, NexmarkKafka.STOCK, query, false);
        long[] fused = KafkaSinkBenchmark.best(broker, kafka, NexmarkKafka.FUSED, query, false);
        long[] island = KafkaSinkBenchmark.best(broker, kafka, NexmarkKafka.FUSED, query, true);
        if (fused[1] != stock[1] || island[1] != stock[1]) {
            throw new IllegalStateException(query + " wrote " + stock[1] + ", " + fused[1] + " and " + island[1] + " records");
        }
        double stockRate = events * 1000.0 / stock[0];
        double fusedRate = events * 1000.0 / fused[0];
        double islandRate = events * 1000.0 / island[0];
        return String.format("| %s | %s | %,d | %,.0f | %,.0f | %,.0f | %.2fx | %.2fx |",
                format, query, stock[1], stockRate, fusedRate, islandRate, fusedRate / stockRate, islandRate / stockRate);
    }

    /** A job writing under a directory of its own. */
    @FunctionalInterface
    private interface Writing {
        long run(Path out) throws Exception;
    }

    private static double rate(Path directory, long rows, Writing job) throws Exception {
        return ParquetScanBenchmark.bestRate(() -> {
            Path out = Files.createTempDirectory(directory.getParent(), "streamfusion-island-out");
            try {
                return job.run(out);
            } finally {
                ParquetScanBenchmark.delete(out);
            }
        }, rows);
    }

    /**
     * {@code env}, with the operator island installed when {@code island}.
     *
     * @throws IllegalStateException if the island is asked for and the planner's classes are hidden
     */
    static <T extends TableEnvironment> T withIsland(T env, boolean island) {
        if (island && !StreamFusion.install(env)) {
            throw new IllegalStateException("the island needs the planner on the classpath: run with -Pisland");
        }
        return env;
    }

    /**
     * Fails unless the island runs {@code statement} with nothing left stock, and with {@code
     * node} among its nodes (any node where {@code null}).
     */
    static void requireNative(TableEnvironment env, String statement, String node) {
        StreamFusion.Explanation plan = StreamFusion.explain(env, statement);
        boolean placed = node == null ? !plan.nativeNodes().isEmpty() : plan.nativeNodes().contains(node);
        if (!plan.fallbacks().isEmpty() || !placed) {
            throw new IllegalStateException("the island does not run this job natively: " + plan);
        }
    }

    /** One timed job: returns its net run time in milliseconds. */
    private static long run(Path directory, String source, String sink, String select, boolean island) throws Exception {
        Path out = Files.createTempDirectory(directory.getParent(), "streamfusion-island-out");
        try {
            TableEnvironment env = withIsland(ParquetScanBenchmark.tables(), island);
            env.executeSql(ParquetScanBenchmark.table("scanned", source, directory));
            String query = String.format(select, "scanned");
            String connector = sink.equals("blackhole")
                    ? "'connector' = 'blackhole'"
                    : "'connector' = '" + (source.equals("filesystem") ? "filesystem" : "streamfusion-parquet")
                            + "', 'path' = '" + out + "', 'format' = 'parquet'";
            env.executeSql("CREATE TABLE sink (" + ParquetScanBenchmark.schemaOf(env, query) + ") WITH (" + connector + ")");
            if (island) {
                requireNative(env, "INSERT INTO sink " + query, null);
            }
            long millis = ParquetScanBenchmark.netRuntime(env, "INSERT INTO sink " + query);
            if (!sink.equals("blackhole")) {
                ParquetScanBenchmark.checkWritten(select, out, -1);
            }
            return millis;
        } finally {
            ParquetScanBenchmark.delete(out);
        }
    }
}
