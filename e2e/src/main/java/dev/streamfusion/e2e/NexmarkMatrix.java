package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.operators.StreamFusion;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;
import dev.streamfusion.testkit.nexmark.NexmarkModel;
import dev.streamfusion.testkit.nexmark.NexmarkProtobuf;
import dev.streamfusion.testkit.nexmark.NexmarkQueries;
import dev.streamfusion.testkit.nexmark.NexmarkTableFactory;

import org.apache.flink.formats.protobuf.PbFormatConfig;
import org.apache.flink.formats.protobuf.serialize.PbRowDataSerializationSchema;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.Column;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
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
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

/**
 * The Nexmark matrix: every chosen query ({@link NexmarkQueries#all()}) over every chosen source,
 * stock Flink against StreamFusion, in one run.
 *
 * <p>The model's events ({@code streamfusion-nexmark}) are first written to each source by stock
 * Flink jobs: Parquet files ({@code filesystem} against {@code streamfusion-parquet}), Iceberg tables
 * in a Hadoop catalog on local disk ({@code iceberg} against {@code streamfusion-iceberg}, bounded
 * scans of the tables' current snapshots) and JSON and Avro topics of a real broker ({@code kafka}
 * against {@code streamfusion-kafka}), and Protobuf topics produced with Flink's protobuf serializer
 * ({@link NexmarkProtobuf}: timestamps as epoch milliseconds, the queries' timestamp columns computed
 * from them in UTC). Fluss tables are not among them: neither fluss-flink nor {@code
 * streamfusion-fluss} reads a log table to an end, so no query over one finishes. Each query then runs
 * at each of {@code --parallelism}: first once in every mode with its rows drained from the job,
 * and every mode's rows must equal stock's (the run fails naming the query otherwise): the final
 * rows, or for the ranks whose rows depend on the order of ties ({@link
 * NexmarkQueries#ORDER_DEPENDENT}) the last row of each key, on the columns the data fixes. Then it
 * is timed into a {@code blackhole} table: stock, then each mode of {@code --modes} (StreamFusion's
 * connectors; with the island; {@code streamfusion-kafka}'s Java rung, for topics), alternately,
 * {@code --rounds} times each, the best time kept. A time is the wall time from creating the
 * query's tables to the end of its job, planning and start-up included; draining rows to the
 * client, which would bound every query that emits many rows, is not in it.
 *
 * <p>Writes {@code results.csv}, {@code results.md} (with the geometric mean of the ratios per
 * source, mode and parallelism) and {@code ratios.png} to {@code --out}. Refuses a debug native
 * build; needs the planner in place of its loader for the island ({@code -Pisland}).
 *
 * <p>{@code ./bin/nexmark [--queries q0,q5,...] [--sources parquet,iceberg,kafka-json,kafka-avro,kafka-protobuf] [--events N]
 * [--modes streamfusion,island,java] [--parallelism 1,2] [--rounds R] [--quick]}; {@code --quick}
 * is 100,000 events, one round and parallelism 1.
 */
public final class NexmarkMatrix {

    private static final List<String> SOURCES = List.of("parquet", "iceberg", "kafka-json", "kafka-avro", "kafka-protobuf");

    /** Stock Flink's connectors: what every mode is measured against. */
    private static final String STOCK = "stock";
    /** StreamFusion's connectors, the island off. */
    private static final String CONNECTORS = "streamfusion";
    /** StreamFusion's connectors with the island. */
    private static final String ISLAND = "island";
    /** streamfusion-kafka on its Java rung (kafka-clients polls, values decoded natively), the island off. */
    private static final String JAVA_RUNG = "java";

    private static final List<String> MODES = List.of(CONNECTORS, ISLAND, JAVA_RUNG);

