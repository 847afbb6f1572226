package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;

import org.apache.flink.table.api.TableEnvironment;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Iceberg scans and copies, iceberg-flink (iceberg-flink-runtime-2.1 1.11.0) against {@code
 * streamfusion-iceberg}, over the same table in a Hadoop catalog on local disk, same JVM; the
 * job's parallelism is 1, and each bounded read runs at the number of its splits, as
 * iceberg-flink's source sets it and ours does too (three for the default table): one warm-up run
 * per connector and query, then the best of three. The table (the
 * Parquet benchmark's 20 mixed columns) is written by iceberg-flink first; two more tables share
 * its data files, one with a tenth of the rows deleted by position deletes, one by equality deletes
 * on {@code id}, written by Iceberg Java's generic writers. Scans go into a blackhole sink; copies
 * write every column into a new table through the same connector as they read from. Each
 * StreamFusion job runs once more through the operator island (the reader's batches handed whole
 * to the writer, or to the blackhole, which discards them). Refuses a debug native build.
 *
 * <p>{@code ./bin/bench-iceberg [rows [jobs [scans]]]}: 5,000,000 rows by default; {@code jobs} is a
 * comma-separated choice of {@code scans}, {@code copy} and {@code island} (all three by default;
 * {@code island} adds the island's run of each scan and copy chosen, or of the copy alone), and
 * {@code scans} {@code all} (the default) or comma-separated words of the scans' names to run
 * ({@code selective,2 of 20}), so that one kind of job can be run alone, under a profiler for
 * instance.
 */
public final class IcebergScanBenchmark {

    private static final Map<String, String> QUERIES = new LinkedHashMap<>();

    /** The size of the data files each kind of copy wrote last: {@code stock}, {@code sf}, {@code island}. */
    private static final Map<String, Long> COPY_BYTES = new LinkedHashMap<>();

    static {
        QUERIES.put("all 20 columns", "SELECT * FROM %s.bench.t");
        QUERIES.put("2 of 20 columns", "SELECT id, price FROM %s.bench.t");
        QUERIES.put("selective filter", "SELECT id, name, price FROM %s.bench.t WHERE k1 = 7");
        QUERIES.put("all columns, 10% deleted by position", "SELECT * FROM %s.bench.t_pos");
        QUERIES.put("all columns, 10% deleted by equality", "SELECT * FROM %s.bench.t_eq");
    }

    private IcebergScanBenchmark() {}

    public static void main(String[] args) throws Exception {
        NativeLibrary.requireRelease("the Iceberg benchmark");
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000L;
        List<String> jobs = List.of((args.length > 1 ? args[1] : "scans,copy,island").split(","));
        List<String> scans = List.of((args.length > 2 ? args[2] : "all").split(","));
        if (!List.of("scans", "copy", "island").containsAll(jobs)) {
            throw new IllegalArgumentException("jobs '" + args[1] + "': a choice of scans, copy and island");
        }
        Path warehouse = Files.createTempDirectory("streamfusion-iceberg-bench");
        try {
            String uri = warehouse.toUri().toString();
            write(uri, rows);
            boolean island = jobs.contains("island");
            System.out.printf("%n| query | iceberg-flink (rows/s) | `streamfusion-iceberg` (rows/s) | ratio "
                    + "| with the island (rows/s) | ratio |%n");
            System.out.println("|---|---|---|---|---|---|");
            for (Map.Entry<String, String> query : QUERIES.entrySet()) {
                if (!jobs.contains("scans")) {
                    break;
                }
                if (!scans.equals(List.of("all")) && scans.stream().noneMatch(query.getKey()::contains)) {
                    continue;
                }
                double stock = ParquetScanBenchmark.bestRate(() -> scan(uri, "stock", query.getValue(), false), rows);
                double fused = ParquetScanBenchmark.bestRate(() -> scan(uri, "sf", query.getValue(), false), rows);
                double batches = island ? ParquetScanBenchmark.bestRate(() -> scan(uri, "sf", query.getValue(), true), rows) : 0;
                System.out.println(row(query.getKey(), stock, fused, batches));
            }
            // The copy runs when chosen, or through the island alone when nothing else is.
            if (!jobs.contains("copy") && !jobs.equals(List.of("island"))) {
                return;
            }
            double stockCopy = ParquetScanBenchmark.bestRate(() -> copy(uri, "stock", false), rows);
            double fusedCopy = jobs.contains("copy") ? ParquetScanBenchmark.bestRate(() -> copy(uri, "sf", false), rows) : 0;
            double islandCopy = island ? ParquetScanBenchmark.bestRate(() -> copy(uri, "sf", true), rows) : 0;
            System.out.println(row("copy 20 columns (read and write)", stockCopy, fusedCopy, islandCopy));
            System.out.printf("%nData files of the last copies (bytes): %s%n", COPY_BYTES);
        } finally {
            ParquetScanBenchmark.delete(warehouse);
        }
    }

    /** Both connectors' catalogs over the warehouse: {@code stock} (iceberg-flink) and {@code sf}. */
    static TableEnvironment tables(String warehouse) {
        TableEnvironment env = ParquetScanBenchmark.tables();
        String props = "'catalog-type' = 'hadoop', 'warehouse' = '" + warehouse + "'";
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'iceberg', " + props + ")");
        env.executeSql("CREATE CATALOG sf WITH ('type' = 'streamfusion-iceberg', " + props + ")");
        return env;
    }

    /** Writes the table with iceberg-flink, and the two tables of its files with deletes. */
    private static void write(String warehouse, long rows) throws Exception {
        writeTable(warehouse, rows);
        writeDeletes(warehouse, rows);
    }

    /** Writes {@code bench.t}, {@code rows} rows, with iceberg-flink. */
    static void writeTable(String warehouse, long rows) throws Exception {
        TableEnvironment env = tables(warehouse);
        env.executeSql("CREATE DATABASE stock.bench");
        env.executeSql("CREATE TABLE stock.bench.t (" + ParquetScanBenchmark.COLUMNS + ")");
        env.executeSql(
                "CREATE TABLE gen (" + ParquetScanBenchmark.COLUMNS + ") WITH ('connector' = 'datagen', 'number-of-rows' = '"
                        + rows + "', 'rows-per-second' = '1000000000', "
                        + "'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '" + (rows - 1) + "', "
                        + "'fields.k1.min' = '0', 'fields.k1.max' = '999', 'fields.status.length' = '1', "
                        + "'fields.name.length' = '18', 'fields.remark.length' = '40', 'fields.city.length' = '10', "
                        + "'fields.code.length' = '6')");
        env.executeSql("INSERT INTO stock.bench.t SELECT * FROM gen").await(30, TimeUnit.MINUTES);
    }

    /** Writes {@code bench.t_pos} and {@code bench.t_eq}: the files of {@code bench.t}, a tenth deleted. */
    private static void writeDeletes(String warehouse, long rows) throws Exception {
        try (HadoopCatalog catalog = new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouse)) {
            Table table = catalog.loadTable(TableIdentifier.of("bench", "t"));
            List<DataFile> files = new ArrayList<>();
            try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                tasks.forEach(task -> files.add(task.file()));
            }
            Table byPosition = sharing(catalog, table, files, "t_pos");
            RowDelta positions = byPosition.newRowDelta();
            for (DataFile file : files) {
                positions.addDeletes(positionDeletes(byPosition, file));
            }
            positions.commit();
            Table byEquality = sharing(catalog, table, files, "t_eq");
            byEquality.newRowDelta().addDeletes(equalityDeletes(byEquality, rows)).commit();
        }
    }

    /** A table of {@code table}'s schema whose data files are {@code files}. */
    private static Table sharing(HadoopCatalog catalog, Table table, List<DataFile> files, String name) {
        Table shared = catalog.createTable(TableIdentifier.of("bench", name), table.schema(), PartitionSpec.unpartitioned());
        var append = shared.newAppend();
        files.forEach(append::appendFile);
        append.commit();
        return shared;
    }

    private static GenericFileWriterFactory.Builder writers(Table table) {
        return new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET);
    }

    /** Deletes every tenth row of {@code file} by position. */
    private static DeleteFile positionDeletes(Table table, DataFile file) throws Exception {
        PositionDeleteWriter<Record> writer = writers(table).build().newPositionDeleteWriter(
                table.encryption().encrypt(table.io().newOutputFile(table.locationProvider().newDataLocation(
                        "pos-" + Math.abs(file.location().hashCode()) + ".parquet"))),
                PartitionSpec.unpartitioned(),
                null);
        try (PositionDeleteWriter<Record> w = writer) {
            PositionDelete<Record> delete = PositionDelete.create();
            for (long position = 0; position < file.recordCount(); position += 10) {
                w.write(delete.set(file.location(), position));
            }
        }
        return writer.toDeleteFile();
    }

    /** Deletes the rows whose id is a multiple of ten, by equality on {@code id}. */
    private static DeleteFile equalityDeletes(Table table, long rows) throws Exception {
        Schema idOnly = table.schema().select("id");
        EqualityDeleteWriter<Record> writer = writers(table)
                .equalityFieldIds(new int[] {table.schema().findField("id").fieldId()})
                .equalityDeleteRowSchema(idOnly)
                .build()
                .newEqualityDeleteWriter(
                        table.encryption().encrypt(table.io().newOutputFile(table.locationProvider().newDataLocation("eq.parquet"))),
                        PartitionSpec.unpartitioned(),
                        null);
        try (EqualityDeleteWriter<Record> w = writer) {
            GenericRecord record = GenericRecord.create(idOnly);
            for (long id = 0; id < rows; id += 10) {
                w.write(record.copy("id", id));
            }
        }
        return writer.toDeleteFile();
    }

    /** One Markdown table row of rates, each StreamFusion rate with its ratio (a dash where it was not measured). */
    private static String row(String job, double stock, double fused, double island) {
        StringBuilder row = new StringBuilder(String.format("| %s | %,.0f |", job, stock));
        for (double rate : new double[] {fused, island}) {
            row.append(rate > 0 ? String.format(" %,.0f | %.2fx |", rate, rate / stock) : " - | - |");
        }
        return row.toString();
    }

    /**
     * Runs {@code query} over {@code catalog} into a blackhole sink, with the operator island when
     * {@code island} (checked to hand the reader's batches to the sink whole); the job's net run
     * time (ms).
     */
    static long scan(String warehouse, String catalog, String query, boolean island) throws Exception {
        TableEnvironment env = IslandBenchmark.withIsland(tables(warehouse), island);
        String select = String.format(query, catalog);
        env.executeSql("CREATE TABLE sink (" + ParquetScanBenchmark.schemaOf(env, select) + ") WITH ('connector' = 'blackhole')");
        String insert = "INSERT INTO sink " + select;
        if (island) {
            IslandBenchmark.requireNative(env, insert, "NativeSinkBatches(default_catalog.default_database.sink)");
        }
        return ParquetScanBenchmark.netRuntime(env, insert);
    }

    /**
     * Copies the table into a new one through {@code catalog}'s connector, with the operator island
     * when {@code island} (checked to run the copy natively); the net run time (ms).
     */
    static long copy(String warehouse, String catalog, boolean island) throws Exception {
        TableEnvironment env = IslandBenchmark.withIsland(tables(warehouse), island);
        env.executeSql("DROP TABLE IF EXISTS " + catalog + ".bench.copy");
        env.executeSql("CREATE TABLE " + catalog + ".bench.copy (" + ParquetScanBenchmark.COLUMNS + ")");
        String copy = "INSERT INTO " + catalog + ".bench.copy SELECT * FROM " + catalog + ".bench.t";
        try {
            if (island) {
                IslandBenchmark.requireNative(env, copy, "NativeSinkBatches(sf.bench.copy)");
            }
            long millis = ParquetScanBenchmark.netRuntime(env, copy);
            COPY_BYTES.put(island ? "island" : catalog, checkCopied(warehouse));
            return millis;
        } finally {
            env.executeSql("DROP TABLE IF EXISTS " + catalog + ".bench.copy");
        }
    }

    /**
     * Fails unless the copy holds as many rows as the table it copies (by their snapshots'
     * summaries); returns the size of its data files.
     */
    private static long checkCopied(String warehouse) throws Exception {
        try (HadoopCatalog catalog = new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouse)) {
            long table = records(catalog, "t");
            long copied = records(catalog, "copy");
            if (copied != table) {
                throw new IllegalStateException("the copy holds " + copied + " rows of the table's " + table);
            }
            return summary(catalog, "copy", "total-files-size");
        }
    }

    private static long records(HadoopCatalog catalog, String table) {
        return summary(catalog, table, "total-records");
    }

    private static long summary(HadoopCatalog catalog, String table, String key) {
        return Long.parseLong(catalog.loadTable(TableIdentifier.of("bench", table)).currentSnapshot().summary().get(key));
    }
}
