package dev.streamfusion.parquet;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(METRICS.addToConfiguration(new Configuration()))
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

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
        return "CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = '" + connector + "', 'path' = '"
                + path + "', 'format' = 'parquet')";
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
        TableEnvironment env = batch();
        env.executeSql(ddl("stock", "filesystem", columns, path.toString()));
        env.executeSql(ddl("fused", "streamfusion-parquet", columns, path.toString()));
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

        env.executeSql(
                "CREATE TABLE monitored (i INT) WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                        + tables.resolve("types") + "', 'source.monitor-interval' = '1 s')");
        assertThatThrownBy(() -> rows(env, "SELECT * FROM monitored"))
                .hasStackTraceContaining("'source.monitor-interval': continuous reading is not implemented yet");
    }
}
