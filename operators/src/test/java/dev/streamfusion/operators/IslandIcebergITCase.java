package dev.streamfusion.operators;

import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.streamfusion.operators.IslandTesting.identifier;
import static dev.streamfusion.operators.IslandTesting.nativeCalcGivesStockRows;
import static dev.streamfusion.operators.IslandTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The island fed by streamfusion-iceberg: a table of two snapshots in a Hadoop catalog on local
 * disk, read as whole batches (deletes applied natively), gives through the native calc the rows
 * Flink's own Calc gives over iceberg-flink's scan of the same table, and is copied into the
 * Parquet sink and into Iceberg tables taking the batches; every table written is read back by
 * iceberg-flink.
 */
class IslandIcebergITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(3);

    private static final String COLUMNS =
            "id BIGINT, s STRING, price DECIMAL(10, 2), ts TIMESTAMP(6), flag BOOLEAN, qty INT";
    private static final String TABLE = "sf.db.t";

    private static final String[] QUERIES = {
        "SELECT id, s, price * 2, UPPER(s), ts FROM %s WHERE qty > 0 OR s IS NULL",
        "SELECT id, CASE WHEN flag THEN price ELSE CAST(qty AS DECIMAL(12, 2)) END, SUBSTRING(s, 2, 3) FROM %s "
                + "WHERE ts > TIMESTAMP '2000-01-01 00:00:00' AND (MOD(id, 3) = 0 OR flag IS NULL)",
        // No filter: the scan is asked for its columns in the order the projection first uses them.
        "SELECT UPPER(s), qty * 2, id - 1, ts FROM %s",
    };

    @TempDir static Path warehouse;

    private static String catalog() {
        return "CREATE CATALOG sf WITH ('type' = 'streamfusion-iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                + warehouse.toUri() + "')";
    }

    /** iceberg-flink's catalog over the same warehouse. */
    private static String stockCatalog() {
        return "CREATE CATALOG stock WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                + warehouse.toUri() + "')";
    }

    /** The rows {@code query} gives with every table of {@code sf} read by iceberg-flink instead. */
    private static List<String> stockRows(String query) throws Exception {
        return rows(env(false, 1, false), query.replace("sf.db.", "stock.db."));
    }

    @BeforeAll
    static void writeTwoSnapshots() throws Exception {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.executeSql(catalog());
        env.executeSql("CREATE DATABASE sf.db");
        env.executeSql("CREATE TABLE " + TABLE + " (" + COLUMNS + ")");
        for (int snapshot = 0; snapshot < 2; snapshot++) {
            env.executeSql("CREATE TEMPORARY TABLE gen" + snapshot + " (" + COLUMNS + ") WITH ('connector' = 'datagen', "
                    + "'number-of-rows' = '3000', 'fields.s.length' = '6', 'fields.ts.max-past' = '20000 d', "
                    + "'fields.s.null-rate' = '0.1', 'fields.price.null-rate' = '0.1', 'fields.flag.null-rate' = '0.1', "
                    + "'fields.qty.null-rate' = '0.1')");
            env.executeSql("INSERT INTO " + TABLE + " SELECT * FROM gen" + snapshot).await();
        }
    }

    private static TableEnvironment env(boolean streaming, int parallelism, boolean island) {
        return IslandTesting.env(streaming, parallelism, island, catalog(), stockCatalog());
    }

    @ParameterizedTest(name = "streaming={0}, parallelism={1}")
    @CsvSource({"true, 1", "false, 2"})
    void icebergBatchesThroughTheIslandGiveFlinksRows(boolean streaming, int parallelism) throws Exception {
        TableEnvironment stock = env(streaming, parallelism, false);
        TableEnvironment island = env(streaming, parallelism, true);
        for (String query : QUERIES) {
            nativeCalcGivesStockRows(stock, island, query, "stock.db.t", TABLE, 100);
        }
        assertThat(StreamFusion.explain(island, String.format(QUERIES[2], TABLE)).plan())
                .contains("fields=[s, qty, id, ts]");
    }

    @Test
    void anIcebergScanIsCopiedIntoTheParquetSinkAsBatches() throws Exception {
        TableEnvironment island = env(true, 2, true);
        Path out = warehouse.resolve("copied");
        island.executeSql("CREATE TABLE copied (" + COLUMNS + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                + out + "')");
        assertThat(StreamFusion.explain(island, "INSERT INTO copied SELECT * FROM " + TABLE).nativeNodes())
                .containsExactly("NativeSourceBatches(" + identifier(TABLE) + ")", "NativeSinkBatches(" + identifier("copied") + ")");
        island.executeSql("INSERT INTO copied SELECT * FROM " + TABLE).await();

        TableEnvironment reader = env(false, 1, false);
        reader.executeSql("CREATE TABLE written (" + COLUMNS + ") WITH ('connector' = 'filesystem', 'path' = '" + out
                + "', 'format' = 'parquet')");
        List<String> expected = stockRows("SELECT * FROM " + TABLE);
        assertThat(expected).hasSize(6000);
        assertThat(rows(reader, "SELECT * FROM written")).containsExactlyElementsOf(expected);
    }

    @Test
    void anIcebergScanIsCopiedIntoAnIcebergTableAsBatches() throws Exception {
        TableEnvironment island = env(false, 2, true);
        island.executeSql("CREATE TABLE sf.db.copy (" + COLUMNS + ")");
        assertThat(writtenAsBatches(island, "SELECT * FROM " + TABLE, "sf.db.copy",
                        "NativeSourceBatches(" + identifier(TABLE) + ")", "NativeSinkBatches(" + identifier("sf.db.copy") + ")"))
                .hasSize(6000);

        // Every file its own split: a reader per file (the parallelism iceberg-flink infers), each
        // chained to a writer of its own.
        HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
        int files = writersByPartition(catalog.loadTable(TableIdentifier.of("db", "t"))).get("").size();
        // Neither 1 (one split) nor 2 (this job's parallelism): the inferred parallelism tells.
        assertThat(files).isGreaterThan(2);
        island.executeSql("CREATE TABLE sf.db.spread (" + COLUMNS + ")");
        String spread = "SELECT * FROM " + TABLE + " /*+ OPTIONS('split-size' = '1') */";
        String plan = island.explainSql("INSERT INTO sf.db.spread " + spread, ExplainDetail.JSON_EXECUTION_PLAN);
        Matcher readers = Pattern.compile("\"type\" : \"Source: NativeSourceBatches[^\"]*\".*?\"parallelism\" : (\\d+)",
                        Pattern.DOTALL)
                .matcher(plan);
        assertThat(readers.find()).as(plan).isTrue();
        assertThat(Integer.parseInt(readers.group(1))).isEqualTo(files);
        assertThat(writtenAsBatches(island, spread, "sf.db.spread",
                        "NativeSourceBatches(" + identifier(TABLE) + ")", "NativeSinkBatches(" + identifier("sf.db.spread") + ")"))
                .hasSize(6000);
    }

    /**
     * Writes {@code query} into {@code target} through {@code island}, checked to run as {@code
     * nodes}; the rows {@code target} then holds, read by iceberg-flink and checked to be those
     * Flink gives for the query over iceberg-flink's scan.
     */
    private static List<String> writtenAsBatches(TableEnvironment island, String query, String target, String... nodes)
            throws Exception {
        String insert = "INSERT INTO " + target + " " + query;
        StreamFusion.Explanation report = StreamFusion.explain(island, insert);
        assertThat(report.nativeNodes()).as("fallbacks: %s", report.fallbacks()).containsExactly(nodes);
        island.executeSql(insert).await();
        List<String> written = stockRows("SELECT * FROM " + target);
        assertThat(written).containsExactlyInAnyOrderElementsOf(stockRows(query));
        return written;
    }

    @Test
    void aNativeCalcWritesIntoAnIcebergTableAsBatchesCommittedByCheckpoints() throws Exception {
        String query = String.format(QUERIES[1], TABLE);
        TableEnvironment island = env(true, 1, true);
        island.getConfig().set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(200));
        island.executeSql("CREATE TABLE sf.db.calc (id BIGINT, amount DECIMAL(12, 2), part STRING)");
        assertThat(writtenAsBatches(island, query, "sf.db.calc", "NativeSourceBatches(" + identifier(TABLE) + ")",
                        "NativeCalc", "NativeSinkBatches(" + identifier("sf.db.calc") + ")"))
                .hasSizeGreaterThan(100);
    }

    @Test
    void aHashDistributedTableGetsEachPartitionFromOneWriterOfRoutedBatches() throws Exception {
        HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
        Schema schema = catalog.loadTable(TableIdentifier.of("db", "t")).schema();
        PartitionSpec spec = PartitionSpec.builderFor(schema).identity("flag").bucket("id", 3).build();
        catalog.createTable(TableIdentifier.of("db", "hashed"), schema, spec,
                Map.of(TableProperties.WRITE_DISTRIBUTION_MODE, TableProperties.WRITE_DISTRIBUTION_MODE_HASH));
        TableEnvironment island = twoReaders(env(false, 2, true));
        assertThat(writtenAsBatches(island, "SELECT * FROM " + TABLE, "sf.db.hashed",
                        "NativeSourceBatches(" + identifier(TABLE) + ")", "NativeSinkBatches(" + identifier("sf.db.hashed") + ")"))
                .hasSize(6000);
        // Each of the 9 partitions in one file, and the partitions spread over both writers (file
        // names start with the writer's subtask index), wherever the readers' rows came from.
        Map<String, List<String>> writers = writersByPartition(catalog.loadTable(TableIdentifier.of("db", "hashed")));
        assertThat(writers).hasSize(9).allSatisfy((partition, files) -> assertThat(files).as(partition).hasSize(1));
        assertThat(writers.values().stream().map(files -> files.get(0)).distinct()).containsExactlyInAnyOrder("00000", "00001");

        // Three writers of another parallelism than the readers': still one file a partition.
        catalog.createTable(TableIdentifier.of("db", "hashed3"), schema, spec,
                Map.of(TableProperties.WRITE_DISTRIBUTION_MODE, TableProperties.WRITE_DISTRIBUTION_MODE_HASH));
        String insert = "INSERT INTO sf.db.hashed3 /*+ OPTIONS('write-parallelism' = '3') */ SELECT * FROM " + TABLE;
        assertThat(StreamFusion.explain(island, insert).nativeNodes())
                .containsExactly("NativeSourceBatches(" + identifier(TABLE) + ")", "NativeSinkBatches(" + identifier("sf.db.hashed3") + ")");
        island.executeSql(insert).await();
        Map<String, List<String>> three = writersByPartition(catalog.loadTable(TableIdentifier.of("db", "hashed3")));
        assertThat(three).hasSize(9).allSatisfy((partition, files) -> assertThat(files).as(partition).hasSize(1));
        assertThat(three.values().stream().map(files -> files.get(0)).distinct())
                .hasSizeGreaterThan(1)
                .isSubsetOf("00000", "00001", "00002");
        assertThat(stockRows("SELECT * FROM sf.db.hashed3"))
                .containsExactlyInAnyOrderElementsOf(stockRows("SELECT * FROM " + TABLE));
    }

    /** The subtask index each data file of {@code table} was written by, by partition. */
    private static Map<String, List<String>> writersByPartition(Table table) throws Exception {
        Map<String, List<String>> writers = new TreeMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                String name = Path.of(task.file().location()).getFileName().toString();
                writers.computeIfAbsent(table.spec().partitionToPath(task.file().partition()), p -> new ArrayList<>())
                        .add(name.substring(0, name.indexOf('-')));
            }
        }
        return writers;
    }

    /**
     * {@code env} with its bounded Iceberg reads at parallelism 2, whatever their splits (the number
     * of splits otherwise, as iceberg-flink infers it).
     */
    private static TableEnvironment twoReaders(TableEnvironment env) {
        env.getConfig().set("table.exec.iceberg.infer-source-parallelism", "false");
        env.getConfig().set("table.exec.resource.default-parallelism", "2");
        return env;
    }

    @Test
    void writersOfTheirOwnParallelismTakeTheBatchesAcrossTheExchange() throws Exception {
        TableEnvironment island = twoReaders(env(false, 2, true));
        island.executeSql("CREATE TABLE sf.db.single (" + COLUMNS + ")");
        String insert = "INSERT INTO sf.db.single /*+ OPTIONS('write-parallelism' = '1') */ SELECT * FROM " + TABLE;
        assertThat(StreamFusion.explain(island, insert).nativeNodes())
                .containsExactly("NativeSourceBatches(" + identifier(TABLE) + ")", "NativeSinkBatches(" + identifier("sf.db.single") + ")");
        island.executeSql(insert).await();
        // One writer took the batches of both readers: one data file in this batch job.
        HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
        assertThat(writersByPartition(catalog.loadTable(TableIdentifier.of("db", "single"))))
                .containsExactly(Map.entry("", List.of("00000")));
        assertThat(stockRows("SELECT * FROM sf.db.single"))
                .containsExactlyInAnyOrderElementsOf(stockRows("SELECT * FROM " + TABLE));
    }

    @Test
    void aStreamingCopyThroughTheKeyedExchangeRestoresAtAnotherParallelismWithEveryRowOnce() throws Exception {
        HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
        Schema schema = catalog.loadTable(TableIdentifier.of("db", "t")).schema();
        catalog.createTable(TableIdentifier.of("db", "events"), schema);
        catalog.createTable(TableIdentifier.of("db", "routed"), schema,
                PartitionSpec.builderFor(schema).identity("flag").bucket("id", 3).build(),
                Map.of(TableProperties.WRITE_DISTRIBUTION_MODE, TableProperties.WRITE_DISTRIBUTION_MODE_HASH));
        TableEnvironment writer = env(false, 1, false);
        writer.executeSql("INSERT INTO sf.db.events SELECT * FROM " + TABLE + " WHERE MOD(id, 2) = 0").await();
        String insert = "INSERT INTO sf.db.routed SELECT * FROM sf.db.events "
                + "/*+ OPTIONS('streaming' = 'true', 'monitor-interval' = '100ms') */";
        TableEnvironment reader = env(false, 1, false);

        JobClient first = streamingCopy(1, null, insert);
        List<String> firstRows = rows(reader, "SELECT * FROM sf.db.events");
        awaitRows(first, reader, "sf.db.routed", firstRows);
        String savepoint = first.stopWithSavepoint(false, warehouse.resolve("savepoints").toUri().toString(),
                        SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);

        // A snapshot appended while the job is stopped is read once after the restore at parallelism 2.
        writer.executeSql("INSERT INTO sf.db.events SELECT * FROM " + TABLE + " WHERE MOD(id, 2) <> 0 OR id IS NULL").await();
        JobClient second = streamingCopy(2, savepoint, insert);
        try {
            List<String> all = rows(reader, "SELECT * FROM sf.db.events");
            assertThat(all).hasSize(6000);
            awaitRows(second, reader, "sf.db.routed", all);
            assertThat(stockRows("SELECT * FROM sf.db.routed")).containsExactlyElementsOf(all);
        } finally {
            if (!second.getJobStatus().get().isGloballyTerminalState()) {
                second.cancel().get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Starts {@code insert} in a checkpointed streaming job through the island, from {@code savepoint} if given. */
    private static JobClient streamingCopy(int parallelism, String savepoint, String insert) {
        TableEnvironment island = env(true, parallelism, true);
        island.getConfig().set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(200));
        if (savepoint != null) {
            island.getConfig().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        assertThat(StreamFusion.explain(island, insert).nativeNodes())
                .containsExactly("NativeSourceBatches(sf.db.events)", "NativeSinkBatches(sf.db.routed)");
        return island.executeSql(insert).getJobClient().orElseThrow();
    }

    /**
     * Waits until {@code table} holds {@code expected} (once each) while {@code job} runs; fails
     * with the job's own failure if it ends, or after a minute.
     */
    private static void awaitRows(JobClient job, TableEnvironment reader, String table, List<String> expected)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        List<String> committed = rows(reader, "SELECT * FROM " + table);
        while (committed.size() < expected.size() && System.nanoTime() < deadline) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get();
            }
            Thread.sleep(200);
            committed = rows(reader, "SELECT * FROM " + table);
        }
        assertThat(committed).containsExactlyElementsOf(expected);
    }

    @Test
    void aTableOfFormatOneWithAKeyIsWrittenFromBatchesRoutedByTheKey() throws Exception {
        TableEnvironment island = env(false, 2, true);
        island.executeSql("CREATE TABLE sf.db.v1keyed (" + COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED) "
                + "WITH ('format-version' = '1')");
        // The key column is NOT NULL: fed by a NOT NULL expression, the sink takes the batches.
        String query = "SELECT COALESCE(id, -1), s, price, ts, flag, qty FROM " + TABLE;
        assertThat(writtenAsBatches(island, query, "sf.db.v1keyed",
                        "NativeSourceBatches(" + identifier(TABLE) + ")", "NativeCalc",
                        "NativeSinkBatches(" + identifier("sf.db.v1keyed") + ")"))
                .hasSize(6000);
    }

    @Test
    void icebergTablesWithEqualityFieldsStayOnRows() throws Exception {
        TableEnvironment island = env(false, 2, true);
        island.executeSql("CREATE TABLE sf.db.keyed (" + COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED)");
        String insert = "INSERT INTO sf.db.keyed SELECT * FROM " + TABLE + " WHERE id IS NOT NULL";
        assertThat(StreamFusion.explain(island, insert).fallbacks())
                .anyMatch(reason -> reason.contains("equality fields"));
        // Still written, by the writers of rows.
        island.executeSql(insert).await();
        assertThat(stockRows("SELECT * FROM sf.db.keyed"))
                .containsExactlyInAnyOrderElementsOf(stockRows("SELECT * FROM " + TABLE + " WHERE id IS NOT NULL"));
    }

    @Test
    void aScanOfVariantsStaysOnRowsAndGivesIcebergFlinksRows() throws Exception {
        TableEnvironment island = env(false, 1, true);
        island.executeSql("CREATE TABLE sf.db.docs (id BIGINT, doc VARIANT) WITH ('format-version' = '3')");
        island.executeSql("CREATE TEMPORARY TABLE discarded (id BIGINT, doc VARIANT) WITH ('connector' = 'blackhole')");
        // The table is written by iceberg-flink: streamfusion-iceberg does not write variants.
        island.executeSql("INSERT INTO stock.db.docs SELECT id, PARSE_JSON(j) FROM (VALUES (1, '{\"a\": [1, 2]}'), "
                + "(2, CAST(NULL AS STRING)), (3, '\"x\"')) AS t(id, j)").await();
        String query = "SELECT id + 1, doc FROM sf.db.docs WHERE id <> 2";
        StreamFusion.Explanation report = StreamFusion.explain(island, query);
        assertThat(report.nativeNodes()).isEmpty();
        assertThat(report.fallbacks()).anyMatch(reason -> reason.contains("'doc'") && reason.contains("VARIANT"));
        // A scan into a sink that takes batches falls back at the source.
        assertThat(StreamFusion.explain(island, "INSERT INTO discarded SELECT * FROM sf.db.docs").fallbacks())
                .anyMatch(reason -> reason.contains("its column 'doc' is of type VARIANT"));
        assertThat(rows(island, query)).hasSize(2).containsExactlyInAnyOrderElementsOf(stockRows(query));
    }
}
