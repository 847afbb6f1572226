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

    static void run(Figures figures, Demo.Memory memory) throws Exception {
        Path warehouse = Files.createTempDirectory("streamfusion-demo-iceberg");
        try {
            String uri = warehouse.toUri().toString();
            System.out.printf("  writing %,d rows of 20 columns with iceberg-flink into a Hadoop catalog ...%n", ROWS);
            IcebergScanBenchmark.writeTable(uri, ROWS);
            TableEnvironment env = IcebergScanBenchmark.tables(uri);
            List<String> fused = ParquetDemo.sameRows(env, QUERY, "stock", "sf", "streamfusion-iceberg and iceberg");
            System.out.println("  " + String.format(QUERY, "c") + ": equal to 'iceberg''s; the first rows:");
            fused.stream().limit(3).forEach(row -> System.out.println("    " + row));

            System.out.println("  scanning every column, and copying into a new table, through each (after a warm-up) ...");
            IcebergScanBenchmark.scan(uri, "stock", SCAN, false);
            IcebergScanBenchmark.scan(uri, "sf", SCAN, false);
            IcebergScanBenchmark.copy(uri, "stock", false);
            IcebergScanBenchmark.copy(uri, "sf", false);
            memory.afterWarmUp();
            long stockScan = IcebergScanBenchmark.scan(uri, "stock", SCAN, false);
            long fusedScan = IcebergScanBenchmark.scan(uri, "sf", SCAN, false);
            long stockCopy = IcebergScanBenchmark.copy(uri, "stock", false);
            long fusedCopy = IcebergScanBenchmark.copy(uri, "sf", false);
            System.out.printf("    scan: iceberg %,d ms, streamfusion-iceberg %,d ms%n", stockScan, fusedScan);
            System.out.printf("    copy: iceberg %,d ms, streamfusion-iceberg %,d ms%n", stockCopy, fusedCopy);
            figures.runTime("Iceberg scan, 20 columns", stockScan, fusedScan);
            figures.runTime("Iceberg copy into a new table", stockCopy, fusedCopy);
        } finally {
            ParquetScanBenchmark.delete(warehouse);
        }
    }
}
