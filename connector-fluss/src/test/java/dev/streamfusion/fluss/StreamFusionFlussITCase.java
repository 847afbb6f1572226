package dev.streamfusion.fluss;

import dev.streamfusion.testkit.fluss.FlussClusterExtension;
import dev.streamfusion.testkit.flink.FailOnce;
import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.lookup.Lookuper;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.row.InternalRow;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static dev.streamfusion.testkit.flink.UnboundedQueries.cancel;
import static dev.streamfusion.testkit.flink.UnboundedQueries.take;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code streamfusion-fluss} against fluss-flink ({@code fluss-flink-2.2} 0.9.1-incubating) on a
 * real Fluss cluster in a child JVM: the same log tables read by both, rows written by each read
 * by the other, values compared exactly.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
class StreamFusionFlussITCase {

    @RegisterExtension
    @Order(1)
    // Key-value snapshots often enough for a test to wait for one, and seldom enough that two
    // jobs started together read the same one.
    static final FlussClusterExtension FLUSS = new FlussClusterExtension(java.util.Map.of("kv.snapshot.interval", "15s"));

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    private static final String COLUMNS = "id INT, b BOOLEAN, ti TINYINT, si SMALLINT, bi BIGINT, f FLOAT, d DOUBLE, "
            + "dc DECIMAL(10, 2), wide DECIMAL(30, 5), s STRING, bin BYTES, dt DATE, tm TIME, ts TIMESTAMP(3), "
            + "ts6 TIMESTAMP(6), ltz TIMESTAMP_LTZ(3), fx BINARY(4)";

    /** Rows of every type with NULLs, as SQL values. */
    private static String values(int first, int count) {
        return IntStream.range(first, first + count).mapToObj(i -> i % 7 == 3
                ? "(" + i + ", CAST(NULL AS BOOLEAN), CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT), CAST(NULL AS BIGINT), "
                        + "CAST(NULL AS FLOAT), CAST(NULL AS DOUBLE), CAST(NULL AS DECIMAL(10, 2)), CAST(NULL AS DECIMAL(30, 5)), "
                        + "CAST(NULL AS STRING), CAST(NULL AS BYTES), CAST(NULL AS DATE), CAST(NULL AS TIME), "
                        + "CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS TIMESTAMP(6)), CAST(NULL AS TIMESTAMP_LTZ(3)), CAST(NULL AS BINARY(4)))"
                : "(" + i + ", " + (i % 2 == 0) + ", CAST(" + (i % 120 - 60) + " AS TINYINT), CAST(" + (i * 7 % 30000)
                        + " AS SMALLINT), CAST(" + (i * 1_000_003L) + " AS BIGINT), CAST(" + (i / 3.0f) + " AS FLOAT), "
                        + "CAST(" + (i / 7.0) + " AS DOUBLE), CAST(" + (i * 13 % 100000) / 100.0 + " AS DECIMAL(10, 2)), "
                        + "CAST('" + i + "123456789012345.12345' AS DECIMAL(30, 5)), 'text " + i + " é', "
                        + "CAST('bytes" + i + "' AS BYTES), DATE '2024-0" + (1 + i % 9) + "-1" + (i % 9) + "', "
                        + "TIME '1" + (i % 10) + ":2" + (i % 10) + ":3" + (i % 10) + "', TIMESTAMP '2024-05-0" + (1 + i % 9)
                        + " 10:11:12.345', TIMESTAMP '2024-05-0" + (1 + i % 9) + " 10:11:12.123456', "
                        + "TO_TIMESTAMP_LTZ(" + (1_700_000_000_000L + i * 1000L) + ", 3), CAST('ab" + (i % 10) + "c' AS BINARY(4)))")
                .collect(Collectors.joining(", "));
    }

