package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.testkit.flink.ChangelogRows;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;
import dev.streamfusion.testkit.nexmark.NexmarkModel;
import dev.streamfusion.testkit.nexmark.NexmarkQueries;
import dev.streamfusion.testkit.nexmark.NexmarkTableFactory;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.logical.RowType;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The Nexmark matrix: every chosen query ({@link NexmarkQueries#all()}) over every chosen source,
 * stock Flink against StreamFusion, in one run.
 *
 * <p>The model's events ({@code streamfusion-nexmark}) are first written to each source by stock
 * Flink jobs: Parquet files ({@code filesystem} against {@code streamfusion-parquet}) and JSON
 * topics of a real broker ({@code kafka} against {@code streamfusion-kafka}). Each query then runs
 * stock and StreamFusion alternately, {@code --rounds} times each (the best time kept), at
 * {@code --parallelism}; its rows are drained from the job, and the two sides' rows must be equal
 * (the run fails naming the query otherwise), but for the queries whose rows depend on the order
 * of ties ({@link NexmarkQueries#ORDER_DEPENDENT}), which are timed only. A time is the
 * wall time from submitting the query to its last row.
 *
 * <p>Writes {@code results.csv}, {@code results.md} (with the geometric mean of the ratios per
 * source) and {@code ratios.png} to {@code --out}. Refuses a debug native build.
 *
 * <p>{@code ./bin/nexmark [--queries q0,q5,...] [--sources parquet,kafka-json] [--events N]
 * [--parallelism P] [--rounds R] [--quick]}; {@code --quick} is 100,000 events and one round.
 */
public final class NexmarkMatrix {

    private static final List<String> SOURCES = List.of("parquet", "kafka-json");

    private NexmarkMatrix() {}

    public static void main(String[] args) throws Exception {
        NativeLibrary.requireRelease("the Nexmark matrix");
        Map<String, String> options = Args.parse(args, Set.of("quick"));
        if (options.containsKey(Args.POSITIONAL)) {
            throw new IllegalArgumentException("unexpected argument " + options.get(Args.POSITIONAL));
        }
        boolean quick = options.containsKey("quick");
        long events = Long.parseLong(options.getOrDefault("events", quick ? "100000" : "1000000"));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", quick ? "1" : "2"));
        int parallelism = Integer.parseInt(options.getOrDefault("parallelism", "1"));
        List<String> sources = list(options.get("sources"), SOURCES);
        List<String> queries = list(options.get("queries"), new ArrayList<>(NexmarkQueries.all().keySet()));
        for (String query : queries) {
            if (!NexmarkQueries.all().containsKey(query)) {
                throw new IllegalArgumentException(
                        "no query " + query + (NexmarkQueries.NOT_RUN.containsKey(query) ? ": " + NexmarkQueries.NOT_RUN.get(query) : ""));
            }
        }
        for (String source : sources) {
            if (!SOURCES.contains(source)) {
                throw new IllegalArgumentException("no source " + source + "; there are " + SOURCES);
            }
        }
        Path out = Paths.get(options.getOrDefault("out", "target/nexmark")).toAbsolutePath();
        Files.createDirectories(out);
        Path data = Files.createTempDirectory("streamfusion-nexmark");
        List<String[]> results = new ArrayList<>();
        ChildJvmKafkaBroker broker = sources.contains("kafka-json") ? ChildJvmKafkaBroker.start() : null;
        try {
            int done = 0;
            int jobs = sources.size() * queries.size();
            for (String source : sources) {
                Sources tables = new Sources(source, data, broker, parallelism);
                System.out.printf(Locale.ROOT, "writing %,d events to %s%n", events, source);
                tables.write(events);
                for (String query : queries) {
                    String sql = NexmarkQueries.all().get(query);
                    long stock = Long.MAX_VALUE;
                    long fused = Long.MAX_VALUE;
                    List<String> stockRows = null;
                    List<String> fusedRows = null;
                    for (int round = 0; round < rounds; round++) {
                        long started = System.nanoTime();
                        List<String> rows = tables.run(false, sql);
                        stock = Math.min(stock, System.nanoTime() - started);
                        stockRows = stockRows == null ? rows : stockRows;
                        started = System.nanoTime();
                        rows = tables.run(true, sql);
                        fused = Math.min(fused, System.nanoTime() - started);
                        fusedRows = fusedRows == null ? rows : fusedRows;
                    }
                    boolean compared = !NexmarkQueries.ORDER_DEPENDENT.contains(query);
                    check(source, query, stockRows, fusedRows, compared);
                    double ratio = (double) stock / fused;
                    results.add(new String[] {
                        source, query, String.valueOf(stockRows.size()), String.valueOf(stock / 1_000_000),
                        String.valueOf(fused / 1_000_000), String.format(Locale.ROOT, "%.2f", ratio),
                        compared ? "yes" : "no (order-dependent)"
                    });
                    System.out.printf(
                            Locale.ROOT,
                            "[%d/%d] %s %s: %,d rows, stock %.2f s, StreamFusion %.2f s, %.2fx%n",
                            ++done, jobs, source, query, stockRows.size(), stock / 1e9, fused / 1e9, ratio);
                }
            }
        } finally {
            if (broker != null) {
                broker.close();
            }
            ParquetScanBenchmark.delete(data);
        }
        write(out, results, events, parallelism, rounds);
    }

    /** Fails naming the query unless both sides gave the same rows (order-dependent queries are not compared). */
    private static void check(String source, String query, List<String> stock, List<String> fused, boolean compared) {
        List<String> expected = new ArrayList<>(stock);
        List<String> actual = new ArrayList<>(fused);
        expected.sort(null);
        actual.sort(null);
        if (compared && !expected.equals(actual)) {
            throw new IllegalStateException(
                    source + " " + query + ": stock Flink and StreamFusion gave different rows (" + expected.size() + " and "
                            + actual.size() + "); first of each: " + expected.stream().limit(3).toList() + " / "
                            + actual.stream().limit(3).toList());
        }
    }

    /** One source's tables, stock and StreamFusion, over the same data. */
    private static final class Sources {
        private final String source;
        private final Path directory;
        private final ChildJvmKafkaBroker broker;
        private final int parallelism;

        Sources(String source, Path data, ChildJvmKafkaBroker broker, int parallelism) {
            this.source = source;
            this.directory = data.resolve(source);
            this.broker = broker;
            this.parallelism = parallelism;
        }

        /** Writes the model's first {@code events} events with stock Flink's sink. */
        void write(long events) throws Exception {
            StreamTableEnvironment tables = environment(parallelism);
            tables.executeSql("CREATE DATABASE model");
            tables.useDatabase("model");
            NexmarkTableFactory.createTables(tables, events, 1);
            tables.useDatabase("default_database");
            for (NexmarkModel.Kind kind : NexmarkModel.Kind.values()) {
                String name = kind.name().toLowerCase(Locale.ROOT);
                if (broker != null && source.startsWith("kafka")) {
                    broker.createTopic("nexmark-" + name, 1);
                }
                tables.executeSql(table(name, false, kind, false));
                tables.executeSql("INSERT INTO " + name + " SELECT * FROM model." + name).await();
            }
        }

        /** Runs {@code query} on the stock or StreamFusion tables; its final rows. */
        List<String> run(boolean fused, String query) throws Exception {
            StreamTableEnvironment tables = environment(parallelism);
            for (NexmarkModel.Kind kind : NexmarkModel.Kind.values()) {
                tables.executeSql(table(kind.name().toLowerCase(Locale.ROOT), fused, kind, true));
            }
            return ChangelogRows.drain(tables.executeSql(query).collect(), Duration.ofMinutes(30));
        }

        private String table(String name, boolean fused, NexmarkModel.Kind kind, boolean watermark) {
            RowType type = NexmarkTableFactory.type(kind);
            String columns = NexmarkKafka.columns(type)
                    + (watermark ? ", WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND" : "");
            String with;
            if (source.equals("parquet")) {
                with = "'connector' = '" + (fused ? "streamfusion-parquet" : "filesystem") + "', 'path' = '"
                        + directory.resolve(name).toUri() + "', 'format' = 'parquet'";
            } else {
                with = "'connector' = '" + (fused ? "streamfusion-kafka" : "kafka") + "', 'topic' = 'nexmark-" + name
                        + "', 'properties.bootstrap.servers' = '" + broker.bootstrapServers()
                        + "', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'";
            }
            return "CREATE TABLE " + name + " (" + columns + ") WITH (" + with + ")";
        }
    }

    private static StreamTableEnvironment environment(int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        return StreamTableEnvironment.create(env);
    }

    /** results.csv, results.md (with each source's geometric mean) and ratios.png. */
    private static void write(Path out, List<String[]> results, long events, int parallelism, int rounds) throws IOException {
        List<String> csv = new ArrayList<>();
        csv.add("source,query,rows,stock_ms,streamfusion_ms,ratio,compared");
        results.forEach(r -> csv.add(String.join(",", r)));
        Files.write(out.resolve("results.csv"), csv, StandardCharsets.UTF_8);

        StringBuilder md = new StringBuilder();
        md.append(String.format(
                Locale.ROOT,
                "%,d events, parallelism %d, best of %d rounds; time from submission to the last row.%n%n",
                events, parallelism, rounds));
        md.append("| source | query | rows | stock (s) | StreamFusion (s) | ratio | compared |\n|---|---|---|---|---|---|---|\n");
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        Map<String, double[]> logSums = new LinkedHashMap<>();
        for (String[] r : results) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,d | %.2f | %.2f | %sx | %s |%n",
                    r[0], r[1], Long.parseLong(r[2]), Long.parseLong(r[3]) / 1e3, Long.parseLong(r[4]) / 1e3, r[5], r[6]));
            double ratio = Double.parseDouble(r[5]);
            dataset.addValue(ratio, r[0], r[1]);
            double[] sum = logSums.computeIfAbsent(r[0], s -> new double[2]);
            sum[0] += Math.log(ratio);
            sum[1]++;
        }
        md.append('\n');
        for (Map.Entry<String, double[]> source : logSums.entrySet()) {
            double mean = Math.exp(source.getValue()[0] / source.getValue()[1]);
            md.append(String.format(Locale.ROOT, "Geometric mean of the ratios, %s: %.2fx%n", source.getKey(), mean));
            dataset.addValue(mean, source.getKey(), "geomean");
        }
        Files.writeString(out.resolve("results.md"), md.toString(), StandardCharsets.UTF_8);

        JFreeChart chart = ChartFactory.createBarChart(
                "Nexmark: StreamFusion vs stock Flink", "query", "speedup (stock time / StreamFusion time)",
                dataset, PlotOrientation.VERTICAL, true, false, false);
        ChartUtils.saveChartAsPNG(out.resolve("ratios.png").toFile(), chart, 1200, 500);
        System.out.println();
        System.out.print(md);
        System.out.println("written: " + out.resolve("results.csv") + ", results.md, ratios.png");
    }

    private static List<String> list(String value, List<String> all) {
        return value == null || value.isBlank() ? all : Arrays.asList(value.split(","));
    }
}