    /** Topics of Protobuf messages. */
    private static final String PROTOBUF = "kafka-protobuf";
    /** The model's seed. */
    private static final long SEED = 1;
    /** How long one job may take. */
    private static final Duration TIMEOUT = Duration.ofMinutes(30);

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
        List<Integer> parallelisms = new ArrayList<>();
        for (String p : list(options.get("parallelism"), Arrays.asList((quick ? "1" : "1,2").split(",")))) {
            parallelisms.add(Integer.parseInt(p));
        }
        List<String> sources = list(options.get("sources"), SOURCES);
        List<String> modes = list(options.get("modes"), MODES);
        List<String> queries = list(options.get("queries"), new ArrayList<>(NexmarkQueries.all().keySet()));
        for (String query : queries) {
            if (!NexmarkQueries.all().containsKey(query)) {
                throw new IllegalArgumentException(
                        "no query " + query + (NexmarkQueries.NOT_RUN.containsKey(query) ? ": " + NexmarkQueries.NOT_RUN.get(query) : ""));
            }
        }
        requireAmong("source", sources, SOURCES);
        requireAmong("mode", modes, MODES);
        Path out = Paths.get(options.getOrDefault("out", "target/nexmark")).toAbsolutePath();
        Files.createDirectories(out);
        Path data = Files.createTempDirectory("streamfusion-nexmark");
        List<String[]> results = new ArrayList<>();
        ChildJvmKafkaBroker broker =
                sources.stream().anyMatch(s -> s.startsWith("kafka")) ? ChildJvmKafkaBroker.start() : null;
        try {
            int done = 0;
            int jobs = 0;
            for (String source : sources) {
                jobs += queries.size() * parallelisms.size() * modesOf(source, modes).size();
            }
            for (String source : sources) {
                Sources tables = new Sources(source, data, broker);
                System.out.printf(Locale.ROOT, "writing %,d events to %s%n", events, source);
                tables.write(events);
                for (int parallelism : parallelisms) {
                    for (String query : queries) {
                        String compared = NexmarkQueries.ORDER_DEPENDENT.containsKey(query) ? "columns fixed by the data" : "yes";
                        List<String> sourceModes = modesOf(source, modes);
                        long stock = Long.MAX_VALUE;
                        long[] fused = new long[sourceModes.size()];
                        Arrays.fill(fused, Long.MAX_VALUE);
                        List<String> stockRows = tables.rows(STOCK, parallelism, query);
                        for (String mode : sourceModes) {
                            check(source + " " + mode + " p" + parallelism, query, stockRows, tables.rows(mode, parallelism, query));
                        }
                        for (int round = 0; round < rounds; round++) {
                            stock = Math.min(stock, tables.timed(STOCK, parallelism, query));
                            for (int m = 0; m < sourceModes.size(); m++) {
                                fused[m] = Math.min(fused[m], tables.timed(sourceModes.get(m), parallelism, query));
                            }
                        }
                        for (int m = 0; m < sourceModes.size(); m++) {
                            double ratio = (double) stock / fused[m];
                            results.add(new String[] {
                                source, sourceModes.get(m), String.valueOf(parallelism), query, String.valueOf(stockRows.size()),
                                String.valueOf(stock / 1_000_000), String.valueOf(fused[m] / 1_000_000),
                                String.format(Locale.ROOT, "%.2f", ratio), compared
                            });
                            System.out.printf(
                                    Locale.ROOT,
                                    "[%d/%d] %s %s p%d %s: %,d rows, stock %.2f s, StreamFusion %.2f s, %.2fx%n",
                                    ++done, jobs, source, sourceModes.get(m), parallelism, query, stockRows.size(),
                                    stock / 1e9, fused[m] / 1e9, ratio);
                        }
                    }
                }
            }
        } finally {
            if (broker != null) {
                broker.close();
            }
            ParquetScanBenchmark.delete(data);
        }
        write(out, results, events, rounds);
    }

    /** The modes of {@code chosen} that apply to {@code source}: the Java rung is Kafka's alone. */
    private static List<String> modesOf(String source, List<String> chosen) {
        List<String> modes = new ArrayList<>(chosen);
        if (!source.startsWith("kafka")) {
            modes.remove(JAVA_RUNG);
        }
        return modes;
    }

    private static void requireAmong(String what, List<String> chosen, List<String> all) {
        for (String one : chosen) {
            if (!all.contains(one)) {
                throw new IllegalArgumentException("no " + what + " " + one + "; there are " + all);
            }
        }
    }

    /** Fails naming the query unless both sides gave the same rows. */
    private static void check(String source, String query, List<String> stock, List<String> fused) {
        List<String> expected = new ArrayList<>(stock);
        List<String> actual = new ArrayList<>(fused);
        expected.sort(null);
        actual.sort(null);
        if (!expected.equals(actual)) {
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
        private final Map<String, Boolean> eventTime = new HashMap<>();

        Sources(String source, Path data, ChildJvmKafkaBroker broker) {
            this.source = source;
            this.directory = data.resolve(source);
            this.broker = broker;
        }

        /** Writes the model's first {@code events} events with stock Flink's sink. */
        void write(long events) throws Exception {
            StreamTableEnvironment tables = environment(1);
            tables.executeSql("CREATE DATABASE model");
            tables.useDatabase("model");
            NexmarkTableFactory.createTables(tables, events, SEED);
            tables.useDatabase("default_database");
            for (NexmarkModel.Kind kind : NexmarkModel.Kind.values()) {
                String name = kind.name().toLowerCase(Locale.ROOT);
                if (broker != null && source.startsWith("kafka")) {
                    broker.createTopic(topic(name), 1);
                }
                if (source.equals(PROTOBUF)) {
                    produceProtobuf(kind, events);
                    continue;
                }
                tables.executeSql(table(name, STOCK, kind, false));
                tables.executeSql("INSERT INTO " + name + " SELECT * FROM model." + name).await();
            }
        }

        /** Produces the first {@code events} events' messages of {@code kind} with Flink's protobuf serializer. */
        private void produceProtobuf(NexmarkModel.Kind kind, long events) throws Exception {
            PbRowDataSerializationSchema serializer = new PbRowDataSerializationSchema(
                    NexmarkProtobuf.type(kind), new PbFormatConfig(NexmarkProtobuf.messageClass(kind).getName(), false, false, ""));
            serializer.open(null);
            NexmarkModel model = new NexmarkModel(SEED);
            String topic = topic(kind.name().toLowerCase(Locale.ROOT));
            Map<String, Object> config = Map.of(
                    "bootstrap.servers", broker.bootstrapServers(), "linger.ms", 20, "batch.size", 1 << 20);
            try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
                for (long n = 0; n < NexmarkModel.count(kind, events); n++) {
                    producer.send(new ProducerRecord<>(topic, serializer.serialize(NexmarkProtobuf.row(kind, model.row(kind, n)))));
                }
                producer.flush();
            }
        }

        /** Runs the query {@code name} on the tables of {@code mode} at {@code parallelism}; the rows compared. */
        List<String> rows(String mode, int parallelism, String name) throws Exception {
            return NexmarkQueries.comparableRows(
                    name, tablesFor(mode, parallelism, name).executeSql(NexmarkQueries.all().get(name)), TIMEOUT);
        }

        /**
         * Runs the query {@code name} on the tables of {@code mode} at {@code parallelism} into a
         * {@code blackhole} table of its columns, as Nexmark's own benchmark does; returns the
         * nanoseconds from creating its tables to the job's end.
         */
        long timed(String mode, int parallelism, String name) throws Exception {
            long started = System.nanoTime();
            StreamTableEnvironment tables = tablesFor(mode, parallelism, name);
            Table query = tables.sqlQuery(NexmarkQueries.all().get(name));
            StringJoiner columns = new StringJoiner(", ");
            for (Column column : query.getResolvedSchema().getColumns()) {
                // The serializable form leaves out a time attribute's kind, which a sink's column cannot have.
                columns.add("`" + column.getName() + "` " + column.getDataType().getLogicalType().asSerializableString());
            }
            tables.executeSql("CREATE TABLE results (" + columns + ") WITH ('connector' = 'blackhole')");
            query.executeInsert("results").await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return System.nanoTime() - started;
        }

        /** A table environment at {@code parallelism} with the tables of {@code mode} that the query {@code name} reads. */
        private StreamTableEnvironment tablesFor(String mode, int parallelism, String name) {
            StreamTableEnvironment tables = environment(parallelism);
            if (mode.equals(ISLAND) && !StreamFusion.install(tables)) {
                throw new IllegalStateException("the island needs flink-table-planner_2.12 in place of the loader (-Pisland)");
            }
            boolean watermarks = needsEventTime(NexmarkQueries.all().get(name));
            for (NexmarkModel.Kind kind : NexmarkModel.Kind.values()) {
                tables.executeSql(table(kind.name().toLowerCase(Locale.ROOT), mode, kind, watermarks));
            }
            return tables;
        }

        /**
         * Whether {@code query} needs the tables' event time (windows, event-time joins): it is
         * planned over tables without watermarks, and only where that fails do they get theirs. A
         * query without event time gives the same rows either way, and without a watermark its
         * projection and filter can sit directly on the source, where the island can take them.
         */
        private boolean needsEventTime(String query) {
            return eventTime.computeIfAbsent(query, q -> {
                StreamTableEnvironment tables = environment(1);
                for (NexmarkModel.Kind kind : NexmarkModel.Kind.values()) {
                    tables.executeSql(table(kind.name().toLowerCase(Locale.ROOT), STOCK, kind, false));
                }
                try {
                    tables.explainSql(q);
                    return false;
                } catch (RuntimeException e) {
                    return true;
                }
            });
        }

        private String table(String name, String mode, NexmarkModel.Kind kind, boolean watermark) {
            boolean fused = !mode.equals(STOCK);
            String columns = (source.equals(PROTOBUF) ? NexmarkProtobuf.columns(kind) : NexmarkKafka.columns(NexmarkTableFactory.type(kind)))
                    + (watermark ? ", WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND" : "");
            String with;
            if (source.equals("parquet")) {
                with = "'connector' = '" + (fused ? "streamfusion-parquet" : "filesystem") + "', 'path' = '"
                        + directory.resolve(name).toUri() + "', 'format' = 'parquet'";
            } else if (source.equals("iceberg")) {
                // The stock connector creates the table in the catalog when the first INSERT is planned.
                with = "'connector' = '" + (fused ? "streamfusion-iceberg" : "iceberg")
                        + "', 'catalog-name' = 'nexmark', 'catalog-type' = 'hadoop', 'warehouse' = '" + directory.toUri()
                        + "', 'catalog-database' = 'nexmark', 'catalog-table' = '" + name + "'";
            } else {
                with = "'connector' = '" + (fused ? "streamfusion-kafka" : "kafka") + "', 'topic' = '" + topic(name)
                        + "', 'properties.bootstrap.servers' = '" + broker.bootstrapServers()
                        + "', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = '"
                        + source.substring("kafka-".length()) + "'"
                        + (source.equals(PROTOBUF)
                                ? ", 'protobuf.message-class-name' = '" + NexmarkProtobuf.messageClass(kind).getName() + "'"
                                : "")
                        + (mode.equals(JAVA_RUNG) ? ", 'streamfusion.rung' = 'JAVA'" : "");
            }
            return "CREATE TABLE " + name + " (" + columns + ") WITH (" + with + ")";
        }

        /** The topic of one kind's events in this source's format. */
        private String topic(String kind) {
            return "nexmark-" + source + "-" + kind;
        }
    }

    /** A table environment at {@code parallelism}, in UTC (the Protobuf tables' timestamps are computed in it). */
    private static StreamTableEnvironment environment(int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        return tables;
    }

    /** results.csv, results.md (with each source's geometric mean) and ratios.png. */
    private static void write(Path out, List<String[]> results, long events, int rounds) throws IOException {
        List<String> csv = new ArrayList<>();
        csv.add("source,mode,parallelism,query,rows,stock_ms,streamfusion_ms,ratio,compared");
        results.forEach(r -> csv.add(String.join(",", r)));
        Files.write(out.resolve("results.csv"), csv, StandardCharsets.UTF_8);

        StringBuilder md = new StringBuilder();
        md.append(String.format(
                Locale.ROOT,
                "%,d events, best of %d rounds; time from creating the tables to the end of the job, into a blackhole sink. Modes: %s.%n%n",
                events, rounds, "streamfusion = StreamFusion's connectors, island = with the island, java = "
                        + "streamfusion-kafka's Java rung"));
        md.append("| source | mode | p | query | rows | stock (s) | StreamFusion (s) | ratio | compared |\n"
                + "|---|---|---|---|---|---|---|---|---|\n");
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        Map<String, double[]> logSums = new LinkedHashMap<>();
        for (String[] r : results) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %,d | %.2f | %.2f | %sx | %s |%n",
                    r[0], r[1], r[2], r[3], Long.parseLong(r[4]), Long.parseLong(r[5]) / 1e3, Long.parseLong(r[6]) / 1e3,
                    r[7], r[8]));
            double ratio = Double.parseDouble(r[7]);
            String series = r[0] + " " + r[1] + " p" + r[2];
            dataset.addValue(ratio, series, r[3]);
            double[] sum = logSums.computeIfAbsent(series, s -> new double[2]);
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
        chart.getCategoryPlot().getDomainAxis().setMaximumCategoryLabelWidthRatio(2f);
        ChartUtils.saveChartAsPNG(out.resolve("ratios.png").toFile(), chart, 1600, 600);
        System.out.println();
        System.out.print(md);
        System.out.println("written: " + out.resolve("results.csv") + ", results.md, ratios.png");
    }

    private static List<String> list(String value, List<String> all) {
        return value == null || value.isBlank() ? all : Arrays.asList(value.split(","));
    }
}
