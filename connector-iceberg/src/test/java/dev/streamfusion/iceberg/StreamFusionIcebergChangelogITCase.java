package dev.streamfusion.iceberg;

import dev.streamfusion.testkit.flink.FailOnce;
import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Changelogs, upserts, overwrites and distributions written by {@code streamfusion-iceberg},
 * against iceberg-flink ({@code iceberg-flink-runtime-2.1} 1.11.0) writing the same jobs into a
 * twin table of a Hadoop catalog on local disk: every table read back by iceberg-flink, by the
 * native reader and by Iceberg Java's generic reader, and compared with the rows the jobs mean;
 * iceberg-flink's twins (with the delete files iceberg-flink's upserts write) read natively too.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
class StreamFusionIcebergChangelogITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @TempDir static Path warehouse;

    private static HadoopCatalog catalog;
    private static String warehouseUri;

    @BeforeAll
    static void openCatalog() {
        warehouseUri = warehouse.toUri().toString();
        catalog = new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouseUri);
        catalog.createNamespace(Namespace.of("db"));
    }

    @AfterAll
    static void closeCatalog() throws Exception {
        catalog.close();
    }

    /** Streaming jobs at parallelism 2, checkpointing every 150 ms, with {@code fail_once}. */
    private static StreamTableEnvironment streaming() {
        StreamTableEnvironment env = FailOnce.restartingTables(2, Duration.ofMillis(150));
        register(env);
        return env;
    }

    private static TableEnvironment batch() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "2");
        register(env);
        return env;
    }

    private static void register(TableEnvironment env) {
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                + warehouseUri + "')");
        env.executeSql("CREATE DATABASE IF NOT EXISTS stock.db");
    }

    /**
     * The twin tables {@code stock.db.<name>_stock} and {@code stock.db.<name>_ours} of {@code
     * columns} and {@code properties}, and the streamfusion-iceberg table {@code sf_<name>} over the
     * latter (with {@code options}).
     */
    private static void createTwins(TableEnvironment env, String name, String columns, String partitioning, String properties,
            String options) {
        for (String twin : List.of("_stock", "_ours")) {
            env.executeSql("CREATE TABLE IF NOT EXISTS stock.db." + name + twin + " (" + columns + ") " + partitioning
                    + " WITH (" + properties + ")");
        }
        env.executeSql("CREATE TABLE sf_" + name + " (" + columns + ") " + partitioning
                + " WITH ('connector' = 'streamfusion-iceberg', 'catalog-name' = 'sf', 'catalog-type' = 'hadoop', "
                + "'warehouse' = '" + warehouseUri + "', 'catalog-database' = 'db', 'catalog-table' = '" + name + "_ours'"
                + (options.isEmpty() ? "" : ", " + options) + ")");
    }

    /** Runs {@code insert} ({@code %s} for the table) into iceberg-flink's twin, then into ours. */
    private static void insertBoth(TableEnvironment env, String name, String insert) throws Exception {
        FailOnce.reset(Integer.MAX_VALUE);
        env.executeSql(String.format(insert, "stock.db." + name + "_stock")).await(3, TimeUnit.MINUTES);
        FailOnce.reset(Integer.MAX_VALUE);
        env.executeSql(String.format(insert, "sf_" + name)).await(3, TimeUnit.MINUTES);
    }

    private static List<Row> collect(TableEnvironment env, String sql) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = env.executeSql(sql).collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }

    /** The rows of our table as iceberg-flink, our reader and Iceberg Java read them: all alike. */
    private static List<String> readOurs(String name) throws Exception {
        TableEnvironment env = batch();
        List<Row> stockReadsStock = collect(env, "SELECT * FROM stock.db." + name + "_stock");
        List<Row> stockReadsOurs = collect(env, "SELECT * FROM stock.db." + name + "_ours");
        assertThat(stockReadsOurs).containsExactlyInAnyOrderElementsOf(stockReadsStock);
        // The native reader, on our table and on iceberg-flink's (its delete files as iceberg-flink writes them).
        for (String twin : List.of("_ours", "_stock")) {
            env.executeSql("CREATE TABLE sf_read" + twin + " WITH ('connector' = 'streamfusion-iceberg', 'catalog-name' = 'sf', "
                    + "'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', 'catalog-database' = 'db', "
                    + "'catalog-table' = '" + name + twin + "') LIKE stock.db." + name + twin + " (EXCLUDING OPTIONS)");
            assertThat(collect(env, "SELECT * FROM sf_read" + twin)).as(twin).containsExactlyInAnyOrderElementsOf(stockReadsStock);
        }
        List<String> generic = new ArrayList<>();
        Table ours = load(name + "_ours");
        try (CloseableIterable<Record> records = IcebergGenerics.read(ours).build()) {
            // Records read with deletes may carry the reader's own columns (_pos) after the table's.
            records.forEach(r -> generic.add(ours.schema().columns().stream()
                    .map(c -> r.getField(c.name()))
                    .collect(Collectors.toList())
                    .toString()));
        }
        List<String> rows = stockReadsOurs.stream().map(StreamFusionIcebergChangelogITCase::text).collect(Collectors.toList());
        assertThat(generic).containsExactlyInAnyOrderElementsOf(rows);
        return rows;
    }

    private static String text(Row row) {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < row.getArity(); i++) {
            values.add(row.getField(i));
        }
        return values.toString();
    }

    private static Table load(String table) {
        return catalog.loadTable(TableIdentifier.of("db", table));
    }

    /** The events {@code (k, v)} of a job: {@code v} is {@code prefix + i} for event {@code i}. */
    private static List<int[]> events(int count, int firstKey, int keys) {
        return IntStream.range(0, count).mapToObj(i -> new int[] {firstKey + i % keys, i}).collect(Collectors.toList());
    }

    private static String values(List<int[]> events, String prefix) {
        return events.stream()
                .map(e -> "(" + e[0] + ", '" + prefix + e[1] + "')")
                .collect(Collectors.joining(", ", "(VALUES ", ") AS e(k, v)"));
    }

    /**
     * A changelog of {@code events} (slowed by {@code fail_once} so that it spans several
     * checkpoints): per key its count and greatest value, retracted once the key has {@code
     * below} events.
     */
    private static String changelog(List<int[]> events, String prefix, int below) {
        return "SELECT k, COUNT(*) AS n, MAX(v) AS v FROM (SELECT CAST(fail_once(CAST(k AS BIGINT)) AS INT) AS k, v FROM "
                + values(events, prefix) + ") GROUP BY k HAVING COUNT(*) < " + below;
    }

    /** What the changelog of {@code events} leaves per key: {@code [n, v]}, absent when retracted. */
    private static Map<Integer, Object[]> aggregate(List<int[]> events, String prefix, int below) {
        Map<Integer, Object[]> out = new TreeMap<>();
        Map<Integer, List<String>> byKey = new HashMap<>();
        events.forEach(e -> byKey.computeIfAbsent(e[0], k -> new ArrayList<>()).add(prefix + e[1]));
        byKey.forEach((k, vs) -> {
            if (vs.size() < below) {
                out.put(k, new Object[] {(long) vs.size(), vs.stream().max(String::compareTo).orElseThrow()});
            }
        });
        return out;
    }

    @Test
    void upsertsAndRetractionsAcrossCommitsReadAsIcebergFlinksWrites() throws Exception {
        StreamTableEnvironment env = streaming();
        String columns = "k INT NOT NULL, n BIGINT, v STRING, PRIMARY KEY (k) NOT ENFORCED";
        createTwins(env, "upserted", columns, "", "'format-version' = '2', 'write.upsert.enabled' = 'true'", "");
        createTwins(env, "retracted", columns, "", "'format-version' = '2'", "");
        // Upserting by the option on our side, by the table property on iceberg-flink's.
        createTwins(env, "regrouped", "n BIGINT NOT NULL, keys BIGINT, PRIMARY KEY (n) NOT ENFORCED", "",
                "'format-version' = '2', 'write.upsert.enabled' = 'true'", "'upsert-enabled' = 'true'");
        // Keys 0-99 reach three events, 100-199 two.
        List<int[]> first = events(500, 0, 200);
        // Keys 150-249 reach two events, 250-349 one.
        List<int[]> second = events(300, 150, 200);
        // A changelog is written as it comes: a key's rows of earlier jobs are deleted only by
        // its retractions (and, upserting, by its inserts), so each job's changelog here is
        // consistent with the rows the table has.

        // Upserted: every key's latest count and greatest value, the second job's replacing the first's.
        insertBoth(env, "upserted", "INSERT INTO %s " + changelog(first, "a", Integer.MAX_VALUE));
        insertBoth(env, "upserted", "INSERT INTO %s " + changelog(second, "b", Integer.MAX_VALUE));
        Map<Integer, Object[]> upserted = aggregate(first, "a", Integer.MAX_VALUE);
        upserted.putAll(aggregate(second, "b", Integer.MAX_VALUE));
        assertThat(readOurs("upserted")).containsExactlyInAnyOrderElementsOf(rows(upserted)).hasSize(350);

        // Retracted (a changelog without upsert): keys retracted once they reach three events;
        // then a changelog that deletes and updates rows of the first job and inserts and deletes
        // its own.
        insertBoth(env, "retracted", "INSERT INTO %s " + changelog(first, "a", 3));
        Map<Integer, Object[]> retracted = aggregate(first, "a", 3);
        List<Row> changes = new ArrayList<>();
        for (int k = 100; k < 200; k++) {
            Object[] row = retracted.get(k);
            if (k >= 150) {
                changes.add(Row.ofKind(RowKind.DELETE, k, row[0], row[1]));
            } else if (k < 120) {
                changes.add(Row.ofKind(RowKind.UPDATE_BEFORE, k, row[0], row[1]));
                changes.add(Row.ofKind(RowKind.UPDATE_AFTER, k, 3L, "c" + k));
            }
        }
        for (int k = 1000; k < 1050; k++) {
            changes.add(Row.ofKind(RowKind.INSERT, k, 1L, "c" + k));
        }
        for (int k = 1000; k < 1010; k++) {
            changes.add(Row.ofKind(RowKind.DELETE, k, 1L, "c" + k));
        }
        StreamTableEnvironment changing = changelogOf(changes);
        insertBoth(changing, "retracted", "INSERT INTO %s SELECT * FROM changes");
        retracted.keySet().removeIf(k -> k >= 150);
        for (int k = 100; k < 120; k++) {
            retracted.put(k, new Object[] {3L, "c" + k});
        }
        for (int k = 1010; k < 1050; k++) {
            retracted.put(k, new Object[] {1L, "c" + k});
        }
        assertThat(readOurs("retracted")).containsExactlyInAnyOrderElementsOf(rows(retracted)).hasSize(20 + 30 + 40);

        // Regrouped (upserts and deletes): how many keys have each count; a count every key leaves
        // behind is deleted.
        String regroup = "INSERT INTO %s SELECT n, COUNT(*) FROM (SELECT k, COUNT(*) AS n FROM (SELECT "
                + "CAST(fail_once(CAST(k AS BIGINT)) AS INT) AS k FROM ";
        insertBoth(env, "regrouped", regroup + values(first, "a") + ") GROUP BY k) GROUP BY n");
        insertBoth(env, "regrouped", regroup + values(second, "b") + ") GROUP BY k) GROUP BY n");
        assertThat(readOurs("regrouped")).containsExactlyInAnyOrder("[1, 100]", "[2, 100]", "[3, 100]");

        for (String table : List.of("upserted", "retracted", "regrouped")) {
            Table ours = load(table + "_ours");
            // Rows of earlier commits are deleted by key.
            assertThat(deleteFiles(ours, "added-equality-delete-files")).as(table).isPositive();
            assertThat(ours.snapshots()).allSatisfy(s -> assertThat(s.summary()).containsKey("flink.max-committed-checkpoint-id"));
        }
        // A count's row is replaced at every event, many times a checkpoint: rows of the same
        // commit are deleted by position.
        assertThat(deleteFiles(load("regrouped_ours"), "added-position-delete-files")).isPositive();
    }

    /**
     * A streaming table environment (parallelism 2, checkpoints every 150 ms) with the view {@code
     * changes}: the changelog {@code rows} of {@code (k INT, n BIGINT, v STRING)}, in order; and
     * {@code sf_retracted}.
     */
    private static StreamTableEnvironment changelogOf(List<Row> rows) {
        Configuration configuration = new Configuration();
        configuration.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(150));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.setParallelism(2);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        // The rows go to the sinks as they are: a materializer keyed by the primary key would drop
        // retractions of rows this job did not insert.
        tables.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        register(tables);
        DataStream<Row> changes = env.fromData(rows, Types.ROW_NAMED(new String[] {"k", "n", "v"}, Types.INT, Types.LONG, Types.STRING));
        tables.createTemporaryView("changes", tables.fromChangelogStream(changes));
        tables.executeSql("CREATE TABLE sf_retracted WITH ('connector' = 'streamfusion-iceberg', 'catalog-name' = 'sf', "
                + "'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', 'catalog-database' = 'db', "
                + "'catalog-table' = 'retracted_ours') LIKE stock.db.retracted_ours (EXCLUDING OPTIONS)");
        return tables;
    }

    private static List<String> rows(Map<Integer, Object[]> aggregates) {
        return aggregates.entrySet().stream()
                .map(e -> List.of(e.getKey(), e.getValue()[0], e.getValue()[1]).toString())
                .collect(Collectors.toList());
    }

    private static long deleteFiles(Table table, String summaryKey) {
        long files = 0;
        for (Snapshot snapshot : table.snapshots()) {
            files += Long.parseLong(snapshot.summary().getOrDefault(summaryKey, "0"));
        }
        return files;
    }

    /**
     * Equality delete files carry the metrics Iceberg Java's equality delete writer records under
     * the table's metrics modes: long texts cut to {@code truncate(16)} by default, nothing for a
     * field in mode {@code none}, counts only in {@code counts}.
     */
    @Test
    void equalityDeleteFilesCarryTheMetricsOfTheTablesModes() throws Exception {
        TableEnvironment env = batch();
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        createTwins(env, "eq_modes", "name STRING NOT NULL, code STRING NOT NULL, grp BIGINT NOT NULL, n BIGINT, "
                + "PRIMARY KEY (name, code, grp) NOT ENFORCED", "",
                "'format-version' = '2', 'write.upsert.enabled' = 'true', "
                + "'write.metadata.metrics.column.code' = 'none', 'write.metadata.metrics.column.grp' = 'counts'", "");
        String rows = IntStream.range(0, 40)
                .mapToObj(i -> "('a rather long name of key number " + i + " ñ', 'code " + i + "', " + (i % 4) + ", %d)")
                .collect(Collectors.joining(", ", "INSERT INTO %%s VALUES ", ""));
        insertBoth(env, "eq_modes", String.format(rows, IntStream.range(0, 40).boxed().toArray()));
        // Every key again: each replaced row of the first commit is deleted by its key.
        insertBoth(env, "eq_modes", String.format(rows, IntStream.range(100, 140).boxed().toArray()));
        List<String> expected = IntStream.range(0, 40)
                .mapToObj(i -> "[a rather long name of key number " + i + " ñ, code " + i + ", " + (i % 4) + ", " + (100 + i) + "]")
                .collect(Collectors.toList());
        assertThat(readOurs("eq_modes")).containsExactlyInAnyOrderElementsOf(expected);

        org.apache.iceberg.DeleteFile ours = onlyDeleteFile(load("eq_modes_ours"));
        org.apache.iceberg.DeleteFile stock = onlyDeleteFile(load("eq_modes_stock"));
        assertThat(ours.content()).isEqualTo(stock.content()).isEqualTo(org.apache.iceberg.FileContent.EQUALITY_DELETES);
        assertThat(ours.equalityFieldIds()).isEqualTo(stock.equalityFieldIds());
        assertThat(ours.recordCount()).isEqualTo(stock.recordCount()).isEqualTo(40);
        int name = load("eq_modes_ours").schema().findField("name").fieldId();
        int code = load("eq_modes_ours").schema().findField("code").fieldId();
        int grp = load("eq_modes_ours").schema().findField("grp").fieldId();
        assertThat(ours.columnSizes().keySet()).isEqualTo(stock.columnSizes().keySet()).doesNotContain(code);
        assertThat(ours.valueCounts()).isEqualTo(stock.valueCounts()).containsKeys(name, grp);
        assertThat(ours.nullValueCounts()).isEqualTo(stock.nullValueCounts());
        assertThat(ours.lowerBounds()).isEqualTo(stock.lowerBounds()).containsKey(name).doesNotContainKeys(code, grp);
        assertThat(ours.upperBounds()).isEqualTo(stock.upperBounds());
        assertThat(java.nio.charset.StandardCharsets.UTF_8.decode(ours.lowerBounds().get(name).duplicate()).toString())
                .hasSize(16);
    }

    /** The one delete file a scan of the table applies. */
    private static org.apache.iceberg.DeleteFile onlyDeleteFile(Table table) throws Exception {
        Map<String, org.apache.iceberg.DeleteFile> deletes = new HashMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> task.deletes().forEach(d -> deletes.put(d.location(), d)));
        }
        assertThat(deletes).hasSize(1);
        return deletes.values().iterator().next();
    }

    @Test
    void aPartitionedUpsertTableDeletesEachKeyInItsPartition() throws Exception {
        StreamTableEnvironment env = streaming();
        createTwins(env, "parted_upsert", "k INT NOT NULL, p INT NOT NULL, n BIGINT, v STRING, PRIMARY KEY (k, p) NOT ENFORCED",
                "PARTITIONED BY (p)", "'format-version' = '2', 'write.upsert.enabled' = 'true'", "'upsert-enabled' = 'true'");
        List<int[]> first = events(400, 0, 200);
        List<int[]> second = events(200, 100, 200);
        String query = "INSERT INTO %s SELECT k, MOD(k, 3), n, v FROM (";
        insertBoth(env, "parted_upsert", query + changelog(first, "a", 3) + ")");
        insertBoth(env, "parted_upsert", query + changelog(second, "b", 3) + ")");
        Map<Integer, Object[]> expected = aggregate(first, "a", 3);
        expected.putAll(aggregate(second, "b", 3));
        assertThat(readOurs("parted_upsert")).containsExactlyInAnyOrderElementsOf(expected.entrySet().stream()
                .map(e -> List.of(e.getKey(), e.getKey() % 3, e.getValue()[0], e.getValue()[1]).toString())
                .collect(Collectors.toList()));
        assertThat(deleteFiles(load("parted_upsert_ours"), "added-equality-delete-files")).isPositive();
    }

    @Test
    void aChangelogJobThatFailsMidStreamLeavesEveryKeyOnce() throws Exception {
        StreamTableEnvironment env = streaming();
        env.executeSql("CREATE TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000', "
                + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3000', " + FailOnce.SOURCE_APART + ")");
        env.executeSql("CREATE TABLE stock.db.counted (k BIGINT NOT NULL, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) "
                + "WITH ('format-version' = '2', 'write.upsert.enabled' = 'true')");
        env.executeSql("CREATE TABLE sf_counted (k BIGINT NOT NULL, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                + "'connector' = 'streamfusion-iceberg', 'catalog-name' = 'sf', 'catalog-type' = 'hadoop', "
                + "'warehouse' = '" + warehouseUri + "', 'catalog-database' = 'db', 'catalog-table' = 'counted')");
        FailOnce.reset(1500);
        env.executeSql("INSERT INTO sf_counted SELECT k, COUNT(*) FROM (SELECT MOD(fail_once(id), 500) AS k FROM ids) GROUP BY k")
                .await(3, TimeUnit.MINUTES);
        assertThat(FailOnce.failed()).as("the job failed once").isTrue();
        Map<Long, Long> counts = new TreeMap<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(load("counted")).build()) {
            records.forEach(r -> assertThat(counts.put((Long) r.getField("k"), (Long) r.getField("n")))
                    .as("key %s once", r.getField("k")).isNull());
        }
        assertThat(counts).hasSize(500).allSatisfy((k, n) -> assertThat(n).as("key %s", k).isEqualTo(6L));
    }

    @Test
    void insertOverwriteReplacesThePartitionsWrittenAsIcebergFlinkDoes() throws Exception {
        TableEnvironment env = batch();
        createTwins(env, "overwritten", "id BIGINT, p STRING", "PARTITIONED BY (p)", "'format-version' = '2'", "");
        createTwins(env, "overwritten_flat", "id BIGINT, p STRING", "", "'format-version' = '2'", "");
        for (String table : List.of("overwritten", "overwritten_flat")) {
            insertBoth(env, table, "INSERT INTO %s VALUES (1, 'a'), (2, 'b'), (3, 'c')");
            insertBoth(env, table, "INSERT OVERWRITE %s VALUES (10, 'a'), (11, 'a'), (20, 'b')");
        }
        assertThat(readOurs("overwritten")).containsExactlyInAnyOrder("[10, a]", "[11, a]", "[20, b]", "[3, c]");
        assertThat(readOurs("overwritten_flat")).containsExactlyInAnyOrder("[10, a]", "[11, a]", "[20, b]");
        assertThat(load("overwritten_ours").currentSnapshot().operation()).isEqualTo("overwrite");

        // A key twice in the overwriting input of a table with a primary key: iceberg-flink's
        // committer refuses the position delete that leaves, and so does ours; nothing is committed.
        createTwins(env, "overwritten_keyed", "id BIGINT NOT NULL, p STRING, PRIMARY KEY (id) NOT ENFORCED", "",
                "'format-version' = '2'", "");
        insertBoth(env, "overwritten_keyed", "INSERT INTO %s VALUES (1, 'a')");
        long before = load("overwritten_keyed_ours").currentSnapshot().snapshotId();
        String twice = "INSERT OVERWRITE %s SELECT * FROM (VALUES (1, 'b'), (1, 'c')) AS t(id, p)";
        assertThatThrownBy(() -> env.executeSql(String.format(twice, "stock.db.overwritten_keyed_stock")).await())
                .hasStackTraceContaining("Cannot overwrite partitions with delete files");
        assertThatThrownBy(() -> env.executeSql(String.format(twice, "sf_overwritten_keyed")).await())
                .hasStackTraceContaining("partitions cannot be replaced with delete files")
                .hasStackTraceContaining("overwritten_keyed_ours");
        assertThat(load("overwritten_keyed_ours").currentSnapshot().snapshotId()).isEqualTo(before);
        assertThat(readOurs("overwritten_keyed")).containsExactly("[1, a]");

        StreamTableEnvironment streaming = streaming();
        streaming.executeSql("CREATE TABLE sf_overwritten (id BIGINT, p STRING) WITH ('connector' = 'streamfusion-iceberg', "
                + "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db', 'catalog-table' = 'overwritten_ours')");
        streaming.executeSql("CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen')");
        assertThatThrownBy(() -> streaming.executeSql("INSERT OVERWRITE sf_overwritten SELECT id, 'x' FROM endless").await())
                .hasStackTraceContaining("INSERT OVERWRITE needs a bounded input");
    }

    /**
     * {@code overwrite-enabled}, a hint here, decides over the statement, as in iceberg-flink: a
     * plain {@code INSERT} with it {@code true} replaces the partitions written, an {@code INSERT
     * OVERWRITE} with it {@code false} appends.
     */
    @Test
    void overwriteEnabledDecidesOverTheStatementAsInIcebergFlink() throws Exception {
        TableEnvironment env = batch();
        createTwins(env, "hinted_overwrite", "id BIGINT, p STRING", "PARTITIONED BY (p)", "'format-version' = '2'", "");
        insertBoth(env, "hinted_overwrite", "INSERT INTO %s VALUES (1, 'a'), (2, 'b'), (3, 'c')");
        insertBoth(env, "hinted_overwrite",
                "INSERT INTO %s /*+ OPTIONS('overwrite-enabled' = 'true') */ VALUES (10, 'a'), (20, 'b')");
        assertThat(readOurs("hinted_overwrite")).containsExactlyInAnyOrder("[10, a]", "[20, b]", "[3, c]");
        assertThat(load("hinted_overwrite_ours").currentSnapshot().operation()).isEqualTo("overwrite");
        insertBoth(env, "hinted_overwrite",
                "INSERT OVERWRITE %s /*+ OPTIONS('overwrite-enabled' = 'false') */ VALUES (30, 'c')");
        assertThat(readOurs("hinted_overwrite")).containsExactlyInAnyOrder("[10, a]", "[20, b]", "[3, c]", "[30, c]");
        assertThat(load("hinted_overwrite_ours").currentSnapshot().operation()).isEqualTo("append");
    }

    /**
     * Write options come from a table's options, hints and the job's configuration; table
     * properties from the table alone, as in iceberg-flink: a hint named like a table property
     * ({@code write.upsert.enabled}) changes nothing, and the session's {@code upsert-enabled}
     * makes a plain {@code INSERT} upsert.
     */
    @Test
    void writeOptionsComeFromTheSessionAndTablePropertiesFromTheTableAsInIcebergFlink() throws Exception {
        TableEnvironment env = batch();
        String columns = "k INT NOT NULL, v STRING, PRIMARY KEY (k) NOT ENFORCED";
        createTwins(env, "not_upserted", columns, "", "'format-version' = '2', 'write.upsert.enabled' = 'false'", "");
        insertBoth(env, "not_upserted", "INSERT INTO %s VALUES (1, 'a'), (2, 'a')");
        insertBoth(env, "not_upserted", "INSERT INTO %s /*+ OPTIONS('write.upsert.enabled' = 'true') */ VALUES (1, 'b')");
        assertThat(readOurs("not_upserted")).containsExactlyInAnyOrder("[1, a]", "[2, a]", "[1, b]");
        assertThat(deleteFiles(load("not_upserted_ours"), "added-equality-delete-files")).isZero();

        TableEnvironment session = batch();
        session.getConfig().set("upsert-enabled", "true");
        createTwins(session, "session_upserted", columns, "", "'format-version' = '2'", "");
        insertBoth(session, "session_upserted", "INSERT INTO %s VALUES (1, 'a'), (2, 'a')");
        insertBoth(session, "session_upserted", "INSERT INTO %s VALUES (1, 'b')");
        assertThat(readOurs("session_upserted")).containsExactlyInAnyOrder("[1, b]", "[2, a]");
        assertThat(deleteFiles(load("session_upserted_ours"), "added-equality-delete-files")).isPositive();
    }

    /**
     * A table of format version 3 takes position deletes only as deletion vectors, which are not
     * written: a write into one with equality fields is refused when it is planned, naming the
     * table and its format version, and nothing is committed.
     */
    @Test
    void writesWithEqualityFieldsIntoATableOfFormatVersion3AreRefusedAtPlanning() {
        TableEnvironment env = batch();
        env.executeSql("CREATE TABLE stock.db.keyed_v3 (k INT NOT NULL, v STRING, PRIMARY KEY (k) NOT ENFORCED) "
                + "WITH ('format-version' = '3')");
        env.executeSql("CREATE TABLE sf_keyed_v3 (k INT NOT NULL, v STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                + "'connector' = 'streamfusion-iceberg', 'catalog-name' = 'sf', 'catalog-type' = 'hadoop', "
                + "'warehouse' = '" + warehouseUri + "', 'catalog-database' = 'db', 'catalog-table' = 'keyed_v3')");
        Throwable refused = catchThrowable(() -> env.executeSql("INSERT INTO sf_keyed_v3 VALUES (1, 'a')"));
        assertThat(ExceptionUtils.findThrowable(refused, ValidationException.class))
                .as("%s", refused)
                .hasValueSatisfying(e -> assertThat(e.getMessage())
                        .contains("sf.db.keyed_v3")
                        .contains("format version 3")
                        .contains("deletion vectors"));
        assertThat(load("keyed_v3").currentSnapshot()).isNull();
    }

    /** A NULL partition value and the text {@code null} are two partitions, whose paths are alike. */
    @Test
    void aNullPartitionValueAndTheTextNullStayApart() throws Exception {
        TableEnvironment env = batch();
        createTwins(env, "null_parted", "id BIGINT, p STRING", "PARTITIONED BY (p)", "'format-version' = '2'", "");
        insertBoth(env, "null_parted",
                "INSERT INTO %s SELECT * FROM (VALUES (1, CAST(NULL AS STRING)), (2, 'null'), (3, CAST(NULL AS STRING))) AS t(id, p)");
        assertThat(readOurs("null_parted")).hasSize(3);
        for (String twin : List.of("_stock", "_ours")) {
            assertThat(collect(env, "SELECT id FROM stock.db.null_parted" + twin + " WHERE p IS NULL"))
                    .as(twin)
                    .containsExactlyInAnyOrder(Row.of(1L), Row.of(3L));
            assertThat(collect(env, "SELECT id FROM stock.db.null_parted" + twin + " WHERE p = 'null'"))
                    .as(twin)
                    .containsExactly(Row.of(2L));
        }
    }

    /**
     * Partition values holding what paths and URIs give a meaning to ({@code /}, {@code ?},
     * {@code #}, {@code :}, spaces, non-ASCII) are escaped in the data files' paths as Iceberg
     * Java escapes them, so each partition's files lie in a directory of their own, where
     * iceberg-flink puts them; stock reads every row back.
     */
    @Test
    void partitionValuesAreEscapedInPathsAsIcebergJavaEscapesThem() throws Exception {
        TableEnvironment env = batch();
        createTwins(env, "escaped", "id BIGINT, p STRING", "PARTITIONED BY (p)", "'format-version' = '2'", "");
        insertBoth(env, "escaped", "INSERT INTO %s SELECT * FROM (VALUES (1, 'C#'), (2, 'a/b'), (3, 'what?'), "
                + "(4, '10:00 x'), (5, 'ü'), (6, 'C')) AS t(id, p)");
        for (String twin : List.of("escaped_stock", "escaped_ours")) {
            Table table = load(twin);
            try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                List<String> directories = new ArrayList<>();
                for (FileScanTask task : tasks) {
                    String location = task.file().location();
                    String directory = location.substring(0, location.lastIndexOf('/'));
                    // (The table's location and the files' differ in how the scheme is spelled.)
                    assertThat(directory).as(twin)
                            .endsWith("/db/" + twin + "/data/" + table.spec().partitionToPath(task.file().partition()));
                    directories.add(directory);
                }
                assertThat(directories).as(twin).hasSize(6).doesNotHaveDuplicates();
            }
            assertThat(collect(env, "SELECT id, p FROM stock.db." + twin)).as(twin).containsExactlyInAnyOrder(
                    Row.of(1L, "C#"), Row.of(2L, "a/b"), Row.of(3L, "what?"), Row.of(4L, "10:00 x"), Row.of(5L, "ü"),
                    Row.of(6L, "C"));
        }
    }

    @Test
    void hashDistributionWritesEachPartitionThroughOneWriter() throws Exception {
        TableEnvironment env = batch();
        createTwins(env, "hashed", "id BIGINT, p INT", "PARTITIONED BY (p)", "'write.distribution-mode' = 'hash'",
                "'distribution-mode' = 'hash'");
        String rows = IntStream.range(0, 400).mapToObj(i -> "(" + i + ", " + (i % 5) + ")").collect(Collectors.joining(", "));
        // Unless hashed, rows reach the two writers round-robin, each writer then writing every partition.
        insertBoth(env, "hashed", "INSERT INTO %s SELECT * FROM (VALUES " + rows + ") AS t(id, p)");
        assertThat(readOurs("hashed")).hasSize(400);
        Map<String, Integer> ours = filesByPartition(load("hashed_ours"));
        assertThat(ours).hasSize(5).allSatisfy((partition, files) -> assertThat(files).as(partition).isEqualTo(1));
        assertThat(ours).isEqualTo(filesByPartition(load("hashed_stock")));
    }

    private static Map<String, Integer> filesByPartition(Table table) throws Exception {
        Map<String, Integer> files = new TreeMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                files.merge(table.spec().partitionToPath(file.partition()), 1, Integer::sum);
            }
        }
        return files;
    }

    @Test
    void changelogsNeedEqualityFieldsAndUpsertsAKey() {
        StreamTableEnvironment env = streaming();
        env.executeSql("CREATE TABLE stock.db.keyless (k INT, n BIGINT)");
        String options = " WITH ('connector' = 'streamfusion-iceberg', 'catalog-name' = 'sf', 'catalog-type' = 'hadoop', "
                + "'warehouse' = '" + warehouseUri + "', 'catalog-database' = 'db', 'catalog-table' = 'keyless'";
        env.executeSql("CREATE TABLE sf_keyless (k INT, n BIGINT)" + options + ")");
        env.executeSql("CREATE TABLE sf_keyless_upsert (k INT, n BIGINT)" + options + ", 'upsert-enabled' = 'true')");
        String counts = " SELECT k, COUNT(*) FROM (VALUES (1), (1)) AS t(k) GROUP BY k";
        assertThatThrownBy(() -> env.executeSql("INSERT INTO sf_keyless" + counts).await())
                .hasStackTraceContaining("doesn't support consuming update changes");
        assertThatThrownBy(() -> env.executeSql("INSERT INTO sf_keyless_upsert SELECT 1, CAST(1 AS BIGINT)").await())
                .hasStackTraceContaining("'upsert-enabled' needs equality fields");
    }
}
