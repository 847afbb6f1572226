package dev.streamfusion.e2e;

import org.apache.flink.table.api.TableEnvironment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The demo's Iceberg step: a table written by iceberg-flink in a Hadoop catalog on local disk, a
 * query over it through both connectors' catalogs (results checked equal), and a scan and a copy
 * through each, timed.
 */
final class IcebergDemo {

    private static final long ROWS = 500_000;
    private static final String QUERY =
            "SELECT status, COUNT(*), SUM(price), MAX(name) FROM %s.bench.t WHERE k1 < 100 GROUP BY status";
    private static final String SCAN = "SELECT * FROM %s.bench.t";

    private IcebergDemo() {}

    static void run() throws Exception {
        Path warehouse = Files.createTempDirectory("streamfusion-demo-iceberg");
        try {
            String uri = warehouse.toUri().toString();
            IcebergScanBenchmark.writeTable(uri, ROWS);
            TableEnvironment env = IcebergScanBenchmark.tables(uri);
            List<String> fused = ParquetDemo.sameRows(env, QUERY, "stock", "sf", "streamfusion-iceberg and iceberg");
            System.out.println();
            System.out.println("Iceberg: " + ROWS + " rows of 20 columns written by iceberg-flink to a Hadoop catalog at " + warehouse);
            System.out.println("  " + String.format(QUERY, "c") + "  (results equal to 'iceberg'):");
            fused.stream().limit(3).forEach(row -> System.out.println("    " + row));

            System.out.println();
            System.out.println("Iceberg scan of every column and copy into a new table, parallelism 1 (job run time, after a warm-up):");
            System.out.printf("  %-10s %16s %22s %7s%n", "", "iceberg", "streamfusion-iceberg", "ratio");
            IcebergScanBenchmark.scan(uri, "stock", SCAN);
            IcebergScanBenchmark.scan(uri, "sf", SCAN);
            print("scan", IcebergScanBenchmark.scan(uri, "stock", SCAN), IcebergScanBenchmark.scan(uri, "sf", SCAN));
            IcebergScanBenchmark.copy(uri, "stock");
            IcebergScanBenchmark.copy(uri, "sf");
            print("copy", IcebergScanBenchmark.copy(uri, "stock"), IcebergScanBenchmark.copy(uri, "sf"));
        } finally {
            ParquetScanBenchmark.delete(warehouse);
        }
    }

    private static void print(String what, long stockMillis, long fusedMillis) {
        System.out.printf("  %-10s %13d ms %19d ms %6.2fx%n", what, stockMillis, fusedMillis, (double) stockMillis / fusedMillis);
    }
}
