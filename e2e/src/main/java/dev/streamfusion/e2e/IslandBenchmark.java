package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.operators.StreamFusion;

import org.apache.flink.table.api.TableEnvironment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The operator island measured: Parquet copies and filter-and-project queries over the scan
 * benchmark's twenty-column files, each run by stock Flink (filesystem connector, parquet format),
 * by streamfusion-parquet alone (rows between the connectors and Flink's operators), and by
 * streamfusion-parquet with the island (batches from source to sink). One JVM, parallelism 1,
 * batch mode, best of three runs after a warm-up; the island run checks its plan is native.
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

    public static void main(String[] args) throws Exception {
        NativeLibrary.requireRelease("the island benchmark");
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000L;
        Path directory = Files.createTempDirectory("streamfusion-island-bench");
        try {
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

    /** One timed job: returns its net run time in milliseconds. */
    private static long run(Path directory, String source, String sink, String select, boolean island) throws Exception {
        Path out = Files.createTempDirectory(directory.getParent(), "streamfusion-island-out");
        try {
            TableEnvironment env = ParquetScanBenchmark.tables();
            if (island && !StreamFusion.install(env)) {
                throw new IllegalStateException("the island needs the planner on the classpath: run with -Pisland");
            }
            env.executeSql(ParquetScanBenchmark.table("scanned", source, directory));
            String query = String.format(select, "scanned");
            String connector = sink.equals("blackhole")
                    ? "'connector' = 'blackhole'"
                    : "'connector' = '" + (source.equals("filesystem") ? "filesystem" : "streamfusion-parquet")
                            + "', 'path' = '" + out + "', 'format' = 'parquet'";
            env.executeSql("CREATE TABLE sink (" + ParquetScanBenchmark.schemaOf(env, query) + ") WITH (" + connector + ")");
            if (island) {
                StreamFusion.Explanation plan = StreamFusion.explain(env, "INSERT INTO sink " + query);
                if (!plan.fallbacks().isEmpty() || plan.nativeNodes().isEmpty()) {
                    throw new IllegalStateException("the island does not run this job natively: " + plan);
                }
            }
            return ParquetScanBenchmark.netRuntime(env, "INSERT INTO sink " + query);
        } finally {
            ParquetScanBenchmark.delete(out);
        }
    }
}
