package dev.streamfusion.parquet;

import dev.streamfusion.testkit.flink.FailOnce;
import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Files written by streamfusion-parquet, read back by Flink's filesystem connector, by
 * streamfusion-parquet and by parquet-java, in real MiniCluster jobs; and the exactly-once
 * guarantees of the sink across a failure.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
class StreamFusionParquetSinkITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    /** Every type Flink's Parquet format writes, NULLs in every column. */
    private static final String TYPES =
            "id BIGINT, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, f FLOAT, d DOUBLE, s STRING, bin BYTES, "
                    + "price DECIMAL(10, 2), small DECIMAL(5, 1), wide DECIMAL(38, 10), dt DATE, tm TIME(0), "
                    + "ts TIMESTAMP(3), micros TIMESTAMP(6), ltz TIMESTAMP_LTZ(3)";

    private static final String NESTED =
            "id BIGINT, tags ARRAY<STRING>, counts MAP<STRING, BIGINT>, point ROW<x INT, label STRING>, "
                    + "matrix ARRAY<ARRAY<INT>>";

    @TempDir static Path tables;

    /** Rows of every type, written once by stock Flink: the input of the writes under test. */
    @BeforeAll
    static void writeInputWithFlink() throws Exception {
        TableEnvironment env = batch();
        StringBuilder nulls = new StringBuilder();
        for (String column : new String[] {"b", "ti", "si", "i", "f", "d", "s", "price", "small", "wide", "ts", "micros", "ltz"}) {
            nulls.append(", 'fields.").append(column).append(".null-rate' = '0.1'");
        }
        env.executeSql(
                "CREATE TABLE gen (" + TYPES + ") WITH ('connector' = 'datagen', 'number-of-rows' = '20000', "
                        + "'rows-per-second' = '1000000000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
                        + "'fields.id.end' = '20000', 'fields.s.length' = '12', 'fields.bin.length' = '7'" + nulls + ")");
        env.executeSql(ddl("input", "filesystem", TYPES, tables.resolve("input"), ""));
        env.executeSql("INSERT INTO input SELECT * FROM gen").await();

        env.executeSql(
                "CREATE TABLE nested_gen (" + NESTED + ") WITH ('connector' = 'datagen', 'number-of-rows' = '3000', "
                        + "'rows-per-second' = '1000000000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
                        + "'fields.id.end' = '3000', 'fields.tags.null-rate' = '0.2', 'fields.counts.null-rate' = '0.2', "
                        + "'fields.point.null-rate' = '0.2')");
        env.executeSql(ddl("nested_input", "filesystem", NESTED, tables.resolve("nested_input"), ""));
        env.executeSql("INSERT INTO nested_input SELECT * FROM nested_gen").await();
    }

    private static TableEnvironment batch() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "2");
        return env;
    }

    private static String ddl(String name, String connector, String columns, Path path, String extra) {
        return "CREATE TABLE " + name + " (" + columns + ") " + extra + " WITH ('connector' = '" + connector
                + "', 'path' = '" + path + "', 'format' = 'parquet')";
    }

    private static List<String> rows(TableEnvironment env, String query) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = env.executeSql(query).collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        return rows;
    }

    /** The visible (committed) Parquet files under {@code dir}. */
    private static List<Path> dataFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .filter(f -> !f.getFileName().toString().startsWith(".") && !f.getFileName().toString().startsWith("_"))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    /** TIME of any precision is written as Flink writes it (INT32 milliseconds), which Flink's reader needs. */
    @Test
    void timesOfAnyPrecisionReadBackThroughFlink() throws Exception {
        TableEnvironment env = batch();
        String columns = "id INT, t0 TIME(0), t3 TIME(3), t6 TIME(6)";
        Path path = tables.resolve("times");
        env.executeSql(ddl("times_out", "streamfusion-parquet", columns, path, ""));
        env.executeSql("INSERT INTO times_out VALUES (1, TIME '00:00:00', TIME '12:34:56.789', TIME '23:59:59.999'), "
                + "(2, TIME '01:02:03', CAST(NULL AS TIME(3)), TIME '00:00:00.001')").await();
        env.executeSql(ddl("times_stock", "filesystem", columns, path, ""));
        env.executeSql(ddl("times_ours", "streamfusion-parquet", columns, path, ""));
        List<String> stock = rows(env, "SELECT * FROM times_stock");
        assertThat(stock).containsExactlyInAnyOrder(
                "+I[1, 00:00, 12:34:56.789, 23:59:59.999]", "+I[2, 01:02:03, null, 00:00:00.001]");
        assertThat(rows(env, "SELECT * FROM times_ours")).containsExactlyInAnyOrderElementsOf(stock);
    }

    @Test
    void everyTypeWrittenNativelyReadsBackEqualThroughStockFlinkAndStreamFusion() throws Exception {
        Path out = tables.resolve("types_out");
        TableEnvironment env = batch();
        env.executeSql(ddl("input", "filesystem", TYPES, tables.resolve("input"), ""));
        env.executeSql(ddl("fused_out", "streamfusion-parquet", TYPES, out, ""));
        env.executeSql("INSERT INTO fused_out SELECT * FROM input").await();

        env.executeSql(ddl("stock_read", "filesystem", TYPES, out, ""));
        env.executeSql(ddl("fused_read", "streamfusion-parquet", TYPES, out, ""));
        List<String> expected = rows(env, "SELECT * FROM input");
        assertThat(expected).hasSize(20_000);
        assertThat(rows(env, "SELECT * FROM stock_read")).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(rows(env, "SELECT * FROM fused_read")).containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * A batch copy between the connectors (the job reuses objects): the sink is handed the
     * source's row views and copies their text and bytes from the source's Arrow columns. The files
     * read back through stock Flink as the input.
     */
    @Test
    void aBatchCopyBetweenTheConnectorsWritesEveryTypeAsItReads() throws Exception {
        copiedBetweenTheConnectorsReadsBackAsTheInput(batch(), "types_copied");
    }

    /**
     * A streaming job that does not reuse objects: streamfusion-parquet's source hands on rows in
     * Flink's binary layout, and the sink copies their bytes and transposes them natively.
     */
    @Test
    void flinksBinaryRowsOfEveryTypeAreWrittenAsTheyReadBack() throws Exception {
        copiedBetweenTheConnectorsReadsBackAsTheInput(streaming(), "binary_out");
    }

    /**
     * Copies the input into {@code out} from streamfusion-parquet to streamfusion-parquet in
     * {@code env}; stock Flink reads the copy back as the input.
     */
    private static void copiedBetweenTheConnectorsReadsBackAsTheInput(TableEnvironment env, String out) throws Exception {
        Path copied = tables.resolve(out);
        env.executeSql(ddl("fused_in", "streamfusion-parquet", TYPES, tables.resolve("input"), ""));
        env.executeSql(ddl("fused_out", "streamfusion-parquet", TYPES, copied, ""));
        env.executeSql("INSERT INTO fused_out SELECT * FROM fused_in").await(3, TimeUnit.MINUTES);

        TableEnvironment batch = batch();
        batch.executeSql(ddl("input", "filesystem", TYPES, tables.resolve("input"), ""));
        batch.executeSql(ddl("stock_read", "filesystem", TYPES, copied, ""));
        List<String> expected = rows(batch, "SELECT * FROM input");
        assertThat(expected).hasSize(20_000);
        assertThat(rows(batch, "SELECT * FROM stock_read")).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void parquetJavaReadsTheWrittenFiles() throws Exception {
        Path out = tables.resolve("java_out");
        TableEnvironment env = batch();
        env.executeSql(ddl("input", "filesystem", TYPES, tables.resolve("input"), ""));
        env.executeSql(ddl("fused_out", "streamfusion-parquet", TYPES, out, ""));
        env.executeSql("INSERT INTO fused_out SELECT * FROM input").await();

        List<String> expected = rows(env, "SELECT id, i, s, d FROM input");
        List<String> read = new ArrayList<>();
        for (Path file : dataFiles(out)) {
            try (ParquetReader<Group> reader =
                    ParquetReader.builder(new GroupReadSupport(), new org.apache.hadoop.fs.Path(file.toUri())).build()) {
                for (Group g = reader.read(); g != null; g = reader.read()) {
                    read.add(
                            Row.of(
                                            g.getLong("id", 0),
                                            g.getFieldRepetitionCount("i") == 0 ? null : g.getInteger("i", 0),
                                            g.getFieldRepetitionCount("s") == 0 ? null : g.getString("s", 0),
                                            g.getFieldRepetitionCount("d") == 0 ? null : g.getDouble("d", 0))
                                    .toString());
                }
            }
        }
        assertThat(read).containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * A column of a file written natively has a dictionary where Flink's writer (parquet-java)
     * keeps one: parquet-java drops the dictionary of a column whose first page it does not make
     * smaller, and the native writer decides from the same first rows.
     */
    @Test
    void eachColumnHasADictionaryWhereFlinksWriterKeepsOne() throws Exception {
        // Both writers store every DECIMAL as FIXED_LEN_BYTE_ARRAY, which parquet-java's format-v1
        // writer never dictionary-encodes.
        String columns = "id BIGINT, k INT, text STRING, code STRING, price DOUBLE, amount DECIMAL(9, 2), "
                + "wide DECIMAL(30, 2), big DECIMAL(30, 2), flag BOOLEAN, nothing STRING";
        TableEnvironment env = batch();
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        // More rows than parquet-java's first page holds (20,000), so rows after it are written too.
        env.executeSql("CREATE TEMPORARY TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '30000', "
                + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '30000')");
        String rows = "SELECT id, CAST(MOD(id, 50) AS INT), CONCAT('row number ', CAST(id AS STRING)), "
                + "CONCAT('code ', CAST(MOD(id, 20) AS STRING)), id / 3.0e0, CAST(MOD(id, 100) AS DECIMAL(9, 2)), "
                + "CAST(MOD(id, 100) AS DECIMAL(30, 2)), CAST(id * 1000003 AS DECIMAL(30, 2)), MOD(id, 2) = 0, "
                + "CAST(NULL AS STRING) FROM ids";
        env.executeSql(ddl("dict_stock", "filesystem", columns, tables.resolve("dict_stock"), ""));
        env.executeSql(ddl("dict_ours", "streamfusion-parquet", columns, tables.resolve("dict_ours"), ""));
        env.executeSql("INSERT INTO dict_stock " + rows).await();
        env.executeSql("INSERT INTO dict_ours " + rows).await();

        Map<String, Boolean> stock = dictionaries(tables.resolve("dict_stock"));
        assertThat(stock).isEqualTo(Map.of(
                "id", false, "k", true, "text", false, "code", true, "price", false,
                "amount", false, "wide", false, "big", false, "flag", false, "nothing", false));
        assertThat(dictionaries(tables.resolve("dict_ours"))).isEqualTo(stock);
        assertThat(rows(env, "SELECT * FROM dict_ours")).containsExactlyInAnyOrderElementsOf(rows(env, rows));
    }

    /** Whether each column of the one file under {@code dir}, of one row group, has a dictionary page. */
    private static Map<String, Boolean> dictionaries(Path dir) throws IOException {
        List<Path> files = dataFiles(dir);
        assertThat(files).hasSize(1);
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(files.get(0).toUri()), new org.apache.hadoop.conf.Configuration()))) {
            List<BlockMetaData> groups = reader.getFooter().getBlocks();
            assertThat(groups).hasSize(1);
            return groups.get(0).getColumns().stream()
                    .collect(Collectors.toMap(c -> c.getPath().toDotString(), ColumnChunkMetaData::hasDictionaryPage));
        }
    }

    @Test
    void nestedTypesRoundTripThroughBothConnectors() throws Exception {
        Path out = tables.resolve("nested_out");
        TableEnvironment env = batch();
        env.executeSql(ddl("nested_input", "filesystem", NESTED, tables.resolve("nested_input"), ""));
        env.executeSql(ddl("fused_out", "streamfusion-parquet", NESTED, out, ""));
        env.executeSql("INSERT INTO fused_out SELECT * FROM nested_input").await();
        List<String> expected = rows(env, "SELECT * FROM nested_input");
        assertThat(expected).hasSize(3_000);
        // Written natively, read by stock Flink and natively.
        env.executeSql(ddl("stock_read", "filesystem", NESTED, out, ""));
        assertThat(rows(env, "SELECT * FROM stock_read")).containsExactlyInAnyOrderElementsOf(expected);
        env.executeSql(ddl("fused_read", "streamfusion-parquet", NESTED, out, ""));
        assertThat(rows(env, "SELECT * FROM fused_read")).containsExactlyInAnyOrderElementsOf(expected);
        // Written by stock Flink, read natively, whole and in part.
        env.executeSql(ddl("fused_input", "streamfusion-parquet", NESTED, tables.resolve("nested_input"), ""));
        assertThat(rows(env, "SELECT * FROM fused_input")).containsExactlyInAnyOrderElementsOf(expected);
        // Nested fields read alone (nested projection), NULL where their row is NULL.
        assertThat(env.explainSql("SELECT point.label FROM fused_input")).contains("project=[point_label]");
        for (String query : List.of(
                "SELECT id, point.label, CARDINALITY(tags) FROM %s",
                "SELECT point.x, point.label, counts FROM %s WHERE point.x > 0",
                "SELECT point.label, matrix FROM %s")) {
            assertThat(rows(env, String.format(query, "fused_input")))
                    .containsExactlyInAnyOrderElementsOf(rows(env, String.format(query, "nested_input")));
        }
    }

    /**
     * A MULTISET is written as Flink's writer writes it (a map of each element to its count), so
     * stock Flink reads it back, and so do we.
     */
    @Test
    void multisetsAreWrittenAsFlinkWritesThem() throws Exception {
        String columns = "id BIGINT, tags MULTISET<STRING>, counts MULTISET<INT>";
        TableEnvironment env = batch();
        String collected =
                "SELECT id, COLLECT(tag), COLLECT(n) FROM (VALUES (1, 'a', 1), (1, 'a', 2), (1, CAST(NULL AS STRING), 2),"
                        + " (2, 'b', CAST(NULL AS INT)), (3, CAST(NULL AS STRING), CAST(NULL AS INT))) AS t(id, tag, n) GROUP BY id";
        env.executeSql(ddl("ms_stock", "filesystem", columns, tables.resolve("ms_stock"), ""));
        env.executeSql(ddl("ms_fused", "streamfusion-parquet", columns, tables.resolve("ms_fused"), ""));
        env.executeSql("INSERT INTO ms_stock " + collected).await();
        env.executeSql("INSERT INTO ms_fused " + collected).await();
        List<String> expected = rows(env, "SELECT * FROM ms_stock");
        assertThat(expected).hasSize(3);
        env.executeSql(ddl("ms_fused_by_stock", "filesystem", columns, tables.resolve("ms_fused"), ""));
        assertThat(rows(env, "SELECT * FROM ms_fused_by_stock")).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(rows(env, "SELECT * FROM ms_fused")).containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * Every decimal precision is stored as Flink stores it (fixed-length bytes, the fewest that
     * hold the precision), so files pass both ways between the connectors, and Flink's reader reads
     * ours into a table whose decimals were widened since (it reads INT32 and INT64 decimals only
     * into a table of the same band of precision: up to 9 digits, up to 18).
     */
    @Test
    void decimalsOfEveryPrecisionPassBothWaysBetweenTheConnectors() throws Exception {
        StringBuilder columns = new StringBuilder("id INT");
        StringBuilder values = new StringBuilder("id");
        for (int precision = 1; precision <= 38; precision++) {
            int scale = precision / 3;
            columns.append(", d").append(precision).append(" DECIMAL(").append(precision).append(", ").append(scale).append(')');
            // Full width: nines negated on odd ids, the id's last digit repeated on even ids, NULL every
            // fifth row.
            String fraction = scale > 0 ? " || '.' || REPEAT('5', " + scale + ")" : "";
            values.append(String.format(
                    ", CASE WHEN MOD(id, 5) = 0 THEN NULL WHEN MOD(id, 2) = 1 THEN CAST('-%s' AS DECIMAL(%d, %d)) "
                            + "ELSE CAST(REPEAT(CAST(MOD(id, 10) AS STRING), %d)%s AS DECIMAL(%2$d, %3$d)) END",
                    "9".repeat(precision - scale) + (scale > 0 ? "." + "9".repeat(scale) : ""),
                    precision, scale, precision - scale, fraction));
        }
        TableEnvironment env = batch();
        env.executeSql("CREATE TABLE decimal_gen (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '40', "
                + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '40')");
        Path stockWritten = tables.resolve("decimals_stock");
        Path fusedWritten = tables.resolve("decimals_fused");
        env.executeSql(ddl("decimals_stock", "filesystem", columns.toString(), stockWritten, ""));
        env.executeSql(ddl("decimals_fused", "streamfusion-parquet", columns.toString(), fusedWritten, ""));
        String select = "SELECT " + values + " FROM decimal_gen";
        env.executeSql("INSERT INTO decimals_stock " + select).await();
        env.executeSql("INSERT INTO decimals_fused " + select).await();
        List<String> expected = rows(env, "SELECT * FROM decimals_stock");
        assertThat(expected).hasSize(40);
        assertThat(rows(env, "SELECT * FROM decimals_fused")).containsExactlyInAnyOrderElementsOf(expected);
        env.executeSql(ddl("decimals_fused_by_stock", "filesystem", columns.toString(), fusedWritten, ""));
        assertThat(rows(env, "SELECT * FROM decimals_fused_by_stock")).containsExactlyInAnyOrderElementsOf(expected);
        env.executeSql(ddl("decimals_stock_by_fused", "streamfusion-parquet", columns.toString(), stockWritten, ""));
        assertThat(rows(env, "SELECT * FROM decimals_stock_by_fused")).containsExactlyInAnyOrderElementsOf(expected);

        // Widened: DECIMAL(9, 3) read as DECIMAL(12, 3), DECIMAL(18, 6) as DECIMAL(20, 6).
        String widened = columns.toString()
                .replace("d9 DECIMAL(9, 3)", "d9 DECIMAL(12, 3)")
                .replace("d18 DECIMAL(18, 6)", "d18 DECIMAL(20, 6)");
        assertThat(widened).contains("d9 DECIMAL(12, 3)", "d18 DECIMAL(20, 6)");
        env.executeSql(ddl("decimals_fused_widened", "filesystem", widened, fusedWritten, ""));
        env.executeSql(ddl("decimals_stock_widened", "filesystem", widened, stockWritten, ""));
        List<String> widenedRows = rows(env, "SELECT id, d9, d18 FROM decimals_stock_widened");
        assertThat(widenedRows).hasSize(40);
        assertThat(rows(env, "SELECT id, d9, d18 FROM decimals_fused_widened")).containsExactlyInAnyOrderElementsOf(widenedRows);
    }

    @Test
    void writerOptionsTakeFlinksNamesAndBadOnesFailAtPlanning() throws Exception {
        Path out = tables.resolve("zstd_out");
        TableEnvironment env = batch();
        env.executeSql(ddl("input", "filesystem", TYPES, tables.resolve("input"), ""));
        env.executeSql(
                "CREATE TABLE zstd_out (" + TYPES + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '" + out
                        + "', 'parquet.compression' = 'ZSTD', 'parquet.block.size' = '65536', "
                        + "'parquet.write.int64.timestamp' = 'true', 'parquet.timestamp.time.unit' = 'nanos')");
        env.executeSql("INSERT INTO zstd_out SELECT * FROM input").await();
        env.executeSql(ddl("stock_read", "filesystem", TYPES, out, ""));
        assertThat(rows(env, "SELECT * FROM stock_read"))
                .containsExactlyInAnyOrderElementsOf(rows(env, "SELECT * FROM input"));
        for (Path file : dataFiles(out)) {
            try (org.apache.parquet.hadoop.ParquetFileReader reader =
                    org.apache.parquet.hadoop.ParquetFileReader.open(
                            org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                                    new org.apache.hadoop.fs.Path(file.toUri()), new org.apache.hadoop.conf.Configuration()))) {
                // 65,536-byte row groups: more than one per file, each ZSTD.
                assertThat(reader.getRowGroups()).hasSizeGreaterThan(1);
                assertThat(reader.getRowGroups().get(0).getColumns().get(0).getCodec().name()).isEqualTo("ZSTD");
            }
        }

        env.executeSql(
                "CREATE TABLE lzo (i INT) WITH ('connector' = 'streamfusion-parquet', 'path' = '" + tables.resolve("lzo")
                        + "', 'parquet.compression' = 'LZO')");
        assertThatThrownBy(() -> env.explainSql("INSERT INTO lzo VALUES (1)"))
                .isInstanceOf(ValidationException.class)
                .hasStackTraceContaining("'parquet.compression' = 'LZO'");

        // Nested timestamps: INT96 in Flink's files, which this writer does not write, and Flink's
        // reader reads no nested INT64 timestamps; written with the option, as Flink then writes them.
        String nested = "i INT, r ROW<t TIMESTAMP(3)>";
        String values = "VALUES (1, ROW(TIMESTAMP '2024-01-01 10:00:00.5')), (2, ROW(CAST(NULL AS TIMESTAMP(3))))";
        env.executeSql("CREATE TABLE nested_ts (" + nested + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                + tables.resolve("nested_ts") + "')");
        assertThatThrownBy(() -> env.explainSql("INSERT INTO nested_ts " + values))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("Column 'r'")
                .hasMessageContaining("'parquet.write.int64.timestamp' = 'true'");
        env.executeSql("CREATE TABLE nested_int64 (" + nested + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                + tables.resolve("nested_int64") + "', 'parquet.write.int64.timestamp' = 'true')");
        env.executeSql("INSERT INTO nested_int64 " + values).await();
        assertThat(rows(env, "SELECT * FROM nested_int64"))
                .containsExactlyInAnyOrder("+I[1, +I[2024-01-01T10:00:00.500]]", "+I[2, +I[null]]");
    }

    /**
     * {@code streamfusion.memory-limit} on a sink: a subtask writing many partitions at once
     * closes row groups early to stay under it (more, smaller row groups; the same rows), and a
     * limit below what its open files need at the least fails naming the option.
     */
    @Test
    void writersOfManyPartitionsCloseRowGroupsEarlyToStayUnderTheMemoryLimit() throws Exception {
        Path out = tables.resolve("limited_out");
        String columns = "id BIGINT, s STRING, d DOUBLE, part STRING";
        String select = "SELECT id, CONCAT('name-', CAST(id * 7919 AS STRING)) AS s, CAST(id AS DOUBLE) / 8 AS d, "
                + "CAST(MOD(id, 3) AS STRING) AS part FROM ids";
        String ids = "CREATE TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000', "
                + "'number-of-rows' = '150000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '150000')";
        // One subtask with the three partitions open at once, and (checkpoints far apart) a file each.
        Configuration rarely = new Configuration();
        rarely.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(5));
        StreamExecutionEnvironment stream = StreamExecutionEnvironment.getExecutionEnvironment(rarely);
        stream.setParallelism(1);
        StreamTableEnvironment env = StreamTableEnvironment.create(stream);
        env.executeSql(ids);
        env.executeSql(
                "CREATE TABLE limited (" + columns + ") PARTITIONED BY (part) WITH ('connector' = 'streamfusion-parquet', "
                        + "'path' = '" + out + "', 'streamfusion.memory-limit' = '1mb')");
        env.executeSql("INSERT INTO limited " + select).await(3, TimeUnit.MINUTES);

        // Unbounded, each file would be one row group (parquet.block.size is 128 MB) of several MB.
        List<Path> files = dataFiles(out);
        int rowGroups = 0;
        for (Path file : files) {
            try (org.apache.parquet.hadoop.ParquetFileReader reader =
                    org.apache.parquet.hadoop.ParquetFileReader.open(
                            org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                                    new org.apache.hadoop.fs.Path(file.toUri()), new org.apache.hadoop.conf.Configuration()))) {
                for (org.apache.parquet.hadoop.metadata.BlockMetaData group : reader.getRowGroups()) {
                    assertThat(group.getTotalByteSize()).as("a row group of %s", file).isLessThanOrEqualTo(1L << 20);
                    rowGroups++;
                }
            }
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(3);
        assertThat(rowGroups).isGreaterThan(2 * files.size());
        TableEnvironment batch = batch();
        batch.executeSql(ids);
        batch.executeSql(ddl("stock_read", "filesystem", columns, out, "PARTITIONED BY (part)"));
        String summary = "SELECT part, COUNT(*), COUNT(DISTINCT id), SUM(id), SUM(CHAR_LENGTH(s)), SUM(d) FROM %s GROUP BY part";
        List<String> expected = rows(batch, String.format(summary, "(" + select + ")"));
        assertThat(expected).hasSize(3);
        assertThat(rows(batch, String.format(summary, "stock_read"))).containsExactlyInAnyOrderElementsOf(expected);

        Configuration noRestarts = new Configuration();
        noRestarts.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamTableEnvironment failing =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment(noRestarts));
        failing.executeSql(ids);
        failing.executeSql(
                "CREATE TABLE cramped (" + columns + ") PARTITIONED BY (part) WITH ('connector' = 'streamfusion-parquet', "
                        + "'path' = '" + tables.resolve("cramped_out") + "', 'streamfusion.memory-limit' = '32kb')");
        assertThatThrownBy(() -> failing.executeSql("INSERT INTO cramped " + select).await(3, TimeUnit.MINUTES))
                .hasStackTraceContaining("more than 'streamfusion.memory-limit'")
                .hasStackTraceContaining("write fewer partitions at once");
    }

    @Test
    void autoCompactionMergesPartFilesThroughTheNativeReader() throws Exception {
        Path out = tables.resolve("compacted_out");
        StreamTableEnvironment env = streaming();
        env.executeSql(
                "CREATE TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '4000', "
                        + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '" + FAILOVER_ROWS + "')");
        env.executeSql(
                "CREATE TABLE compacted (" + FAILOVER_COLUMNS + ") WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                        + out + "', 'auto-compaction' = 'true', 'compaction.file-size' = '128MB')");
        env.executeSql("INSERT INTO compacted SELECT " + FAILOVER_SELECT + " FROM ids").await(3, TimeUnit.MINUTES);

        // Each checkpoint's part files (one per writer) were read back natively and merged into
        // one compacted file; the part files themselves stay hidden.
        List<Path> files = dataFiles(out);
        assertThat(files).isNotEmpty().allMatch(f -> f.getFileName().toString().startsWith("compacted-"));
        TableEnvironment batch = batch();
        batch.executeSql(ddl("stock_read", "filesystem", FAILOVER_COLUMNS, out, ""));
        assertThat(rows(batch, "SELECT * FROM stock_read")).containsExactlyInAnyOrderElementsOf(failoverRows());
    }

    @Test
    void partitionedStreamingWritesCommitPartitionsWithSuccessFiles() throws Exception {
        Path out = tables.resolve("partitioned_out");
        StreamTableEnvironment env = streaming();
        env.executeSql(ddl("input", "filesystem", TYPES, tables.resolve("input"), ""));
        String columns = "id BIGINT, s STRING, d DOUBLE, part STRING";
        env.executeSql(
                "CREATE TABLE fused_out (" + columns + ") PARTITIONED BY (part) WITH ('connector' = 'streamfusion-parquet', "
                        + "'path' = '" + out + "', 'sink.partition-commit.policy.kind' = 'success-file', "
                        + "'sink.rolling-policy.file-size' = '64kb')");
        env.executeSql("INSERT INTO fused_out SELECT id, s, d, CAST(MOD(id, 3) AS STRING) FROM input")
                .await(3, TimeUnit.MINUTES);

        for (String part : List.of("0", "1", "2")) {
            assertThat(out.resolve("part=" + part).resolve("_SUCCESS")).exists();
        }
        TableEnvironment batch = batch();
        batch.executeSql(ddl("input", "filesystem", TYPES, tables.resolve("input"), ""));
        batch.executeSql(ddl("stock_read", "filesystem", columns, out, "PARTITIONED BY (part)"));
        assertThat(rows(batch, "SELECT * FROM stock_read"))
                .containsExactlyInAnyOrderElementsOf(
                        rows(batch, "SELECT id, s, d, CAST(MOD(id, 3) AS STRING) FROM input"));
    }

    @Test
    void aStreamingJobThatFailsCommitsEveryRowExactlyOnce() throws Exception {
        Path out = tables.resolve("failover_out");
        StreamTableEnvironment env = streaming();
        env.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        env.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        env.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        env.createTemporarySystemFunction("fail_once", FailOnce.class);
        // A sequence restores exactly from a checkpoint; every other column derives from it.
        env.executeSql(
                "CREATE TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', "
                        + "'fields.id.start' = '1', 'fields.id.end' = '" + FAILOVER_ROWS + "', " + FailOnce.SOURCE_APART + ")");
        env.executeSql(ddl("fused_out", "streamfusion-parquet", FAILOVER_COLUMNS, out, ""));
        FailOnce.reset(FAILOVER_ROWS / 3);
        env.executeSql("INSERT INTO fused_out SELECT " + FAILOVER_SELECT + " FROM (SELECT fail_once(id) AS id FROM ids)")
                .await(3, TimeUnit.MINUTES);
        assertThat(FailOnce.failed()).as("the job failed once").isTrue();

        TableEnvironment batch = batch();
        batch.executeSql(ddl("stock_read", "filesystem", FAILOVER_COLUMNS, out, ""));
        List<String> written = rows(batch, "SELECT * FROM stock_read");
        // Every row exactly once: none lost with the failed attempt, none committed twice.
        assertThat(written).containsExactlyInAnyOrderElementsOf(failoverRows());
    }

    /** The rows {@link #FAILOVER_SELECT} makes of ids 1 to {@link #FAILOVER_ROWS}. */
    private static List<String> failoverRows() {
        List<String> expected = new ArrayList<>();
        for (long id = 1; id <= FAILOVER_ROWS; id++) {
            expected.add(Row.of(id, "row-" + id, id % 7 == 0 ? null : id / 4.0).toString());
        }
        return expected;
    }

    private static final int FAILOVER_ROWS = 12_000;
    private static final String FAILOVER_COLUMNS = "id BIGINT, s STRING, d DOUBLE";
    private static final String FAILOVER_SELECT =
            "id, CONCAT('row-', CAST(id AS STRING)), CASE WHEN MOD(id, 7) = 0 THEN CAST(NULL AS DOUBLE) "
                    + "ELSE CAST(id AS DOUBLE) / 4 END";

    private static StreamTableEnvironment streaming() {
        Configuration configuration = new Configuration();
        configuration.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.setParallelism(2);
        return StreamTableEnvironment.create(env);
    }
}
