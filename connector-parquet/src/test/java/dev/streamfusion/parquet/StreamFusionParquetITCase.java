package dev.streamfusion.parquet;

import dev.streamfusion.bridge.table.RowLayout;
import dev.streamfusion.testkit.flink.FailOnce;
import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * streamfusion-parquet against Flink's filesystem connector with the parquet format, in real
 * MiniCluster jobs: the same files through both give the same rows.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
class StreamFusionParquetITCase {

    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4, METRICS.addToConfiguration(new Configuration()));

    private static final Path TESTDATA = Paths.get("..", "..", "shared", "testdata", "parquet-testing", "data");

    /** Every type the native reader maps, NULLs in every column. */
    private static final String TYPES =
            "b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE, s STRING, bin BYTES, "
                    + "price DECIMAL(10, 2), wide DECIMAL(38, 10), dt DATE, ts TIMESTAMP(3), micros TIMESTAMP(6)";

    @TempDir static Path tables;

    @BeforeAll
    static void writeWithFlink() throws Exception {
        TableEnvironment env = batch();
        StringBuilder nulls = new StringBuilder();
        for (String column : new String[] {"b", "ti", "si", "i", "bi", "f", "d", "s", "price", "wide", "ts", "micros"}) {
            nulls.append(", 'fields.").append(column).append(".null-rate' = '0.1'");
        }
        env.executeSql(
                "CREATE TABLE gen (" + TYPES + ") WITH ('connector' = 'datagen', 'number-of-rows' = '20000', 'rows-per-second' = '1000000000'"
                        + ", 'fields.s.length' = '12', 'fields.bin.length' = '7'" + nulls + ")");
        env.executeSql(ddl("written", "filesystem", TYPES, tables.resolve("types").toString()));
        env.executeSql("INSERT INTO written SELECT * FROM gen").await();
    }

    private static TableEnvironment batch() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "2");
        return env;
    }

    private static String ddl(String name, String connector, String columns, String path) {
        return ddl(name, connector, columns, path, "");
    }

    private static String ddl(String name, String connector, String columns, String path, String partitionedBy) {
        return "CREATE TABLE " + name + " (" + columns + ") " + partitionedBy + " WITH ('connector' = '" + connector
                + "', 'path' = '" + path + "', 'format' = 'parquet')";
    }

    private static List<String> sorted(List<String> rows) {
        List<String> sorted = new ArrayList<>(rows);
        sorted.sort(null);
        return sorted;
    }

    private static List<String> rows(TableEnvironment env, String query) throws Exception {
        return rows(env.executeSql(query));
    }

    private static List<String> rows(TableResult result) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        return rows;
    }

    /** Runs {@code query} (with {@code %s} for the table) over both connectors on the same files. */
    private static void assertSameRows(String columns, Path path, String query) throws Exception {
        assertSameRows(columns, path, "", query);
    }

    private static void assertSameRows(String columns, Path path, String partitionedBy, String query) throws Exception {
        TableEnvironment env = batch();
        env.executeSql(ddl("stock", "filesystem", columns, path.toString(), partitionedBy));
        env.executeSql(ddl("fused", "streamfusion-parquet", columns, path.toString(), partitionedBy));
        List<String> expected = rows(env, String.format(query, "stock"));
        List<String> actual = rows(env, String.format(query, "fused"));
        assertThat(expected).isNotEmpty();
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void everyTypeReadsWhatFlinkReads() throws Exception {
        Path path = tables.resolve("types");
        assertSameRows(TYPES, path, "SELECT * FROM %s");
        assertSameRows(TYPES, path, "SELECT s, price, i FROM %s");
        assertSameRows(TYPES, path, "SELECT COUNT(*) FROM %s");
        assertSameRows(TYPES, path, "SELECT dt, ts, micros, wide FROM %s WHERE bi > 0 AND s IS NOT NULL");
        assertSameRows(TYPES, path, "SELECT b, COUNT(*), SUM(i), MAX(s) FROM %s GROUP BY b");
    }

    /**
     * Rows handed on in Flink's binary layout and as columnar views are Flink's rows, every type,
     * nested ones of other writers' files and NULLs included.
     */
    @ParameterizedTest
    @ValueSource(strings = {"BINARY", "COLUMNAR"})
    void rowsInEitherLayoutAreFlinksRows(String layout) throws Exception {
        Map<Path, String> files = new java.util.LinkedHashMap<>();
        files.put(tables.resolve("types"), TYPES);
        files.put(TESTDATA.resolve("list_columns.parquet"), "int64_list ARRAY<BIGINT>, utf8_list ARRAY<STRING>");
        files.put(TESTDATA.resolve("nested_lists.snappy.parquet"), "a ARRAY<ARRAY<ARRAY<STRING>>>, b INT");
        files.put(TESTDATA.resolve("nested_maps.snappy.parquet"), "a MAP<STRING, MAP<INT, BOOLEAN>>, b INT, c DOUBLE");
        for (Map.Entry<Path, String> file : files.entrySet()) {
            String path = file.getKey().toAbsolutePath().toString();
            TableEnvironment env = batch();
            env.executeSql(ddl("stock", "filesystem", file.getValue(), path));
            String fused = ddl("fused", "streamfusion-parquet", file.getValue(), path);
            env.executeSql(fused.substring(0, fused.length() - 1) + ", '" + RowLayout.KEY + "' = '" + layout + "')");
            List<String> expected = rows(env, "SELECT * FROM stock");
            assertThat(expected).isNotEmpty();
            assertThat(rows(env, "SELECT * FROM fused"))
                    .as("%s: %s", layout, path)
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    @Test
    void filtersSkipRowGroupsTheirStatisticsRuleOutAndResultsStayTheSame() throws Exception {
        Path path = tables.resolve("sequence");
        TableEnvironment writer = batch();
        // One writer, ids in order, small row groups: each row group holds one range of ids.
        writer.getConfig().set("table.exec.resource.default-parallelism", "1");
        writer.executeSql(
                "CREATE TABLE seq_gen (id BIGINT, s STRING) WITH ('connector' = 'datagen', "
                        + "'rows-per-second' = '1000000000', 'number-of-rows' = '50000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
                        + "'fields.id.end' = '50000', 'fields.s.length' = '20')");
        writer.executeSql(
                "CREATE TABLE seq_out (id BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = '" + path
                        + "', 'format' = 'parquet', 'parquet.block.size' = '65536')");
        writer.executeSql("INSERT INTO seq_out SELECT * FROM seq_gen").await();

        String columns = "id BIGINT, s STRING";
        assertSameRows(columns, path, "SELECT id, s FROM %s WHERE id > 49000");
        assertSameRows(columns, path, "SELECT id FROM %s WHERE 100 >= id AND s IS NOT NULL");
        assertSameRows(columns, path, "SELECT COUNT(*) FROM %s WHERE id < 100 OR id > 49990");
        assertSameRows(columns, path, "SELECT COUNT(*) FROM %s WHERE s > 'zz'");

        TableEnvironment env = batch();
        env.executeSql(ddl("pruned", "streamfusion-parquet", columns, path.toString()));
        TableResult result = env.executeSql("SELECT id FROM pruned WHERE id >= 49500");
        assertThat(rows(result)).hasSize(501);
        Map<String, Metric> metrics = METRICS.findMetrics(result.getJobClient().orElseThrow().getJobID(), "streamfusion");
        long total = gauge(metrics, "rowGroups");
        long pruned = gauge(metrics, "prunedRowGroups");
        assertThat(total).isGreaterThan(5);
        assertThat(pruned).isGreaterThan(0).isLessThan(total);
    }

    /**
     * Row groups built so that a prune Flink's comparison semantics do not allow loses rows: NaNs
     * (which statistics leave out, and which {@code <>} keeps), -0.0 beside 0.0, a FLOAT literal,
     * an integer a FLOAT column compares with as a FLOAT (16777217 as 16777216),
     * narrow integers, CHAR padding. Every filter gives stock's rows. A chunk with NaNs has an
     * offset index and no column index, which must not stop the read.
     */
    @Test
    void filtersPruneNothingFlinksComparisonsKeep() throws Exception {
        Path path = tables.resolve("edges");
        String columns = "d DOUBLE, f FLOAT, ti TINYINT, s STRING, c CHAR(3), v VARCHAR(3)";
        TableEnvironment writer = batch();
        writer.getConfig().set("table.exec.resource.default-parallelism", "1");
        writer.executeSql(ddl("edges_out", "filesystem", columns, path.toString()));
        // One file (one row group) per INSERT, from JSON lines (the planner cannot fold a NaN
        // literal).
        List<String> files =
                List.of(
                        "{\"d\": 1.0, \"f\": 0.1, \"ti\": 1, \"s\": \"a\", \"c\": \"ab\", \"v\": \"ab\"}\n"
                                + "{\"d\": 1.0, \"f\": 0.1, \"ti\": 1, \"s\": \"a\", \"c\": \"ab\", \"v\": \"ab\"}\n"
                                + "{\"d\": \"NaN\", \"f\": 0.1, \"ti\": 1, \"s\": \"a\", \"c\": \"ab\", \"v\": \"ab \"}\n",
                        "{\"d\": -0.0, \"f\": 0.5, \"ti\": -128, \"s\": \"b\", \"c\": \"x\", \"v\": \"x\"}\n"
                                + "{\"d\": 0.0, \"f\": 0.5, \"ti\": 127, \"s\": \"b\", \"c\": \"x\", \"v\": \"x\"}\n",
                        "{\"d\": 2.0, \"f\": \"NaN\", \"ti\": 3, \"s\": \"c\", \"c\": \"cd\", \"v\": \"cd\"}\n"
                                + "{\"d\": null, \"f\": null, \"ti\": null, \"s\": null, \"c\": null, \"v\": null}\n",
                        // 2^24, where FLOATs stop holding every integer.
                        "{\"d\": 3.0, \"f\": 16777216.0, \"ti\": 4, \"s\": \"d\", \"c\": \"ef\", \"v\": \"ef\"}\n"
                                + "{\"d\": 3.0, \"f\": -16777216.0, \"ti\": 5, \"s\": \"d\", \"c\": \"ef\", \"v\": \"ef\"}\n");
        for (int i = 0; i < files.size(); i++) {
            Path json = tables.resolve("edges-json-" + i);
            java.nio.file.Files.createDirectories(json);
            java.nio.file.Files.writeString(json.resolve("rows.json"), files.get(i));
            writer.executeSql(
                    "CREATE TABLE edges_json_" + i + " (" + columns + ") WITH ('connector' = 'filesystem', 'path' = '"
                            + json + "', 'format' = 'json')");
            writer.executeSql("INSERT INTO edges_out SELECT * FROM edges_json_" + i).await();
        }
        for (String filter :
                List.of(
                        "d <> 1.0E0",
                        "d = 0.0E0",
                        "d = -0.0E0",
                        "d < 0.0E0",
                        "d >= -0.0E0",
                        "d > 1.5E0",
                        "f = CAST(0.1 AS FLOAT)",
                        "f <> CAST(0.5 AS FLOAT)",
                        "f > CAST(0.2 AS FLOAT)",
                        "f > 0.05",
                        "f >= 16777217",
                        "f = 16777217",
                        "f <= -16777217",
                        "f > 16777215",
                        "ti = CAST(1 AS TINYINT)",
                        "ti < 0",
                        "ti > CAST(100 AS TINYINT)",
                        "c = 'ab'",
                        "c = 'ab '",
                        "v = 'ab'",
                        "s > 'a'",
                        "s <> 'b'",
                        "d IS NULL")) {
            // An aggregate: a row even where no row passes (d < 0.0 keeps none).
            assertSameRows(columns, path, "SELECT COUNT(*), SUM(ti), MIN(s), MAX(v) FROM %s WHERE " + filter);
        }
    }

    @Test
    void thePageIndexSkipsPagesWithinARowGroup() throws Exception {
        Path path = tables.resolve("pages");
        TableEnvironment writer = batch();
        writer.getConfig().set("table.exec.resource.default-parallelism", "1");
        writer.executeSql(
                "CREATE TABLE page_gen (id BIGINT, s STRING) WITH ('connector' = 'datagen', "
                        + "'rows-per-second' = '1000000000', 'number-of-rows' = '50000', 'fields.id.kind' = 'sequence', "
                        + "'fields.id.start' = '1', 'fields.id.end' = '50000', 'fields.s.length' = '20')");
        // One row group of many small pages, ids in order: each page holds one range of ids.
        writer.executeSql(
                "CREATE TABLE page_out (id BIGINT, s STRING) WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                        + path + "', 'parquet.page.size' = '4096')");
        writer.executeSql("INSERT INTO page_out SELECT * FROM page_gen").await();

        String columns = "id BIGINT, s STRING";
        assertSameRows(columns, path, "SELECT * FROM %s WHERE id BETWEEN 20000 AND 20100");
        assertSameRows(columns, path, "SELECT COUNT(*) FROM %s WHERE id < 10 OR id > 49990");
        assertSameRows(columns, path, "SELECT s FROM %s WHERE id >= 49999 AND s IS NOT NULL");

        TableEnvironment env = batch();
        env.executeSql(ddl("paged", "streamfusion-parquet", columns, path.toString()));
        TableResult result = env.executeSql("SELECT id FROM paged WHERE id BETWEEN 20000 AND 20100");
        assertThat(rows(result)).hasSize(101);
        Map<String, Metric> metrics = METRICS.findMetrics(result.getJobClient().orElseThrow().getJobID(), "pageSkippedRows");
        long skipped = metrics.values().stream().mapToLong(m -> ((Counter) m).getCount()).sum();
        assertThat(skipped).isGreaterThan(40_000).isLessThan(50_000 - 101);
    }

    @Test
    void bloomFiltersSkipRowGroupsWithoutTheValue() throws Exception {
        Path path = tables.resolve("bloom");
        TableEnvironment writer = batch();
        writer.executeSql(
                "CREATE TABLE bloom_gen (id BIGINT, s STRING) WITH ('connector' = 'datagen', "
                        + "'rows-per-second' = '1000000000', 'number-of-rows' = '50000', 'fields.s.length' = '12')");
        // Written natively, with a bloom filter on s and small row groups.
        writer.executeSql(
                "CREATE TABLE bloom_out (id BIGINT, s STRING) WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                        + path + "', 'parquet.block.size' = '65536', 'parquet.bloom.filter.enabled#s' = 'true', "
                        + "'parquet.bloom.filter.fpp#s' = '0.001')");
        writer.executeSql("INSERT INTO bloom_out SELECT * FROM bloom_gen").await();

        String columns = "id BIGINT, s STRING";
        String present = rows(writer, "SELECT s FROM bloom_out LIMIT 1").get(0).replaceAll("^\\+I\\[|\\]$", "");
        // Random hex strings: every row group's statistics span '0…' to 'f…', so only the filters
        // can rule a value out; 'z' is no hex digit.
        String absent = "8888888888zz";
        assertSameRows(columns, path, "SELECT COUNT(*) FROM %s WHERE s = '" + absent + "'");
        assertSameRows(columns, path, "SELECT * FROM %s WHERE s = '" + present + "'");

        TableEnvironment env = batch();
        env.executeSql(ddl("filtered", "streamfusion-parquet", columns, path.toString()));
        TableResult none = env.executeSql("SELECT id FROM filtered WHERE s = '" + absent + "'");
        assertThat(rows(none)).isEmpty();
        Map<String, Metric> metrics = METRICS.findMetrics(none.getJobClient().orElseThrow().getJobID(), "streamfusion");
        long rowGroups = gauge(metrics, "rowGroups");
        assertThat(rowGroups).isGreaterThan(2);
        // Statistics prune none here; the filters all but (at their 0.1% false positive rate) a
        // row group now and then.
        assertThat(gauge(metrics, "prunedRowGroups")).isGreaterThanOrEqualTo(rowGroups - 1);
        TableResult one = env.executeSql("SELECT id FROM filtered WHERE s = '" + present + "'");
        assertThat(rows(one)).isNotEmpty();
        metrics = METRICS.findMetrics(one.getJobClient().orElseThrow().getJobID(), "streamfusion");
        assertThat(gauge(metrics, "prunedRowGroups")).isLessThan(gauge(metrics, "rowGroups"));
    }

    @Test
    void aLimitStopsReadingEarlyAndKeepsItsCount() throws Exception {
        Path path = tables.resolve("types");
        assertSameRows(TYPES, path, "SELECT COUNT(*) FROM (SELECT i FROM %s LIMIT 17)");
        assertSameRows(TYPES, path, "SELECT COUNT(*) FROM (SELECT s FROM %s WHERE i > 0 LIMIT 5000)");
        TableEnvironment env = batch();
        env.executeSql(ddl("limited", "streamfusion-parquet", TYPES, path.toString()));
        TableResult result = env.executeSql("SELECT i, s FROM limited LIMIT 10");
        assertThat(rows(result)).hasSize(10);
        // Each of the two readers stops after ten rows: far fewer than the table's 20,000.
        Map<String, Metric> emitted = METRICS.findMetrics(result.getJobClient().orElseThrow().getJobID(), "rowsEmitted");
        long sourceRows = emitted.values().stream().mapToLong(m -> ((Counter) m).getCount()).sum();
        assertThat(sourceRows).isPositive().isLessThanOrEqualTo(2 * 10);
    }

    private static long gauge(Map<String, Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().endsWith("." + name))
                .mapToLong(e -> ((Number) ((Gauge<?>) e.getValue()).getValue()).longValue())
                .sum();
    }

    @Test
    void filesOfOtherWritersReadWhatFlinkReads() throws Exception {
        String alltypes =
                "id INT, bool_col BOOLEAN, int_col INT, bigint_col BIGINT, float_col FLOAT, double_col DOUBLE, string_col STRING";
        for (String file : List.of("alltypes_plain.parquet", "alltypes_plain.snappy.parquet", "alltypes_dictionary.parquet")) {
            assertSameRows(alltypes, TESTDATA.resolve(file).toAbsolutePath(), "SELECT * FROM %s");
        }
    }

    @Test
    void nestedColumnsOfOtherWritersReadWhatFlinkReads() throws Exception {
        Map<String, String> files = new java.util.LinkedHashMap<>();
        files.put("list_columns.parquet", "int64_list ARRAY<BIGINT>, utf8_list ARRAY<STRING>");
        files.put("nested_lists.snappy.parquet", "a ARRAY<ARRAY<ARRAY<STRING>>>, b INT");
        files.put("nested_maps.snappy.parquet", "a MAP<STRING, MAP<INT, BOOLEAN>>, b INT, c DOUBLE");
        files.put("null_list.parquet", "emptylist ARRAY<INT>");
        for (Map.Entry<String, String> file : files.entrySet()) {
            assertSameRows(file.getValue(), TESTDATA.resolve(file.getKey()).toAbsolutePath(), "SELECT * FROM %s");
        }
    }

    @Test
    void legacyListLayoutsRead() throws Exception {
        // Two-level lists of old writers (parquet-testing's old_list_structure.md): [[1, 2], [3, 4]].
        TableEnvironment env = batch();
        env.executeSql(
                ddl("old_lists", "streamfusion-parquet", "a ARRAY<ARRAY<INT>>",
                        TESTDATA.resolve("old_list_structure.parquet").toAbsolutePath().toString()));
        assertThat(rows(env, "SELECT * FROM old_lists")).containsExactly("+I[[[1, 2], [3, 4]]]");
    }

    @Test
    void int96TimestampsFollowParquetUtcTimezoneAsFlinkDoes() throws Exception {
        // Flink writes TIMESTAMP as INT96; its reader turns INT96 into wall-clock time of UTC
        // ('parquet.utc-timezone' = 'true') or of the reading JVM's zone (the default).
        Path path = tables.resolve("types");
        TimeZone original = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Asia/Shanghai"));
        try {
            Map<String, List<String>> byOption = new java.util.HashMap<>();
            for (String utc : List.of("false", "true")) {
                TableEnvironment env = batch();
                for (String connector : List.of("filesystem", "streamfusion-parquet")) {
                    env.executeSql(
                            "CREATE TABLE `" + connector + "` (" + TYPES + ") WITH ('connector' = '" + connector
                                    + "', 'path' = '" + path + "', 'format' = 'parquet', 'parquet.utc-timezone' = '"
                                    + utc + "')");
                }
                List<String> expected = rows(env, "SELECT i, ts, micros FROM `filesystem`");
                assertThat(rows(env, "SELECT i, ts, micros FROM `streamfusion-parquet`"))
                        .containsExactlyInAnyOrderElementsOf(expected);
                byOption.put(utc, expected);
            }
            assertThat(byOption.get("false")).isNotEqualTo(byOption.get("true"));
        } finally {
            TimeZone.setDefault(original);
        }
    }

    /**
     * A nested field the file spells in another case (as Spark and Hive write them) is found as
     * Flink finds it: by its exact name, else ignoring case; whole rows and projected fields alike.
     */
    @Test
    void nestedFieldsMatchIgnoringCaseAsFlinkMatchesThem() throws Exception {
        Path path = tables.resolve("mixed-case");
        TableEnvironment writer = batch();
        writer.executeSql(ddl("mixed_out", "filesystem", "id INT, u ROW<userid BIGINT, Name STRING>", path.toString()));
        writer.executeSql("INSERT INTO mixed_out VALUES (1, ROW(10, 'a')), (2, ROW(20, CAST(NULL AS STRING))), "
                + "(3, CAST(NULL AS ROW<userid BIGINT, Name STRING>))").await();
        String columns = "id INT, u ROW<userId BIGINT, name STRING>";
        assertSameRows(columns, path, "SELECT * FROM %s");
        assertSameRows(columns, path, "SELECT id, u.userId FROM %s");
        assertSameRows(columns, path, "SELECT u.name, u.userId FROM %s WHERE id < 3");
        TableEnvironment env = batch();
        env.executeSql(ddl("mixed", "streamfusion-parquet", columns, path.toString()));
        assertThat(rows(env, "SELECT id, u.userId, u.name FROM mixed")).contains("+I[1, 10, a]", "+I[2, 20, null]");
    }

    /**
     * INT64 timestamps (what `parquet.write.int64.timestamp` writes, and what the StreamFusion sink
     * always writes) under `parquet.utc-timezone`, in a zone that moves its clocks: Flink writes
     * and reads them as the instants their wall-clock time names in the JVM's zone unless the
     * option is true. Files Flink writes read alike through both connectors, and files the
     * StreamFusion sink writes read back by Flink as Flink's own files do (a time the zone skips
     * moved on, as Flink moves it).
     */
    @Test
    void int64TimestampsFollowParquetUtcTimezoneAsFlinkDoes() throws Exception {
        // Flat columns: Flink's reader refuses INT64 timestamps nested in rows ("Unsupported operation").
        String columns = "i INT, ts TIMESTAMP(3), micros TIMESTAMP(6)";
        String values = "VALUES (1, TIMESTAMP '2024-03-31 02:30:00', TIMESTAMP '2024-10-27 02:30:00.123456'), "
                + "(2, TIMESTAMP '1970-01-01 00:00:00', TIMESTAMP '2100-07-01 12:00:00.5'), "
                + "(3, TIMESTAMP '2024-07-01 12:00:00', TIMESTAMP '2024-01-01 00:00:00')";
        TimeZone original = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Europe/Berlin"));
        try {
            Map<String, List<String>> byOption = new java.util.HashMap<>();
            for (String utc : List.of("false", "true")) {
                Path flinks = tables.resolve("int64-flink-" + utc);
                Path ours = tables.resolve("int64-ours-" + utc);
                TableEnvironment env = batch();
                String with = "'format' = 'parquet', 'parquet.utc-timezone' = '" + utc + "', 'parquet.write.int64.timestamp' = 'true'";
                for (String[] table : List.of(new String[] {"stock_flinks", "filesystem", flinks.toString()},
                        new String[] {"fused_flinks", "streamfusion-parquet", flinks.toString()},
                        new String[] {"stock_ours", "filesystem", ours.toString()},
                        new String[] {"fused_ours", "streamfusion-parquet", ours.toString()})) {
                    env.executeSql("CREATE TABLE " + table[0] + " (" + columns + ") WITH ('connector' = '" + table[1]
                            + "', 'path' = '" + table[2] + "', " + with + ")");
                }
                env.executeSql("INSERT INTO stock_flinks " + values).await();
                env.executeSql("INSERT INTO fused_ours " + values).await();
                List<String> expected = rows(env, "SELECT * FROM stock_flinks");
                assertThat(expected).as(utc).hasSize(3);
                assertThat(rows(env, "SELECT * FROM fused_flinks")).as(utc).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(rows(env, "SELECT * FROM stock_ours")).as(utc).containsExactlyInAnyOrderElementsOf(expected);
                assertThat(rows(env, "SELECT * FROM fused_ours")).as(utc).containsExactlyInAnyOrderElementsOf(expected);
                byOption.put(utc, expected);
            }
            // The skipped time reads on as Flink moves it; UTC keeps it.
            assertThat(byOption.get("false")).anyMatch(row -> row.contains("2024-03-31T03:30"));
            assertThat(byOption.get("true")).anyMatch(row -> row.contains("2024-03-31T02:30"));
        } finally {
            TimeZone.setDefault(original);
        }
    }

    /**
     * INT96 as Flink reads it, beyond what the flat test covers: timestamps nested in rows,
     * arrays and maps shift to the JVM's zone too; dates past 2262 (a 9999-12-31 sentinel) and
     * hundreds of thousands of years away ({@code int96_from_spark.parquet}) keep their values; a
     * JVM zone spelled as an offset ({@code GMT+8}) reads.
     */
    @Test
    void int96TimestampsAtAnyDepthAndAnyDateReadAsFlinkReadsThem() throws Exception {
        Path path = tables.resolve("int96-nested");
        String columns =
                "id INT, ts TIMESTAMP(3), r ROW<t TIMESTAMP(3), n INT>, a ARRAY<TIMESTAMP(6)>, m MAP<STRING, TIMESTAMP(3)>";
        TableEnvironment writer = batch();
        writer.executeSql(ddl("int96_out", "filesystem", columns, path.toString()));
        writer.executeSql(
                        "INSERT INTO int96_out VALUES "
                                + "(1, TIMESTAMP '2024-03-10 01:30:00.123', ROW(TIMESTAMP '2024-07-01 12:00:00', 1), "
                                + "ARRAY[TIMESTAMP '1950-06-01 00:00:00', TIMESTAMP '2024-10-27 02:30:00'], "
                                + "MAP['a', TIMESTAMP '1970-01-01 00:00:00']), "
                                + "(2, TIMESTAMP '9999-12-31 23:59:59.999', ROW(TIMESTAMP '9999-12-31 00:00:00', 2), "
                                + "ARRAY[TIMESTAMP '2262-04-12 00:00:00'], MAP['z', TIMESTAMP '9999-12-31 23:59:59'])")
                .await();
        TimeZone original = TimeZone.getDefault();
        try {
            for (String zone : List.of("Europe/Berlin", "GMT+8", "UTC")) {
                TimeZone.setDefault(TimeZone.getTimeZone(zone));
                assertSameRows(columns, path, "SELECT * FROM %s");
                assertSameRows(columns, path, "SELECT r.t, m['z'], id FROM %s");
            }
            // Flink's own reader fails on this file (dates 294,000 years back); its values are
            // checked against the INT96 definition, read raw by parquet-java.
            Path spark = TESTDATA.resolve("int96_from_spark.parquet").toAbsolutePath().normalize();
            List<String> expected = new ArrayList<>();
            try (org.apache.parquet.hadoop.ParquetReader<org.apache.parquet.example.data.Group> reader =
                    org.apache.parquet.hadoop.ParquetReader.builder(
                                    new org.apache.parquet.hadoop.example.GroupReadSupport(),
                                    new org.apache.hadoop.fs.Path(spark.toUri()))
                            .build()) {
                for (org.apache.parquet.example.data.Group g = reader.read(); g != null; g = reader.read()) {
                    if (g.getFieldRepetitionCount("a") == 0) {
                        expected.add("+I[null]");
                        continue;
                    }
                    java.nio.ByteBuffer int96 =
                            g.getInt96("a", 0).toByteBuffer().order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    long nanosOfDay = int96.getLong();
                    long julianDay = int96.getInt();
                    long millis = Math.multiplyExact(julianDay - 2_440_588L, 86_400_000L) + nanosOfDay / 1_000_000;
                    expected.add("+I[" + java.time.LocalDateTime.ofEpochSecond(
                                    Math.floorDiv(millis, 1000L), (int) Math.floorMod(millis, 1000L) * 1_000_000, java.time.ZoneOffset.UTC)
                            + "]");
                }
            }
            TableEnvironment env = batch();
            env.executeSql(
                    "CREATE TABLE spark (a TIMESTAMP(3)) WITH ('connector' = 'streamfusion-parquet', 'path' = '" + spark
                            + "', 'parquet.utc-timezone' = 'true')");
            assertThat(expected).hasSize(6);
            assertThat(rows(env, "SELECT a FROM spark")).containsExactlyInAnyOrderElementsOf(expected);
        } finally {
            TimeZone.setDefault(original);
        }
    }

    @Test
    void filesReadThroughFlinksFileSystemReadTheSame() throws Exception {
        // The path files of other schemes (s3://, hdfs://, ...) take, exercised on local files:
        // parquet-rs asks Flink's FileSystem for byte ranges.
        Path path = tables.resolve("types");
        TableEnvironment env = batch();
        env.executeSql(ddl("stock", "filesystem", WITH_METADATA, path.toString()));
        env.executeSql(
                "CREATE TABLE ranged (" + WITH_METADATA + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                        + path.toUri() + "', 'streamfusion.file-access' = 'flink-filesystem')");
        for (String query : List.of(
                "SELECT * FROM %s",
                "SELECT s, price, file_name FROM %s WHERE bi > 0 AND s IS NOT NULL",
                "SELECT b, COUNT(*), SUM(i) FROM %s GROUP BY b")) {
            List<String> expected = rows(env, String.format(query, "stock"));
            assertThat(expected).isNotEmpty();
            assertThat(rows(env, String.format(query, "ranged"))).containsExactlyInAnyOrderElementsOf(expected);
        }

        // A truncated file fails naming it, through the ranges as natively.
        Path truncated = tables.resolve("truncated");
        java.nio.file.Files.createDirectories(truncated);
        Path source;
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(path)) {
            source = files.filter(f -> !f.getFileName().toString().startsWith(".")).findFirst().orElseThrow();
        }
        byte[] bytes = java.nio.file.Files.readAllBytes(source);
        java.nio.file.Files.write(truncated.resolve("cut.parquet"), java.util.Arrays.copyOf(bytes, bytes.length / 2));
        env.executeSql(
                "CREATE TABLE cut (i INT) WITH ('connector' = 'streamfusion-parquet', 'path' = '" + truncated.toUri()
                        + "', 'streamfusion.file-access' = 'flink-filesystem')");
        assertThatThrownBy(() -> rows(env, "SELECT * FROM cut")).hasStackTraceContaining("cut.parquet");
        env.executeSql(
                "CREATE TABLE wrong_access (i INT) WITH ('connector' = 'streamfusion-parquet', 'path' = '" + path
                        + "', 'streamfusion.file-access' = 'sometimes')");
        assertThatThrownBy(() -> rows(env, "SELECT * FROM wrong_access"))
                .hasStackTraceContaining("'streamfusion.file-access' = 'sometimes'");
    }

    /**
     * {@code 'streamfusion.errors' = 'SKIP'}: a file whose footer cannot be read (here one cut in
     * half) is skipped and the other files read; without the option the job fails naming it.
     */
    @Test
    void aFileWhoseFooterCannotBeReadIsSkippedUnderTheSkipPolicy() throws Exception {
        Path path = tables.resolve("types");
        Path mixed = tables.resolve("skip_mixed");
        java.nio.file.Files.createDirectories(mixed);
        Path source;
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(path)) {
            source = files.filter(f -> !f.getFileName().toString().startsWith(".")).findFirst().orElseThrow();
        }
        java.nio.file.Files.copy(source, mixed.resolve("good.parquet"));
        byte[] bytes = java.nio.file.Files.readAllBytes(source);
        java.nio.file.Files.write(mixed.resolve("cut.parquet"), java.util.Arrays.copyOf(bytes, bytes.length / 2));
        TableEnvironment env = batch();
        env.executeSql(ddl("stock_good", "filesystem", WITH_METADATA, mixed.resolve("good.parquet").toString()));
        env.executeSql(
                "CREATE TABLE skipping (" + WITH_METADATA + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                        + mixed.toUri() + "', 'streamfusion.errors' = 'SKIP')");
        List<String> expected = rows(env, "SELECT i, s, file_name FROM stock_good");
        assertThat(expected).isNotEmpty();
        assertThat(rows(env, "SELECT i, s, file_name FROM skipping")).containsExactlyInAnyOrderElementsOf(expected);
        env.executeSql(
                "CREATE TABLE failing (" + WITH_METADATA + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                        + mixed.toUri() + "')");
        assertThatThrownBy(() -> rows(env, "SELECT * FROM failing")).hasStackTraceContaining("Cannot read the footer of")
                .hasStackTraceContaining("cut.parquet");
        // A file has no dead-letter place: the policy is refused at planning.
        env.executeSql(
                "CREATE TABLE dead_lettering (" + WITH_METADATA + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                        + mixed.toUri() + "', 'streamfusion.errors' = 'DEAD_LETTER')");
        assertThatThrownBy(() -> env.explainSql("SELECT * FROM dead_lettering"))
                .hasStackTraceContaining("'streamfusion.errors' = 'DEAD_LETTER' is for streamfusion-kafka tables");
    }

    /**
     * {@code 'format' = 'streamfusion-parquet'} under Flink's filesystem connector: Flink's file
     * source fetches ahead and closes a file's reader while that file's batches are still queued
     * or being read, over many files of several batches each.
     */
    @Test
    void theBulkFormatReadsManyFilesOfManyBatchesAsFlinkDoes() throws Exception {
        Path path = tables.resolve("many_files");
        TableEnvironment writer = batch();
        // One writer: a file per partition, of three batches or more each.
        writer.getConfig().set("table.exec.resource.default-parallelism", "1");
        writer.executeSql(
                "CREATE TABLE many_gen (id BIGINT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '150000', "
                        + "'rows-per-second' = '1000000000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
                        + "'fields.id.end' = '150000', 'fields.s.length' = '9', 'fields.s.null-rate' = '0.1')");
        String columns = "id BIGINT, s STRING, part INT";
        writer.executeSql(ddl("many_out", "filesystem", columns, path.toString(), "PARTITIONED BY (part)"));
        writer.executeSql("INSERT INTO many_out SELECT id, s, CAST(MOD(id, 12) AS INT) FROM many_gen").await();

        TableEnvironment env = batch();
        env.executeSql(ddl("stock", "filesystem", columns, path.toString(), "PARTITIONED BY (part)"));
        env.executeSql(
                "CREATE TABLE fused_format (" + columns + ") PARTITIONED BY (part) WITH ('connector' = 'filesystem', "
                        + "'path' = '" + path + "', 'format' = 'streamfusion-parquet')");
        List<String> expected = rows(env, "SELECT * FROM stock");
        assertThat(expected).hasSize(150_000);
        // Sorted first: comparing 150,000 rows in any order one by one takes minutes.
        assertThat(sorted(rows(env, "SELECT * FROM fused_format"))).containsExactlyElementsOf(sorted(expected));
        assertThat(sorted(rows(env, "SELECT s, part FROM fused_format WHERE id > 100000")))
                .containsExactlyElementsOf(sorted(rows(env, "SELECT s, part FROM stock WHERE id > 100000")));
    }

    /**
     * The planner sees the row count Flink's filesystem connector reports from the footers
     * ({@code source.report-statistics}); Parquet options that are unknown or malformed are
     * refused at planning, naming them, through the connector and through the format.
     */
    @Test
    void statisticsAreReportedAndParquetOptionsChecked() throws Exception {
        Path path = tables.resolve("types");
        TableEnvironment env = batch();
        env.executeSql(ddl("stock", "filesystem", TYPES, path.toString()));
        env.executeSql(ddl("fused", "streamfusion-parquet", TYPES, path.toString()));
        env.executeSql(
                "CREATE TABLE fused_unreported (" + TYPES + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                        + path + "', 'source.report-statistics' = 'NONE')");
        String stockPlan = env.explainSql("SELECT * FROM stock", ExplainDetail.ESTIMATED_COST);
        assertThat(stockPlan).contains("rowcount = 20000.0");
        assertThat(env.explainSql("SELECT * FROM fused", ExplainDetail.ESTIMATED_COST)).contains("rowcount = 20000.0");
        assertThat(env.explainSql("SELECT * FROM fused_unreported", ExplainDetail.ESTIMATED_COST))
                .doesNotContain("rowcount = 20000.0");

        // Read options Flink's parquet format takes, and writer options, are accepted on reads.
        env.executeSql(
                "CREATE TABLE fused_options (i INT) WITH ('connector' = 'streamfusion-parquet', 'path' = '" + path
                        + "', 'parquet.utc-timezone' = 'TRUE', 'parquet.batch-size' = '1024', 'parquet.compression' = 'ZSTD')");
        assertThat(rows(env, "SELECT COUNT(i) FROM fused_options"))
                .containsExactlyElementsOf(rows(env, "SELECT COUNT(i) FROM stock"));
        for (String[] bad : new String[][] {
            {"'parquet.utc-timezone' = 'maybe'", "parquet.utc-timezone"},
            {"'parquet.page.verify-checksum' = 'true'", "parquet.page.verify-checksum"},
            {"'parquet.batch-size' = 'many'", "parquet.batch-size"},
        }) {
            String table = "bad_" + Math.abs(bad[0].hashCode());
            env.executeSql("CREATE TABLE " + table + " (i INT) WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                    + path + "', " + bad[0] + ")");
            assertThatThrownBy(() -> env.explainSql("SELECT * FROM " + table))
                    .isInstanceOf(ValidationException.class)
                    .hasStackTraceContaining("Invalid Parquet option of table")
                    .hasStackTraceContaining(bad[1]);
            String format = "bad_format_" + Math.abs(bad[0].hashCode());
            env.executeSql("CREATE TABLE " + format + " (i INT) WITH ('connector' = 'filesystem', 'path' = '" + path
                    + "', 'format' = 'streamfusion-parquet', " + bad[0].replace("'parquet.", "'streamfusion-parquet.") + ")");
            assertThatThrownBy(() -> env.explainSql("SELECT * FROM " + format))
                    .isInstanceOf(ValidationException.class)
                    .hasStackTraceContaining("Invalid Parquet option of table")
                    .hasStackTraceContaining(bad[1]);
        }
        // A continuous read's interval must be above 0, as Flink's file source checks it.
        env.executeSql("CREATE TABLE never_listed (i INT) WITH ('connector' = 'streamfusion-parquet', 'path' = '" + path
                + "', 'source.monitor-interval' = '0 s')");
        assertThatThrownBy(() -> env.explainSql("SELECT * FROM never_listed"))
                .isInstanceOf(ValidationException.class)
                .hasStackTraceContaining("'source.monitor-interval' = '0 ms'")
                .hasStackTraceContaining("never_listed");
    }

    /**
     * {@code streamfusion.memory-limit}: a reader under it reads what Flink reads and reports
     * what it holds; one over it fails naming the option and the file, through the connector and
     * through the format; a malformed or zero limit fails at planning naming the option.
     */
    @Test
    void aReaderOverItsMemoryLimitFailsNamingTheLimitAndTheFile() throws Exception {
        Path path = tables.resolve("types");
        TableEnvironment env = batch();
        env.executeSql(ddl("stock", "filesystem", TYPES, path.toString()));
        env.executeSql(
                "CREATE TABLE roomy (" + TYPES + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '" + path.toUri()
                        + "', 'streamfusion.file-access' = 'flink-filesystem', 'streamfusion.memory-limit' = '64mb')");
        TableResult result = env.executeSql("SELECT * FROM roomy");
        assertThat(rows(result)).containsExactlyInAnyOrderElementsOf(rows(env, "SELECT * FROM stock"));
        // The last batch of each reader, with the column chunks it was read from.
        long held = gauge(METRICS.findMetrics(result.getJobClient().orElseThrow().getJobID(), "memoryBytes"), "memoryBytes");
        assertThat(held).isPositive().isLessThan(64L << 20);

        env.executeSql(
                "CREATE TABLE cramped (" + TYPES + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '" + path
                        + "', 'streamfusion.memory-limit' = '16kb')");
        assertThatThrownBy(() -> rows(env, "SELECT * FROM cramped"))
                .hasStackTraceContaining("more than 'streamfusion.memory-limit'")
                .hasStackTraceContaining(path.toString());
        env.executeSql(
                "CREATE TABLE cramped_format (" + TYPES + ") WITH ('connector' = 'filesystem', 'path' = '" + path
                        + "', 'format' = 'streamfusion-parquet', 'streamfusion-parquet.memory-limit' = '16kb')");
        assertThatThrownBy(() -> rows(env, "SELECT * FROM cramped_format"))
                .hasStackTraceContaining("'streamfusion-parquet.memory-limit'")
                .hasStackTraceContaining(path.toString());

        for (String bad : List.of("'lots'", "'0b'")) {
            String table = "bad_limit_" + Math.abs(bad.hashCode());
            env.executeSql("CREATE TABLE " + table + " (i INT) WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                    + path + "', 'streamfusion.memory-limit' = " + bad + ")");
            assertThatThrownBy(() -> env.executeSql("SELECT * FROM " + table).await())
                    .isInstanceOf(org.apache.flink.table.api.ValidationException.class)
                    .hasStackTraceContaining("streamfusion.memory-limit");
        }
    }

    /**
     * A file as pyarrow and pandas write it (generated by {@code pyarrow/generate.py}): the Arrow
     * schema embedded, a dictionary (categorical) string column, a large string column, a
     * timestamp with a time zone. Read by its Parquet schema, as Flink reads it.
     */
    @Test
    void filesPyarrowWritesReadAsFlinkReadsThem() throws Exception {
        Path file = Paths.get(StreamFusionParquetITCase.class.getResource("/pyarrow/pyarrow.parquet").toURI());
        String columns = "id BIGINT, category STRING, name STRING, ts TIMESTAMP(6), `day` DATE, score DOUBLE";
        assertSameRows(columns, file, "SELECT * FROM %s");
        assertSameRows(columns, file, "SELECT category, COUNT(*), MAX(name) FROM %s GROUP BY category");
        assertSameRows(columns, file, "SELECT id, ts FROM %s WHERE category = 'red' AND id > 100");
    }

    @Test
    void columnsTheFileLacksReadAsNulls() throws Exception {
        assertSameRows("i INT, not_written STRING", tables.resolve("types"), "SELECT i, not_written FROM %s");
    }

    @Test
    void badInputFailsNamingTheFileOrTheColumn() {
        TableEnvironment env = batch();
        env.executeSql(ddl("missing", "streamfusion-parquet", "i INT", tables.resolve("no-such-dir").toString()));
        assertThatThrownBy(() -> rows(env, "SELECT * FROM missing")).hasStackTraceContaining("no-such-dir");

        Path corrupt = TESTDATA.resolve("../bad_data/PARQUET-1481.parquet").toAbsolutePath().normalize();
        env.executeSql(ddl("corrupt", "streamfusion-parquet", "i INT", corrupt.toString()));
        assertThatThrownBy(() -> rows(env, "SELECT * FROM corrupt")).hasStackTraceContaining("PARQUET-1481.parquet");

        env.executeSql(ddl("mismatch", "streamfusion-parquet", "s DATE", tables.resolve("types").toString()));
        assertThatThrownBy(() -> rows(env, "SELECT * FROM mismatch")).hasStackTraceContaining("column 's'");

        // Two maps whose keys decode to more than 2 GiB: refused clearly, not an out-of-memory.
        Path large = TESTDATA.resolve("large_string_map.brotli.parquet").toAbsolutePath().normalize();
        env.executeSql(ddl("large_map", "streamfusion-parquet", "arr MAP<STRING, INT>", large.toString()));
        assertThatThrownBy(() -> rows(env, "SELECT * FROM large_map"))
                .hasStackTraceContaining("large_string_map.brotli.parquet")
                .hasStackTraceContaining("more than 2 GiB of text or bytes within 4096 rows");

        env.executeSql(
                "CREATE TABLE badly_formatted (i INT) WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                        + tables.resolve("types") + "', 'format' = 'orc')");
        assertThatThrownBy(() -> rows(env, "SELECT * FROM badly_formatted"))
                .hasStackTraceContaining("'format' = 'orc': streamfusion-parquet supports only 'parquet'");
    }

    /** The metadata columns of Flink's filesystem connector, declared after {@link #TYPES}. */
    private static final String WITH_METADATA =
            TYPES + ", file_path STRING NOT NULL METADATA FROM 'file.path' VIRTUAL, "
                    + "file_name STRING NOT NULL METADATA FROM 'file.name' VIRTUAL, "
                    + "file_size BIGINT NOT NULL METADATA FROM 'file.size' VIRTUAL, "
                    + "mtime TIMESTAMP_LTZ(3) NOT NULL METADATA FROM 'file.modification-time' VIRTUAL";

    @Test
    void metadataColumnsReadWhatFlinkReads() throws Exception {
        Path path = tables.resolve("types");
        assertSameRows(WITH_METADATA, path, "SELECT * FROM %s");
        assertSameRows(WITH_METADATA, path, "SELECT i, file_name, file_size FROM %s WHERE i > 0");
        assertSameRows(WITH_METADATA, path, "SELECT file_path, mtime, COUNT(*) FROM %s GROUP BY file_path, mtime");
        assertSameRows(WITH_METADATA, path, "SELECT DISTINCT file_name, file_size FROM %s");
    }

    /** The directory {@code name} of a table of {@code columns} holding {@code values}, written by Flink's own sink. */
    private static Path writtenByFlink(String name, String columns, String values) throws Exception {
        return writtenByFlink(name, columns, "", values);
    }

    /** As {@link #writtenByFlink(String, String, String)}, the table {@code partitionedBy} (a clause, or ""). */
    private static Path writtenByFlink(String name, String columns, String partitionedBy, String values) throws Exception {
        Path path = tables.resolve(name);
        TableEnvironment writer = batch();
        writer.executeSql(ddl("written", "filesystem", columns, path.toString(), partitionedBy));
        writer.executeSql("INSERT INTO written VALUES " + values).await();
        return path;
    }

    /**
     * A filter on a metadata column never prunes by the statistics of a file column that has its
     * name: the file's column {@code sz} (0 to 9) is not the table's {@code sz}, the file's size.
     */
    @Test
    void aFilterOnAMetadataColumnPrunesNothingByAFileColumnOfItsName() throws Exception {
        Path path = writtenByFlink("shadowed", "id INT, sz BIGINT", "(1, 0), (2, 3), (3, 9)");
        String columns = "id INT, sz BIGINT NOT NULL METADATA FROM 'file.size' VIRTUAL";
        assertSameRows(columns, path, "SELECT id FROM %s WHERE sz > 100");
        assertSameRows(columns, path, "SELECT id, sz FROM %s WHERE sz >= 10 AND id > 1");
    }

    /**
     * A TINYINT or SMALLINT read from a plain INT32 column keeps each value's low bits, as Flink's
     * reader narrows it, and the column's statistics (of the wider values) prune nothing.
     */
    @Test
    void narrowIntegersFromWiderInt32ValuesReadAsFlinkReadsThem() throws Exception {
        Path path = writtenByFlink("wide_ints", "id INT, b INT", "(1, 5), (2, 200), (3, -40000), (4, 300), (5, CAST(NULL AS INT))");
        String columns = "id INT, b TINYINT";
        assertSameRows(columns, path, "SELECT * FROM %s");
        assertSameRows(columns, path, "SELECT id, b FROM %s WHERE b < 0");
        assertSameRows("id INT, b SMALLINT", path, "SELECT id, b FROM %s WHERE b > 20000");
    }

    /**
     * Flink's reader picks its column reader by the table's type and reads an INT32 column of
     * integers whatever its width annotation: INT(8) into SMALLINT, INT(16) into TINYINT (low
     * bits).
     */
    @Test
    void int32ColumnsOfAnyWidthReadIntoTheTablesIntegerTypeAsFlinkReadsThem() throws Exception {
        Path path = writtenByFlink("annotated_ints", "id INT, t TINYINT, s SMALLINT",
                "(1, CAST(-5 AS TINYINT), CAST(300 AS SMALLINT)), (2, CAST(127 AS TINYINT), CAST(-129 AS SMALLINT)), "
                        + "(3, CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT))");
        assertSameRows("id INT, t SMALLINT, s TINYINT", path, "SELECT * FROM %s");
        assertSameRows("id INT, t INT, s SMALLINT", path, "SELECT id, t, s FROM %s WHERE t > 0");
    }

    /**
     * Bytes that are not UTF-8 read as a STRING fail naming the file and the column (Flink's reader
     * keeps the bytes; Arrow's strings are UTF-8); read as BYTES they are Flink's.
     */
    @Test
    void textThatIsNotUtf8FailsNamingTheFileAndTheColumn() throws Exception {
        Path path = writtenByFlink("latin1", "id INT, s BYTES", "(1, X'636166E9'), (2, X'616263')");
        TableEnvironment env = batch();
        env.executeSql(ddl("latin1_text", "streamfusion-parquet", "id INT, s STRING", path.toString(), ""));
        assertThatThrownBy(() -> rows(env, "SELECT * FROM latin1_text"))
                .hasStackTraceContaining(path.toString())
                .hasStackTraceContaining("column 's'");
        assertSameRows("id INT, s BYTES", path, "SELECT * FROM %s");
    }

    /**
     * INT96 timestamps finer than the table's precision lose the finer digits the same way nested
     * in a ROW or an ARRAY as at the top level. (Flink's writer stores 1969-12-31 23:59:59.9985 with
     * a negative nanosecond of the day, which its reader, and so this one, reads as 1970-01-01
     * 00:00:00.9985; flooring before 1970 is checked in the native reader's tests.)
     */
    @Test
    void int96TimestampsFinerThanTheTableAreFlooredNestedAsAtTheTopLevel() throws Exception {
        Path path = writtenByFlink("fine_int96", "id INT, t TIMESTAMP(6), r ROW<t TIMESTAMP(6)>, a ARRAY<TIMESTAMP(6)>",
                "(1, TIMESTAMP '1969-12-31 23:59:59.998500', ROW(TIMESTAMP '1969-12-31 23:59:59.998500'), "
                        + "ARRAY[TIMESTAMP '1969-12-31 23:59:59.998500'])");
        assertSameRows("id INT, t TIMESTAMP(6), r ROW<t TIMESTAMP(6)>, a ARRAY<TIMESTAMP(6)>", path, "SELECT * FROM %s");
        TableEnvironment env = batch();
        env.executeSql(ddl("fine_int96", "streamfusion-parquet",
                "id INT, t TIMESTAMP(3), r ROW<t TIMESTAMP(3)>, a ARRAY<TIMESTAMP(3)>", path.toString(), ""));
        assertThat(rows(env, "SELECT id, t, r.t, a[1] FROM fine_int96"))
                .containsExactly("+I[1, 1970-01-01T00:00:00.998, 1970-01-01T00:00:00.998, 1970-01-01T00:00:00.998]");
    }

    @Test
    void partitionedTablesReadWhatFlinkReadsAndPrunePartitions() throws Exception {
        Path path = tables.resolve("partitioned");
        // Partition columns in the middle of the schema.
        String columns = "id BIGINT, part STRING, s STRING, shard INT";
        String partitioned = "PARTITIONED BY (part, shard)";
        TableEnvironment writer = batch();
        writer.executeSql(
                "CREATE TABLE part_gen (id BIGINT, s STRING) WITH ('connector' = 'datagen', "
                        + "'rows-per-second' = '1000000000', 'number-of-rows' = '6000', 'fields.id.kind' = 'sequence', "
                        + "'fields.id.start' = '1', 'fields.id.end' = '6000', 'fields.s.length' = '8')");
        writer.executeSql(ddl("part_out", "filesystem", columns, path.toString(), partitioned));
        writer.executeSql(
                        "INSERT INTO part_out SELECT id, CAST(MOD(id, 3) AS STRING), s, CAST(MOD(id, 2) AS INT) FROM part_gen")
                .await();
        // A Parquet file outside the partition directories: not a row of the table for Flink.
        try (Stream<Path> written = Files.walk(path.resolve("part=1"))) {
            Path partFile = written.filter(Files::isRegularFile)
                    .filter(f -> !f.getFileName().toString().startsWith("."))
                    .findFirst()
                    .orElseThrow();
            Files.copy(partFile, path.resolve("stray.parquet"));
        }

        assertSameRows(columns, path, partitioned, "SELECT * FROM %s");
        assertSameRows(columns, path, partitioned, "SELECT s, part FROM %s WHERE part = '1'");
        assertSameRows(columns, path, partitioned, "SELECT id, shard FROM %s WHERE shard = 1 AND part IS NOT NULL");
        assertSameRows(columns, path, partitioned, "SELECT part, shard, COUNT(*), MAX(id) FROM %s GROUP BY part, shard");
        assertSameRows(columns, path, partitioned, "SELECT COUNT(*) FROM %s WHERE id > 100 AND part <> '2'");

        // The same table under a directory named like a partition (env=prod), its root named like
        // a hidden file: directories above the root are no partitions of the table, and Flink lists
        // a partitioned root's partitions whatever the root's own name.
        Path nested = tables.resolve("env=prod").resolve("_partitioned");
        copyTree(path, nested);
        assertSameRows(columns, nested, partitioned, "SELECT * FROM %s");
        assertSameRows(columns, nested, partitioned, "SELECT s, part FROM %s WHERE part = '1'");
        assertSameRows(columns, nested, partitioned, "SELECT id, shard FROM %s WHERE shard = 1 AND part <> '0'");
        // And given as a path relative to the working directory.
        Path relative = Path.of("target", "relative-partitioned-" + System.nanoTime());
        copyTree(path, relative);
        assertThat(relative.isAbsolute()).isFalse();
        assertSameRows(columns, relative, partitioned, "SELECT * FROM %s");
        assertSameRows(columns, relative, partitioned, "SELECT s, part FROM %s WHERE part = '1'");

        // The planner keeps one partition of six: the others' files are not even listed.
        TableEnvironment env = batch();
        env.executeSql(ddl("pruned", "streamfusion-parquet", columns, path.toString(), partitioned));
        TableResult all = env.executeSql("SELECT id FROM pruned");
        assertThat(rows(all)).hasSize(6000);
        TableResult one = env.executeSql("SELECT id FROM pruned WHERE part = '1' AND shard = 0");
        assertThat(rows(one)).isNotEmpty();
        long listedForAll = gauge(METRICS.findMetrics(all.getJobClient().orElseThrow().getJobID(), "streamfusion"), "rowGroups");
        long listedForOne = gauge(METRICS.findMetrics(one.getJobClient().orElseThrow().getJobID(), "streamfusion"), "rowGroups");
        assertThat(listedForOne).isPositive().isLessThan(listedForAll);

        // A NULL partition value is written as the default partition name and reads back as NULL.
        // (Flink's own filesystem source fails to plan over such a directory, so no parity here.)
        Path withNull = tables.resolve("partitioned_null");
        writer.executeSql(ddl("null_out", "filesystem", columns, withNull.toString(), partitioned));
        writer.executeSql("INSERT INTO null_out VALUES (1, CAST(NULL AS STRING), 'a', 0), (2, 'x', 'b', 1)").await();
        assertThat(withNull.resolve("part=__DEFAULT_PARTITION__")).isDirectory();
        env.executeSql(ddl("with_null", "streamfusion-parquet", columns, withNull.toString(), partitioned));
        assertThat(rows(env, "SELECT * FROM with_null"))
                .containsExactlyInAnyOrder("+I[1, null, a, 0]", "+I[2, x, b, 1]");
        assertThat(rows(env, "SELECT id FROM with_null WHERE part IS NULL")).containsExactly("+I[1]");
    }

    /**
     * Flink's filesystem source tests only the last level of partition directories and what lies
     * below for hidden names, so a first partition key named {@code _a} is read; and a
     * partitioned table whose path does not exist yet has no partition, so no rows.
     */
    @Test
    void partitionDirectoriesAboveTheLastLevelAreNeverHiddenAndAMissingPartitionedPathHasNoRows() throws Exception {
        String columns = "id BIGINT, `_a` STRING, b INT";
        String partitioned = "PARTITIONED BY (`_a`, b)";
        Path path = writtenByFlink("underscored", columns, partitioned, "(1, 'x', 1), (2, 'x', 2), (3, 'y', 1)");
        assertThat(path.resolve("_a=x").resolve("b=1")).isDirectory();
        assertSameRows(columns, path, partitioned, "SELECT * FROM %s");
        assertSameRows(columns, path, partitioned, "SELECT id FROM %s WHERE b = 1");

        TableEnvironment env = batch();
        String missing = tables.resolve("not-written-yet").toString();
        env.executeSql(ddl("stock_missing", "filesystem", "id BIGINT, dt STRING", missing, "PARTITIONED BY (dt)"));
        env.executeSql(ddl("fused_missing", "streamfusion-parquet", "id BIGINT, dt STRING", missing, "PARTITIONED BY (dt)"));
        assertThat(rows(env, "SELECT * FROM stock_missing")).isEmpty();
        assertThat(rows(env, "SELECT * FROM fused_missing")).isEmpty();
        assertThat(rows(env, "SELECT * FROM fused_missing WHERE dt = 'd1'")).isEmpty();
    }

    /** A continuous read whose path is missing when it starts fails, as Flink's file source does. */
    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aContinuousReadOfAMissingPathFailsWhenItStartsAsFlinksDoes() {
        String missing = tables.resolve("never-written").toString();
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        for (String connector : List.of("filesystem", "streamfusion-parquet")) {
            String table = connector.replace('-', '_') + "_watching";
            env.executeSql("CREATE TABLE " + table + " (id BIGINT) WITH ('connector' = '" + connector + "', 'path' = '"
                    + missing + "', 'format' = 'parquet', 'source.monitor-interval' = '100 ms')");
            assertThatThrownBy(() -> rows(env, "SELECT * FROM " + table)).as(connector).hasStackTraceContaining("never-written");
        }
    }

    /** Copies the directory tree at {@code from} to {@code to}. */
    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> tree = Files.walk(from)) {
            for (Path source : (Iterable<Path>) tree::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target);
                }
            }
        }
    }

    /**
     * The rows of {@code committed} so far, while the job writing them runs: a listing by Flink's
     * file source that races a part file being moved counts as none yet.
     */
    private static int committedSoFar(TableEnvironment reader) throws Exception {
        try {
            return rows(reader, "SELECT id FROM committed").size();
        } catch (RuntimeException e) {
            if (ExceptionUtils.findThrowable(e, FileNotFoundException.class).isPresent()) {
                return 0;
            }
            throw e;
        }
    }

    @Test
    void continuousReadingPicksUpNewFilesExactlyOnceAcrossARestart() throws Exception {
        Path in = tables.resolve("incoming");
        Path out = tables.resolve("incoming_copy");
        String columns = "id BIGINT, s STRING";
        writeIds(in, 1, 1000);
        StreamTableEnvironment env = FailOnce.restartingTables(2, Duration.ofMillis(200));
        env.executeSql(
                "CREATE TABLE incoming (" + columns + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '" + in
                        + "', 'source.monitor-interval' = '200 ms')");
        env.executeSql(ddl("copied", "filesystem", columns, out.toString()));
        FailOnce.reset(1500);
        TableResult job = env.executeSql("INSERT INTO copied SELECT fail_once(id), s FROM incoming");
        try {
            // Files added while the job runs, before and after its failure.
            writeIds(in, 1001, 2000);
            writeIds(in, 2001, 3000);
            TableEnvironment reader = batch();
            reader.executeSql(ddl("committed", "filesystem", columns, out.toString()));
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (committedSoFar(reader) < 3000 && System.nanoTime() < deadline) {
                Thread.sleep(500);
            }
        } finally {
            job.getJobClient().orElseThrow().cancel().get(1, TimeUnit.MINUTES);
        }
        assertThat(FailOnce.failed()).as("the job failed once").isTrue();
        TableEnvironment reader = batch();
        reader.executeSql(ddl("committed", "filesystem", columns, out.toString()));
        List<String> expected = new ArrayList<>();
        for (long id = 1; id <= 3000; id++) {
            expected.add(Row.of(id, "row-" + id).toString());
        }
        assertThat(rows(reader, "SELECT * FROM committed")).containsExactlyInAnyOrderElementsOf(expected);
    }

    /** Adds a file of rows {@code (id, 'row-' || id)} for ids {@code from..to} to {@code dir}. */
    private static void writeIds(Path dir, long from, long to) throws Exception {
        TableEnvironment env = batch();
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        env.executeSql(
                "CREATE TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000', "
                        + "'number-of-rows' = '" + (to - from + 1) + "', 'fields.id.kind' = 'sequence', "
                        + "'fields.id.start' = '" + from + "', 'fields.id.end' = '" + to + "')");
        env.executeSql(ddl("files", "filesystem", "id BIGINT, s STRING", dir.toString()));
        env.executeSql("INSERT INTO files SELECT id, CONCAT('row-', CAST(id AS STRING)) FROM ids").await();
    }
}
