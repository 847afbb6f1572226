package dev.streamfusion.fluss;

import dev.streamfusion.testkit.fluss.FlussClusterExtension;
import dev.streamfusion.testkit.flink.FailOnce;
import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
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
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

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
    static final FlussClusterExtension FLUSS = new FlussClusterExtension();

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
        // From the key-value snapshot: not yet, and said so.
        assertThatThrownBy(() -> env.executeSql("SELECT * FROM sf_kv").collect().close())
                .hasStackTraceContaining("'scan.startup.mode' = 'full'");
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
                + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3000')");
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

    @Test
    void aStreamFusionCatalogShowsCreatesAndWritesTablesAsFlussFlinksDoes() throws Exception {
        TableEnvironment env = streaming();
        env.executeSql("CREATE CATALOG sfc WITH ('type' = 'streamfusion-fluss', 'bootstrap.servers' = '"
                + FLUSS.bootstrapServers() + "')");
        env.executeSql("CREATE DATABASE sfc.shop");
        assertThat(collectStrings(env, "SHOW DATABASES IN sfc")).contains("shop", "fluss");
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
        env.executeSql("INSERT INTO sfc.shop.events VALUES " + values(0, 50)).await();
        assertThat(take(env, "SELECT * FROM sfc.shop.events /*+ OPTIONS('scan.startup.mode' = 'earliest') */", 50))
                .containsExactlyInAnyOrderElementsOf(
                        take(env, "SELECT * FROM stock.shop.events /*+ OPTIONS('scan.startup.mode' = 'earliest') */", 50));
        env.executeSql("DROP TABLE sfc.shop.orders");
        env.executeSql("DROP DATABASE sfc.shop CASCADE");
        assertThat(collectStrings(env, "SHOW DATABASES IN sfc")).doesNotContain("shop");
        assertThatThrownBy(() -> env.executeSql("CREATE TABLE sfc.fluss.bounded (s VARCHAR(10))"))
                .hasStackTraceContaining("use STRING");
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
        // Fluss looks rows up by their whole primary key only.
        assertThatThrownBy(() -> env.explainSql("SELECT p.id FROM probes AS p JOIN sf_dim FOR SYSTEM_TIME AS OF p.proc AS d "
                        + "ON CAST(p.id AS BIGINT) = d.n"))
                .hasStackTraceContaining("whole primary key [k]");
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
