package dev.streamfusion.e2e;

import dev.streamfusion.testkit.flink.FlinkSqlClient;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A short job as users deploy StreamFusion, measured both ways in one run: the SQL jars in the
 * installation's {@code lib/} (loaded once, by the system class loader), and the jar submitted
 * with the job ({@code ADD JAR}, loaded by each job's own class loader, which loads its own copy
 * of the native library). Flink's SQL Client runs a script of identical short queries over a
 * small Parquet table on a local cluster; the times it prints per query are compared.
 *
 * <p>Arguments: the Parquet SQL jar, the number of queries (default 8).
 */
public final class DeployBenchmark {

    private static final Pattern QUERY_TIME = Pattern.compile("1 row in set \\((\\d+\\.\\d+) seconds\\)");
    private static final Pattern LOADED =
            Pattern.compile("Loaded StreamFusion native \\S+ \\((\\w+)\\) from (.*) in (\\d+) ms");

    private DeployBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path jar = Paths.get(args[0]).toAbsolutePath();
        int queries = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        Path work = Files.createTempDirectory("streamfusion-deploy");
        try {
            Path cache = work.resolve("native-cache");
            Result lib = run(work.resolve("lib"), jar, cache, queries, false);
            Result perJob = run(work.resolve("per-job"), jar, cache, queries, true);
            // A cache directory that cannot be created: each class loader extracts the library
            // from the jar, as before there was a cache.
            Path unusable = Files.createFile(work.resolve("not-a-directory"));
            Result uncached = run(work.resolve("per-job-uncached"), jar, unusable.resolve("cache"), queries, true);
            System.out.println();
            System.out.printf(Locale.ROOT, "A short query (COUNT and SUM over 100,000 Parquet rows), %d times per deployment,%n", queries);
            System.out.println("Flink's SQL Client on a local cluster, release native library:");
            System.out.printf(Locale.ROOT, "  %-34s %12s %16s %22s%n", "", "first query", "median of rest", "native library loads");
            print("SQL jar in lib/", lib);
            print("SQL jar with each job (ADD JAR)", perJob);
            print("  extracting per class loader", uncached);
            System.out.println("(a load: the library found in the cache, or copied from it for a new class loader, and linked)");
        } finally {
            ParquetScanBenchmark.delete(work);
        }
    }

    /** Each query's time as the client printed it, and each native library load's. */
    private static final class Result {
        final List<Double> seconds = new ArrayList<>();
        final List<Long> loadMillis = new ArrayList<>();
    }

    private static void print(String what, Result result) {
        List<Double> rest = new ArrayList<>(result.seconds.subList(1, result.seconds.size()));
        Collections.sort(rest);
        List<Long> loads = new ArrayList<>(result.loadMillis);
        Collections.sort(loads);
        System.out.printf(
                Locale.ROOT,
                "  %-34s %10.2f s %14.2f s %8d, median %3d ms%n",
                what,
                result.seconds.get(0),
                rest.get(rest.size() / 2),
                loads.size(),
                loads.get(loads.size() / 2));
    }

    /** Runs the script and returns each query's time as the client printed it. */
    private static Result run(Path directory, Path jar, Path cache, int queries, boolean perJob) throws Exception {
        Files.createDirectories(directory);
        StringBuilder script = new StringBuilder();
        if (perJob) {
            script.append("ADD JAR '").append(jar).append("';\n");
        }
        script.append("SET 'table.dml-sync' = 'true';\n")
                .append("SET 'execution.runtime-mode' = 'batch';\n")
                .append("CREATE TEMPORARY TABLE numbers (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '100000',"
                        + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000');\n")
                .append("CREATE TABLE p (id BIGINT, v BIGINT) WITH ('connector' = 'streamfusion-parquet', 'path' = '")
                .append(directory.resolve("table").toUri())
                .append("', 'format' = 'parquet');\n")
                .append("INSERT INTO p SELECT id, id * 7 FROM numbers;\n");
        for (int i = 0; i < queries; i++) {
            script.append("SELECT COUNT(*), SUM(v) FROM p;\n");
        }
        FlinkSqlClient client = new FlinkSqlClient(directory)
                .withJvmOptions(with(FlinkSqlClient.FLINK_JVM_OPTIONS, "-Dstreamfusion.native.cache-dir=" + cache));
        if (!perJob) {
            client.withLib(List.of(jar));
        }
        FlinkSqlClient.Run run = client.run(directory.getFileName().toString(), script.toString());
        String log = Files.readString(run.log);
        Result result = new Result();
        Matcher loaded = LOADED.matcher(log);
        while (loaded.find()) {
            if (!"release".equals(loaded.group(1))) {
                throw new IllegalStateException("the SQL jar carries a " + loaded.group(1)
                        + " build of the native library; build it with 'mvn -Prelease package'");
            }
            result.loadMillis.add(Long.parseLong(loaded.group(3)));
        }
        if (run.exitCode != 0 || result.loadMillis.isEmpty()) {
            throw new IllegalStateException("the SQL Client failed:\n" + run.text());
        }
        Matcher time = QUERY_TIME.matcher(run.text());
        while (time.find()) {
            result.seconds.add(Double.parseDouble(time.group(1)));
        }
        if (result.seconds.size() != queries) {
            throw new IllegalStateException("expected " + queries + " query times:\n" + run.text());
        }
        return result;
    }

    private static List<String> with(List<String> options, String option) {
        List<String> all = new ArrayList<>(options);
        all.add(option);
        return all;
    }
}
