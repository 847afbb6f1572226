package dev.streamfusion.e2e;

import dev.streamfusion.testkit.fluss.ChildJvmFlussCluster;
import dev.streamfusion.testkit.nexmark.NexmarkModel;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.functions.ScalarFunction;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fluss appends and reads, fluss-flink ({@code fluss-flink-2.2} 0.9.1-incubating) against {@code
 * streamfusion-fluss}, on a real Fluss cluster in a child JVM, one Flink JVM, parallelism 1:
 * narrow (5 columns) and wide (the Parquet benchmark's 20) log tables of two buckets, with each of
 * Fluss's log compressions. An append is a bounded job of generated rows into the table, timed to
 * its end; a read is a streaming job from the table's first record into a blackhole sink, timed
 * until it has read the rows. Then the Nexmark writer ({@link NexmarkFluss}): the model's events
 * appended into its three tables, checked against the model. One warm-up run per connector and
 * case, then the best of two.
 *
 * <p>{@code ./bin/bench-fluss [rows] [narrow|wide|nexmark] [NONE|LZ4_FRAME|ZSTD]}: 1,000,000 rows
 * (or Nexmark events) by default, every case and compression unless one is named; the Nexmark
 * case takes Fluss's default compression and runs only where no compression is named.
 */
public final class FlussBenchmark {

    private static final int RUNS = 2;

    /** Client options both connectors' reads get as hints (-Dbench.fluss.client="'key' = 'value', ..."), none by default. */
    private static final String CLIENT = System.getProperty("bench.fluss.client", "").isEmpty()
            ? "" : ", " + System.getProperty("bench.fluss.client");

    private static final Map<String, String> SHAPES = new LinkedHashMap<>();

    static {
        SHAPES.put("narrow", "id BIGINT, k1 INT, price DECIMAL(12, 2), name STRING, created TIMESTAMP(3)");
        SHAPES.put("wide", ParquetScanBenchmark.COLUMNS);
    }

    private static final List<String> COMPRESSIONS = List.of("NONE", "LZ4_FRAME", "ZSTD");

    /** The case of the Nexmark writer: the model's events into its three tables. */
    private static final String NEXMARK = "nexmark";

    private FlussBenchmark() {}

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
        // Optionally one case and one compression only: [rows] [narrow|wide|nexmark] [NONE|LZ4_FRAME|ZSTD].
        String onlyShape = args.length > 1 && !args[1].isEmpty() ? args[1] : null;
        String onlyCompression = args.length > 2 && !args[2].isEmpty() ? args[2] : null;
        try (ChildJvmFlussCluster fluss = ChildJvmFlussCluster.start()) {
            String servers = fluss.bootstrapServers();
            System.out.printf("%n| case | fluss-flink (rows/s) | `streamfusion-fluss` (rows/s) | ratio |%n");
            System.out.println("|---|---|---|---|");
            for (Map.Entry<String, String> shape : SHAPES.entrySet()) {
                if (onlyShape != null && !onlyShape.equals(shape.getKey())) {
                    continue;
                }
                for (String compression : COMPRESSIONS) {
                    if (onlyCompression != null && !onlyCompression.equals(compression)) {
                        continue;
                    }
                    String name = shape.getKey() + "_" + compression.toLowerCase(java.util.Locale.ROOT);
                    create(servers, name, shape.getValue(), compression);
                    String label = shape.getKey() + ", " + compression;
                    double stockAppend = bestRate(() -> append(servers, "stock", name, shape.getValue(), rows), rows);
                    double fusedAppend = bestRate(() -> append(servers, "sf", name, shape.getValue(), rows), rows);
                    System.out.printf("| append %s | %,.0f | %,.0f | %.2fx |%n", label, stockAppend, fusedAppend,
                            fusedAppend / stockAppend);
                    double stockRead = bestRate(() -> read(servers, "stock", name, shape.getValue(), rows), rows);
                    double fusedRead = bestRate(() -> read(servers, "sf", name, shape.getValue(), rows), rows);
                    System.out.printf("| read %s | %,.0f | %,.0f | %.2fx |%n", label, stockRead, fusedRead,
                            fusedRead / stockRead);
                }
            }
            // The Nexmark tables take Fluss's default compression: the case runs unless a compression is named.
            if ((onlyShape == null || onlyShape.equals(NEXMARK)) && onlyCompression == null) {
                nexmark(servers, rows);
            }
        }
    }

    /**
     * The Nexmark writer ({@link NexmarkFluss}): the model's first {@code events} events appended
     * into fresh tables {@code person}, {@code auction} and {@code bid} (two buckets, Fluss's default
     * compression) by one job through each connector; then the last tables of each are checked to
     * hold the model's rows, value for value.
     */
    private static void nexmark(String servers, long events) throws Exception {
        TableEnvironment env = NexmarkFluss.tables(servers, 1, events);
        List<String> catalogs = List.of(NexmarkFluss.STOCK, NexmarkFluss.FUSED);
        long[] best = {Long.MAX_VALUE, Long.MAX_VALUE};
        // Round 0 warms up.
        for (int round = 0; round <= RUNS; round++) {
            for (int c = 0; c < catalogs.size(); c++) {
                String database = "nexmark_" + catalogs.get(c) + "_" + round;
                NexmarkFluss.create(env, database, 2);
                long millis = NexmarkFluss.write(env, catalogs.get(c), database);
                best[c] = round == 0 ? best[c] : Math.min(best[c], millis);
            }
        }
        for (NexmarkModel.Kind kind : NexmarkModel.Kind.values()) {
            List<String> model = NexmarkFluss.expected(kind, events);
            for (String catalog : catalogs) {
                String database = "nexmark_" + catalog + "_" + RUNS;
                if (!NexmarkFluss.rows(servers, database, kind).equals(model)) {
                    throw new IllegalStateException("the Fluss table " + database + "." + NexmarkFluss.name(kind)
                            + " does not hold the model's " + NexmarkModel.count(kind, events) + " rows");
                }
            }
        }
        double stock = events * 1000.0 / best[0];
        double fused = events * 1000.0 / best[1];
        System.out.printf("| append Nexmark events (person, auction, bid), events/s | %,.0f | %,.0f | %.2fx |%n", stock, fused,
                fused / stock);
    }

    /** A timed run: its milliseconds. */
    private interface Job {
        long run() throws Exception;
    }

    private static double bestRate(Job job, long rows) throws Exception {
        job.run();
        long best = Long.MAX_VALUE;
        for (int run = 0; run < RUNS; run++) {
            best = Math.min(best, job.run());
        }
        return rows * 1000.0 / best;
    }

    /** Streaming tables with both catalogs: {@code stock} (fluss-flink) and {@code sf}. */
    private static TableEnvironment tables(String servers) {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + servers + "')");
        env.executeSql("CREATE CATALOG sf WITH ('type' = 'streamfusion-fluss', 'bootstrap.servers' = '" + servers + "')");
        return env;
    }

    /** The log table {@code fluss.<name>} (each connector appends to its own copy) of two buckets. */
    private static void create(String servers, String name, String columns, String compression) {
        TableEnvironment env = tables(servers);
        for (String owner : List.of("stock", "sf")) {
            env.executeSql("CREATE TABLE stock.fluss." + name + "_" + owner + " (" + columns + ") WITH ('bucket.num' = '2', "
                    + "'table.log.arrow.compression.type' = '" + compression + "')");
        }
    }

    /** Appends {@code rows} generated rows through {@code catalog}; the job's milliseconds. */
    private static long append(String servers, String catalog, String name, String columns, long rows) throws Exception {
        TableEnvironment env = tables(servers);
        env.executeSql("CREATE TEMPORARY TABLE gen (" + columns + ") WITH ('connector' = 'datagen', 'number-of-rows' = '"
                + rows + "', 'rows-per-second' = '1000000000', 'fields.name.length' = '18', "
                + (columns.contains("remark") ? "'fields.remark.length' = '40', 'fields.status.length' = '1', "
                        + "'fields.city.length' = '10', 'fields.code.length' = '6', " : "")
                + "'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '" + (rows - 1) + "')");
        long start = System.nanoTime();
        env.executeSql("INSERT INTO " + catalog + ".fluss." + name + "_" + catalog + " SELECT * FROM gen").await(30, TimeUnit.MINUTES);
        return (System.nanoTime() - start) / 1_000_000;
    }

    /**
     * Reads the first {@code rows} rows of {@code catalog}'s copy of the table through {@code
     * catalog}; the milliseconds from submitting the job until they are read.
     */
    private static long read(String servers, String catalog, String name, String columns, long rows) throws Exception {
        TableEnvironment env = tables(servers);
        env.createTemporarySystemFunction("counted", Counted.class);
        String all = columns.replaceAll(" [A-Z]+(\\([0-9, ]+\\))?(,|$)", "$2");
        env.executeSql("CREATE TEMPORARY TABLE sink (" + columns + ") WITH ('connector' = 'blackhole')");
        Counted.arm(rows);
        long start = System.nanoTime();
        TableResult result = env.executeSql("INSERT INTO sink SELECT counted(id), " + all.substring(all.indexOf(',') + 1)
                + " FROM " + catalog + ".fluss." + name + "_" + catalog + " /*+ OPTIONS('scan.startup.mode' = 'earliest'" + CLIENT + ") */");
        if (!Counted.reached.await(30, TimeUnit.MINUTES)) {
            throw new IllegalStateException("the read of " + name + " through " + catalog + " did not reach " + rows + " rows");
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        result.getJobClient().orElseThrow().cancel().get();
        return millis;
    }

    /** Passes {@code id} through, counting calls; opens a latch at the armed count. */
    public static final class Counted extends ScalarFunction {

        private static final AtomicLong CALLS = new AtomicLong();
        private static volatile long target;
        static volatile CountDownLatch reached = new CountDownLatch(1);

        static void arm(long rows) {
            CALLS.set(0);
            target = rows;
            reached = new CountDownLatch(1);
        }

        public Long eval(Long id) {
            if (CALLS.incrementAndGet() == target) {
                reached.countDown();
            }
            return id;
        }
    }
}
