package dev.streamfusion.e2e;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The demo's Parquet step: files written by stock Flink, a query over them through both
 * connectors (results checked equal), and a copy of 10 columns through each, timed.
 */
final class ParquetDemo {

    private static final long ROWS = 500_000;
    private static final String QUERY =
            "SELECT status, COUNT(*), SUM(price), MAX(name) FROM %s WHERE k1 < 100 GROUP BY status";

    private ParquetDemo() {}

    static void run(Figures figures) throws Exception {
        Path directory = Files.createTempDirectory("streamfusion-demo-parquet");
        try {
            System.out.printf("  writing %,d rows of 20 columns with stock Flink ...%n", ROWS);
            ParquetScanBenchmark.write(directory, ROWS);
            TableEnvironment env = ParquetScanBenchmark.tables();
            env.executeSql(ParquetScanBenchmark.table("stock", "filesystem", directory));
            env.executeSql(ParquetScanBenchmark.table("fused", "streamfusion-parquet", directory));
            List<String> fused = sameRows(env, QUERY, "stock", "fused", "streamfusion-parquet and filesystem");
            System.out.println("  " + String.format(QUERY, "t") + ": equal to 'filesystem''s; the first rows:");
            fused.stream().limit(3).forEach(row -> System.out.println("    " + row));

            System.out.println("  copying 10 columns into new Parquet files through each (after a warm-up) ...");
            ParquetScanBenchmark.copy(directory, "filesystem", "filesystem");
            ParquetScanBenchmark.copy(directory, "streamfusion-parquet", "streamfusion-parquet");
            long stockMillis = ParquetScanBenchmark.copy(directory, "filesystem", "filesystem");
            long fusedMillis = ParquetScanBenchmark.copy(directory, "streamfusion-parquet", "streamfusion-parquet");
            System.out.printf("    filesystem %,d ms, streamfusion-parquet %,d ms%n", stockMillis, fusedMillis);
            figures.runTime("Parquet copy, 10 of 20 columns", stockMillis, fusedMillis);
        } finally {
            ParquetScanBenchmark.delete(directory);
        }
    }

    /**
     * The sorted rows of {@code query} (a format with one {@code %s} for the table) over {@code
     * fused}, checked equal to those over {@code stock}; {@code connectors} names both in the error.
     */
    static List<String> sameRows(TableEnvironment env, String query, String stock, String fused, String connectors)
            throws Exception {
        List<String> expected = collect(env, String.format(query, stock));
        List<String> actual = collect(env, String.format(query, fused));
        if (!expected.equals(actual)) {
            throw new IllegalStateException(connectors + " disagree:\n" + actual + "\n" + expected);
        }
        return actual;
    }

    @SuppressWarnings("try")
    private static List<String> collect(TableEnvironment env, String query) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = env.executeSql(query).collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        Collections.sort(rows);
        return rows;
    }
}