    private static TableEnvironment streaming() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "2");
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')");
        return env;
    }

    /** Our connector's table over the Fluss table {@code fluss.<table>}. */
    private static void createOurs(TableEnvironment env, String name, String table, String columns, String options) {
        env.executeSql("CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = 'streamfusion-fluss', "
                + "'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "', 'database' = 'fluss', 'table' = '" + table + "'"
                + (options.isEmpty() ? "" : ", " + options) + ")");
    }

    @Test
    void rowsOfEveryTypeWrittenByFlussFlinkReadAsItReadsThem() throws Exception {
        TableEnvironment env = streaming();
        env.executeSql("CREATE TABLE stock.fluss.typed (" + COLUMNS + ") WITH ('bucket.num' = '3')");
        env.executeSql("INSERT INTO stock.fluss.typed VALUES " + values(0, 300)).await();
        createOurs(env, "sf_typed", "typed", COLUMNS, "'scan.startup.mode' = 'earliest'");

        List<String> stock = take(env, "SELECT * FROM stock.fluss.typed /*+ OPTIONS('scan.startup.mode' = 'earliest') */", 300);
        assertThat(take(env, "SELECT * FROM sf_typed", 300)).containsExactlyInAnyOrderElementsOf(stock);
        assertThat(stock).anyMatch(r -> r.contains("null")).anyMatch(r -> r.contains("text 5 é"));
        // The query's columns only, in its order.
        assertThat(take(env, "SELECT s, id, ltz FROM sf_typed", 300)).containsExactlyInAnyOrderElementsOf(
                take(env, "SELECT s, id, ltz FROM stock.fluss.typed /*+ OPTIONS('scan.startup.mode' = 'earliest') */", 300));
    }

    @Test
    void nestedColumnsWithNullsAtEveryLevelAreReadAndWrittenAsFlussFlinkDoes() throws Exception {
        TableEnvironment env = streaming();
        env.executeSql("CREATE CATALOG sfn WITH ('type' = 'streamfusion-fluss', 'bootstrap.servers' = '"
                + FLUSS.bootstrapServers() + "')");
        String columns = "id INT, ints ARRAY<INT>, names ARRAY<STRING>, tags MAP<STRING, INT>, "
                + "point ROW<x DOUBLE, label STRING, seen TIMESTAMP(3)>, points ARRAY<ROW<k INT, amount DECIMAL(20, 2)>>, "
                + "nested MAP<INT, ARRAY<BIGINT>>";
        // Made through our catalog (its type mapping), written by fluss-flink, read by both.
        env.executeSql("CREATE TABLE sfn.fluss.nested (" + columns + ") WITH ('bucket.num' = '2')");
        env.executeSql("CREATE TABLE sfn.fluss.nested_ours (" + columns + ") WITH ('bucket.num' = '2')");
        String values = IntStream.range(0, 40).mapToObj(i -> i % 5 == 4
                ? "(" + i + ", CAST(NULL AS ARRAY<INT>), CAST(NULL AS ARRAY<STRING>), CAST(NULL AS MAP<STRING, INT>), "
                        + "CAST(NULL AS ROW<x DOUBLE, label STRING, seen TIMESTAMP(3)>), "
                        + "CAST(NULL AS ARRAY<ROW<k INT, amount DECIMAL(20, 2)>>), CAST(NULL AS MAP<INT, ARRAY<BIGINT>>))"
                : "(" + i + ", ARRAY[" + i + ", CAST(NULL AS INT), " + (i * 2) + "], ARRAY['a" + i + "', CAST(NULL AS STRING)], "
                        + "MAP['k" + i + "', " + i + ", 'none', CAST(NULL AS INT)], "
                        + "ROW(" + (i / 4.0) + ", " + (i % 2 == 0 ? "CAST(NULL AS STRING)" : "'p" + i + "'")
                        + ", TIMESTAMP '2024-03-0" + (1 + i % 9) + " 01:02:03.456'), "
                        + "ARRAY[ROW(" + i + ", CAST(" + i + ".25 AS DECIMAL(20, 2))), CAST(NULL AS ROW<k INT, amount DECIMAL(20, 2)>)], "
                        + "MAP[" + i + ", ARRAY[CAST(" + (i * 1000L) + " AS BIGINT), CAST(NULL AS BIGINT)]])")
                .collect(Collectors.joining(", "));
        env.executeSql("INSERT INTO stock.fluss.nested VALUES " + values).await();
        String earliest = " /*+ OPTIONS('scan.startup.mode' = 'earliest') */";
        List<String> stock = take(env, "SELECT * FROM stock.fluss.nested" + earliest, 40);
        assertThat(take(env, "SELECT * FROM sfn.fluss.nested" + earliest, 40)).containsExactlyInAnyOrderElementsOf(stock);
        assertThat(stock).contains("+I[3, [3, null, 6], [a3, null], {k3=3, none=null}, +I[0.75, p3, 2024-03-04T01:02:03.456], "
                        + "[+I[3, 3.25], null], {3=[3000, null]}]")
                .anyMatch(r -> r.startsWith("+I[4, null, null, null, null, null, null]"));
        // Written natively, read by fluss-flink.
        env.executeSql("INSERT INTO sfn.fluss.nested_ours VALUES " + values).await();
        assertThat(take(env, "SELECT * FROM stock.fluss.nested_ours" + earliest, 40)).containsExactlyInAnyOrderElementsOf(stock);
    }

    @Test
    void rowsWrittenNativelyReadAsFlussFlinkWritesThem() throws Exception {
        TableEnvironment env = streaming();
        env.executeSql("CREATE TABLE stock.fluss.written_ours (" + COLUMNS + ") WITH ('bucket.num' = '2')");
        env.executeSql("CREATE TABLE stock.fluss.written_stock (" + COLUMNS + ") WITH ('bucket.num' = '2')");
        createOurs(env, "sf_written", "written_ours", COLUMNS, "");
        env.executeSql("INSERT INTO sf_written VALUES " + values(1000, 200)).await();
        env.executeSql("INSERT INTO stock.fluss.written_stock VALUES " + values(1000, 200)).await();
        String earliest = " /*+ OPTIONS('scan.startup.mode' = 'earliest') */";
        assertThat(take(env, "SELECT * FROM stock.fluss.written_ours" + earliest, 200))
                .containsExactlyInAnyOrderElementsOf(take(env, "SELECT * FROM stock.fluss.written_stock" + earliest, 200));
    }

    @Test
    void upsertsAndDeletesReachAPrimaryKeyTableAsFlussFlinksDo() throws Exception {
        List<Row> changes = new ArrayList<>();
        for (int k = 0; k < 100; k++) {
            changes.add(Row.ofKind(RowKind.INSERT, k, 1L, "a" + k));
        }
        for (int k = 0; k < 50; k++) {
            changes.add(Row.ofKind(RowKind.UPDATE_BEFORE, k, 1L, "a" + k));
            changes.add(Row.ofKind(RowKind.UPDATE_AFTER, k, 2L, "b" + k));
        }
        for (int k = 90; k < 100; k++) {
            changes.add(Row.ofKind(RowKind.DELETE, k, 1L, "a" + k));
        }
        StreamExecutionEnvironment streams = StreamExecutionEnvironment.getExecutionEnvironment();
        streams.setParallelism(2);
        StreamTableEnvironment env = StreamTableEnvironment.create(streams);
        // The changes reach the sinks as they are (a materializer would turn an update of this
        // changelog into a delete and an insert).
        env.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')");
        String columns = "k INT NOT NULL, n BIGINT, v STRING, PRIMARY KEY (k) NOT ENFORCED";
        env.executeSql("CREATE TABLE stock.fluss.kv_ours (" + columns + ") WITH ('bucket.num' = '2')");
        env.executeSql("CREATE TABLE stock.fluss.kv_stock (" + columns + ") WITH ('bucket.num' = '2')");
        createOurs(env, "sf_kv", "kv_ours", columns, "");
        DataStream<Row> stream = streams.fromData(changes, Types.ROW_NAMED(new String[] {"k", "n", "v"}, Types.INT, Types.LONG, Types.STRING));
        env.createTemporaryView("changes", env.fromChangelogStream(stream));
        env.executeSql("INSERT INTO sf_kv SELECT * FROM changes").await();
        env.executeSql("INSERT INTO stock.fluss.kv_stock SELECT * FROM changes").await();

        List<String> expected = new ArrayList<>();
        IntStream.range(0, 50).forEach(k -> expected.add(k + "," + 2 + ",b" + k));
        IntStream.range(50, 90).forEach(k -> expected.add(k + "," + 1 + ",a" + k));
        List<Integer> keys = IntStream.range(0, 100).boxed().collect(Collectors.toList());
        java.util.function.Function<InternalRow, String> kv = row -> row.getInt(0) + "," + row.getLong(1) + "," + row.getString(2);
        assertThat(lookUp("kv_ours", keys, kv)).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(lookUp("kv_stock", keys, kv)).containsExactlyInAnyOrderElementsOf(expected);

        // Read back as a changelog: every change of the log, with its kind, as fluss-flink reads it.
        int logged = logLength("kv_ours");
        assertThat(logged).isGreaterThanOrEqualTo(100 + 2 * 50 + 10);
        createOurs(env, "sf_kv_changes", "kv_ours", columns, "'scan.startup.mode' = 'earliest'");
        List<String> ours = take(env, "SELECT * FROM sf_kv_changes", logged);
        assertThat(ours).containsExactlyInAnyOrderElementsOf(
                take(env, "SELECT * FROM stock.fluss.kv_ours /*+ OPTIONS('scan.startup.mode' = 'earliest') */", logged));
        assertThat(ours).anyMatch(r -> r.startsWith("-U")).anyMatch(r -> r.startsWith("+U")).anyMatch(r -> r.startsWith("-D"));
    }

    @Test
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aPrimaryKeyTableReadFullIsItsSnapshotThenItsChangesAsFlussFlinkReadsIt() throws Exception {
        TableEnvironment env = streaming();
        String columns = "k BIGINT NOT NULL, n BIGINT, v STRING, PRIMARY KEY (k) NOT ENFORCED";
        env.executeSql("CREATE TABLE stock.fluss.kv_full (" + columns + ") WITH ('bucket.num' = '3')");
        upsert("kv_full", LongStream.range(0, 60).boxed().collect(Collectors.toList()), 1, List.of());
        upsert("kv_full", LongStream.range(0, 20).boxed().collect(Collectors.toList()), 2, List.of());
        Map<Integer, Long> snapshotOffsets = waitForSnapshotsOfWholeLog("kv_full");
        createOurs(env, "sf_kv_full", "kv_full", columns, "");

        // Both read in one job; the changes below are written once every source has emitted its
        // snapshot's rows (so each started from a snapshot of the whole log above), and are read
        // from the log: updates, new keys and deletes.
        String stock = "stock.fluss.kv_full /*+ OPTIONS('scan.startup.mode' = 'full') */";
        TableResult result = env.executeSql("SELECT 'ours', v, k, n FROM sf_kv_full UNION ALL SELECT 'stock', v, k, n FROM "
                + stock + " UNION ALL SELECT 'ours-k', v, k, CAST(NULL AS BIGINT) FROM sf_kv_full UNION ALL "
                + "SELECT 'stock-k', v, k, CAST(NULL AS BIGINT) FROM " + stock);
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            next(it, 4 * 60, rows);
            upsert("kv_full", List.of(0L, 1L, 2L, 3L, 4L, 100L, 101L, 102L), 3, List.of(50L, 51L, 52L));
            long tail = endOffsets("kv_full").entrySet().stream()
                    .mapToLong(e -> e.getValue() - snapshotOffsets.get(e.getKey())).sum();
            assertThat(tail).as("updates are two records").isEqualTo(5 * 2 + 3 + 3);
            next(it, 4 * (int) tail, rows);
            cancel(result.getJobClient().orElseThrow());
        }
        int each = 60 + 16;
        Map<String, List<String>> bySource = rows.stream().collect(Collectors.groupingBy(
                r -> r.substring(3, r.indexOf(',')), Collectors.mapping(r -> r.substring(0, 3) + r.substring(r.indexOf(',') + 2),
                        Collectors.toList())));
        assertThat(bySource.get("ours")).hasSize(each).containsExactlyInAnyOrderElementsOf(bySource.get("stock"));
        assertThat(bySource.get("ours-k")).hasSize(each).containsExactlyInAnyOrderElementsOf(bySource.get("stock-k"));
        // The snapshot's rows are inserts of the values it holds; the changes after it keep their kinds.
        assertThat(bySource.get("ours"))
                .contains("+I[b7, 7, 2]", "+I[a59, 59, 1]", "-U[b3, 3, 2]", "+U[c3, 3, 3]", "+I[c101, 101, 3]", "-D[a51, 51, 1]")
                .doesNotContain("-U[a7, 7, 1]", "+I[a7, 7, 1]");
    }

    @Test
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFullReadThatFailsInItsSnapshotEmitsEachRowOnce() throws Exception {
        StreamTableEnvironment env = FailOnce.restartingTables(2, Duration.ofMillis(200));
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')");
        String columns = "k BIGINT NOT NULL, n BIGINT, v STRING, PRIMARY KEY (k) NOT ENFORCED";
        env.executeSql("CREATE TABLE stock.fluss.kv_failover (" + columns + ") WITH ('bucket.num' = '2')");
        // 10,000 rows a bucket: a snapshot is read in batches of 8,192 rows.
        List<Long> keys = LongStream.range(0, 20000).boxed().collect(Collectors.toList());
        upsert("kv_failover", keys, 1, List.of());
        waitForSnapshotsOfWholeLog("kv_failover");
        createOurs(env, "sf_kv_failover", "kv_failover", columns, "");

        // Restarted from a checkpoint taken inside the snapshots: the rows emitted before it are skipped.
        FailOnce.reset(12000);
        List<String> rows = take(env, "SELECT fail_once(k), v FROM sf_kv_failover", keys.size());
        assertThat(FailOnce.failed()).as("the job failed once").isTrue();
        assertThat(rows).containsExactlyInAnyOrderElementsOf(
                keys.stream().map(k -> "+I[" + k + ", a" + k + "]").collect(Collectors.toList()));
    }

    @Test
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void partitionedTablesAreReadAndWrittenAsFlussFlinkDoes() throws Exception {
        TableEnvironment env = streaming();
        String columns = "id INT, v STRING, dt STRING";
        String earliest = " /*+ OPTIONS('scan.startup.mode' = 'earliest') */";
        env.executeSql("CREATE TABLE stock.fluss.plog (" + columns + ") PARTITIONED BY (dt) WITH ('bucket.num' = '2')");
        env.executeSql("INSERT INTO stock.fluss.plog VALUES " + partitionRows(0, 40, "2026-01") + ", "
                + partitionRows(40, 30, "2026-02")).await();
        createOurs(env, "sf_plog", "plog", columns, "'scan.startup.mode' = 'earliest', 'scan.partition.discovery.interval' = '1s'");
        assertThat(take(env, "SELECT * FROM sf_plog", 70))
                .containsExactlyInAnyOrderElementsOf(take(env, "SELECT * FROM stock.fluss.plog" + earliest, 70));
        // The query's filter on the partition column leaves the other partitions unread.
        String inFebruary = " WHERE dt = '2026-02' AND id > 45";
        assertThat(env.explainSql("SELECT * FROM sf_plog" + inFebruary)).contains("sf_plog, filter=[=(dt, _UTF-16LE'2026-02'");
        assertThat(take(env, "SELECT * FROM sf_plog" + inFebruary, 24))
                .containsExactlyInAnyOrderElementsOf(take(env, "SELECT * FROM stock.fluss.plog" + earliest + inFebruary, 24));

        // A partition added while a read runs is found and read from its start; a dropped one is let go.
        TableResult result = env.executeSql("SELECT v, dt FROM sf_plog");
        List<String> seen = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            next(it, 70, seen);
            env.executeSql("INSERT INTO stock.fluss.plog VALUES " + partitionRows(70, 10, "2026-03")).await();
            next(it, 10, seen);
            try (Connection connection = connect(); org.apache.fluss.client.admin.Admin admin = connection.getAdmin()) {
                admin.dropPartition(TablePath.of("fluss", "plog"),
                        new org.apache.fluss.metadata.PartitionSpec(Map.of("dt", "2026-01")), false).get();
            }
            env.executeSql("INSERT INTO stock.fluss.plog VALUES " + partitionRows(80, 10, "2026-02")).await();
            next(it, 10, seen);
            cancel(result.getJobClient().orElseThrow());
        }
        assertThat(seen).containsExactlyInAnyOrderElementsOf(IntStream.range(0, 90)
                .mapToObj(i -> "+I[v" + i + ", 2026-0" + (i < 40 ? 1 : i < 70 || i >= 80 ? 2 : 3) + "]").collect(Collectors.toList()));

        // Written natively into partitions (made as rows need them), read by fluss-flink.
        env.executeSql("CREATE TABLE stock.fluss.plog_ours (" + columns + ") PARTITIONED BY (dt) WITH ('bucket.num' = '2')");
        createOurs(env, "sf_plog_ours", "plog_ours", columns, "");
        env.executeSql("INSERT INTO sf_plog_ours VALUES " + partitionRows(0, 40, "2026-01") + ", "
                + partitionRows(40, 30, "2026-02")).await();
        assertThat(take(env, "SELECT * FROM stock.fluss.plog_ours" + earliest, 70)).containsExactlyInAnyOrderElementsOf(
                IntStream.range(0, 70).mapToObj(i -> "+I[" + i + ", v" + i + ", 2026-0" + (i < 40 ? 1 : 2) + "]")
                        .collect(Collectors.toList()));

        // Through a streamfusion-fluss catalog, whose tables Flink sees partitioned: rows routed by
        // their values, or given a static partition's by the PARTITION clause.
        env.executeSql("CREATE CATALOG sfp WITH ('type' = 'streamfusion-fluss', 'bootstrap.servers' = '"
                + FLUSS.bootstrapServers() + "')");
        env.executeSql("CREATE TABLE sfp.fluss.plog_catalog (" + columns + ") PARTITIONED BY (dt) WITH ('bucket.num' = '2')");
        env.executeSql("INSERT INTO sfp.fluss.plog_catalog VALUES " + partitionRows(0, 5, "2026-01")).await();
        env.executeSql("INSERT INTO sfp.fluss.plog_catalog PARTITION (dt = '2026-02') SELECT id, v FROM (VALUES (5, 'v5'), "
                + "(6, 'v6')) AS t (id, v)").await();
        assertThat(take(env, "SELECT * FROM stock.fluss.plog_catalog" + earliest, 7)).containsExactlyInAnyOrderElementsOf(
                IntStream.range(0, 7).mapToObj(i -> "+I[" + i + ", v" + i + ", 2026-0" + (i < 5 ? 1 : 2) + "]")
                        .collect(Collectors.toList()));

        // A partitioned primary-key table: upserts written natively, read from its snapshots by both.
        String keyed = "k BIGINT NOT NULL, v STRING, dt STRING NOT NULL, PRIMARY KEY (k, dt) NOT ENFORCED";
        env.executeSql("CREATE TABLE stock.fluss.pkv (" + keyed + ") PARTITIONED BY (dt) WITH ('bucket.num' = '2')");
        createOurs(env, "sf_pkv", "pkv", keyed, "");
        env.executeSql("INSERT INTO sf_pkv VALUES " + partitionRows(0, 40, "2026-01") + ", " + partitionRows(40, 30, "2026-02"))
                .await();
        env.executeSql("INSERT INTO sf_pkv SELECT k, 'w' || v, dt FROM (VALUES " + partitionRows(0, 10, "2026-01") + ", "
                + partitionRows(60, 10, "2026-02") + ") AS t (k, v, dt)").await();
        waitForSnapshotsOfWholeLog("pkv", "2026-01");
        waitForSnapshotsOfWholeLog("pkv", "2026-02");
        List<String> rows = take(env, "SELECT 'ours', * FROM sf_pkv UNION ALL SELECT 'stock', * FROM stock.fluss.pkv", 140);
        Map<String, List<String>> bySource = rows.stream().collect(Collectors.groupingBy(
                r -> r.substring(3, r.indexOf(',')), Collectors.mapping(r -> r.substring(0, 3) + r.substring(r.indexOf(',') + 2),
                        Collectors.toList())));
        assertThat(bySource.get("ours")).hasSize(70).containsExactlyInAnyOrderElementsOf(bySource.get("stock"))
                .contains("+I[3, wv3, 2026-01]", "+I[65, wv65, 2026-02]", "+I[30, v30, 2026-01]");
    }

    /** Rows {@code (i, 'v' || i, dt)} from {@code first}, as SQL values. */
    private static String partitionRows(int first, int count, String dt) {
        return IntStream.range(first, first + count).mapToObj(i -> "(" + i + ", 'v" + i + "', '" + dt + "')")
                .collect(Collectors.joining(", "));
    }

    /** The next {@code count} rows of {@code it}, as text, added to {@code into}. */
    private static void next(CloseableIterator<Row> it, int count, List<String> into) {
        for (int i = 0; i < count; i++) {
            into.add(it.next().toString());
        }
    }

    /**
     * Writes the primary-key table {@code fluss.<table>} through the Fluss client: rows {@code
     * (k, n, v)} for {@code keys} ({@code v}: a letter from {@code n}, then {@code k}), then deletes
     * {@code deleted}.
     */
    private static void upsert(String table, List<Long> keys, long n, List<Long> deleted) throws Exception {
        try (Connection connection = connect();
                org.apache.fluss.client.table.Table kv = connection.getTable(TablePath.of("fluss", table))) {
            org.apache.fluss.client.table.writer.UpsertWriter writer = kv.newUpsert().createWriter();
            for (long k : keys) {
                writer.upsert(GenericRow.of(k, n, org.apache.fluss.row.BinaryString.fromString((char) ('a' + n - 1) + "" + k)));
            }
            for (long k : deleted) {
                writer.delete(GenericRow.of(k, null, null));
            }
            writer.flush();
        }
    }

    /** Each bucket's log end offset of {@code fluss.<table>}. */
    private static Map<Integer, Long> endOffsets(String table) throws Exception {
        return endOffsets(table, null);
    }

    /** Each bucket's log end offset of {@code fluss.<table>}, or of its partition {@code partition}. */
    private static Map<Integer, Long> endOffsets(String table, String partition) throws Exception {
        try (Connection connection = connect();
                org.apache.fluss.client.admin.Admin admin = connection.getAdmin()) {
            TablePath path = TablePath.of("fluss", table);
            List<Integer> buckets = IntStream.range(0, admin.getTableInfo(path).get().getNumBuckets()).boxed()
                    .collect(Collectors.toList());
            org.apache.fluss.client.admin.OffsetSpec latest = new org.apache.fluss.client.admin.OffsetSpec.LatestSpec();
            return (partition == null ? admin.listOffsets(path, buckets, latest) : admin.listOffsets(path, partition, buckets, latest))
                    .all().get();
        }
    }

    /**
     * Waits until every bucket of {@code fluss.<table>} has a key-value snapshot of its whole log;
     * gives each bucket's snapshot log offset.
     */
    private static Map<Integer, Long> waitForSnapshotsOfWholeLog(String table) throws Exception {
        return waitForSnapshotsOfWholeLog(table, null);
    }

    /** As {@link #waitForSnapshotsOfWholeLog(String)}, of the partition {@code partition} ({@code null}: none). */
    private static Map<Integer, Long> waitForSnapshotsOfWholeLog(String table, String partition) throws Exception {
        Map<Integer, Long> end = endOffsets(table, partition);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        try (Connection connection = connect();
                org.apache.fluss.client.admin.Admin admin = connection.getAdmin()) {
            while (true) {
                TablePath path = TablePath.of("fluss", table);
                org.apache.fluss.client.metadata.KvSnapshots snapshots = (partition == null
                        ? admin.getLatestKvSnapshots(path) : admin.getLatestKvSnapshots(path, partition)).get();
                Map<Integer, Long> offsets = new java.util.HashMap<>();
                for (int bucket : end.keySet()) {
                    snapshots.getLogOffset(bucket).ifPresent(offset -> offsets.put(bucket, offset));
                }
                if (offsets.equals(end)) {
                    return offsets;
                }
                assertThat(System.nanoTime()).as("snapshots of " + table + " cover its log " + end + ": " + offsets)
                        .isLessThan(deadline);
                Thread.sleep(100);
            }
        }
    }

    /** The number of records in the log of {@code fluss.<table>}: its buckets' end offsets summed. */
    private static int logLength(String table) throws Exception {
        try (Connection connection = connect();
                org.apache.fluss.client.admin.Admin admin = connection.getAdmin()) {
            int buckets = admin.getTableInfo(TablePath.of("fluss", table)).get().getNumBuckets();
            return admin.listOffsets(TablePath.of("fluss", table), IntStream.range(0, buckets).boxed().collect(Collectors.toList()),
                            new org.apache.fluss.client.admin.OffsetSpec.LatestSpec())
                    .all().get().values().stream().mapToInt(Long::intValue).sum();
        }
    }

    @Test
    void aSinkJobThatFailsMidStreamLosesNoRow() throws Exception {
        StreamTableEnvironment env = FailOnce.restartingTables(2, Duration.ofMillis(200));
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')");
        env.executeSql("CREATE TABLE stock.fluss.failover_kv (k BIGINT NOT NULL, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) "
                + "WITH ('bucket.num' = '2')");
        env.executeSql("CREATE TABLE stock.fluss.failover_log (k BIGINT, v BIGINT) WITH ('bucket.num' = '2')");
        createOurs(env, "sf_failover_kv", "failover_kv", "k BIGINT NOT NULL, v BIGINT, PRIMARY KEY (k) NOT ENFORCED", "");
        createOurs(env, "sf_failover_log", "failover_log", "k BIGINT, v BIGINT", "");
        env.executeSql("CREATE TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1500', "
                + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3000', " + FailOnce.SOURCE_APART + ")");
        env.createTemporaryView("slow", env.sqlQuery("SELECT fail_once(id) AS k, id * 2 AS v FROM ids"));
        FailOnce.reset(1500);
        env.createStatementSet()
                .addInsertSql("INSERT INTO sf_failover_kv SELECT k, v FROM slow")
                .addInsertSql("INSERT INTO sf_failover_log SELECT k, v FROM slow")
                .execute()
                .await(3, TimeUnit.MINUTES);
        assertThat(FailOnce.failed()).as("the job failed once").isTrue();

        List<String> expected = LongStream.rangeClosed(1, 3000).mapToObj(k -> k + "," + k * 2).collect(Collectors.toList());
        List<Long> keys = LongStream.rangeClosed(1, 3000).boxed().collect(Collectors.toList());
        assertThat(lookUp("failover_kv", keys, row -> row.getLong(0) + "," + row.getLong(1)))
                .containsExactlyInAnyOrderElementsOf(expected);
        // A log table is written at least once, as fluss-flink writes it: rows written after the
        // last checkpoint before the failure are written again.
        assertThat(new java.util.HashSet<>(readLog("failover_log"))).containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * The rows of the primary-key table {@code fluss.<table>} under {@code keys} (looked up
     * together), as {@code format} writes them; absent keys leave none.
     */
    private static List<String> lookUp(String table, List<?> keys, java.util.function.Function<InternalRow, String> format)
            throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection connection = connect();
                org.apache.fluss.client.table.Table kv = connection.getTable(TablePath.of("fluss", table))) {
            Lookuper lookuper = kv.newLookup().createLookuper();
            List<java.util.concurrent.CompletableFuture<org.apache.fluss.client.lookup.LookupResult>> results = new ArrayList<>();
            for (Object key : keys) {
                results.add(lookuper.lookup(GenericRow.of(key)));
            }
            for (java.util.concurrent.CompletableFuture<org.apache.fluss.client.lookup.LookupResult> result : results) {
                InternalRow row = result.get().getSingletonRow();
                if (row != null) {
                    rows.add(format.apply(row));
                }
            }
        }
        return rows;
    }

    /** Every record {@code k,v} of the BIGINT log table {@code fluss.<table>}, read to its end. */
    private static List<String> readLog(String table) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection connection = connect();
                org.apache.fluss.client.admin.Admin admin = connection.getAdmin();
                org.apache.fluss.client.table.Table log = connection.getTable(TablePath.of("fluss", table));
                org.apache.fluss.client.table.scanner.log.LogScanner scanner = log.newScan().createLogScanner()) {
            int buckets = log.getTableInfo().getNumBuckets();
            List<Integer> all = IntStream.range(0, buckets).boxed().collect(Collectors.toList());
            java.util.Map<Integer, Long> end = admin.listOffsets(TablePath.of("fluss", table), all,
                    new org.apache.fluss.client.admin.OffsetSpec.LatestSpec()).all().get();
            java.util.Map<Integer, Long> next = new java.util.HashMap<>();
            for (int bucket : all) {
                scanner.subscribeFromBeginning(bucket);
                next.put(bucket, 0L);
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (all.stream().anyMatch(b -> next.get(b) < end.get(b)) && System.nanoTime() < deadline) {
                org.apache.fluss.client.table.scanner.log.ScanRecords records = scanner.poll(Duration.ofMillis(200));
                for (org.apache.fluss.metadata.TableBucket bucket : records.buckets()) {
                    for (org.apache.fluss.client.table.scanner.ScanRecord record : records.records(bucket)) {
                        rows.add(record.getRow().getLong(0) + "," + record.getRow().getLong(1));
                        next.put(bucket.getBucket(), record.logOffset() + 1);
                    }
                }
            }
        }
        return rows;
    }

    private static Connection connect() {
        org.apache.fluss.config.Configuration conf = new org.apache.fluss.config.Configuration();
        conf.setString("bootstrap.servers", FLUSS.bootstrapServers());
        return ConnectionFactory.createConnection(conf);
    }

    /**
     * {@code INSERT INTO t (columns)} into a primary-key table updates those columns only, keeping
     * the others, as fluss-flink's sink does; refused with fluss-flink's message into a log table
     * (Flink itself refuses one that leaves out a key column, which is NOT NULL). A table of the aggregation merge engine is refused (its
     * writes after a checkpoint would be aggregated twice on a restore), and a column declared of
     * another type than the Fluss table's is refused naming both.
     */
    @Test
    void partialUpdatesMergeEnginesAndDeclaredTypesAreCheckedAsFlussFlinkChecksThem() throws Exception {
        TableEnvironment env = streaming();
        String columns = "k INT NOT NULL, n BIGINT, v STRING, PRIMARY KEY (k) NOT ENFORCED";
        for (String name : List.of("partial_ours", "partial_stock")) {
            env.executeSql("CREATE TABLE stock.fluss." + name + " (" + columns + ") WITH ('bucket.num' = '2')");
        }
        createOurs(env, "sf_partial", "partial_ours", columns, "");
        env.executeSql("INSERT INTO sf_partial VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')").await();
        env.executeSql("INSERT INTO stock.fluss.partial_stock VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')").await();
        env.executeSql("INSERT INTO sf_partial (k, n) VALUES (1, 11), (3, 33), (4, 44)").await();
        env.executeSql("INSERT INTO stock.fluss.partial_stock (k, n) VALUES (1, 11), (3, 33), (4, 44)").await();
        java.util.function.Function<InternalRow, String> kv =
                row -> row.getInt(0) + "," + row.getLong(1) + "," + (row.isNullAt(2) ? null : row.getString(2));
        List<Integer> keys = List.of(1, 2, 3, 4);
        assertThat(lookUp("partial_ours", keys, kv)).containsExactlyInAnyOrder("1,11,a", "2,20,b", "3,33,c", "4,44,null")
                .containsExactlyInAnyOrderElementsOf(lookUp("partial_stock", keys, kv));

        env.executeSql("CREATE TABLE stock.fluss.partial_log (k INT, n BIGINT) WITH ('bucket.num' = '1')");
        createOurs(env, "sf_partial_log", "partial_log", "k INT, n BIGINT", "");
        assertThatThrownBy(() -> env.executeSql("INSERT INTO sf_partial_log (k) VALUES (1)").await())
                .hasStackTraceContaining("does not support partial updates for table without primary key");

        env.executeSql("CREATE TABLE stock.fluss.summed (k INT NOT NULL, total BIGINT, PRIMARY KEY (k) NOT ENFORCED) "
                + "WITH ('bucket.num' = '1', 'table.merge-engine' = 'aggregation', 'fields.total.agg' = 'sum')");
        createOurs(env, "sf_summed", "summed", "k INT NOT NULL, total BIGINT, PRIMARY KEY (k) NOT ENFORCED", "");
        assertThatThrownBy(() -> env.executeSql("INSERT INTO sf_summed VALUES (1, 5)").await())
                .hasStackTraceContaining("'aggregation' merge engine");

        // fluss-flink refuses a full lookup cache; so do we, rather than looking up without one.
        createOurs(env, "sf_full_cache", "partial_ours", columns, "'lookup.cache' = 'FULL'");
        assertThatThrownBy(() -> env.executeSql("SELECT * FROM sf_full_cache").collect().close())
                .hasStackTraceContaining("Full lookup caching is not supported yet.");

        createOurs(env, "sf_partial_wide", "partial_ours", "k INT NOT NULL, n INT, v STRING, PRIMARY KEY (k) NOT ENFORCED", "");
        assertThatThrownBy(() -> env.executeSql("SELECT * FROM sf_partial_wide").collect().close())
                .hasStackTraceContaining("Column 'n' of Fluss table")
                .hasStackTraceContaining("BIGINT");
    }

    /**
     * A bounded read whose reader fails and restarts (its region, in a batch job) still ends:
     * the restarted reader gets its splits back and is told again that no more come.
     */
    @Test
    @Timeout(value = 240, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aBoundedReadWhoseReaderRestartsEnds() throws Exception {
        TableEnvironment setup = streaming();
        setup.executeSql("CREATE TABLE stock.fluss.bounded_failover (k BIGINT, v BIGINT) WITH ('bucket.num' = '2')");
        setup.executeSql("INSERT INTO stock.fluss.bounded_failover VALUES "
                + LongStream.range(0, 400).mapToObj(k -> "(" + k + ", " + k * 2 + ")").collect(Collectors.joining(", "))).await();
        org.apache.flink.configuration.Configuration conf = new org.apache.flink.configuration.Configuration();
        conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.newInstance().inBatchMode().withConfiguration(conf).build());
        batch.getConfig().set("table.exec.resource.default-parallelism", "2");
        batch.createTemporarySystemFunction("fail_once", FailOnce.class);
        createOurs(batch, "sf_bounded_failover", "bounded_failover", "k BIGINT, v BIGINT", "");
        FailOnce.reset(150);
        assertThat(collect(batch, "SELECT COUNT(DISTINCT fail_once(k)), SUM(v) FROM sf_bounded_failover", Row::toString))
                .containsExactly("+I[400, " + LongStream.range(0, 400).map(k -> k * 2).sum() + "]");
        assertThat(FailOnce.failed()).as("the reader failed once").isTrue();
    }

    @Test
    void aStreamFusionCatalogShowsCreatesAndWritesTablesAsFlussFlinksDoes() throws Exception {
        TableEnvironment env = streaming();
        env.executeSql("CREATE CATALOG sfc WITH ('type' = 'streamfusion-fluss', 'bootstrap.servers' = '"
                + FLUSS.bootstrapServers() + "')");
        env.executeSql("CREATE DATABASE sfc.shop COMMENT 'the shop' WITH ('owner' = 'ops')");
        assertThat(collectStrings(env, "SHOW DATABASES IN sfc")).contains("shop", "fluss");
        // A database's comment and properties, kept as fluss-flink's catalog keeps them.
        org.apache.flink.table.catalog.CatalogDatabase shop = env.getCatalog("sfc").orElseThrow().getDatabase("shop");
        org.apache.flink.table.catalog.CatalogDatabase stockShop = env.getCatalog("stock").orElseThrow().getDatabase("shop");
        assertThat(shop.getComment()).isEqualTo(stockShop.getComment()).isEqualTo("the shop");
        assertThat(shop.getProperties()).isEqualTo(stockShop.getProperties()).containsEntry("owner", "ops");
        assertThatThrownBy(() -> env.getCatalog("sfc").orElseThrow().getDatabase("no_such_shop"))
                .isInstanceOf(org.apache.flink.table.catalog.exceptions.DatabaseNotExistException.class);
        // Created by ours, shown by fluss-flink's catalog with the same column types, and the other way round.
        env.executeSql("CREATE TABLE sfc.shop.orders (" + COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket.num' = '2')");
        env.executeSql("CREATE TABLE stock.shop.events (" + COLUMNS + ") WITH ('bucket.num' = '2')");
        for (String table : List.of("orders", "events")) {
            // Columns and primary key alike (fluss-flink also declares the key an index, for lookups).
            ResolvedSchema ours = env.from("sfc.shop." + table).getResolvedSchema();
            ResolvedSchema stock = env.from("stock.shop." + table).getResolvedSchema();
            assertThat(ours.getColumns()).as(table).isEqualTo(stock.getColumns());
            assertThat(ours.getPrimaryKey()).as(table).isEqualTo(stock.getPrimaryKey());
        }
        assertThat(collectStrings(env, "SHOW TABLES IN sfc.shop")).containsExactlyInAnyOrder("orders", "events");
        // A table's client.* options are kept with it and shown to the connector, whichever
        // catalog created the table.
        env.executeSql("CREATE TABLE sfc.shop.acked (k INT, v STRING) WITH ('bucket.num' = '1', "
                + "'client.writer.batch-timeout' = '7ms')");
        env.executeSql("CREATE TABLE stock.shop.acked_stock (k INT, v STRING) WITH ('bucket.num' = '1', "
                + "'client.writer.batch-timeout' = '7ms')");
        for (String table : List.of("acked", "acked_stock")) {
            assertThat(env.getCatalog("sfc").orElseThrow()
                            .getTable(new org.apache.flink.table.catalog.ObjectPath("shop", table)).getOptions())
                    .as(table)
                    .containsEntry("client.writer.batch-timeout", "7ms");
        }
        env.executeSql("DROP TABLE sfc.shop.acked");
        env.executeSql("DROP TABLE sfc.shop.acked_stock");
        // Column comments, both ways.
        env.executeSql("CREATE TABLE sfc.shop.noted (k INT COMMENT 'the key', v STRING) WITH ('bucket.num' = '1')");
        env.executeSql("CREATE TABLE stock.shop.noted_stock (k INT COMMENT 'the key', v STRING) WITH ('bucket.num' = '1')");
        for (String table : List.of("noted", "noted_stock")) {
            assertThat(env.from("sfc.shop." + table).getResolvedSchema().getColumns()).as(table)
                    .isEqualTo(env.from("stock.shop." + table).getResolvedSchema().getColumns())
                    .anySatisfy(c -> assertThat(c.getComment()).contains("the key"));
        }
        env.executeSql("DROP TABLE sfc.shop.noted");
        env.executeSql("DROP TABLE sfc.shop.noted_stock");
        env.executeSql("INSERT INTO sfc.shop.events VALUES " + values(0, 50)).await();
        assertThat(take(env, "SELECT * FROM sfc.shop.events /*+ OPTIONS('scan.startup.mode' = 'earliest') */", 50))
                .containsExactlyInAnyOrderElementsOf(
                        take(env, "SELECT * FROM stock.shop.events /*+ OPTIONS('scan.startup.mode' = 'earliest') */", 50));
        env.executeSql("DROP TABLE sfc.shop.orders");
        env.executeSql("DROP DATABASE sfc.shop CASCADE");
        assertThat(collectStrings(env, "SHOW DATABASES IN sfc")).doesNotContain("shop");
        assertThatThrownBy(() -> env.executeSql("CREATE TABLE sfc.fluss.bounded (s VARCHAR(10))"))
                .hasStackTraceContaining("use STRING");
        // Refused as fluss-flink's catalog refuses them: another connector, a missing default database.
        assertThatThrownBy(() -> env.executeSql("CREATE TABLE sfc.fluss.generated (k INT) WITH ('connector' = 'datagen')"))
                .hasStackTraceContaining("'connector' = 'datagen'");
        assertThatThrownBy(() -> env.executeSql("CREATE TABLE stock.fluss.generated (k INT) WITH ('connector' = 'datagen')"))
                .hasStackTraceContaining("'connector'= 'datagen'");
        for (String type : List.of("streamfusion-fluss", "fluss")) {
            assertThatThrownBy(() -> env.executeSql("CREATE CATALOG missing_default WITH ('type' = '" + type
                    + "', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "', 'default-database' = 'nope')"))
                    .as(type).hasStackTraceContaining("'nope'");
        }
        // Computed columns and watermarks, kept among the table's properties as fluss-flink's
        // catalog keeps them: each catalog shows the other's table with the same schema.
        String timed = "(id INT, ts TIMESTAMP(3), twice AS id * 2 COMMENT 'doubled', label STRING, "
                + "at_minute AS CAST(ts AS TIMESTAMP(0)), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('bucket.num' = '1')";
        env.executeSql("CREATE TABLE sfc.fluss.timed_events " + timed);
        env.executeSql("CREATE TABLE stock.fluss.timed_events_stock " + timed);
        for (String table : List.of("timed_events", "timed_events_stock")) {
            ResolvedSchema ours = env.from("sfc.fluss." + table).getResolvedSchema();
            assertThat(ours.toString()).as(table).isEqualTo(env.from("stock.fluss." + table).getResolvedSchema().toString())
                    .contains("`twice` INT AS `id` * 2", "`ts` TIMESTAMP(3) *ROWTIME*", "WATERMARK FOR `ts`");
            assertThat(ours.getColumnNames()).as(table).containsExactly("id", "ts", "twice", "label", "at_minute");
        }
        env.executeSql("INSERT INTO sfc.fluss.timed_events (id, ts, label) VALUES (1, TIMESTAMP '2026-01-02 03:04:05.678', 'a'), "
                + "(2, TIMESTAMP '2026-01-02 03:05:00.000', CAST(NULL AS STRING))").await();
        String timedRows = "SELECT id, twice, label, at_minute FROM %s /*+ OPTIONS('scan.startup.mode' = 'earliest') */";
        assertThat(take(env, String.format(timedRows, "sfc.fluss.timed_events"), 2))
                .containsExactlyInAnyOrder("+I[1, 2, a, 2026-01-02T03:04:05]", "+I[2, 4, null, 2026-01-02T03:05]")
                .containsExactlyInAnyOrderElementsOf(take(env, String.format(timedRows, "stock.fluss.timed_events"), 2));
        // A metadata column has nothing to read in a Fluss table, as fluss-flink's catalog says.
        assertThatThrownBy(() -> env.executeSql("CREATE TABLE sfc.fluss.with_metadata (k INT, o BIGINT METADATA FROM 'offset')"))
                .hasStackTraceContaining("Metadata column 'o'");
        // Connector options are kept with the table, as fluss-flink's catalog keeps them, and
        // read back by both catalogs.
        env.executeSql("CREATE TABLE sfc.fluss.kept (k INT) WITH ('bucket.num' = '3', 'scan.startup.mode' = 'latest', "
                + "'sink.ignore-delete' = 'true', 'table.log.ttl' = '2 d')");
        // Its distribution shown as fluss-flink's catalog shows it, so LIKE takes it on.
        env.executeSql("CREATE TABLE sfc.fluss.kept_like LIKE sfc.fluss.kept");
        for (String catalog : List.of("sfc", "stock")) {
            for (String table : List.of("kept", "kept_like")) {
                Map<String, String> options = ((org.apache.flink.table.catalog.CatalogTable) env.getCatalog(catalog).orElseThrow()
                        .getTable(new org.apache.flink.table.catalog.ObjectPath("fluss", table))).getOptions();
                assertThat(options).as(catalog + " " + table).containsEntry("scan.startup.mode", "latest")
                        .containsEntry("sink.ignore-delete", "true").containsEntry("bucket.num", "3")
                        .containsEntry("table.log.ttl", "2 d");
            }
        }
        // What names the copied table is not stored with the copy.
        assertThat(((org.apache.flink.table.catalog.CatalogTable) env.getCatalog("stock").orElseThrow()
                .getTable(new org.apache.flink.table.catalog.ObjectPath("fluss", "kept_like"))).getOptions())
                .doesNotContainKeys("database", "table", "connector");
        // A Fluss TIME of any precision reads as TIME(0) through the catalog (as fluss-flink gives
        // it), in the same layout: the declared types check takes it.
        env.executeSql("CREATE TABLE stock.fluss.timed (k INT, tm TIME(3)) WITH ('bucket.num' = '1')");
        env.executeSql("INSERT INTO stock.fluss.timed VALUES (1, TIME '10:11:12.345')").await();
        assertThat(take(env, "SELECT * FROM sfc.fluss.timed /*+ OPTIONS('scan.startup.mode' = 'earliest') */", 1))
                .isEqualTo(take(env, "SELECT * FROM stock.fluss.timed /*+ OPTIONS('scan.startup.mode' = 'earliest') */", 1));
        // Its storage properties are among the options either catalog shows, so LIKE copies them.
        Map<String, String> shown = tableOptions(env, "sfc", "kept");
        assertThat(shown).containsEntry("table.log.ttl", "2 d");
        assertThat(storage(shown)).isEqualTo(storage(tableOptions(env, "stock", "kept")))
                .isEqualTo(storage(tableOptions(env, "stock", "kept_like")));

        // Aggregate functions and auto-increment columns become the Fluss schema's, as fluss-flink's
        // catalog makes them: the same schema whichever catalog creates the table, and a copy's.
        String summed = "(k INT NOT NULL, total BIGINT, tags STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket.num' = '1', "
                + "'table.merge-engine' = 'aggregation', 'fields.total.agg' = 'sum', 'fields.tags.agg' = 'listagg', "
                + "'fields.tags.listagg.delimiter' = ';')";
        env.executeSql("CREATE TABLE sfc.fluss.agg_made " + summed);
        env.executeSql("CREATE TABLE stock.fluss.agg_made_stock " + summed);
        env.executeSql("CREATE TABLE sfc.fluss.agg_made_like LIKE sfc.fluss.agg_made");
        String numbered = "(name STRING NOT NULL, n BIGINT, PRIMARY KEY (name) NOT ENFORCED) WITH ('bucket.num' = '1', "
                + "'auto-increment.fields' = 'n')";
        env.executeSql("CREATE TABLE sfc.fluss.numbered " + numbered);
        env.executeSql("CREATE TABLE stock.fluss.numbered_stock " + numbered);
        try (Connection connection = connect(); org.apache.fluss.client.admin.Admin admin = connection.getAdmin()) {
            org.apache.fluss.metadata.Schema stockSummed = admin.getTableInfo(TablePath.of("fluss", "agg_made_stock")).get().getSchema();
            assertThat(stockSummed.getAggFunction("total")).isPresent();
            for (String table : List.of("agg_made", "agg_made_like")) {
                assertThat(admin.getTableInfo(TablePath.of("fluss", table)).get().getSchema()).as(table).isEqualTo(stockSummed);
            }
            org.apache.fluss.metadata.Schema stockNumbered =
                    admin.getTableInfo(TablePath.of("fluss", "numbered_stock")).get().getSchema();
            assertThat(stockNumbered.getAutoIncrementColumnNames()).containsExactly("n");
            assertThat(admin.getTableInfo(TablePath.of("fluss", "numbered")).get().getSchema()).isEqualTo(stockNumbered);
        }
        for (String table : List.of("agg_made", "agg_made_stock")) {
            assertThat(tableOptions(env, "sfc", table)).as(table).containsEntry("fields.total.agg", "sum")
                    .containsEntry("fields.tags.agg", "listagg").containsEntry("fields.tags.listagg.delimiter", ";")
                    .containsEntry("table.merge-engine", "aggregation");
        }
        // Rows written by fluss-flink are aggregated by the functions our catalog declared.
        env.executeSql("INSERT INTO stock.fluss.agg_made VALUES (1, 5, 'a'), (1, 7, 'b')").await();
        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.executeSql("CREATE CATALOG sfc WITH ('type' = 'streamfusion-fluss', 'bootstrap.servers' = '"
                + FLUSS.bootstrapServers() + "')");
        assertThat(collect(batch, "SELECT * FROM sfc.fluss.agg_made WHERE k = 1", Row::toString)).containsExactly("+I[1, 12, a;b]");
        // Partitions listed, added and dropped as fluss-flink's catalog does, each seen by the other.
        env.executeSql("CREATE TABLE sfc.fluss.parted (k INT, dt STRING, region STRING) PARTITIONED BY (dt, region) "
                + "WITH ('bucket.num' = '1')");
        env.executeSql("ALTER TABLE sfc.fluss.parted ADD PARTITION (dt = '2026-01', region = 'eu') "
                + "PARTITION (dt = '2026-01', region = 'us')");
        env.executeSql("ALTER TABLE stock.fluss.parted ADD PARTITION (dt = '2026-02', region = 'eu')");
        for (String catalog : List.of("sfc", "stock")) {
            assertThat(collectStrings(env, "SHOW PARTITIONS " + catalog + ".fluss.parted")).as(catalog)
                    .containsExactlyInAnyOrder("dt=2026-01/region=eu", "dt=2026-01/region=us", "dt=2026-02/region=eu");
            assertThat(collectStrings(env, "SHOW PARTITIONS " + catalog + ".fluss.parted PARTITION (region = 'eu')")).as(catalog)
                    .containsExactlyInAnyOrder("dt=2026-01/region=eu", "dt=2026-02/region=eu");
        }
        org.apache.flink.table.catalog.Catalog sfc = env.getCatalog("sfc").orElseThrow();
        org.apache.flink.table.catalog.ObjectPath parted = new org.apache.flink.table.catalog.ObjectPath("fluss", "parted");
        org.apache.flink.table.catalog.CatalogPartitionSpec january =
                new org.apache.flink.table.catalog.CatalogPartitionSpec(Map.of("dt", "2026-01", "region", "us"));
        assertThat(sfc.partitionExists(parted, january)).isTrue();
        assertThat(sfc.getPartition(parted, january).getProperties()).isEmpty();
        env.executeSql("ALTER TABLE sfc.fluss.parted DROP PARTITION (dt = '2026-01', region = 'us')");
        assertThat(sfc.partitionExists(parted, january)).isFalse();
        assertThatThrownBy(() -> sfc.getPartition(parted, january))
                .isInstanceOf(org.apache.flink.table.catalog.exceptions.PartitionNotExistException.class);
        assertThat(collectStrings(env, "SHOW PARTITIONS stock.fluss.parted"))
                .containsExactlyInAnyOrder("dt=2026-01/region=eu", "dt=2026-02/region=eu");
        assertThatThrownBy(() -> env.executeSql("ALTER TABLE sfc.fluss.parted ADD PARTITION (dt = '2026-01', region = 'eu')"))
                .hasStackTraceContaining("already exists");
        assertThatThrownBy(() -> env.executeSql("ALTER TABLE sfc.fluss.parted DROP PARTITION (dt = '2026-03', region = 'eu')"))
                .hasStackTraceContaining("does not exist");
        for (String catalog : List.of("sfc", "stock")) {
            assertThatThrownBy(() -> collectStrings(env, "SHOW PARTITIONS " + catalog + ".fluss.kept")).as(catalog)
                    .hasStackTraceContaining("is not partitioned");
        }

        assertThatThrownBy(() -> env.executeSql("CREATE TABLE sfc.fluss.agg_wrong (k INT NOT NULL, total BIGINT, "
                + "PRIMARY KEY (k) NOT ENFORCED) WITH ('table.merge-engine' = 'aggregation', 'fields.total.agg' = 'median')"))
                .hasStackTraceContaining("Unknown aggregation function for column 'total': median");
    }

    /** The storage properties among a table's options. */
    private static Map<String, String> storage(Map<String, String> options) {
        return options.entrySet().stream().filter(e -> e.getKey().startsWith("table."))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static Map<String, String> tableOptions(TableEnvironment env, String catalog, String table) throws Exception {
        return ((org.apache.flink.table.catalog.CatalogTable) env.getCatalog(catalog).orElseThrow()
                .getTable(new org.apache.flink.table.catalog.ObjectPath("fluss", table))).getOptions();
    }

    private static List<String> collectStrings(TableEnvironment env, String sql) throws Exception {
        return collect(env, sql, r -> String.valueOf(r.getField(0)));
    }

    /** The rows of a bounded query, each as {@code text} makes it. */
    private static List<String> collect(TableEnvironment env, String sql, java.util.function.Function<Row, String> text)
            throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = env.executeSql(sql).collect()) {
            it.forEachRemaining(r -> rows.add(text.apply(r)));
        }
        return rows;
    }

    /**
     * Lookup joins find a primary-key table's rows by key, as fluss-flink's do, with the columns
     * the query reads; a table that is neither scanned nor given its startup mode is still looked
     * up (the default 'full' mode only matters to a scan).
     */
    @Test
    void lookupJoinsFindRowsByPrimaryKeyAsFlussFlinksDo() throws Exception {
        TableEnvironment env = streaming();
        String columns = "k INT NOT NULL, n BIGINT, v STRING, PRIMARY KEY (k) NOT ENFORCED";
        env.executeSql("CREATE TABLE stock.fluss.dim (" + columns + ") WITH ('bucket.num' = '2')");
        createOurs(env, "sf_dim", "dim", columns, "");
        env.executeSql("CREATE TEMPORARY TABLE dim_keys (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '80', "
                + "'fields.k.kind' = 'sequence', 'fields.k.start' = '0', 'fields.k.end' = '79')");
        env.executeSql("INSERT INTO sf_dim SELECT k, CAST(k * 10 AS BIGINT), CASE WHEN MOD(k, 9) = 0 THEN CAST(NULL AS STRING) "
                + "ELSE CONCAT('v', CAST(k AS STRING)) END FROM dim_keys").await();
        env.executeSql("CREATE TEMPORARY TABLE probes (id INT, proc AS PROCTIME()) WITH ('connector' = 'datagen', "
                + "'number-of-rows' = '120', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '119')");
        String join = "SELECT p.id, d.v, d.n FROM probes AS p LEFT JOIN %s FOR SYSTEM_TIME AS OF p.proc AS d ON p.id = d.k";
        List<String> ours = collect(env, String.format(join, "sf_dim"), Row::toString);
        assertThat(ours).hasSize(120)
                .containsExactlyInAnyOrderElementsOf(collect(env, String.format(join, "stock.fluss.dim"), Row::toString))
                .contains("+I[5, v5, 50]", "+I[9, null, 90]", "+I[100, null, null]");
        String inner = "SELECT d.n, p.id FROM probes AS p JOIN sf_dim FOR SYSTEM_TIME AS OF p.proc AS d ON d.k = p.id";
        assertThat(collect(env, inner, Row::toString)).hasSize(80).contains("+I[790, 79]");
        // The primary key and more columns: the rows found by the key, kept where the other columns
        // equal the join's, as fluss-flink filters them (a constant is one of the lookup keys).
        String more = "SELECT p.id, d.v, d.n FROM probes AS p JOIN %s FOR SYSTEM_TIME AS OF p.proc AS d ON p.id = d.k AND ";
        assertThat(collect(env, String.format(more, "sf_dim") + "d.v = 'v5'", Row::toString))
                .containsExactly("+I[5, v5, 50]")
                .isEqualTo(collect(env, String.format(more, "stock.fluss.dim") + "d.v = 'v5'", Row::toString));
        assertThat(collect(env, String.format(more, "sf_dim") + "d.n = CAST(p.id AS BIGINT)", Row::toString))
                .containsExactly("+I[0, null, 0]")
                .isEqualTo(collect(env, String.format(more, "stock.fluss.dim") + "d.n = CAST(p.id AS BIGINT)", Row::toString));
        // Fluss looks rows up by their whole primary key only.
        assertThatThrownBy(() -> env.explainSql("SELECT p.id FROM probes AS p JOIN sf_dim FOR SYSTEM_TIME AS OF p.proc AS d "
                        + "ON CAST(p.id AS BIGINT) = d.n"))
                .hasStackTraceContaining("whole primary key [k]");

        // Flink's partial cache around the lookups: the same rows.
        String cached = "sf_dim /*+ OPTIONS('lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '50', "
                + "'lookup.partial-cache.expire-after-write' = '1 min') */";
        assertThat(collect(env, String.format(join, cached), Row::toString)).containsExactlyInAnyOrderElementsOf(ours);
        // One key at a time ('lookup.async' = 'false'), cached or not: the same rows.
        assertThat(collect(env, String.format(join, "sf_dim /*+ OPTIONS('lookup.async' = 'false') */"), Row::toString))
                .containsExactlyInAnyOrderElementsOf(ours);
        assertThat(collect(env, String.format(join, cached.replace("PARTIAL',", "PARTIAL', 'lookup.async' = 'false',")),
                        Row::toString))
                .containsExactlyInAnyOrderElementsOf(ours);

        // A key not found is inserted ('lookup.insert-if-not-exists'), its other columns NULL, as fluss-flink inserts it.
        String nullable = "k INT NOT NULL, n BIGINT, v STRING, PRIMARY KEY (k) NOT ENFORCED";
        env.executeSql("CREATE TABLE stock.fluss.dim_ins (" + nullable + ") WITH ('bucket.num' = '2')");
        env.executeSql("CREATE TABLE stock.fluss.dim_ins_stock (" + nullable + ") WITH ('bucket.num' = '2')");
        createOurs(env, "sf_dim_ins", "dim_ins", nullable, "'lookup.insert-if-not-exists' = 'true'");
        env.executeSql("INSERT INTO sf_dim_ins VALUES (3, 30, 'v3')").await();
        env.executeSql("INSERT INTO stock.fluss.dim_ins_stock VALUES (3, 30, 'v3')").await();
        String inserting = "SELECT p.id, d.k, d.n, d.v FROM (SELECT * FROM probes WHERE id < 6) AS p "
                + "JOIN %s FOR SYSTEM_TIME AS OF p.proc AS d ON p.id = d.k";
        List<String> inserted = collect(env, String.format(inserting, "sf_dim_ins"), Row::toString);
        assertThat(inserted).containsExactlyInAnyOrder("+I[0, 0, null, null]", "+I[1, 1, null, null]", "+I[2, 2, null, null]",
                        "+I[3, 3, 30, v3]", "+I[4, 4, null, null]", "+I[5, 5, null, null]")
                .containsExactlyInAnyOrderElementsOf(collect(env, String.format(inserting,
                        "stock.fluss.dim_ins_stock /*+ OPTIONS('lookup.insert-if-not-exists' = 'true') */"), Row::toString));
        java.util.function.Function<InternalRow, String> keyOnly = row -> row.getInt(0) + "," + row.isNullAt(1);
        List<Integer> probed = IntStream.range(0, 8).boxed().collect(Collectors.toList());
        assertThat(lookUp("dim_ins", probed, keyOnly))
                .containsExactlyInAnyOrder("0,true", "1,true", "2,true", "3,false", "4,true", "5,true")
                .containsExactlyInAnyOrderElementsOf(lookUp("dim_ins_stock", probed, keyOnly));

        // By the bucket key, a prefix of the primary key: every row under it, as fluss-flink finds them.
        String prefixed = "a INT NOT NULL, b INT NOT NULL, v STRING, PRIMARY KEY (a, b) NOT ENFORCED";
        env.executeSql("CREATE TABLE stock.fluss.dim_prefix (" + prefixed + ") WITH ('bucket.num' = '2', 'bucket.key' = 'a')");
        createOurs(env, "sf_dim_prefix", "dim_prefix", prefixed, "");
        env.executeSql("INSERT INTO sf_dim_prefix SELECT MOD(k, 20), k, CONCAT('w', CAST(k AS STRING)) FROM dim_keys").await();
        String byPrefix = "SELECT p.id, d.b, d.v FROM probes AS p LEFT JOIN %s FOR SYSTEM_TIME AS OF p.proc AS d ON p.id = d.a";
        List<String> prefixRows = collect(env, String.format(byPrefix, "sf_dim_prefix"), Row::toString);
        assertThat(prefixRows).hasSize(80 + 100)
                .containsExactlyInAnyOrderElementsOf(collect(env, String.format(byPrefix, "stock.fluss.dim_prefix"), Row::toString))
                .contains("+I[3, 63, w63]", "+I[50, null, null]");
        assertThatThrownBy(() -> env.explainSql("SELECT p.id FROM probes AS p JOIN sf_dim_prefix FOR SYSTEM_TIME AS OF p.proc "
                        + "AS d ON p.id = d.b"))
                .hasStackTraceContaining("or by its bucket key with its partition keys [a]");
        assertThatThrownBy(() -> env.explainSql(String.format(byPrefix,
                        "sf_dim_prefix /*+ OPTIONS('lookup.insert-if-not-exists' = 'true') */")))
                .hasStackTraceContaining("'lookup.insert-if-not-exists' needs a lookup by the whole primary key [a, b]");
    }

    /**
     * The questions fluss-flink has the server answer whole, answered alike: a LIMIT in either
     * mode, and in batch mode COUNT(*) and a primary key's row; any other batch read of a log
     * table reads it to its end when the job starts.
     */
    @Test
    void limitsCountsAndKeysAreAnsweredByTheServerAsFlussFlinkAnswersThem() throws Exception {
        TableEnvironment env = streaming();
        String logColumns = "id INT, s STRING";
        String kvColumns = "k INT NOT NULL, v STRING, PRIMARY KEY (k) NOT ENFORCED";
        env.executeSql("CREATE TABLE stock.fluss.asked_log (" + logColumns + ") WITH ('bucket.num' = '3')");
        env.executeSql("CREATE TABLE stock.fluss.asked_kv (" + kvColumns + ") WITH ('bucket.num' = '2')");
        createOurs(env, "sf_asked_log", "asked_log", logColumns, "");
        createOurs(env, "sf_asked_kv", "asked_kv", kvColumns, "");
        List<String> logRows = IntStream.range(0, 50).mapToObj(i -> "+I[" + i + ", s" + i + "]").collect(Collectors.toList());
        env.executeSql("INSERT INTO sf_asked_log VALUES " + IntStream.range(0, 50).mapToObj(i -> "(" + i + ", 's" + i + "')")
                .collect(Collectors.joining(", "))).await();
        env.executeSql("INSERT INTO sf_asked_kv VALUES " + IntStream.range(0, 40).mapToObj(i -> "(" + i + ", 'v" + i + "')")
                .collect(Collectors.joining(", "))).await();

        // A LIMIT in streaming mode: rows of the table, as many as fluss-flink gives.
        List<String> limited = collect(env, "SELECT * FROM sf_asked_log LIMIT 7", Row::toString);
        assertThat(limited).hasSize(7).doesNotHaveDuplicates().isSubsetOf(logRows)
                .hasSameSizeAs(collect(env, "SELECT * FROM stock.fluss.asked_log LIMIT 7", Row::toString));
        assertThat(env.explainSql("SELECT * FROM sf_asked_log LIMIT 7")).contains("sf_asked_log, limit=[7]]");

        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')");
        createOurs(batch, "sf_asked_log", "asked_log", logColumns, "");
        createOurs(batch, "sf_asked_kv", "asked_kv", kvColumns, "");
        assertThat(collect(batch, "SELECT s, id FROM sf_asked_log LIMIT 4", r -> "+I[" + r.getField(1) + ", " + r.getField(0) + "]"))
                .hasSize(4).doesNotHaveDuplicates().isSubsetOf(logRows);
        assertThat(collect(batch, "SELECT * FROM sf_asked_kv LIMIT 3", Row::toString)).hasSize(3).doesNotHaveDuplicates()
                .allMatch(r -> r.matches("\\+I\\[(\\d+), v\\1]"));
        assertThat(collect(batch, "SELECT * FROM sf_asked_kv LIMIT 100", Row::toString)).hasSize(40);

        for (String table : List.of("asked_log", "asked_kv")) {
            String count = "SELECT COUNT(*) FROM %s";
            assertThat(batch.explainSql(String.format(count, "sf_" + table))).contains("aggFunctions=[Count1AggFunction()]");
            assertThat(collect(batch, String.format(count, "sf_" + table), Row::toString))
                    .containsExactly(table.endsWith("log") ? "+I[50]" : "+I[40]")
                    .isEqualTo(collect(batch, String.format(count, "stock.fluss." + table), Row::toString));
        }

        // A count that skips NULLs is Flink's own (over a scan, refused in batch mode for a primary-key table).
        assertThatThrownBy(() -> collect(batch, "SELECT COUNT(v) FROM sf_asked_kv", Row::toString))
                .hasStackTraceContaining("is read in batch mode only to answer");
        // The planner knows the key is unique and not NULL: its distinct count is the row count.
        assertThat(collect(batch, "SELECT COUNT(DISTINCT k) FROM sf_asked_kv", Row::toString)).containsExactly("+I[40]");

        String byKey = "SELECT v, k FROM %s WHERE k = %d";
        assertThat(batch.explainSql(String.format(byKey, "sf_asked_kv", 7))).contains("sf_asked_kv, filter=[=(k, 7)]");
        for (int key : new int[] {7, 39, 40}) {
            assertThat(collect(batch, String.format(byKey, "sf_asked_kv", key), Row::toString))
                    .isEqualTo(key < 40 ? List.of("+I[v" + key + ", " + key + "]") : List.of())
                    .isEqualTo(collect(batch, String.format(byKey, "stock.fluss.asked_kv", key), Row::toString));
        }
        // Every filter is still Flink's: a second one on the row found keeps it or drops it.
        assertThat(collect(batch, "SELECT * FROM sf_asked_kv WHERE k = 8 AND v = 'v9'", Row::toString)).isEmpty();

        // Any other batch read of a log table reads each bucket to its end when the job starts
        // (fluss-flink refuses it); a primary-key table's changelog is refused, naming the table.
        assertThat(collect(batch, "SELECT * FROM sf_asked_log", Row::toString)).containsExactlyInAnyOrderElementsOf(logRows);
        assertThat(collect(batch, "SELECT COUNT(DISTINCT id), SUM(id), MAX(s) FROM sf_asked_log", Row::toString))
                .containsExactly("+I[50, 1225, s9]");
        String sparse = "id INT, dt STRING";
        env.executeSql("CREATE TABLE stock.fluss.asked_sparse (" + sparse + ") PARTITIONED BY (dt) WITH ('bucket.num' = '4')");
        env.executeSql("CREATE TABLE stock.fluss.asked_empty (" + logColumns + ") WITH ('bucket.num' = '2')");
        env.executeSql("INSERT INTO stock.fluss.asked_sparse VALUES (1, 'a'), (2, 'b'), (3, 'b')").await();
        createOurs(batch, "sf_asked_sparse", "asked_sparse", sparse, "");
        createOurs(batch, "sf_asked_empty", "asked_empty", logColumns, "");
        // Buckets with no rows end at once; so does a read with none at all.
        assertThat(collect(batch, "SELECT * FROM sf_asked_sparse", Row::toString))
                .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]", "+I[3, b]");
        assertThat(collect(batch, "SELECT id FROM sf_asked_sparse WHERE dt = 'b'", Row::toString))
                .containsExactlyInAnyOrder("+I[2]", "+I[3]");
        assertThat(collect(batch, "SELECT * FROM sf_asked_empty", Row::toString)).isEmpty();
        assertThatThrownBy(() -> collect(batch, "SELECT * FROM sf_asked_kv", Row::toString))
                .hasStackTraceContaining("Primary-key table fluss.asked_kv")
                .hasStackTraceContaining("its changelog is read in streaming mode");
    }

    /**
     * A primary-key table of the indexed row format stores a CHAR at its full length, a shorter
     * text padded with zero bytes: read by key and by a LIMIT (both from its key-value store), its
     * values come without the padding, as fluss-flink reads them.
     */
    @Test
    void charsOfAnIndexedPrimaryKeyTableReadAsFlussFlinkReadsThem() throws Exception {
        TableEnvironment env = streaming();
        String columns = "k INT NOT NULL, c CHAR(5), PRIMARY KEY (k) NOT ENFORCED";
        env.executeSql("CREATE TABLE stock.fluss.indexed_kv (" + columns + ") WITH ('bucket.num' = '1', "
                + "'table.kv.format' = 'indexed')");
        // Written by the Fluss client, which stores a shorter text as given (Flink pads a CHAR with spaces).
        try (Connection connection = connect();
                org.apache.fluss.client.table.Table kv = connection.getTable(TablePath.of("fluss", "indexed_kv"))) {
            org.apache.fluss.client.table.writer.UpsertWriter writer = kv.newUpsert().createWriter();
            writer.upsert(GenericRow.of(1, org.apache.fluss.row.BinaryString.fromString("ab")));
            writer.upsert(GenericRow.of(2, org.apache.fluss.row.BinaryString.fromString("abcde")));
            writer.upsert(GenericRow.of(3, null));
            writer.flush();
        }
        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')");
        createOurs(batch, "sf_indexed_kv", "indexed_kv", columns, "");
        String byKey = "SELECT k, c, CHAR_LENGTH(c), c = 'ab' FROM %s WHERE k = %d";
        for (int key = 1; key <= 3; key++) {
            assertThat(collect(batch, String.format(byKey, "sf_indexed_kv", key), Row::toString))
                    .hasSize(1)
                    .isEqualTo(collect(batch, String.format(byKey, "stock.fluss.indexed_kv", key), Row::toString));
        }
        String limited = "SELECT k, c, CHAR_LENGTH(c) FROM %s LIMIT 10";
        assertThat(collect(batch, String.format(limited, "sf_indexed_kv"), Row::toString))
                .hasSize(3)
                .containsExactlyInAnyOrderElementsOf(collect(batch, String.format(limited, "stock.fluss.indexed_kv"), Row::toString))
                .noneMatch(row -> row.indexOf((char) 0) >= 0);
    }

    /**
     * A primary-key table that logs no before images ('table.changelog.image' = 'WAL') is read as
     * an upsert changelog, whose before images Flink restores: an aggregate over it counts each
     * key's latest row once, as it does over fluss-flink's read.
     */
    @Test
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTableLoggingNoBeforeImagesIsReadAsItsUpsertsAsFlussFlinkReadsIt() throws Exception {
        TableEnvironment env = streaming();
        String columns = "k INT NOT NULL, n BIGINT, PRIMARY KEY (k) NOT ENFORCED";
        env.executeSql("CREATE TABLE stock.fluss.wal (" + columns + ") WITH ('bucket.num' = '1', 'table.changelog.image' = 'WAL')");
        createOurs(env, "sf_wal", "wal", columns, "'scan.startup.mode' = 'earliest'");
        env.executeSql("INSERT INTO sf_wal VALUES (1, 5), (2, 10)").await();
        env.executeSql("INSERT INTO sf_wal VALUES (1, 7)").await();
        String total = "SELECT SUM(n) FROM %s";
        assertThat(env.explainSql(String.format(total, "sf_wal"))).contains("ChangelogNormalize");
        // The sum's changes up to the first that reaches 17: were the update to key 1 counted
        // as a second row, the sum would pass from 15 to 22.
        for (String table : List.of("sf_wal", "stock.fluss.wal /*+ OPTIONS('scan.startup.mode' = 'earliest') */")) {
            long reached = -1;
            try (CloseableIterator<Row> it = env.executeSql(String.format(total, table)).collect()) {
                while (reached < 17 && it.hasNext()) {
                    Row row = it.next();
                    if (row.getKind() == RowKind.INSERT || row.getKind() == RowKind.UPDATE_AFTER) {
                        reached = (Long) row.getField(0);
                    }
                }
            }
            assertThat(reached).as(table).isEqualTo(17L);
        }
        // Copied into a primary-key table, the upserts reach either sink through the same plan
        // (deletes with whole rows, as fluss-flink's sink asks: from a read of key-only deletes,
        // through a ChangelogNormalize, which also drops repeated identical upserts).
        env.executeSql("CREATE TABLE stock.fluss.wal_copy (" + columns + ") WITH ('bucket.num' = '1')");
        createOurs(env, "sf_wal_copy", "wal_copy", columns, "");
        for (String source : List.of("sf_wal", "stock.fluss.wal")) {
            String copy = "INSERT INTO %s SELECT * FROM " + source;
            String ours = env.explainSql(String.format(copy, "sf_wal_copy"), ExplainDetail.CHANGELOG_MODE);
            String stock = env.explainSql(String.format(copy, "stock.fluss.wal_copy"), ExplainDetail.CHANGELOG_MODE);
            assertThat(sinkInput(ours)).as(ours + stock).isEqualTo(sinkInput(stock)).isNotEmpty();
        }
    }

    /**
     * The node feeding the sink, and its changelog mode, in the optimized plan of an EXPLAIN with
     * CHANGELOG_MODE (the line after the sink's).
     */
    private static String sinkInput(String explained) {
        String optimized = explained.substring(explained.indexOf("== Optimized Physical Plan =="));
        String[] lines = optimized.split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].trim().startsWith("Sink(")) {
                String input = lines[i + 1].replaceFirst("^[ +|-]*", "");
                return input.substring(0, input.indexOf('(')) + " " + input.substring(input.indexOf("changelogMode="));
            }
        }
        return "";
    }

    @Test
    void anUnknownTableOrColumnsOfAnotherOrderAreRefusedNamingTheTable() {
        TableEnvironment env = streaming();
        env.executeSql("CREATE TABLE stock.fluss.pair (a INT, b STRING)");
        createOurs(env, "sf_missing", "missing", "a INT", "");
        createOurs(env, "sf_swapped", "pair", "b STRING, a INT", "");
        assertThatThrownBy(() -> env.executeSql("SELECT * FROM sf_missing").collect().close())
                .hasStackTraceContaining("Fluss table fluss.missing")
                .hasStackTraceContaining("does not exist");
        assertThatThrownBy(() -> env.executeSql("INSERT INTO sf_swapped VALUES ('x', 1)").await())
                .hasStackTraceContaining("declare the Fluss table's columns, in its order");
    }
}
