package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Parquet scans and copies, stock Flink's filesystem connector with the parquet format against
 * {@code streamfusion-parquet}, over the same files, same JVM, parallelism 1: one warm-up run per
 * connector and query, then the best of three. The files (20 mixed columns) are written by stock
 * Flink first. Scans go into a blackhole sink; copies write 10 of the columns into a new directory
 * through the same connector as they read from, and, to isolate the writer, from stock's reader.
 * Refuses a debug native build.
 *
 * <p>{@code ./bin/bench-parquet [rows [batch|streaming]]}: 5,000,000 rows by default, as batch
 * jobs (Flink's planner reuses objects in them); {@code streaming} runs the same bounded queries as
 * streaming jobs, where Flink copies every row between chained operators. The last two columns are
 * {@code streamfusion-parquet} handing its rows on in the other layout ({@code
 * 'streamfusion.row-layout'}: {@code BINARY} for batch jobs, {@code COLUMNAR} for streaming ones)
 * than the table's default chooses.
 */
public final class ParquetScanBenchmark {

    static final int RUNS = 3;

    /** Twenty columns of mixed types, as a wide fact table has them. */
    static final String COLUMNS =
            "id BIGINT, k1 INT, k2 INT, k3 BIGINT, qty INT, price DECIMAL(12, 2), discount DOUBLE, tax FLOAT, "
                    + "flag BOOLEAN, status STRING, name STRING, remark STRING, city STRING, code STRING, "
                    + "shipped DATE, created TIMESTAMP(3), updated TIMESTAMP(6), score DOUBLE, weight FLOAT, small SMALLINT";

    private static final Map<String, String> QUERIES = new LinkedHashMap<>();

    static {
        QUERIES.put("all 20 columns", "SELECT * FROM %s");
        QUERIES.put("2 of 20 columns", "SELECT id, price FROM %s");
        QUERIES.put("selective filter", "SELECT id, name, price FROM %s WHERE k1 = 7");
    }

    /** Ten mixed columns, copied. */
    private static final String COPIED = "id, k1, k3, qty, price, discount, flag, name, shipped, created";

    /**
     * streamfusion-parquet handing its rows on in the layout its default does not choose: columnar
     * views in a streaming job, Flink's binary layout in a batch job.
     */
    private static String otherLayout() {
        return "streamfusion-parquet:" + (streaming ? "COLUMNAR" : "BINARY");
    }

    private ParquetScanBenchmark() {}

    public static void main(String[] args) throws Exception {
        NativeLibrary.requireRelease("the Parquet benchmark");
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000L;
        streaming = args.length > 1 && args[1].equals("streaming");
        Path directory = Files.createTempDirectory("streamfusion-parquet-bench");
        try {
            write(directory, rows);
            System.out.printf(
                    "%n| query | stock filesystem + parquet (rows/s) | `streamfusion-parquet` (rows/s) | ratio"
                            + " | %s rows (rows/s) | ratio |%n",
                    streaming ? "columnar" : "binary");
            System.out.println("|---|---|---|---|---|---|");
            for (Map.Entry<String, String> query : QUERIES.entrySet()) {
                double stock = bestRate(directory, "filesystem", query.getValue(), rows);
                double fused = bestRate(directory, "streamfusion-parquet", query.getValue(), rows);
                double columnar = bestRate(directory, otherLayout(), query.getValue(), rows);
                System.out.printf(
                        "| %s | %,.0f | %,.0f | %.2fx | %,.0f | %.2fx |%n",
                        query.getKey(), stock, fused, fused / stock, columnar, columnar / stock);
            }
            double stockCopy = bestRate(() -> copy(directory, "filesystem", "filesystem"), rows);
            double fusedCopy = bestRate(() -> copy(directory, "streamfusion-parquet", "streamfusion-parquet"), rows);
            double columnarCopy = bestRate(() -> copy(directory, otherLayout(), "streamfusion-parquet"), rows);
            System.out.printf(
                    "| copy 10 columns (read and write) | %,.0f | %,.0f | %.2fx | %,.0f | %.2fx |%n",
                    stockCopy, fusedCopy, fusedCopy / stockCopy, columnarCopy, columnarCopy / stockCopy);
            double fusedWrite = bestRate(() -> copy(directory, "filesystem", "streamfusion-parquet"), rows);
            System.out.printf(
                    "| copy 10 columns (write only; both read by stock) | %,.0f | %,.0f | %.2fx | | |%n",
                    stockCopy, fusedWrite, fusedWrite / stockCopy);
        } finally {
            delete(directory);
        }
    }

    /** Whether the queries run as streaming jobs (over the same bounded files) rather than batch jobs. */
    private static boolean streaming;

    static TableEnvironment tables() {
        TableEnvironment env =
                TableEnvironment.create(streaming ? EnvironmentSettings.inStreamingMode() : EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        return env;
    }

    /**
     * A table of {@link #COLUMNS} over the files in {@code directory} through {@code connector}: a
     * connector name, or streamfusion-parquet with its row layout after a colon ({@code
     * streamfusion-parquet:BINARY}).
     */
    static String table(String name, String connector, Path directory) {
        String layout = "";
        int colon = connector.indexOf(':');
        if (colon >= 0) {
            layout = ", 'streamfusion.row-layout' = '" + connector.substring(colon + 1) + "'";
            connector = connector.substring(0, colon);
        }
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = '" + connector + "', 'path' = '"
                + directory + "', 'format' = 'parquet'" + layout + ")";
    }

    /** Writes {@code rows} generated rows with stock Flink. */
    static void write(Path directory, long rows) throws Exception {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        env.executeSql(
                "CREATE TABLE gen (" + COLUMNS + ") WITH ('connector' = 'datagen', 'number-of-rows' = '" + rows + "', "
                        + "'rows-per-second' = '1000000000', "
                        + "'fields.k1.min' = '0', 'fields.k1.max' = '999', 'fields.status.length' = '1', "
                        + "'fields.name.length' = '18', 'fields.remark.length' = '40', 'fields.city.length' = '10', "
                        + "'fields.code.length' = '6')");
        env.executeSql(table("files", "filesystem", directory));
        env.executeSql("INSERT INTO files SELECT * FROM gen").await(30, TimeUnit.MINUTES);
    }

    /** A timed job: returns its net run time in milliseconds. */
    @FunctionalInterface
    interface Job {
        long run() throws Exception;
    }

    private static double bestRate(Path directory, String connector, String query, long rows) throws Exception {
        return bestRate(() -> run(directory, connector, query), rows);
    }

    static double bestRate(Job job, long rows) throws Exception {
        job.run();
        long best = Long.MAX_VALUE;
        for (int run = 0; run < RUNS; run++) {
            best = Math.min(best, job.run());
        }
        return rows * 1000.0 / best;
    }

    /**
     * Copies {@link #COPIED} columns from the files through {@code source} into a new directory
     * through {@code sink}; returns the job's net run time in milliseconds.
     */
    static long copy(Path directory, String source, String sink) throws Exception {
        Path out = Files.createTempDirectory(directory.getParent(), "streamfusion-parquet-copy");
        try {
            TableEnvironment env = tables();
            env.executeSql(table("scanned", source, directory));
            String select = "SELECT " + COPIED + " FROM scanned";
            env.executeSql("CREATE TABLE copied (" + schemaOf(env, select) + ") WITH ('connector' = '" + sink
                    + "', 'path' = '" + out + "', 'format' = 'parquet')");
            long millis = netRuntime(env, "INSERT INTO copied " + select);
            checkWritten("copy", out, parquetRows(directory));
            return millis;
        } finally {
            delete(out);
        }
    }

    /** Rows of the Parquet files under {@code directory} (hidden and in-progress files left out), from their footers. */
    static long parquetRows(Path directory) throws IOException {
        long rows = 0;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(directory)) {
            files = walk.filter(Files::isRegularFile)
                    .filter(f -> !f.getFileName().toString().startsWith(".") && !f.getFileName().toString().startsWith("_"))
                    .toList();
        }
        for (Path file : files) {
            try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
                rows += reader.getRecordCount();
            }
        }
        return rows;
    }

    /** Jobs' written rows by job, which every run of a job, through any connector, must equal. */
    private static final Map<String, Long> WRITTEN = new HashMap<>();

    /**
     * Fails unless the Parquet files under {@code out} hold as many rows as every earlier run of
     * {@code job} wrote (or as {@code expected}, where not negative): a run that wrote fewer rows
     * must not count as a faster one.
     */
    static void checkWritten(String job, Path out, long expected) throws IOException {
        if (streaming) {
            // Without checkpoints a streaming job's file sink leaves its files in progress.
            return;
        }
        long rows = parquetRows(out);
        long before = WRITTEN.computeIfAbsent(job, j -> expected >= 0 ? expected : rows);
        if (rows != before) {
            throw new IllegalStateException(job + ": wrote " + rows + " rows, another run " + before);
        }
    }

    static String schemaOf(TableEnvironment env, String select) {
        List<String> columns = new ArrayList<>();
        env.sqlQuery(select).getResolvedSchema().getColumns().forEach(
                c -> columns.add("`" + c.getName() + "` " + c.getDataType().getLogicalType().asSerializableString()));
        return String.join(", ", columns);
    }

    static long netRuntime(TableEnvironment env, String insert) throws Exception {
        JobExecutionResult done =
                env.executeSql(insert).getJobClient().orElseThrow().getJobExecutionResult().get(30, TimeUnit.MINUTES);
        return done.getNetRuntime();
    }

    static void delete(Path directory) throws Exception {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        }
    }

    /** Runs {@code query} into a blackhole sink; returns the job's net run time in milliseconds. */
    private static long run(Path directory, String connector, String query) throws Exception {
        TableEnvironment env = tables();
        env.executeSql(table("scanned", connector, directory));
        String select = String.format(query, "scanned");
        env.executeSql("CREATE TABLE sink (" + schemaOf(env, select) + ") WITH ('connector' = 'blackhole')");
        return netRuntime(env, "INSERT INTO sink " + select);
    }
}
