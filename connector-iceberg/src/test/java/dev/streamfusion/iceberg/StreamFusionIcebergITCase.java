package dev.streamfusion.iceberg;

import dev.streamfusion.testkit.flink.FailOnce;
import dev.streamfusion.testkit.flink.MiniClusters;
import dev.streamfusion.testkit.iceberg.IcebergRestCatalogExtension;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.variant.BinaryVariant;
import org.apache.flink.types.variant.Variant;
import org.apache.flink.types.variant.VariantBuilder;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.variants.VariantMetadata;
import org.apache.iceberg.variants.VariantValue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * streamfusion-iceberg against iceberg-flink (iceberg-flink-runtime-2.1 1.11.0) in real MiniCluster
 * jobs over a Hadoop catalog on local disk: the same tables (written by Iceberg Java's generic
 * writers, with position and equality deletes, evolved schemas, several snapshots) read through
 * both give the same rows, value for value.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
class StreamFusionIcebergITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    @RegisterExtension
    static final IcebergRestCatalogExtension REST = new IcebergRestCatalogExtension();

    @TempDir static Path warehouse;

    private static HadoopCatalog catalog;
    private static String warehouseUri;
    /** The snapshot after the first append to {@code db.types}. */
    private static long firstSnapshot;
    /** The snapshot after the second append to {@code db.types}. */
    private static long secondSnapshot;

    @BeforeAll
    static void writeTables() throws Exception {
        warehouseUri = warehouse.toUri().toString();
        catalog = new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouseUri);
        catalog.createNamespace(Namespace.of("db"));

        Table types = catalog.createTable(TableIdentifier.of("db", "types"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        DataFile first = IcebergJavaTables.append(types, IcebergJavaTables.typedRows(0, 3000, 1), "first");
        firstSnapshot = types.currentSnapshot().snapshotId();
        IcebergJavaTables.append(types, IcebergJavaTables.typedRows(3000, 3000, 2), "second");
        secondSnapshot = types.currentSnapshot().snapshotId();
        IcebergJavaTables.append(types, IcebergJavaTables.typedRows(6000, 3000, 3), "third");
        List<Long> everySeventh = LongStream.range(0, 3000).filter(p -> p % 7 == 3).boxed().collect(Collectors.toList());
        List<Long> elevens = LongStream.range(0, 9000).filter(id -> id % 11 == 0).boxed().collect(Collectors.toList());
        types.newRowDelta()
                .addDeletes(IcebergJavaTables.positionDeletes(types, first, everySeventh, "pos-deletes"))
                .addDeletes(IcebergJavaTables.equalityDeletes(types, "id", elevens, "eq-deletes"))
                .commit();
        // Appended after the deletes: its ids divisible by 11 stay.
        IcebergJavaTables.append(types, IcebergJavaTables.typedRows(9000, 1000, 4), "fourth");
        types.manageSnapshots().createTag("first-tag", firstSnapshot).commit();
        types.manageSnapshots().createTag("second-tag", secondSnapshot).commit();
        types.manageSnapshots().createBranch("audit", firstSnapshot).commit();
        types.newAppend()
                .appendFile(IcebergJavaTables.writeData(types, IcebergJavaTables.typedRows(20000, 50, 31), "audit"))
                .toBranch("audit")
                .commit();

        Schema parted = new Schema(
                required(1, "id", Types.LongType.get()),
                optional(2, "category", Types.StringType.get()),
                optional(3, "ts", Types.TimestampType.withoutZone()),
                optional(4, "amount", Types.DoubleType.get()));
        PartitionSpec spec = PartitionSpec.builderFor(parted).identity("category").bucket("id", 4).day("ts").build();
        Table partedTable = catalog.createTable(TableIdentifier.of("db", "parted"), parted, spec);
        List<Record> partedRows = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            GenericRecord r = GenericRecord.create(parted);
            r.setField("id", (long) i);
            r.setField("category", i % 10 == 0 ? null : "c" + (i % 3));
            r.setField("ts", java.time.LocalDateTime.of(2024, 1, 1 + i % 5, 0, 0).plusSeconds(i));
            r.setField("amount", i * 1.5);
            partedRows.add(r);
        }
        IcebergJavaTables.appendPartitioned(partedTable, partedRows, "parted");
    }

    @AfterAll
    static void closeCatalog() throws Exception {
        catalog.close();
    }

    private static TableEnvironment batch() {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "2");
        registerBoth(env);
        return env;
    }

    /**
     * iceberg-flink's catalog ({@code stock}), and a {@code streamfusion-iceberg} table per table
     * of it ({@code sf_<name>}) with the columns iceberg-flink gives the table.
     */
    private static void registerBoth(TableEnvironment env) {
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "')");
        for (TableIdentifier id : catalog.listTables(Namespace.of("db"))) {
            String table = id.name();
            String columns = env.from("stock.db." + table).getResolvedSchema().getColumns().stream()
                    .map(StreamFusionIcebergITCase::columnDdl)
                    .collect(Collectors.joining(", "));
            env.executeSql("CREATE TABLE sf_" + table + " (" + columns + ") WITH ('connector' = 'streamfusion-iceberg', "
                    + "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                    + "'catalog-database' = 'db', 'catalog-table' = '" + table + "')");
        }
    }

    private static String columnDdl(Column column) {
        return "`" + column.getName() + "` " + column.getDataType().getLogicalType().asSerializableString();
    }

    private static List<Row> collect(TableEnvironment env, String sql) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = env.executeSql(sql).collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }

    /** {@code sql} over {@code sf_<table>} and over {@code stock.db.<table>} ({@code %s} stands for the table). */
    private static List<Row> assertSameRows(TableEnvironment env, String table, String sql) throws Exception {
        List<Row> stock = collect(env, String.format(sql, "stock.db." + table));
        List<Row> ours = collect(env, String.format(sql, "sf_" + table));
        assertThat(ours).containsExactlyInAnyOrderElementsOf(stock);
        return ours;
    }

    @Test
    void everyTypeReadsAsIcebergFlinkReadsItWithPositionAndEqualityDeletesApplied() throws Exception {
        List<Row> rows = assertSameRows(batch(), "types", "SELECT * FROM %s");
        // 10000 rows, less every seventh of the first file, less the ids divisible by 11 of the
        // first three files (those of the first file counted once).
        long deleted = LongStream.range(0, 9000)
                .filter(id -> (id < 3000 && id % 7 == 3) || id % 11 == 0)
                .count();
        assertThat(rows).hasSize((int) (10000 - deleted));
        assertThat(rows).anyMatch(r -> (long) r.getField("id") == 9911L);
        assertThat(rows).noneMatch(r -> (long) r.getField("id") == 3003L || (long) r.getField("id") == 10L);
    }

    @Test
    void projectionsFiltersAndCountsReadAsStockReadsThem() throws Exception {
        TableEnvironment env = batch();
        assertSameRows(env, "types", "SELECT s, id, amount FROM %s WHERE id BETWEEN 2500 AND 3500 AND s IS NOT NULL");
        assertSameRows(env, "types", "SELECT pt, tags, attrs FROM %s WHERE l > 0 OR b");
        List<Row> counts = assertSameRows(env, "types", "SELECT COUNT(*) FROM %s");
        assertThat((long) counts.get(0).getField(0)).isPositive();
        assertSameRows(env, "types", "SELECT id FROM %s WHERE id > 9990");
        // Two scans of the table pruned by different filters stay two scans.
        List<Row> both = assertSameRows(env, "types",
                "SELECT id, s FROM %1$s WHERE id < 20 UNION ALL SELECT id, s FROM %1$s WHERE id > 9990");
        assertThat(both).anySatisfy(r -> assertThat((long) r.getField(0)).isLessThan(20L))
                .anySatisfy(r -> assertThat((long) r.getField(0)).isGreaterThan(9990L));
    }

    @Test
    void timeTravelByIdTagAndSmallSplitsReadAsStockReadsThem() throws Exception {
        TableEnvironment env = batch();
        List<Row> first = assertSameRows(env, "types", "SELECT id, s FROM %s /*+ OPTIONS('snapshot-id' = '" + firstSnapshot + "') */");
        assertThat(first).hasSize(3000);
        assertSameRows(env, "types", "SELECT id, ts FROM %s /*+ OPTIONS('tag' = 'first-tag') */");
        assertSameRows(env, "types", "SELECT id, d FROM %s /*+ OPTIONS('split-size' = '1024', 'split-file-open-cost' = '1') */");
        // Several given: a snapshot id before a tag before a branch, as iceberg-flink picks them;
        // a time with any of them is Iceberg's own error in both.
        assertThat(assertSameRows(env, "types", "SELECT id FROM %s /*+ OPTIONS('snapshot-id' = '" + firstSnapshot
                + "', 'tag' = 'second-tag', 'branch' = 'main') */")).hasSize(3000);
        assertSameRows(env, "types", "SELECT id FROM %s /*+ OPTIONS('tag' = 'first-tag', 'branch' = 'main') */");
        for (String table : List.of("stock.db.types", "sf_types")) {
            assertThatThrownBy(() -> collect(env, "SELECT id FROM " + table + " /*+ OPTIONS('snapshot-id' = '"
                            + firstSnapshot + "', 'as-of-timestamp' = '" + System.currentTimeMillis() + "') */"))
                    .as(table)
                    .hasStackTraceContaining("Cannot override snapshot");
        }
    }

    /**
     * Files of many row groups read in byte ranges smaller than a row group: each row group is read
     * by exactly one split, whether the splits follow the row groups the file's split offsets name
     * or, for a file recorded without them, cut the file at the split size.
     */
    @Test
    void filesOfManyRowGroupsReadInSmallSplitsReadEveryRowOnce() throws Exception {
        Table table = catalog.createTable(TableIdentifier.of("db", "row_groups"), IcebergJavaTables.TYPES,
                PartitionSpec.unpartitioned(), Map.of(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "8192"));
        DataFile offsets = IcebergJavaTables.append(table, IcebergJavaTables.typedRows(0, 2000, 7), "offsets");
        assertThat(offsets.splitOffsets()).hasSizeGreaterThan(4);
        DataFile bare = IcebergJavaTables.writeData(table, IcebergJavaTables.typedRows(2000, 2000, 8), "bare");
        IcebergJavaTables.appendAsBareFile(table, bare, null);
        TableEnvironment env = batch();
        env.getConfig().set("table.exec.iceberg.infer-source-parallelism.max", "4");
        String small = " /*+ OPTIONS('split-size' = '3000', 'split-file-open-cost' = '1') */";
        List<Row> rows = assertSameRows(env, "row_groups", "SELECT * FROM %s" + small);
        assertThat(rows.stream().map(r -> r.getField("id")).distinct().count()).isEqualTo(4000);
        assertThat(assertSameRows(env, "row_groups", "SELECT id, s FROM %s" + small + " WHERE MOD(id, 3) = 0")).hasSize(1334);
    }

    /**
     * Files without their identity partition column (as files migrated from a Hive table are) read
     * the partition's value for it, as Iceberg's readers give it.
     */
    @Test
    void identityPartitionColumnsAFileLacksReadTheirPartitionsValue() throws Exception {
        Schema bare = new Schema(required(1, "id", Types.LongType.get()), optional(2, "s", Types.StringType.get()));
        Table hive = catalog.createTable(TableIdentifier.of("db", "hive_files"), bare, PartitionSpec.unpartitioned());
        Schema parted = new Schema(required(1, "id", Types.LongType.get()), optional(2, "s", Types.StringType.get()),
                optional(3, "dt", Types.StringType.get()), optional(4, "on_day", Types.DateType.get()));
        Table migrated = catalog.createTable(TableIdentifier.of("db", "migrated"), parted,
                PartitionSpec.builderFor(parted).identity("dt").identity("on_day").build());
        for (int part = 0; part < 2; part++) {
            List<Record> rows = new ArrayList<>();
            for (long id = part * 10L; id < part * 10L + 10; id++) {
                GenericRecord r = GenericRecord.create(bare);
                r.setField("id", id);
                r.setField("s", id % 4 == 0 ? null : "s" + id);
                rows.add(r);
            }
            DataFile file = IcebergJavaTables.writeData(hive, rows, "hive-" + part);
            IcebergJavaTables.appendAsBareFile(migrated, file, "dt=d" + part + "/on_day=2024-01-0" + (part + 1));
        }
        List<Row> rows = assertSameRows(batch(), "migrated", "SELECT id, s, dt, on_day FROM %s");
        assertThat(rows).hasSize(20).contains(Row.of(3L, "s3", "d0", java.time.LocalDate.of(2024, 1, 1)));
        assertThat(assertSameRows(batch(), "migrated", "SELECT id, dt FROM %s WHERE dt = 'd1' AND id > 12")).hasSize(7);
        assertThat(assertSameRows(batch(), "migrated", "SELECT dt, COUNT(*) FROM %s GROUP BY dt")).hasSize(2);
    }

    @Test
    void incrementalReadsBetweenTagsOrUpToASnapshotAndALimitOfZeroReadAsStockReadsThem() throws Exception {
        TableEnvironment env = batch();
        // The appends after the first tag's snapshot up to the second tag's: the second file.
        List<Row> between = assertSameRows(env, "types",
                "SELECT id, s FROM %s /*+ OPTIONS('start-tag' = 'first-tag', 'end-tag' = 'second-tag') */");
        assertThat(between).hasSize(3000);
        // The appends up to a snapshot, from the oldest: the first two files.
        assertThat(assertSameRows(env, "types", "SELECT id FROM %s /*+ OPTIONS('end-snapshot-id' = '" + secondSnapshot + "') */"))
                .hasSize(6000);
        assertThat(assertSameRows(env, "types", "SELECT id FROM %s /*+ OPTIONS('start-tag' = 'second-tag') */"))
                .isNotEmpty();
        // A limit of 0 is none, in iceberg-flink's terms.
        assertThat(assertSameRows(env, "types",
                "SELECT id FROM %s /*+ OPTIONS('snapshot-id' = '" + firstSnapshot + "', 'limit' = '0') */")).hasSize(3000);
        assertThatThrownBy(() -> collect(env, "SELECT id FROM sf_types /*+ OPTIONS('start-tag' = 'no-such-tag') */"))
                .hasStackTraceContaining("no-such-tag");
        // A query's LIMIT takes the place of the option.
        String limited = "SELECT id FROM %s /*+ OPTIONS('limit' = '2') */ LIMIT 5";
        assertThat(collect(env, String.format(limited, "stock.db.types"))).hasSize(5);
        assertThat(collect(env, String.format(limited, "sf_types"))).hasSize(5);
    }

    /**
     * iceberg-flink's readers drop the rows the filters it converts reject before its {@code limit}
     * option counts them, so the option limits the rows those filters keep; filters it does not
     * convert count nothing. One data file read by one reader, so both readers meet the rows in
     * one order.
     */
    @Test
    void theLimitOptionCountsTheRowsIcebergFlinksFiltersKeep() throws Exception {
        TableEnvironment env = batch();
        String read = "SELECT id, i, s FROM %s /*+ OPTIONS('snapshot-id' = '" + firstSnapshot + "', 'limit' = '5') */ WHERE ";
        for (String filter : new String[] {
            "i > 0",
            "s LIKE 's1%%'",
            "NOT (l > 0) OR s IS NULL",
            "dt > DATE '2000-01-01' AND ts < TIMESTAMP '1990-01-01 00:00:00'",
            "5 < id AND tm > TIME '12:00:00'",
        }) {
            assertThat(assertSameRows(env, "types", read + filter)).as(filter).hasSize(5);
        }
        // Not converted by iceberg-flink: it counts the rows the other filter keeps, and Flink's
        // filter then drops those with a NULL s.
        assertThat(assertSameRows(env, "types", read + "i > 0 AND UPPER(s) <> 'X'")).isNotEmpty();
    }

    @Test
    void readOptionsIcebergFlinkRefusesOrThatCannotBeHonouredAreRefusedNamingTheOption() throws Exception {
        TableEnvironment env = batch();
        String[][] refused = {
            {"'streaming' = 'true', 'end-snapshot-id' = '" + secondSnapshot + "'", "'end-snapshot-id' cannot be set"},
            {"'streaming' = 'true', 'end-tag' = 'second-tag'", "'end-tag' cannot be set"},
            {"'start-snapshot-id' = '" + firstSnapshot + "', 'start-tag' = 'first-tag'", "'start-snapshot-id' and 'start-tag'"},
            {"'end-snapshot-id' = '" + secondSnapshot + "', 'end-tag' = 'second-tag'", "'end-snapshot-id' and 'end-tag'"},
            {"'max-allowed-planning-failures' = '-2'", "'max-allowed-planning-failures' is -2"},
            {"'streaming' = 'true', 'starting-strategy' = 'INCREMENTAL_FROM_SNAPSHOT_ID'",
                "'INCREMENTAL_FROM_SNAPSHOT_ID' needs 'start-snapshot-id'"},
            {"'streaming' = 'true', 'starting-strategy' = 'INCREMENTAL_FROM_SNAPSHOT_ID', 'start-snapshot-id' = '"
                    + firstSnapshot + "', 'start-snapshot-timestamp' = '1'",
                "cannot take 'start-snapshot-timestamp'"},
            {"'streaming' = 'true', 'starting-strategy' = 'INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP', 'start-snapshot-id' = '"
                    + firstSnapshot + "', 'start-snapshot-timestamp' = '1'",
                "cannot take 'start-snapshot-id'"},
            {"'watermark-column' = 'ts'", "'watermark-column'"},
        };
        for (String[] options : refused) {
            assertThatThrownBy(() -> collect(env, "SELECT id FROM sf_types /*+ OPTIONS(" + options[0] + ") */"))
                    .as(options[0])
                    .hasStackTraceContaining(options[1])
                    .hasStackTraceContaining("sf_types");
        }
        // iceberg-flink's legacy source starts a streaming read by other rules: refused, naming
        // the setting; a bounded read gives the same rows either way and runs.
        TableEnvironment legacy = batch();
        legacy.getConfig().set("table.exec.iceberg.use-flip27-source", "false");
        assertThatThrownBy(() -> collect(legacy, "SELECT id FROM sf_types /*+ OPTIONS('streaming' = 'true') */"))
                .hasStackTraceContaining("'table.exec.iceberg.use-flip27-source' = 'false'")
                .hasStackTraceContaining("sf_types");
        assertThat(collect(legacy, "SELECT id FROM sf_types /*+ OPTIONS('snapshot-id' = '" + firstSnapshot + "') */"))
                .hasSize(3000);
    }

    @Test
    void boundedReadsRunAtTheParallelismIcebergFlinkInfersAndTheWritersTakeItOn() throws Exception {
        Schema schema = new Schema(required(1, "id", Types.LongType.get()), optional(2, "s", Types.StringType.get()));
        // A split size iceberg-flink never reads: its job-wide split settings have defaults, and they
        // take the place of the table's read.split.* properties.
        Table spread = catalog.createTable(TableIdentifier.of("db", "spread"), schema, PartitionSpec.unpartitioned(),
                Map.of(TableProperties.SPLIT_SIZE, "1"));
        for (int file = 0; file < 3; file++) {
            List<Record> rows = new ArrayList<>();
            for (long id = file * 100L; id < (file + 1) * 100L; id++) {
                GenericRecord r = GenericRecord.create(schema);
                r.setField("id", id);
                r.setField("s", id % 9 == 0 ? null : "s" + id);
                rows.add(r);
            }
            IcebergJavaTables.append(spread, rows, "spread-" + file);
        }
        catalog.createTable(TableIdentifier.of("db", "spread_stock"), schema, PartitionSpec.unpartitioned());
        catalog.createTable(TableIdentifier.of("db", "spread_ours"), schema, PartitionSpec.unpartitioned());
        TableEnvironment env = batch();
        // Every file its own split: three splits.
        String split = " /*+ OPTIONS('split-size' = '1') */";
        String[] copies = {
            "INSERT INTO %2$s SELECT * FROM %1$s" + split,
            "INSERT INTO %2$s SELECT id + 1, UPPER(s) FROM %1$s" + split + " WHERE id > 5",
        };
        // Every operator's parallelism, in the job's order, as the plan gives them to Flink.
        for (String copy : copies) {
            List<Integer> stock = parallelisms(env, String.format(copy, "stock.db.spread", "stock.db.spread_stock"));
            assertThat(stock.subList(0, 2)).containsOnly(3);
            assertThat(parallelisms(env, String.format(copy, "sf_spread", "sf_spread_ours"))).isEqualTo(stock);
        }
        String unhinted = "INSERT INTO %2$s SELECT * FROM %1$s";
        assertThat(parallelisms(env, String.format(unhinted, "sf_spread", "sf_spread_ours")))
                .isEqualTo(parallelisms(env, String.format(unhinted, "stock.db.spread", "stock.db.spread_stock")))
                .startsWith(1, 1);
        TableEnvironment jobWide = batch();
        jobWide.getConfig().set("connector.iceberg.split-size", "1");
        assertThat(parallelisms(jobWide, String.format(unhinted, "sf_spread", "sf_spread_ours")))
                .isEqualTo(parallelisms(jobWide, String.format(unhinted, "stock.db.spread", "stock.db.spread_stock")))
                .startsWith(3, 3);
        String limited = "INSERT INTO %2$s SELECT * FROM %1$s" + split + " LIMIT 2";
        assertThat(parallelisms(env, String.format(limited, "sf_spread", "sf_spread_ours")))
                .isEqualTo(parallelisms(env, String.format(limited, "stock.db.spread", "stock.db.spread_stock")))
                .startsWith(2);

        // A filter that rules out two of the three files: one split, planned with the filter.
        String pruned = "INSERT INTO %2$s SELECT * FROM %1$s" + split + " WHERE id < 100";
        assertThat(parallelisms(env, String.format(pruned, "sf_spread", "sf_spread_ours")))
                .isEqualTo(parallelisms(env, String.format(pruned, "stock.db.spread", "stock.db.spread_stock")))
                .startsWith(1, 1);

        // A copy at the inferred parallelism writes each row once.
        env.executeSql(String.format(copies[0], "sf_spread", "sf_spread_ours")).await();
        assertThat(collect(env, "SELECT * FROM sf_spread_ours"))
                .hasSize(300)
                .containsExactlyInAnyOrderElementsOf(collect(env, "SELECT * FROM stock.db.spread"));

        // iceberg-flink's options: a lower maximum, and no inference (the default parallelism).
        env.getConfig().set("table.exec.iceberg.infer-source-parallelism.max", "2");
        String scan = "INSERT INTO %2$s SELECT * FROM %1$s" + split;
        assertThat(parallelisms(env, String.format(scan, "sf_spread", "sf_spread_ours")))
                .isEqualTo(parallelisms(env, String.format(scan, "stock.db.spread", "stock.db.spread_stock")))
                .startsWith(2, 2);
        env.getConfig().set("table.exec.iceberg.infer-source-parallelism", "false");
        env.getConfig().set("table.exec.resource.default-parallelism", "4");
        assertThat(parallelisms(env, String.format(scan, "sf_spread", "sf_spread_ours")))
                .isEqualTo(parallelisms(env, String.format(scan, "stock.db.spread", "stock.db.spread_stock")))
                .startsWith(4, 4);
        env.getConfig().set("table.exec.iceberg.infer-source-parallelism", "true");
        env.getConfig().set("table.exec.iceberg.infer-source-parallelism.max", "0");
        assertThatThrownBy(() -> parallelisms(env, String.format(scan, "sf_spread", "sf_spread_ours")))
                .hasStackTraceContaining("table.exec.iceberg.infer-source-parallelism.max is 0");
    }

    @Test
    void aBoundedReadReadsTheSplitsPlannedToInferItsParallelismAsIcebergFlinksDoes() throws Exception {
        Table t = catalog.createTable(TableIdentifier.of("db", "planned"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        IcebergJavaTables.append(t, IcebergJavaTables.typedRows(0, 100, 41), "planned-1");
        // Each job is translated (its read planned) before a second append, and runs after it.
        List<DataStream<Row>> reads = new ArrayList<>();
        for (String table : List.of("stock.db.planned", "sf_planned")) {
            StreamExecutionEnvironment streams = StreamExecutionEnvironment.getExecutionEnvironment();
            streams.setRuntimeMode(RuntimeExecutionMode.BATCH);
            StreamTableEnvironment tables = StreamTableEnvironment.create(streams);
            registerBoth(tables);
            reads.add(tables.toDataStream(tables.sqlQuery("SELECT id FROM " + table)));
        }
        IcebergJavaTables.append(t, IcebergJavaTables.typedRows(100, 50, 42), "planned-2");
        List<List<Row>> read = new ArrayList<>();
        for (DataStream<Row> rows : reads) {
            read.add(rows.executeAndCollect(1000));
        }
        assertThat(read.get(1)).hasSize(100).containsExactlyInAnyOrderElementsOf(read.get(0));

        // A query's table run twice is planned for each run: the second reads the new snapshot. All
        // columns, unfiltered: the planner keeps the table source it first asked for a provider.
        TableEnvironment env = batch();
        org.apache.flink.table.api.Table query = env.sqlQuery("SELECT * FROM sf_planned");
        assertThat(collect(query)).hasSize(150);
        IcebergJavaTables.append(t, IcebergJavaTables.typedRows(150, 25, 43), "planned-3");
        assertThat(collect(query)).hasSize(175);
    }

    private static List<Row> collect(org.apache.flink.table.api.Table query) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = query.execute().collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }

    /** The parallelism of every operator of {@code sql}'s job, in the order of Flink's execution plan. */
    private static List<Integer> parallelisms(TableEnvironment env, String sql) {
        String plan = env.explainSql(sql, ExplainDetail.JSON_EXECUTION_PLAN);
        Matcher m = Pattern.compile("\"parallelism\" : (\\d+)").matcher(plan.substring(plan.indexOf("== Physical Execution Plan ==")));
        List<Integer> parallelisms = new ArrayList<>();
        while (m.find()) {
            parallelisms.add(Integer.parseInt(m.group(1)));
        }
        assertThat(parallelisms).isNotEmpty();
        return parallelisms;
    }

    @Test
    void columnsRenamedAddedDroppedAndPromotedReadByFieldId() throws Exception {
        Schema v1 = new Schema(
                required(1, "id", Types.IntegerType.get()),
                optional(2, "name", Types.StringType.get()),
                optional(3, "score", Types.FloatType.get()),
                optional(4, "gone", Types.StringType.get()));
        Table t = catalog.createTable(TableIdentifier.of("db", "evolved"), v1, PartitionSpec.unpartitioned());
        List<Record> before = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            GenericRecord r = GenericRecord.create(v1);
            r.setField("id", i);
            r.setField("name", i % 9 == 0 ? null : "n" + i);
            r.setField("score", i * 0.5f);
            r.setField("gone", "g" + i);
            before.add(r);
        }
        IcebergJavaTables.append(t, before, "v1");
        t.updateSchema()
                .renameColumn("name", "label")
                .deleteColumn("gone")
                .addColumn("extra", Types.LongType.get())
                .updateColumn("id", Types.LongType.get())
                .updateColumn("score", Types.DoubleType.get())
                .moveFirst("name")
                .commit();
        List<Record> after = new ArrayList<>();
        for (int i = 100; i < 150; i++) {
            GenericRecord r = GenericRecord.create(t.schema());
            r.setField("id", (long) i);
            r.setField("label", "m" + i);
            r.setField("score", i * 0.25);
            r.setField("extra", (long) i * i);
            after.add(r);
        }
        IcebergJavaTables.append(t, after, "v2");

        List<Row> rows = assertSameRows(batch(), "evolved", "SELECT * FROM %s");
        assertThat(rows).hasSize(150);
        // Filters reach the native reader by field id: a promoted column, and one the older file lacks.
        assertThat(assertSameRows(batch(), "evolved", "SELECT id, label FROM %s WHERE id > 120 OR id < 3")).hasSize(32);
        assertThat(assertSameRows(batch(), "evolved", "SELECT id, extra FROM %s WHERE extra > 12000 AND label <> 'm130'"))
                .hasSize(39);
        assertThat(assertSameRows(batch(), "evolved", "SELECT id FROM %s WHERE extra IS NULL")).hasSize(100);
        // A value out of the older file's INT range keeps that file's rows.
        assertThat(assertSameRows(batch(), "evolved", "SELECT id FROM %s WHERE id < 3000000000")).hasSize(150);
        assertThat(assertSameRows(batch(), "evolved", "SELECT id FROM %s WHERE id <> 3000000000 AND id > 97")).hasSize(52);
        assertThat(rows).contains(Row.of("n1", 1L, 0.5d, null), Row.of("m120", 120L, 30.0d, 14400L));
        // Iceberg Java's own reader agrees too.
        try (CloseableIterable<Record> generic = IcebergGenerics.read(catalog.loadTable(TableIdentifier.of("db", "evolved"))).build()) {
            assertThat(generic).hasSize(150);
        }
    }

    /**
     * Filters go to Iceberg Java's planning and, as each task's residual, to the native reader,
     * which prunes and drops rows with the parts it evaluates exactly as Flink does: the rows equal
     * iceberg-flink's, over every type a filter can name, with NULLs, negations and doubles.
     */
    @Test
    void filteredScansGiveIcebergFlinksRows() throws Exception {
        TableEnvironment env = batch();
        String[] queries = {
            "SELECT id, dt FROM %s WHERE dt > DATE '2000-01-01' AND dt <= DATE '2030-12-31'",
            "SELECT id, ts FROM %s WHERE ts <= TIMESTAMP '2010-06-01 12:00:00.123456' OR ts IS NULL",
            "SELECT id, amount FROM %s WHERE amount > 10.50 AND amount < 5000000.00",
            "SELECT id, s, i FROM %s WHERE NOT (s < 's5') AND i <> 3",
            "SELECT id, i, d FROM %s WHERE i IN (1, 2, 3) OR d > 5E-1",
            "SELECT id, b FROM %s WHERE b = false AND id NOT IN (5, 6, 7)",
            "SELECT id, d FROM %s WHERE NOT (d < 0E0 OR id > 4000)",
            "SELECT id, l FROM %s WHERE NOT (l IS NULL OR id IN (10, 20, 30)) AND id < 600",
        };
        for (String query : queries) {
            assertThat(assertSameRows(env, "types", query)).as(query).isNotEmpty();
        }
        // iceberg-flink 1.11 fails this query (it binds the DECIMAL literal to the DOUBLE column);
        // Flink compares the DOUBLE with the literal as a DOUBLE, and so does ours.
        assertThat(collect(env, "SELECT id FROM sf_types WHERE d > 0.5"))
                .containsExactlyInAnyOrderElementsOf(collect(env, "SELECT id FROM sf_types WHERE d > 5E-1"))
                .isNotEmpty();
    }

    /**
     * Flink compares -0.0 equal to 0.0 and NaN unordered; Iceberg's metrics order -0.0 below 0.0
     * and keep NaN out of a file's bounds. Filters on floating-point columns therefore never prune
     * files here, and the rows are Flink's filter's over every row, however the values lie in
     * files (iceberg-flink's planning drops the first file's -0.0 for "d >= 0").
     */
    @Test
    void filtersOnFloatingPointColumnsKeepEveryRowFlinkKeepsWhateverTheFilesBounds() throws Exception {
        Schema schema = new Schema(
                required(1, "id", Types.LongType.get()),
                optional(2, "d", Types.DoubleType.get()),
                optional(3, "f", Types.FloatType.get()));
        Table zeros = catalog.createTable(TableIdentifier.of("db", "signed_zeros"), schema, PartitionSpec.unpartitioned());
        double[][] files = {{-1.5, -0.0}, {-0.0, 2.0}, {Double.NaN}};
        List<Record> all = new ArrayList<>();
        long id = 0;
        for (double[] values : files) {
            List<Record> records = new ArrayList<>();
            for (double value : values) {
                GenericRecord r = GenericRecord.create(schema);
                r.setField("id", id++);
                r.setField("d", value);
                r.setField("f", (float) value);
                records.add(r);
            }
            IcebergJavaTables.append(zeros, records, "signed-zeros-" + id);
            all.addAll(records);
        }
        TableEnvironment env = batch();
        // Stock Flink's filter over every row: the same rows as a stream, which nothing prunes.
        StreamExecutionEnvironment streams = StreamExecutionEnvironment.getExecutionEnvironment();
        streams.setRuntimeMode(RuntimeExecutionMode.BATCH);
        StreamTableEnvironment stock = StreamTableEnvironment.create(streams);
        List<Row> values = all.stream()
                .map(r -> Row.of(r.getField("id"), r.getField("d"), r.getField("f")))
                .collect(Collectors.toList());
        stock.createTemporaryView("every_row", stock.fromDataStream(streams.fromData(values,
                org.apache.flink.api.common.typeinfo.Types.ROW_NAMED(new String[] {"id", "d", "f"},
                        org.apache.flink.api.common.typeinfo.Types.LONG, org.apache.flink.api.common.typeinfo.Types.DOUBLE,
                        org.apache.flink.api.common.typeinfo.Types.FLOAT))));
        for (String filter : List.of("d >= 0E0", "NOT (d > 1E0)", "f = CAST(0 AS FLOAT)", "NOT (f > CAST(1 AS FLOAT))",
                "d < 0E0", "d <> 0E0")) {
            assertThat(collect(env, "SELECT id FROM sf_signed_zeros WHERE " + filter))
                    .as(filter)
                    .containsExactlyInAnyOrderElementsOf(collect(stock, "SELECT id FROM every_row WHERE " + filter));
        }
        // Both -0.0 rows (ids 1 and 2) are kept for "d >= 0": one file's upper bound is -0.0.
        assertThat(collect(env, "SELECT id FROM sf_signed_zeros WHERE d >= 0E0")).contains(Row.of(1L), Row.of(2L));
    }

    /**
     * A table declaring millisecond timestamps over Iceberg's microsecond ones: the finer digits
     * are floored away, before 1970 too, by the native reader (a Parquet file) and by Iceberg
     * Java's (an Avro file) alike.
     */
    @Test
    void millisecondColumnsOverMicrosecondTimestampsAreFlooredByEitherReader() throws Exception {
        Schema schema = new Schema(
                required(1, "id", Types.LongType.get()),
                optional(2, "ts", Types.TimestampType.withoutZone()),
                optional(3, "tstz", Types.TimestampType.withZone()));
        Table timed = catalog.createTable(TableIdentifier.of("db", "micros_as_millis"), schema, PartitionSpec.unpartitioned());
        java.time.LocalDateTime epoch = java.time.LocalDateTime.of(1970, 1, 1, 0, 0);
        long[] micros = {-500, -1, -1_500_001, 0, 1_500, 999_999};
        List<Row> expected = new ArrayList<>();
        long id = 0;
        for (FileFormat format : List.of(FileFormat.PARQUET, FileFormat.AVRO)) {
            List<Record> records = new ArrayList<>();
            for (long value : micros) {
                java.time.LocalDateTime ts = epoch.plus(value, ChronoUnit.MICROS);
                GenericRecord r = GenericRecord.create(schema);
                r.setField("id", id);
                r.setField("ts", ts);
                r.setField("tstz", ts.atOffset(java.time.ZoneOffset.UTC));
                records.add(r);
                java.time.LocalDateTime floored = ts.truncatedTo(ChronoUnit.MILLIS);
                expected.add(Row.of(id++, floored, floored.toInstant(java.time.ZoneOffset.UTC)));
            }
            IcebergJavaTables.append(timed, records, "micros-as-millis-" + format, format);
        }
        TableEnvironment env = batch();
        env.executeSql("CREATE TABLE millis (id BIGINT, ts TIMESTAMP(3), tstz TIMESTAMP_LTZ(3)) WITH ("
                + "'connector' = 'streamfusion-iceberg', 'catalog-name' = 'sf', 'catalog-type' = 'hadoop', "
                + "'warehouse' = '" + warehouseUri + "', 'catalog-database' = 'db', 'catalog-table' = 'micros_as_millis')");
        assertThat(collect(env, "SELECT id, ts, tstz FROM millis")).containsExactlyInAnyOrderElementsOf(expected);
        // Filters compare the floored values: a file whose bounds hold 00:00:00.0015 is not
        // pruned for "ts = 00:00:00.001" (ids 4 and 10, 1,500 microseconds, one per file).
        assertThat(collect(env, "SELECT id FROM millis WHERE ts = TIMESTAMP '1970-01-01 00:00:00.001'"))
                .containsExactlyInAnyOrder(Row.of(4L), Row.of(10L));
        assertThat(collect(env, "SELECT id FROM millis WHERE ts <= TIMESTAMP '1969-12-31 23:59:59.999'"))
                .containsExactlyInAnyOrder(Row.of(0L), Row.of(1L), Row.of(2L), Row.of(6L), Row.of(7L), Row.of(8L));
        // 1969-12-31 23:59:59.9995 is a millisecond before 1970, not 1970 itself.
        assertThat(expected.get(0).getField(1)).isEqualTo(java.time.LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000));
    }

    /**
     * A table declaring a column narrower than Iceberg's reads values changed (TINYINT keeps an
     * int's low bits, a DECIMAL of a smaller scale rounds), and Flink filters the values as read:
     * no filter on such a column prunes files by the stored values' bounds, or drops rows by
     * them in the native reader.
     */
    @Test
    void filtersOnColumnsDeclaredNarrowerCompareTheValuesAsRead() throws Exception {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "code", Types.IntegerType.get()),
                Types.NestedField.optional(3, "price", Types.DecimalType.of(10, 2)));
        Table narrow = catalog.createTable(TableIdentifier.of("db", "narrowed"), schema, PartitionSpec.unpartitioned());
        GenericRecord r = GenericRecord.create(schema);
        r.setField("id", 1L);
        r.setField("code", 200);
        r.setField("price", new java.math.BigDecimal("1.25"));
        IcebergJavaTables.append(narrow, List.of(r), "narrowed", FileFormat.PARQUET);
        TableEnvironment env = batch();
        env.executeSql("CREATE TABLE narrow (id BIGINT, code TINYINT, price DECIMAL(10, 1)) WITH ("
                + "'connector' = 'streamfusion-iceberg', 'catalog-name' = 'sf', 'catalog-type' = 'hadoop', "
                + "'warehouse' = '" + warehouseUri + "', 'catalog-database' = 'db', 'catalog-table' = 'narrowed')");
        assertThat(collect(env, "SELECT code, price FROM narrow"))
                .containsExactly(Row.of((byte) -56, new java.math.BigDecimal("1.3")));
        assertThat(collect(env, "SELECT id FROM narrow WHERE code < 0")).containsExactly(Row.of(1L));
        assertThat(collect(env, "SELECT id FROM narrow WHERE price > 1.26")).containsExactly(Row.of(1L));
        assertThat(collect(env, "SELECT id FROM narrow WHERE price = 1.30")).containsExactly(Row.of(1L));
        assertThat(collect(env, "SELECT id FROM narrow WHERE code = 200")).isEmpty();
    }

    @Test
    void fileTasksTheNativeReaderCannotReadAreReadByIcebergJavaAsIcebergFlinkReadsThem() throws Exception {
        // Format v3: a deletion vector on the first file, and an equality delete on a nested field.
        Table v3 = catalog.createTable(TableIdentifier.of("db", "v3_vectors"), IcebergJavaTables.TYPES,
                PartitionSpec.unpartitioned(), Map.of("format-version", "3"));
        DataFile first = IcebergJavaTables.append(v3, IcebergJavaTables.typedRows(0, 1200, 51), "v3-first");
        IcebergJavaTables.append(v3, IcebergJavaTables.typedRows(1200, 800, 52), "v3-second");
        List<Long> everyFifth = LongStream.range(0, 1200).filter(p -> p % 5 == 0).boxed().collect(Collectors.toList());
        v3.newRowDelta().addDeletes(IcebergJavaTables.deletionVector(v3, first, everyFifth, "v3-dv")).commit();
        v3.newRowDelta()
                .addDeletes(IcebergJavaTables.nestedEqualityDeletes(v3, "pt", "label", List.of("p7", "p8"), "v3-nested"))
                .commit();
        // Avro and ORC data files beside a Parquet one, with position and equality deletes.
        Table mixed = catalog.createTable(TableIdentifier.of("db", "mixed_formats"), IcebergJavaTables.TYPES,
                PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
        DataFile avro = IcebergJavaTables.append(mixed, IcebergJavaTables.typedRows(0, 700, 53), "mixed-avro", FileFormat.AVRO);
        IcebergJavaTables.append(mixed, IcebergJavaTables.typedRows(700, 700, 54), "mixed-orc", FileFormat.ORC);
        IcebergJavaTables.append(mixed, IcebergJavaTables.typedRows(1400, 700, 55), "mixed-parquet");
        mixed.newRowDelta()
                .addDeletes(IcebergJavaTables.positionDeletes(mixed, avro, List.of(0L, 3L, 699L), "mixed-pos"))
                .addDeletes(IcebergJavaTables.equalityDeletes(mixed, "id", List.of(5L, 800L, 1500L), "mixed-eq"))
                .commit();

        TableEnvironment env = batch();
        List<Row> v3Rows = assertSameRows(env, "v3_vectors", "SELECT * FROM %s");
        assertThat(v3Rows).noneMatch(r -> (long) r.getField("id") < 1200 && (long) r.getField("id") % 5 == 0);
        assertThat(v3Rows).noneMatch(r -> r.getField("pt") != null
                && ("p7".equals(((Row) r.getField("pt")).getField("label")) || "p8".equals(((Row) r.getField("pt")).getField("label"))));
        assertThat(v3Rows).hasSizeLessThan(2000 - 240).hasSizeGreaterThan(1500);
        assertSameRows(env, "v3_vectors", "SELECT pt, id, tstz FROM %s WHERE id BETWEEN 1100 AND 1300");

        List<Row> mixedRows = assertSameRows(env, "mixed_formats", "SELECT * FROM %s");
        assertThat(mixedRows).hasSize(2100 - 6);
        assertThat(mixedRows).noneMatch(r -> List.of(0L, 3L, 699L, 5L, 800L, 1500L).contains((long) r.getField("id")));
        assertSameRows(env, "mixed_formats", "SELECT s, id, attrs FROM %s WHERE id BETWEEN 650 AND 1450");
    }

    /**
     * Columns whose files hold them otherwise than the current schema says, read as iceberg-flink
     * reads them: a nested field renamed after a file was written (read by Iceberg Java's reader,
     * the native one matching nested fields by name), a column added with a default (format v3)
     * that older files lack, filtered on (read as Iceberg Java's reader reads it); and a file holding {@code int} columns of a table whose
     * columns are {@code long} with no schema recording the promotion (a migrated file), filtered
     * by values past the {@code int} range.
     */
    @Test
    void columnsAFileHoldsOtherwiseThanTheSchemaSaysReadAsStockReadsThem() throws Exception {
        Schema nested = new Schema(required(1, "id", Types.LongType.get()),
                optional(2, "st", Types.StructType.of(optional(3, "a", Types.IntegerType.get()), optional(4, "b", Types.StringType.get()))));
        Table restructured = catalog.createTable(TableIdentifier.of("db", "restructured"), nested, PartitionSpec.unpartitioned(),
                Map.of("format-version", "3"));
        List<Record> first = new ArrayList<>();
        for (long id = 0; id < 40; id++) {
            GenericRecord st = GenericRecord.create(nested.findType("st").asStructType());
            st.setField("a", (int) id * 3);
            st.setField("b", id % 4 == 0 ? null : "b" + id);
            GenericRecord row = GenericRecord.create(nested);
            row.setField("id", id);
            row.setField("st", id % 9 == 0 ? null : st);
            first.add(row);
        }
        IcebergJavaTables.append(restructured, first, "restructured-first");
        restructured.updateSchema().renameColumn("st.a", "x").commit();
        restructured.updateSchema().addColumn("c", Types.IntegerType.get(), org.apache.iceberg.expressions.Literal.of(5)).commit();

        Schema ints = new Schema(required(1, "id", Types.IntegerType.get()), optional(2, "n", Types.IntegerType.get()));
        Table intTable = catalog.createTable(TableIdentifier.of("db", "narrow_ints"), ints, PartitionSpec.unpartitioned());
        List<Record> intRows = new ArrayList<>();
        for (int id = -20; id < 20; id++) {
            GenericRecord row = GenericRecord.create(ints);
            row.setField("id", id * 100_000_000);
            row.setField("n", id % 5 == 0 ? null : id);
            intRows.add(row);
        }
        DataFile intFile = IcebergJavaTables.writeData(intTable, intRows, "narrow-ints");
        Table longs = catalog.createTable(TableIdentifier.of("db", "narrow_longs"),
                new Schema(required(1, "id", Types.LongType.get()), optional(2, "n", Types.LongType.get())), PartitionSpec.unpartitioned());
        IcebergJavaTables.appendAsBareFile(longs, intFile, null);

        TableEnvironment env = batch();
        assertThat(assertSameRows(env, "restructured", "SELECT id, st FROM %s")).hasSize(40)
                .anyMatch(r -> r.getField("st") != null && Integer.valueOf(3).equals(((Row) r.getField("st")).getField("x")));
        // The default, as Iceberg's specification and Iceberg Java's reader give it to files
        // without the column (iceberg-flink 1.11 reads NULL there).
        List<Object> defaults = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(catalog.loadTable(TableIdentifier.of("db", "restructured"))).build()) {
            records.forEach(r -> defaults.add(r.getField("c")));
        }
        assertThat(defaults).hasSize(40).containsOnly(5);
        assertThat(collect(env, "SELECT id, c FROM sf_restructured WHERE c = 5")).hasSize(40).allMatch(r -> Integer.valueOf(5).equals(r.getField("c")));
        assertThat(collect(env, "SELECT id FROM sf_restructured WHERE c > 3 AND id < 30")).hasSize(30);
        assertThat(assertSameRows(env, "narrow_longs", "SELECT * FROM %s WHERE id < 3000000000")).hasSize(40);
        assertThat(assertSameRows(env, "narrow_longs", "SELECT id FROM %s WHERE n <> 3000000000 OR id > 5000000000")).hasSize(32);
        assertThat(assertSameRows(env, "narrow_longs", "SELECT id FROM %s WHERE id >= 0 AND n < 10")).hasSize(8);
    }

    @Test
    void aTruncatedDataFileFailsTheQueryNamingTheFile() throws Exception {
        Table t = catalog.createTable(TableIdentifier.of("db", "corrupt"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        DataFile file = IcebergJavaTables.append(t, IcebergJavaTables.typedRows(0, 500, 9), "corrupt");
        try (RandomAccessFile raf = new RandomAccessFile(new java.io.File(URI.create(file.location())), "rw")) {
            raf.setLength(raf.length() / 2);
        }
        TableEnvironment env = batch();
        assertThatThrownBy(() -> collect(env, "SELECT * FROM sf_corrupt"))
                .hasStackTraceContaining(new java.io.File(URI.create(file.location())).getPath());
    }

    @Test
    void aMissingDeleteFileFailsTheQueryNamingIt() throws Exception {
        Table t = catalog.createTable(TableIdentifier.of("db", "lost_deletes"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        DataFile file = IcebergJavaTables.append(t, IcebergJavaTables.typedRows(0, 300, 14), "lost-data");
        org.apache.iceberg.DeleteFile deletes = IcebergJavaTables.positionDeletes(t, file, List.of(1L, 2L), "lost-deletes");
        t.newRowDelta().addDeletes(deletes).commit();
        java.nio.file.Files.delete(java.nio.file.Paths.get(URI.create(deletes.location())));
        TableEnvironment env = batch();
        assertThatThrownBy(() -> collect(env, "SELECT id FROM sf_lost_deletes"))
                .hasStackTraceContaining("lost-deletes.parquet");
    }

    @Test
    void anExpiredSnapshotFailsNamingIt() throws Exception {
        Table t = catalog.createTable(TableIdentifier.of("db", "expired"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        IcebergJavaTables.append(t, IcebergJavaTables.typedRows(0, 100, 15), "expired-1");
        long expired = t.currentSnapshot().snapshotId();
        IcebergJavaTables.append(t, IcebergJavaTables.typedRows(100, 100, 16), "expired-2");
        t.expireSnapshots().expireSnapshotId(expired).commit();
        TableEnvironment env = batch();
        assertThat(collect(env, "SELECT id FROM sf_expired")).hasSize(200);
        assertThatThrownBy(() -> collect(env, "SELECT id FROM sf_expired /*+ OPTIONS('snapshot-id' = '" + expired + "') */"))
                .hasStackTraceContaining(Long.toString(expired))
                .hasStackTraceContaining("sf.db.expired");
    }

    @Test
    void aTableWhosePartitionSpecEvolvedReadsAsStockReadsIt() throws Exception {
        Table t = catalog.createTable(TableIdentifier.of("db", "evolved_spec"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        IcebergJavaTables.append(t, IcebergJavaTables.typedRows(0, 400, 17), "unpartitioned");
        t.updateSpec().addField("s").commit();
        IcebergJavaTables.appendPartitioned(t, IcebergJavaTables.typedRows(400, 400, 18), "by-s");
        t.updateSpec().addField(org.apache.iceberg.expressions.Expressions.bucket("id", 3)).commit();
        IcebergJavaTables.appendPartitioned(t, IcebergJavaTables.typedRows(800, 400, 19), "by-s-and-bucket");
        assertThat(t.specs()).hasSize(3);
        TableEnvironment env = batch();
        assertThat(assertSameRows(env, "evolved_spec", "SELECT * FROM %s")).hasSize(1200);
        assertSameRows(env, "evolved_spec", "SELECT id, s FROM %s WHERE s IS NOT NULL AND id > 300");
    }

    @Test
    void aJdbcCatalogOverSqliteIsReadAndWrittenAsIcebergFlinksIs() throws Exception {
        String properties = "'uri' = 'jdbc:sqlite:" + warehouse.resolve("catalog.sqlite") + "', 'jdbc.schema-version' = 'V1', "
                + "'warehouse' = '" + warehouseUri + "jdbc'";
        TableEnvironment env = batch();
        // A JDBC catalog keeps its tables under its name: every catalog here is named stock_jdbc.
        env.executeSql("CREATE CATALOG stock_jdbc WITH ('type' = 'iceberg', 'catalog-impl' = 'org.apache.iceberg.jdbc.JdbcCatalog', "
                + properties + ")");
        // The connector form creates the table in the JDBC catalog; iceberg-flink appends to it.
        env.executeSql("CREATE TABLE jdbc_events (id BIGINT NOT NULL, s STRING) WITH ('connector' = 'streamfusion-iceberg', "
                + "'catalog-name' = 'stock_jdbc', 'catalog-type' = 'jdbc', " + properties + ", 'catalog-database' = 'events_db', "
                + "'catalog-table' = 'events')");
        env.executeSql("INSERT INTO jdbc_events SELECT id, s FROM stock.db.types WHERE id < 500").await();
        env.executeSql("INSERT INTO stock_jdbc.events_db.events SELECT id, s FROM stock.db.types WHERE id >= 500 AND id < 800").await();
        List<Row> expected = collect(env, "SELECT id, s FROM stock.db.types WHERE id < 800");
        assertThat(expected).hasSizeGreaterThan(600);
        assertThat(collect(env, "SELECT * FROM stock_jdbc.events_db.events")).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(collect(env, "SELECT * FROM jdbc_events")).containsExactlyInAnyOrderElementsOf(expected);
        TableEnvironment ours = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        ours.executeSql("CREATE CATALOG stock_jdbc WITH ('type' = 'streamfusion-iceberg', 'catalog-type' = 'jdbc', " + properties + ")");
        assertThat(collect(ours, "SELECT * FROM stock_jdbc.events_db.events")).containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * Databases and tables created and dropped through a streamfusion-iceberg catalog (over JDBC,
     * which keeps namespace properties): a database's comment is its {@code comment} property, as
     * iceberg-flink's catalog stores it; computed columns and watermarks are refused, as there;
     * {@code CREATE TABLE ... LIKE} stores none of the catalog's own options (its credentials)
     * as table properties; and {@code DROP DATABASE ... CASCADE} drops each table as {@code DROP
     * TABLE} does, its files kept.
     */
    @Test
    void databasesAndTablesAreCreatedAndDroppedThroughTheCatalogAsIcebergFlinksAre() throws Exception {
        String uri = "jdbc:sqlite:" + warehouse.resolve("ddl.sqlite");
        String properties = "'uri' = '" + uri + "', 'jdbc.schema-version' = 'V1', 'warehouse' = '" + warehouseUri + "ddl'";
        // A JDBC catalog keeps its namespaces under its name: both are named ddl.
        TableEnvironment ours = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        ours.executeSql("CREATE CATALOG ddl WITH ('type' = 'streamfusion-iceberg', 'catalog-type' = 'jdbc', " + properties + ")");
        TableEnvironment stock = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        stock.executeSql("CREATE CATALOG ddl WITH ('type' = 'iceberg', 'catalog-impl' = 'org.apache.iceberg.jdbc.JdbcCatalog', "
                + properties + ")");
        ours.executeSql("CREATE DATABASE ddl.ours_db COMMENT 'about' WITH ('k' = 'v')");
        stock.executeSql("CREATE DATABASE ddl.stock_db COMMENT 'about' WITH ('k' = 'v')");
        org.apache.iceberg.catalog.Catalog jdbc = org.apache.iceberg.CatalogUtil.buildIcebergCatalog("ddl",
                Map.of("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog", "uri", uri, "jdbc.schema-version", "V1",
                        "warehouse", warehouseUri + "ddl"),
                new org.apache.hadoop.conf.Configuration());
        try {
            org.apache.iceberg.catalog.SupportsNamespaces namespaces = (org.apache.iceberg.catalog.SupportsNamespaces) jdbc;
            // The JDBC catalog adds each namespace's own location.
            Map<String, String> oursDb = new java.util.HashMap<>(namespaces.loadNamespaceMetadata(Namespace.of("ours_db")));
            Map<String, String> stockDb = new java.util.HashMap<>(namespaces.loadNamespaceMetadata(Namespace.of("stock_db")));
            assertThat(oursDb.remove("location")).endsWith("ours_db");
            assertThat(stockDb.remove("location")).endsWith("stock_db");
            assertThat(oursDb).isEqualTo(stockDb).isEqualTo(Map.of("comment", "about", "k", "v"));
            org.apache.flink.table.catalog.CatalogDatabase database = ours.getCatalog("ddl").orElseThrow().getDatabase("ours_db");
            assertThat(database.getComment()).isEqualTo("about");
            assertThat(database.getProperties()).containsEntry("k", "v").doesNotContainKey("comment");
            for (TableEnvironment env : List.of(ours, stock)) {
                assertThatThrownBy(() -> env.executeSql("CREATE DATABASE ddl.commented_twice COMMENT 'x' WITH ('comment' = 'y')"))
                        .hasStackTraceContaining("'comment'");
                assertThatThrownBy(() -> env.executeSql("CREATE TABLE ddl.stock_db.computed (id BIGINT, twice AS id * 2)"))
                        .hasStackTraceContaining("computed column");
                assertThatThrownBy(() -> env.executeSql("CREATE TABLE ddl.stock_db.timed (ts TIMESTAMP(3), WATERMARK FOR ts AS ts)"))
                        .hasStackTraceContaining("watermark");
            }

            // ALTER DATABASE sets and removes the namespace's properties as iceberg-flink's catalog does.
            ours.executeSql("ALTER DATABASE ddl.ours_db SET ('k' = 'w', 'k2' = 'x')");
            stock.executeSql("ALTER DATABASE ddl.stock_db SET ('k' = 'w', 'k2' = 'x')");
            java.util.function.Function<String, Map<String, String>> withoutLocation = db -> {
                Map<String, String> metadata = new java.util.HashMap<>(namespaces.loadNamespaceMetadata(Namespace.of(db)));
                metadata.remove("location");
                return metadata;
            };
            assertThat(withoutLocation.apply("ours_db")).isEqualTo(withoutLocation.apply("stock_db"))
                    .isEqualTo(Map.of("comment", "about", "k", "w", "k2", "x"));
            org.apache.flink.table.catalog.CatalogDatabase altered =
                    new org.apache.flink.table.catalog.CatalogDatabaseImpl(Map.of("k2", "y"), "changed");
            ours.getCatalog("ddl").orElseThrow().alterDatabase("ours_db", altered, false);
            stock.getCatalog("ddl").orElseThrow().alterDatabase("stock_db", altered, false);
            assertThat(withoutLocation.apply("ours_db")).isEqualTo(withoutLocation.apply("stock_db"))
                    .isEqualTo(Map.of("comment", "changed", "k2", "y"));
            assertThatThrownBy(() -> ours.getCatalog("ddl").orElseThrow().alterDatabase("no_db", altered, false))
                    .isInstanceOf(org.apache.flink.table.catalog.exceptions.DatabaseNotExistException.class);
            ours.getCatalog("ddl").orElseThrow().alterDatabase("no_db", altered, true);

            // A catalog's 'base-namespace' holds its databases, as in iceberg-flink: both catalogs
            // create, list and read the same namespaces and tables below it (in the JDBC catalog
            // named as the Flink catalogs are).
            String based = properties + ", 'base-namespace' = 'lake.zone'";
            ours.executeSql("CREATE CATALOG based WITH ('type' = 'streamfusion-iceberg', 'catalog-type' = 'jdbc', " + based + ")");
            stock.executeSql("CREATE CATALOG based WITH ('type' = 'iceberg', 'catalog-impl' = 'org.apache.iceberg.jdbc.JdbcCatalog', "
                    + based + ")");
            ours.executeSql("CREATE DATABASE based.inner_ours");
            stock.executeSql("CREATE DATABASE based.inner_stock");
            ours.executeSql("CREATE TABLE based.inner_ours.t (id BIGINT)");
            ours.executeSql("INSERT INTO based.inner_ours.t VALUES (7)").await();
            org.apache.iceberg.catalog.Catalog basedJdbc = org.apache.iceberg.CatalogUtil.buildIcebergCatalog("based",
                    Map.of("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog", "uri", uri, "jdbc.schema-version", "V1",
                            "warehouse", warehouseUri + "ddl"),
                    new org.apache.hadoop.conf.Configuration());
            try {
                Namespace zone = Namespace.of("lake", "zone");
                assertThat(((org.apache.iceberg.catalog.SupportsNamespaces) basedJdbc).listNamespaces(zone))
                        .containsExactlyInAnyOrder(Namespace.of("lake", "zone", "inner_ours"), Namespace.of("lake", "zone", "inner_stock"));
                assertThat(basedJdbc.tableExists(TableIdentifier.of(Namespace.of("lake", "zone", "inner_ours"), "t"))).isTrue();
            } finally {
                ((java.io.Closeable) basedJdbc).close();
            }
            assertThat(ours.getCatalog("based").orElseThrow().listDatabases())
                    .containsExactlyInAnyOrderElementsOf(stock.getCatalog("based").orElseThrow().listDatabases())
                    .containsExactlyInAnyOrder("inner_ours", "inner_stock");
            assertThat(collect(stock, "SELECT * FROM based.inner_ours.t")).containsExactly(Row.of(7L));
            assertThat(collect(ours, "SELECT * FROM based.inner_ours.t")).containsExactly(Row.of(7L));
            // The connector form takes the option too.
            ours.executeSql("CREATE TABLE based_t (id BIGINT) WITH ('connector' = 'streamfusion-iceberg', 'catalog-name' = 'based', "
                    + "'catalog-type' = 'jdbc', " + based + ", 'catalog-database' = 'inner_ours', 'catalog-table' = 't')");
            assertThat(collect(ours, "SELECT * FROM based_t")).containsExactly(Row.of(7L));

            ours.executeSql("CREATE TABLE ddl.ours_db.t1 (id BIGINT, s STRING) WITH ('write.metadata.metrics.default' = 'full')");
            ours.executeSql("CREATE TABLE ddl.ours_db.t2 LIKE ddl.ours_db.t1");
            assertThat(jdbc.loadTable(TableIdentifier.of("ours_db", "t2")).properties())
                    .doesNotContainKeys("catalog-type", "uri", "warehouse", "jdbc.schema-version", "catalog-name",
                            "catalog-database", "catalog-table", "type");
            ours.executeSql("INSERT INTO ddl.ours_db.t1 VALUES (1, 'a')").await();
            List<String> files = new ArrayList<>();
            try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
                    jdbc.loadTable(TableIdentifier.of("ours_db", "t1")).newScan().planFiles()) {
                tasks.forEach(t -> files.add(t.file().location()));
            }
            assertThat(files).hasSize(1);
            ours.executeSql("DROP DATABASE ddl.ours_db CASCADE");
            assertThat(namespaces.namespaceExists(Namespace.of("ours_db"))).isFalse();
            assertThat(java.nio.file.Path.of(java.net.URI.create(files.get(0)))).exists();
        } finally {
            ((java.io.Closeable) jdbc).close();
        }
    }

    /**
     * A table whose files are not local (Iceberg's {@code InMemoryFileIO}, locations {@code
     * memory://...}, in a JDBC catalog): every file is read and written through the table's own
     * {@code FileIO}, deletes included, and equals iceberg-flink's reads of it; the files written
     * are where the table says, and a lost one fails the query naming it.
     */
    @Test
    void aTableOnAnotherFileIoIsReadAndWrittenThroughIt() throws Exception {
        java.util.Map<String, String> props = java.util.Map.of(
                "uri", "jdbc:sqlite:" + warehouse.resolve("memory.sqlite"),
                "jdbc.schema-version", "V1",
                "warehouse", "memory://warehouse",
                "io-impl", SharedInMemoryFileIO.class.getName());
        org.apache.iceberg.catalog.Catalog memory = org.apache.iceberg.CatalogUtil.buildIcebergCatalog(
                "mem", java.util.Map.of("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog", "uri", props.get("uri"),
                        "jdbc.schema-version", "V1", "warehouse", props.get("warehouse"), "io-impl", props.get("io-impl")),
                new org.apache.hadoop.conf.Configuration());
        try {
            Table t = memory.createTable(TableIdentifier.of("db", "events"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
            DataFile first = IcebergJavaTables.append(t, IcebergJavaTables.typedRows(0, 1500, 41), "mem-first");
            IcebergJavaTables.append(t, IcebergJavaTables.typedRows(1500, 1500, 42), "mem-second");
            t.newRowDelta()
                    .addDeletes(IcebergJavaTables.positionDeletes(t, first, List.of(0L, 5L, 700L), "mem-pos"))
                    .addDeletes(IcebergJavaTables.equalityDeletes(t, "id", List.of(1L, 1600L, 2999L), "mem-eq"))
                    .commit();
            assertThat(first.location()).startsWith("memory://warehouse/");

            String options = props.entrySet().stream()
                    .map(e -> "'" + e.getKey() + "' = '" + e.getValue() + "'")
                    .collect(Collectors.joining(", "));
            TableEnvironment env = batch();
            env.executeSql("CREATE CATALOG mem WITH ('type' = 'iceberg', 'catalog-impl' = 'org.apache.iceberg.jdbc.JdbcCatalog', "
                    + options + ")");
            String columns = env.from("mem.db.events").getResolvedSchema().getColumns().stream()
                    .map(StreamFusionIcebergITCase::columnDdl)
                    .collect(Collectors.joining(", "));
            for (String table : List.of("events", "copy")) {
                env.executeSql("CREATE TABLE sf_mem_" + table + " (" + columns + ") WITH ('connector' = 'streamfusion-iceberg', "
                        + "'catalog-name' = 'mem', 'catalog-type' = 'jdbc', " + options + ", 'catalog-database' = 'db', "
                        + "'catalog-table' = '" + table + "')");
            }
            List<Row> stock = collect(env, "SELECT * FROM mem.db.events");
            assertThat(stock).hasSize(3000 - 6);
            assertThat(collect(env, "SELECT * FROM sf_mem_events")).containsExactlyInAnyOrderElementsOf(stock);
            assertThat(collect(env, "SELECT id, s FROM sf_mem_events WHERE id > 2500"))
                    .containsExactlyInAnyOrderElementsOf(collect(env, "SELECT id, s FROM mem.db.events WHERE id > 2500"));

            // Written natively through the FileIO (the connector form creates the table), read by iceberg-flink.
            env.executeSql("INSERT INTO sf_mem_copy SELECT * FROM sf_mem_events").await();
            assertThat(collect(env, "SELECT * FROM mem.db.copy")).containsExactlyInAnyOrderElementsOf(stock);
            Table copy = memory.loadTable(TableIdentifier.of("db", "copy"));
            List<String> written = new ArrayList<>();
            try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = copy.newScan().planFiles()) {
                tasks.forEach(task -> written.add(task.file().location()));
            }
            assertThat(written).isNotEmpty().allSatisfy(location -> {
                assertThat(location).startsWith("memory://warehouse/db/copy/data/");
                assertThat(copy.io().newInputFile(location).exists()).isTrue();
            });

            copy.io().deleteFile(written.get(0));
            assertThatThrownBy(() -> collect(env, "SELECT * FROM sf_mem_copy"))
                    .hasStackTraceContaining(written.get(0));
        } finally {
            dev.streamfusion.iceberg.internal.IcebergTableRef.close(memory);
        }
    }

    /**
     * A REST catalog (Iceberg's own server side of the protocol, in a child JVM): a table created
     * and half written by iceberg-flink, half written through our catalog, reads the same through
     * both catalogs and through the connector form.
     */
    @Test
    void aRestCatalogIsReadAndWrittenAsIcebergFlinksIs() throws Exception {
        String props = "'catalog-type' = 'rest', 'uri' = '" + REST.uri() + "'";
        TableEnvironment env = batch();
        env.executeSql("CREATE CATALOG rest_stock WITH ('type' = 'iceberg', " + props + ")");
        env.executeSql("CREATE CATALOG rest_sf WITH ('type' = 'streamfusion-iceberg', " + props + ")");
        env.executeSql("CREATE DATABASE rest_stock.db");
        env.executeSql("CREATE TABLE rest_stock.db.events (id BIGINT, s STRING, amount DECIMAL(10, 2))");
        env.executeSql("INSERT INTO rest_stock.db.events SELECT id, s, amount FROM stock.db.types WHERE id < 500").await();
        env.executeSql("INSERT INTO rest_sf.db.events SELECT id, s, amount FROM stock.db.types WHERE id >= 500 AND id < 900")
                .await();
        List<Row> expected = collect(env, "SELECT id, s, amount FROM stock.db.types WHERE id < 900");
        assertThat(expected).hasSizeGreaterThan(600);
        assertThat(collect(env, "SELECT * FROM rest_stock.db.events")).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(collect(env, "SELECT * FROM rest_sf.db.events")).containsExactlyInAnyOrderElementsOf(expected);
        env.executeSql("CREATE TABLE rest_events (id BIGINT, s STRING, amount DECIMAL(10, 2)) WITH ("
                + "'connector' = 'streamfusion-iceberg', 'catalog-name' = 'rest', " + props + ", "
                + "'catalog-database' = 'db', 'catalog-table' = 'events')");
        assertThat(collect(env, "SELECT id, amount FROM rest_events WHERE id > 300 AND amount IS NOT NULL"))
                .containsExactlyInAnyOrderElementsOf(
                        collect(env, "SELECT id, amount FROM rest_stock.db.events WHERE id > 300 AND amount IS NOT NULL"));
    }

    /** A running streaming read of {@code id} and {@code s} of table {@code db.<table>}, discovering every {@code interval}. */
    private static TableResult streamingRead(String table, String interval) {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql("CREATE TABLE sf_" + table + " (id BIGINT NOT NULL, s STRING) WITH ('connector' = 'streamfusion-iceberg', "
                + "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db', 'catalog-table' = '" + table + "', 'streaming' = 'true', "
                + "'monitor-interval' = '" + interval + "')");
        return env.executeSql("SELECT id, s FROM sf_" + table);
    }

    @Test
    void streamingReadsTheAppendsOfNewSnapshotsAfterTheCurrentOne() throws Exception {
        Table t = catalog.createTable(TableIdentifier.of("db", "stream"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        IcebergJavaTables.append(t, IcebergJavaTables.typedRows(0, 200, 11), "s1");
        TableResult result = streamingRead("stream", "200ms");
        List<Long> ids = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (ids.size() < 200) {
                ids.add((Long) it.next().getField(0));
            }
            IcebergJavaTables.append(t, IcebergJavaTables.typedRows(200, 100, 12), "s2");
            IcebergJavaTables.append(t, IcebergJavaTables.typedRows(300, 100, 13), "s3");
            while (ids.size() < 400) {
                ids.add((Long) it.next().getField(0));
            }
        }
        assertThat(ids).containsExactlyInAnyOrderElementsOf(LongStream.range(0, 400).boxed().collect(Collectors.toList()));
    }

    /**
     * Without a {@code starting-strategy}, a streaming read starts as iceberg-flink's does
     * ({@code INCREMENTAL_FROM_LATEST_SNAPSHOT}): the appends of the current snapshot and of the
     * snapshots after it, not the rows of earlier ones.
     */
    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aStreamingReadStartsWhereIcebergFlinksStartsByDefault() throws Exception {
        Table t = catalog.createTable(TableIdentifier.of("db", "default_start"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        IcebergJavaTables.append(t, IcebergJavaTables.typedRows(0, 100, 51), "l1");
        IcebergJavaTables.append(t, IcebergJavaTables.typedRows(100, 100, 52), "l2");
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        // Both jobs run at once: a slot each.
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        String options = "'catalog-name' = 'c', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db', 'catalog-table' = 'default_start', 'streaming' = 'true', 'monitor-interval' = '200ms')";
        env.executeSql("CREATE TABLE start_stock (id BIGINT NOT NULL, s STRING) WITH ('connector' = 'iceberg', " + options);
        env.executeSql("CREATE TABLE start_fused (id BIGINT NOT NULL, s STRING) WITH ('connector' = 'streamfusion-iceberg', " + options);
        TableResult stock = env.executeSql("SELECT id FROM start_stock");
        TableResult fused = env.executeSql("SELECT id FROM start_fused");
        List<Long> stockIds = new ArrayList<>();
        List<Long> fusedIds = new ArrayList<>();
        try (CloseableIterator<Row> fromStock = stock.collect(); CloseableIterator<Row> fromFused = fused.collect()) {
            while (stockIds.size() < 100) {
                stockIds.add((Long) fromStock.next().getField(0));
            }
            while (fusedIds.size() < 100) {
                fusedIds.add((Long) fromFused.next().getField(0));
            }
            IcebergJavaTables.append(t, IcebergJavaTables.typedRows(200, 50, 53), "l3");
            while (stockIds.size() < 150) {
                stockIds.add((Long) fromStock.next().getField(0));
            }
            while (fusedIds.size() < 150) {
                fusedIds.add((Long) fromFused.next().getField(0));
            }
        }
        assertThat(stockIds).containsExactlyInAnyOrderElementsOf(LongStream.range(100, 250).boxed().collect(Collectors.toList()));
        assertThat(fusedIds).containsExactlyInAnyOrderElementsOf(stockIds);
    }

    /**
     * Discoveries that fail (here: the table was dropped) are tried again at the next interval up
     * to 'max-allowed-planning-failures' times in a row; the next failure fails the job, saying so.
     */
    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aStreamingReadFailsOnceItsDiscoveriesFailMoreOftenThanAllowed() throws Exception {
        Table t = catalog.createTable(TableIdentifier.of("db", "dropped"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        IcebergJavaTables.append(t, IcebergJavaTables.typedRows(0, 50, 43), "d1");
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql("CREATE TABLE sf_dropped (id BIGINT NOT NULL, s STRING) WITH ('connector' = 'streamfusion-iceberg', "
                + "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db', 'catalog-table' = 'dropped', 'streaming' = 'true', "
                + "'monitor-interval' = '200ms', 'max-allowed-planning-failures' = '2')");
        TableResult result = env.executeSql("SELECT id FROM sf_dropped");
        try (CloseableIterator<Row> it = result.collect()) {
            for (int i = 0; i < 50; i++) {
                it.next();
            }
            catalog.dropTable(TableIdentifier.of("db", "dropped"), true);
            assertThatThrownBy(() -> {
                while (it.hasNext()) {
                    it.next();
                }
            }).hasStackTraceContaining("3 failures in a row, 'max-allowed-planning-failures' is 2");
        }
    }

    /**
     * A streaming read that starts on an empty table reads the appends of every snapshot from the
     * first, as iceberg-flink's does: a delete committed before its next discovery does not take
     * rows the first snapshot appended away (a table scan of the then current snapshot would).
     */
    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aStreamingReadStartedOnAnEmptyTableReadsEveryAppendFromTheFirst() throws Exception {
        Table t = catalog.createTable(TableIdentifier.of("db", "from_empty"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        TableResult result = streamingRead("from_empty", "8s");
        List<Long> ids = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            org.apache.flink.core.execution.JobClient job = result.getJobClient().orElseThrow();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (job.getJobStatus().get() != org.apache.flink.api.common.JobStatus.RUNNING && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            // The first discovery, at the start, finds the table empty; the next comes 8 s later.
            Thread.sleep(2000);
            IcebergJavaTables.append(t, IcebergJavaTables.typedRows(0, 100, 41), "e1");
            t.newRowDelta()
                    .addDeletes(IcebergJavaTables.equalityDeletes(t, "id",
                            LongStream.range(0, 10).boxed().collect(Collectors.toList()), "e2-deletes"))
                    .commit();
            while (ids.size() < 100) {
                ids.add((Long) it.next().getField(0));
            }
        }
        assertThat(ids).containsExactlyInAnyOrderElementsOf(LongStream.range(0, 100).boxed().collect(Collectors.toList()));
    }

    @Test
    void partitionedTablesReadAsStockReadsThem() throws Exception {
        List<Row> rows = assertSameRows(batch(), "parted", "SELECT * FROM %s");
        assertThat(rows).hasSize(600);
        assertSameRows(batch(), "parted", "SELECT id, amount FROM %s WHERE category = 'c1' AND id > 100");
    }

    @Test
    void aBranchReadsAsStockReadsIt() throws Exception {
        List<Row> rows = assertSameRows(batch(), "types", "SELECT id FROM %s /*+ OPTIONS('branch' = 'audit') */");
        assertThat(rows).hasSize(3050);
    }

    @Test
    void aSnapshotTheTableDoesNotHaveFailsNamingIt() {
        TableEnvironment env = batch();
        assertThatThrownBy(() -> collect(env, "SELECT id FROM sf_types /*+ OPTIONS('snapshot-id' = '424242') */"))
                .hasStackTraceContaining("424242")
                .hasStackTraceContaining("sf.db.types");
    }

    @Test
    void aStreamFusionCatalogListsCreatesAndReadsTablesAsIcebergFlinksDoes() throws Exception {
        TableEnvironment env = batch();
        env.executeSql("CREATE CATALOG sfc WITH ('type' = 'streamfusion-iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                + warehouseUri + "')");
        env.useCatalog("sfc");
        assertThat(env.listDatabases()).contains("db");
        assertThat(env.listTables("sfc", "db")).contains("types", "parted");
        env.useCatalog("default_catalog");
        assertThat(env.from("sfc.db.types").getResolvedSchema().getColumnDataTypes())
                .isEqualTo(env.from("stock.db.types").getResolvedSchema().getColumnDataTypes());
        assertThat(collect(env, "SELECT * FROM sfc.db.types")).containsExactlyInAnyOrderElementsOf(collect(env, "SELECT * FROM stock.db.types"));

        env.executeSql("CREATE TABLE sfc.db.made (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (name)");
        Table made = catalog.loadTable(TableIdentifier.of("db", "made"));
        assertThat(made.schema().identifierFieldNames()).containsExactly("id");
        assertThat(made.spec().fields()).singleElement().satisfies(f -> assertThat(f.transform().isIdentity()).isTrue());
        assertThat(collect(env, "SELECT * FROM sfc.db.made")).isEmpty();
        assertThatThrownBy(() -> collect(env, "SELECT * FROM sfc.db.nope")).hasMessageContaining("nope");
        // Column comments become field docs, as in iceberg-flink's catalog.
        String noted = " (id BIGINT COMMENT 'the id', pt ROW<x INT 'the x', y INT>)";
        env.executeSql("CREATE TABLE sfc.db.noted" + noted);
        env.executeSql("CREATE TABLE stock.db.noted_stock" + noted);
        Schema ours = catalog.loadTable(TableIdentifier.of("db", "noted")).schema();
        Schema stock = catalog.loadTable(TableIdentifier.of("db", "noted_stock")).schema();
        assertThat(ours.asStruct()).isEqualTo(stock.asStruct());
        assertThat(ours.findField("id").doc()).isEqualTo("the id");
        // A multiset is kept as iceberg-flink keeps it: a map of each element to its count.
        String counted = " (id BIGINT, tags MULTISET<STRING>, nested ARRAY<MULTISET<INT NOT NULL>>)";
        env.executeSql("CREATE TABLE sfc.db.counted" + counted);
        env.executeSql("CREATE TABLE stock.db.counted_stock" + counted);
        assertThat(catalog.loadTable(TableIdentifier.of("db", "counted")).schema().asStruct())
                .isEqualTo(catalog.loadTable(TableIdentifier.of("db", "counted_stock")).schema().asStruct());
        assertThat(env.from("sfc.db.counted").getResolvedSchema().getColumnDataTypes())
                .isEqualTo(env.from("stock.db.counted_stock").getResolvedSchema().getColumnDataTypes());
        env.executeSql("INSERT INTO sfc.db.counted VALUES (1, MAP['a', 2], ARRAY[MAP[7, 1]])").await();
        assertThat(collect(env, "SELECT * FROM sfc.db.counted"))
                .containsExactlyInAnyOrderElementsOf(collect(env, "SELECT * FROM stock.db.counted"));
        // The connector form writes a MULTISET column into that map and reads it back (iceberg-flink's
        // writer fails on it: "MULTISET<STRING> is not a map").
        env.executeSql("CREATE TABLE sf_multiset (id BIGINT, tags MULTISET<STRING>) WITH ('connector' = 'streamfusion-iceberg', "
                + "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db', 'catalog-table' = 'counts')");
        env.executeSql("INSERT INTO sf_multiset SELECT 1, COLLECT(s) FROM (VALUES ('a'), ('a'), ('b')) AS v(s)").await();
        assertThat(collect(env, "SELECT * FROM sf_multiset")).containsExactly(Row.of(1L, Map.of("a", 2, "b", 1)));
        assertThat(collect(env, "SELECT * FROM stock.db.counts")).containsExactly(Row.of(1L, Map.of("a", 2, "b", 1)));

        // Partitions as iceberg-flink's catalog lists them: those of the current data files, each
        // named by its partition fields (identity, bucket and day here, NULLs among them), values as
        // Iceberg keeps them (a day as its number).
        org.apache.flink.table.catalog.Catalog sfCatalog = env.getCatalog("sfc").orElseThrow();
        org.apache.flink.table.catalog.Catalog stockCatalog = env.getCatalog("stock").orElseThrow();
        org.apache.flink.table.catalog.ObjectPath partedPath = new org.apache.flink.table.catalog.ObjectPath("db", "parted");
        List<org.apache.flink.table.catalog.CatalogPartitionSpec> partitions = sfCatalog.listPartitions(partedPath);
        assertThat(partitions).hasSizeGreaterThan(20)
                .containsExactlyInAnyOrderElementsOf(stockCatalog.listPartitions(partedPath))
                .contains(new org.apache.flink.table.catalog.CatalogPartitionSpec(
                        Map.of("category", "null", "id_bucket", "0", "ts_day", "19723")));
        // By a spec (iceberg-flink's catalog refuses it): the partitions holding its values.
        assertThat(sfCatalog.listPartitions(partedPath,
                        new org.apache.flink.table.catalog.CatalogPartitionSpec(Map.of("category", "c1"))))
                .isNotEmpty()
                .containsExactlyInAnyOrderElementsOf(partitions.stream()
                        .filter(p -> "c1".equals(p.getPartitionSpec().get("category"))).collect(Collectors.toList()));
        org.apache.flink.table.catalog.ObjectPath typesPath = new org.apache.flink.table.catalog.ObjectPath("db", "types");
        for (org.apache.flink.table.catalog.Catalog c : List.of(sfCatalog, stockCatalog)) {
            assertThatThrownBy(() -> c.listPartitions(typesPath))
                    .isInstanceOf(org.apache.flink.table.catalog.exceptions.TableNotPartitionedException.class);
        }
    }

    /**
     * VARIANT columns of a format-version 3 table that iceberg-flink wrote (top level and in a ROW,
     * objects, arrays, primitives, JSON null and NULL, in two files) read through the catalog and the connector
     * form as iceberg-flink reads them, byte for byte, in ARRAYs and MAPs too; the other columns of
     * such tables read natively; writing such a table is refused naming the column.
     */
    @Test
    void variantColumnsReadAsIcebergFlinkReadsThem() throws Exception {
        TableEnvironment env = batch();
        env.executeSql("CREATE CATALOG sfv WITH ('type' = 'streamfusion-iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                + warehouseUri + "')");
        env.executeSql("CREATE DATABASE stock.vdb");
        String columns = " (id BIGINT, doc VARIANT, nested ROW<n INT, v VARIANT>) WITH ('format-version' = '3')";
        env.executeSql("CREATE TABLE stock.vdb.events" + columns);
        // Flink's VALUES cannot mix VARIANT rows (Calcite has no rule for their common type), nor
        // cast a NULL to one: text is parsed in a SELECT, and PARSE_JSON of NULL is NULL.
        env.executeSql("INSERT INTO stock.vdb.events SELECT id, PARSE_JSON(j), ROW(n, PARSE_JSON(nj)) FROM (VALUES "
                + "(1, '{\"a\": 1, \"b\": [true, null, \"x\", 2.5], \"c\": {\"d\": 12345678901}}', 10, '[1, {\"k\": \"v\"}]'), "
                + "(2, CAST(NULL AS STRING), 20, CAST(NULL AS STRING)), "
                + "(3, 'null', 30, CAST(NULL AS STRING)), "
                + "(4, '\"text\"', 40, '-7.125')) AS t(id, j, n, nj)").await();
        env.executeSql("INSERT INTO stock.vdb.events VALUES (5, PARSE_JSON('{\"a\": 5}'), ROW(50, PARSE_JSON('true')))").await();
        // The same schema through either catalog's CREATE TABLE, and the same column types read.
        env.executeSql("CREATE TABLE sfv.vdb.made" + columns);
        assertThat(catalog.loadTable(TableIdentifier.of("vdb", "made")).schema().asStruct())
                .isEqualTo(catalog.loadTable(TableIdentifier.of("vdb", "events")).schema().asStruct());
        assertThat(env.from("sfv.vdb.events").getResolvedSchema().getColumnDataTypes())
                .isEqualTo(env.from("stock.vdb.events").getResolvedSchema().getColumnDataTypes());

        List<Row> stockRows = collect(env, "SELECT * FROM stock.vdb.events");
        assertThat(stockRows).hasSize(5);
        assertThat(collect(env, "SELECT * FROM sfv.vdb.events")).containsExactlyInAnyOrderElementsOf(stockRows);
        Row first = collect(env, "SELECT doc, nested FROM sfv.vdb.events WHERE id = 1").get(0);
        assertThat(((Variant) first.getField(0)).toJson()).isEqualTo("{\"a\":1,\"b\":[true,null,\"x\",2.5],\"c\":{\"d\":12345678901}}");
        assertThat(((Variant) ((Row) first.getField(1)).getField(1)).toJson()).isEqualTo("[1,{\"k\":\"v\"}]");
        assertThat(collect(env, "SELECT id, doc FROM sfv.vdb.events WHERE id > 2"))
                .containsExactlyInAnyOrderElementsOf(collect(env, "SELECT id, doc FROM stock.vdb.events WHERE id > 2"))
                .hasSize(3);
        // The limit option counts the rows a null check on a variant (or a row holding one) keeps.
        assertThat(collect(env, "SELECT id FROM sfv.vdb.events /*+ OPTIONS('limit' = '2') */ WHERE doc IS NOT NULL "
                + "AND nested IS NOT NULL")).hasSize(2).doesNotContain(Row.of(2L));
        // Without its variants, the table reads natively: the native reader's schema leaves them out.
        assertThat(collect(env, "SELECT id FROM sfv.vdb.events WHERE id <> 3"))
                .containsExactlyInAnyOrder(Row.of(1L), Row.of(2L), Row.of(4L), Row.of(5L));
        env.executeSql("CREATE TABLE sf_events (id BIGINT, doc VARIANT, nested ROW<n INT, v VARIANT>) WITH ("
                + "'connector' = 'streamfusion-iceberg', 'catalog-name' = 'sf', 'catalog-type' = 'hadoop', "
                + "'warehouse' = '" + warehouseUri + "', 'catalog-database' = 'vdb', 'catalog-table' = 'events')");
        assertThat(collect(env, "SELECT * FROM sf_events")).containsExactlyInAnyOrderElementsOf(stockRows);

        // Lists and maps of variants, written by Iceberg Java's generic writer (Flink's SQL cannot
        // build a map of them: a MAP constructor meets the same gap in Calcite as VALUES).
        Schema listedSchema = new Schema(
                required(1, "id", Types.LongType.get()),
                optional(2, "docs", Types.ListType.ofOptional(4, Types.VariantType.get())),
                optional(3, "named", Types.MapType.ofOptional(5, 6, Types.StringType.get(), Types.VariantType.get())));
        Table listedTable = catalog.createTable(TableIdentifier.of("vdb", "listed"), listedSchema, PartitionSpec.unpartitioned(),
                Map.of(TableProperties.FORMAT_VERSION, "3"));
        VariantBuilder builder = Variant.newBuilder();
        List<Record> listedRows = new ArrayList<>();
        for (long id = 1; id <= 3; id++) {
            GenericRecord r = GenericRecord.create(listedSchema);
            r.setField("id", id);
            Variant object = builder.object().add("x", builder.array().add(builder.of(id)).build()).build();
            if (id != 2) {
                r.setField("docs", java.util.Arrays.asList(icebergVariant(builder.of(id * 1.5)), null, icebergVariant(object)));
                Map<String, Object> named = new java.util.HashMap<>();
                named.put("a", icebergVariant(builder.of("v" + id)));
                named.put("none", null);
                r.setField("named", named);
            }
            listedRows.add(r);
        }
        IcebergJavaTables.append(listedTable, listedRows, "listed");
        assertThat(collect(env, "SELECT id FROM sfv.vdb.listed")).containsExactlyInAnyOrder(Row.of(1L), Row.of(2L), Row.of(3L));
        List<Row> listed = collect(env, "SELECT * FROM stock.vdb.listed");
        assertThat(collect(env, "SELECT * FROM sfv.vdb.listed")).containsExactlyInAnyOrderElementsOf(listed).hasSize(3);
        assertThat(collect(env, "SELECT id, docs[3], named['a'] FROM sfv.vdb.listed"))
                .containsExactlyInAnyOrderElementsOf(collect(env, "SELECT id, docs[3], named['a'] FROM stock.vdb.listed"))
                .filteredOn(row -> row.getField(0).equals(3L))
                .singleElement()
                .satisfies(row -> assertThat(((Variant) row.getField(1)).toJson()).isEqualTo("{\"x\":[3]}"));

        assertThatThrownBy(() -> env.executeSql("INSERT INTO sfv.vdb.events SELECT 6, PARSE_JSON('1'), ROW(60, PARSE_JSON('2'))").await())
                .hasStackTraceContaining("has the VARIANT column 'doc'")
                .hasStackTraceContaining("write it with the iceberg connector");
        assertThat(collect(env, "SELECT id FROM stock.vdb.events")).hasSize(5);
    }

    /** Flink's variant as Iceberg Java's, from the same bytes. */
    private static org.apache.iceberg.variants.Variant icebergVariant(Variant flink) {
        BinaryVariant binary = (BinaryVariant) flink;
        java.nio.ByteBuffer metadataBytes = java.nio.ByteBuffer.wrap(binary.getMetadata()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        VariantMetadata metadata = VariantMetadata.from(metadataBytes);
        return org.apache.iceberg.variants.Variant.of(metadata,
                VariantValue.from(metadata, java.nio.ByteBuffer.wrap(binary.getValue()).order(java.nio.ByteOrder.LITTLE_ENDIAN)));
    }

    /**
     * Iceberg's metadata tables ({@code t$snapshots}, {@code t$files}, ...) of a table with
     * deletes, tags and a branch, and of a partitioned one, read through the catalog as
     * iceberg-flink's catalog reads them: the same columns and the same rows, projected and
     * filtered too, and through the connector form. Writing one, reading one streaming, dropping
     * one and the position deletes table (which Iceberg scans otherwise) are refused naming it.
     */
    @Test
    void metadataTablesReadAsIcebergFlinkReadsThem() throws Exception {
        TableEnvironment env = batch();
        env.executeSql("CREATE CATALOG sfm WITH ('type' = 'streamfusion-iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '"
                + warehouseUri + "')");
        int compared = 0;
        for (String table : List.of("types", "parted")) {
            for (org.apache.iceberg.MetadataTableType kind : org.apache.iceberg.MetadataTableType.values()) {
                // The partitioned table for the kinds whose rows hold partitions.
                if (kind == org.apache.iceberg.MetadataTableType.POSITION_DELETES || (table.equals("parted")
                        && !List.of("FILES", "ENTRIES", "PARTITIONS", "ALL_ENTRIES").contains(kind.name()))) {
                    continue;
                }
                String name = "db.`" + table + "$" + kind.name().toLowerCase(java.util.Locale.ROOT) + "`";
                List<String> columns = env.from("stock." + name).getResolvedSchema().getColumnNames();
                assertThat(env.from("sfm." + name).getResolvedSchema().getColumnDataTypes()).as(name)
                        .isEqualTo(env.from("stock." + name).getResolvedSchema().getColumnDataTypes());
                // iceberg-flink fails on the metrics of a TIME column (it reads their microseconds as
                // an int): the files tables of db.types are compared without them, and checked below.
                String select = columns.stream()
                        .filter(c -> !(table.equals("types") && c.equals("readable_metrics")))
                        .map(c -> "`" + c + "`")
                        .collect(Collectors.joining(", "));
                List<Row> stock = collect(env, "SELECT " + select + " FROM stock." + name);
                assertThat(collect(env, "SELECT " + select + " FROM sfm." + name)).as(name)
                        .containsExactlyInAnyOrderElementsOf(stock);
                compared += stock.size();
            }
        }
        assertThat(compared).isGreaterThan(250);
        // The files table's metrics, TIME's too, as Iceberg recorded them in the manifests.
        Map<String, String> recorded = new java.util.HashMap<>();
        try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
                catalog.loadTable(TableIdentifier.of("db", "types")).newScan().includeColumnStats().planFiles()) {
            for (org.apache.iceberg.FileScanTask task : tasks) {
                DataFile file = task.file();
                Object lower = org.apache.iceberg.types.Conversions.fromByteBuffer(
                        Types.TimeType.get(), file.lowerBounds().get(8));
                // Flink's TIME holds milliseconds.
                recorded.put(file.location(), java.time.LocalTime.ofNanoOfDay((Long) lower / 1000 * 1_000_000) + " "
                        + file.nullValueCounts().get(8) + " "
                        + org.apache.iceberg.types.Conversions.fromByteBuffer(Types.LongType.get(), file.lowerBounds().get(1)));
            }
        }
        Map<String, String> read = new java.util.HashMap<>();
        for (Row row : collect(env, "SELECT file_path, readable_metrics.tm.lower_bound, readable_metrics.tm.null_value_count, "
                + "readable_metrics.id.lower_bound FROM sfm.db.`types$files` WHERE content = 0")) {
            read.put((String) row.getField(0), row.getField(1) + " " + row.getField(2) + " " + row.getField(3));
        }
        assertThat(read).hasSize(4).isEqualTo(recorded);

        // Projected out of order and filtered, on a partition field too.
        for (String sql : List.of(
                "SELECT operation, snapshot_id, committed_at, summary['added-records'] FROM %s.db.`types$snapshots` "
                        + "WHERE operation = 'append'",
                "SELECT record_count, `partition`.category, file_path FROM %s.db.`parted$files` "
                        + "WHERE `partition`.category = 'c1' AND record_count > 5",
                "SELECT name, type, snapshot_id FROM %s.db.`types$refs` WHERE type = 'TAG'")) {
            List<Row> stock = collect(env, String.format(sql, "stock"));
            assertThat(stock).as(sql).isNotEmpty();
            assertThat(collect(env, String.format(sql, "sfm"))).as(sql).containsExactlyInAnyOrderElementsOf(stock);
        }
        // The connector form names a metadata table as the catalog does.
        env.executeSql("CREATE TABLE sf_history WITH ('connector' = 'streamfusion-iceberg', 'catalog-name' = 'sf', "
                + "'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', 'catalog-database' = 'db', "
                + "'catalog-table' = 'types$history') LIKE sfm.db.`types$history` (EXCLUDING OPTIONS)");
        assertThat(collect(env, "SELECT * FROM sf_history"))
                .hasSize(5)
                .containsExactlyInAnyOrderElementsOf(collect(env, "SELECT * FROM stock.db.`types$history`"));

        assertThatThrownBy(() -> env.executeSql("INSERT INTO sfm.db.`types$snapshots` SELECT * FROM sfm.db.`types$snapshots`"))
                .hasStackTraceContaining("is the metadata table sfm.db.types$snapshots, which Iceberg derives from its table: "
                        + "it cannot be written");
        assertThatThrownBy(() -> collect(env, "SELECT * FROM sfm.db.`types$snapshots` /*+ OPTIONS('streaming' = 'true') */"))
                .hasStackTraceContaining("types$snapshots is read in batch only");
        assertThatThrownBy(() -> env.executeSql("DROP TABLE sfm.db.`types$snapshots`"))
                .hasStackTraceContaining("is the snapshots metadata table of db.types: it cannot be dropped");
        assertThat(catalog.tableExists(TableIdentifier.of("db", "types"))).isTrue();
        assertThatThrownBy(() -> collect(env, "SELECT * FROM sfm.db.`nope$snapshots`")).hasMessageContaining("nope$snapshots");
        assertThatThrownBy(() -> collect(env, "SELECT * FROM stock.db.`types$position_deletes`"))
                .hasStackTraceContaining("Cannot create TableScan from table of type POSITION_DELETES");
        assertThatThrownBy(() -> collect(env, "SELECT * FROM sfm.db.`types$position_deletes`"))
                .hasStackTraceContaining("types$position_deletes")
                .hasStackTraceContaining("Cannot create TableScan from table of type POSITION_DELETES");
    }

    /**
     * A table the connector form creates takes the Flink table's options as its properties (all
     * but {@code connector}, the catalog's options included) and its format version from them, as
     * iceberg-flink's connector form creates it from the same DDL.
     */
    @Test
    void aTableTheConnectorFormCreatesHasThePropertiesIcebergFlinkGivesIt() throws Exception {
        TableEnvironment env = batch();
        String options = "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db', 'format-version' = '1', 'write.metadata.metrics.default' = 'full')";
        env.executeSql("CREATE TABLE created_ours (id BIGINT, s STRING) WITH ('connector' = 'streamfusion-iceberg', " + options);
        env.executeSql("CREATE TABLE created_stock (id BIGINT, s STRING) WITH ('connector' = 'iceberg', " + options);
        env.executeSql("INSERT INTO created_ours VALUES (1, 'a')").await();
        env.executeSql("INSERT INTO created_stock VALUES (1, 'a')").await();
        Table ours = catalog.loadTable(TableIdentifier.of("db", "created_ours"));
        Table stock = catalog.loadTable(TableIdentifier.of("db", "created_stock"));
        assertThat(TableUtil.formatVersion(ours)).isEqualTo(TableUtil.formatVersion(stock)).isEqualTo(1);
        assertThat(ours.properties())
                .isEqualTo(stock.properties())
                .containsEntry("write.metadata.metrics.default", "full")
                .containsEntry("catalog-type", "hadoop")
                .doesNotContainKey("connector");
        assertThat(collect(env, "SELECT * FROM created_ours")).containsExactly(Row.of(1L, "a"));
    }

    /**
     * A write is checked against the Iceberg table's types as iceberg-flink checks it when the job
     * is planned: a declared type that would change values (another DECIMAL scale) or a nullable
     * column over a required one is refused by both, and nothing is committed; a DECIMAL of fewer
     * digits is written by both, to the same values; INT into a long column and FLOAT into a
     * double one, which iceberg-flink's check allows and its writer fails on, are written exactly.
     */
    @Test
    void aWriteIsCheckedAgainstTheTableTypesAsIcebergFlinkChecksIt() throws Exception {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "amount", Types.DecimalType.of(10, 2)),
                Types.NestedField.optional(3, "ratio", Types.DoubleType.get()),
                Types.NestedField.optional(4, "total", Types.LongType.get()));
        catalog.createTable(TableIdentifier.of("db", "typed_ours"), schema, PartitionSpec.unpartitioned());
        catalog.createTable(TableIdentifier.of("db", "typed_stock"), schema, PartitionSpec.unpartitioned());
        TableEnvironment env = batch();
        String options = "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db', 'catalog-table' = 'typed_";
        Map<String, String> refused = Map.of(
                "id BIGINT NOT NULL, amount DECIMAL(10, 4), ratio DOUBLE, total BIGINT",
                "amount: decimal(10, 4) cannot be promoted to decimal(10, 2)",
                "id BIGINT, amount DECIMAL(10, 2), ratio DOUBLE, total BIGINT",
                "id should be required, but is optional");
        int declared = 0;
        for (Map.Entry<String, String> columns : refused.entrySet()) {
            declared++;
            for (String connector : List.of("streamfusion-iceberg", "iceberg")) {
                String table = "typed_" + connector.replace('-', '_') + "_" + declared;
                String target = connector.equals("iceberg") ? "stock" : "ours";
                env.executeSql("CREATE TABLE " + table + " (" + columns.getKey() + ") WITH ('connector' = '" + connector
                        + "', " + options + target + "')");
                assertThatThrownBy(() -> env.executeSql("INSERT INTO " + table + " VALUES (1, 1.2345, 0.5, 7)").await())
                        .as("%s over %s", connector, columns.getKey())
                        .hasStackTraceContaining("Cannot write incompatible dataset")
                        .hasStackTraceContaining(columns.getValue());
            }
        }
        assertThat(catalog.loadTable(TableIdentifier.of("db", "typed_ours")).currentSnapshot()).isNull();
        // A DECIMAL of fewer digits at the table's scale: both write the same values.
        String promoted = "id BIGINT NOT NULL, amount DECIMAL(6, 2), ratio DOUBLE, total BIGINT";
        env.executeSql("CREATE TABLE promoted_ours (" + promoted + ") WITH ('connector' = 'streamfusion-iceberg', "
                + options + "ours')");
        env.executeSql("CREATE TABLE promoted_stock (" + promoted + ") WITH ('connector' = 'iceberg', " + options + "stock')");
        String values = " VALUES (1, 1234.56, 0.5, -1), (2, CAST(NULL AS DECIMAL(6, 2)), CAST(NULL AS DOUBLE), 2),"
                + " (3, -0.01, -1.5, CAST(NULL AS BIGINT))";
        env.executeSql("INSERT INTO promoted_ours" + values).await();
        env.executeSql("INSERT INTO promoted_stock" + values).await();
        List<Row> stock = collect(env, "SELECT * FROM stock.db.typed_stock");
        assertThat(stock).hasSize(3);
        assertThat(collect(env, "SELECT * FROM stock.db.typed_ours")).containsExactlyInAnyOrderElementsOf(stock);
        // INT into a long column and FLOAT into a double one pass iceberg-flink's check, and then
        // its writer fails (ClassCastException: Integer to Long, Float to Double); the native
        // writer writes each value exactly, as Java's widening gives it.
        String widened = "id BIGINT NOT NULL, amount DECIMAL(10, 2), ratio FLOAT, total INT";
        env.executeSql("CREATE TABLE widened_ours (" + widened + ") WITH ('connector' = 'streamfusion-iceberg', "
                + options + "ours')");
        env.executeSql("CREATE TABLE widened_stock (" + widened + ") WITH ('connector' = 'iceberg', " + options + "stock')");
        String widenedValues = " VALUES (4, 1.00, CAST(0.1 AS FLOAT), -2147483648), (5, 2.00, CAST(NULL AS FLOAT), 2147483647)";
        assertThatThrownBy(() -> env.executeSql("INSERT INTO widened_stock" + widenedValues).await())
                .hasStackTraceContaining("ClassCastException");
        env.executeSql("INSERT INTO widened_ours" + widenedValues).await();
        assertThat(collect(env, "SELECT id, ratio, total FROM stock.db.typed_ours WHERE id > 3"))
                .containsExactlyInAnyOrder(Row.of(4L, (double) 0.1f, -2147483648L), Row.of(5L, null, 2147483647L));
        assertThat(collect(env, "SELECT * FROM stock.db.typed_stock")).containsExactlyInAnyOrderElementsOf(stock);
    }

    /**
     * A table property named as one of iceberg-flink's write options ({@code upsert-enabled},
     * stored so by a connector-form DDL) acts as that option where the table is written through a
     * catalog, as through iceberg-flink's, whose tables' options are their properties.
     */
    @Test
    void writeOptionsStoredAsTablePropertiesActThroughTheCatalogAsInIcebergFlink() throws Exception {
        TableEnvironment env = batch();
        env.executeSql("CREATE CATALOG sfc_options WITH ('type' = 'streamfusion-iceberg', 'catalog-type' = 'hadoop', "
                + "'warehouse' = '" + warehouseUri + "')");
        String options = "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db', 'format-version' = '2', 'upsert-enabled' = 'true')";
        String columns = "(id BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED)";
        env.executeSql("CREATE TABLE upserting_ours " + columns + " WITH ('connector' = 'streamfusion-iceberg', " + options);
        env.executeSql("CREATE TABLE upserting_stock " + columns + " WITH ('connector' = 'iceberg', " + options);
        env.executeSql("INSERT INTO upserting_ours VALUES (1, 'a'), (2, 'a')").await();
        env.executeSql("INSERT INTO upserting_stock VALUES (1, 'a'), (2, 'a')").await();
        assertThat(catalog.loadTable(TableIdentifier.of("db", "upserting_ours")).properties())
                .containsEntry("upsert-enabled", "true");
        env.executeSql("INSERT INTO sfc_options.db.upserting_ours VALUES (1, 'b')").await();
        env.executeSql("INSERT INTO stock.db.upserting_stock VALUES (1, 'b')").await();
        List<Row> expected = collect(env, "SELECT * FROM stock.db.upserting_stock");
        assertThat(expected).containsExactlyInAnyOrder(Row.of(1L, "b"), Row.of(2L, "a"));
        assertThat(collect(env, "SELECT * FROM stock.db.upserting_ours")).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void streamingRestoredFromACheckpointReadsEverySnapshotExactlyOnce() throws Exception {
        Table t = catalog.createTable(TableIdentifier.of("db", "restored"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        IcebergJavaTables.append(t, IcebergJavaTables.typedRows(0, 1000, 21), "r1");
        Path out = warehouse.resolve("restored-copy");
        StreamTableEnvironment env = FailOnce.restartingTables(2, Duration.ofMillis(200));
        env.executeSql("CREATE TABLE sf_restored (id BIGINT NOT NULL, s STRING) WITH ('connector' = 'streamfusion-iceberg', "
                + "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db', 'catalog-table' = 'restored', 'streaming' = 'true', 'monitor-interval' = '200ms')");
        // Part files roll often, so that each checkpoint commits what was read before it.
        env.executeSql("CREATE TABLE copied (id BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = '" + out
                + "', 'format' = 'json', 'sink.rolling-policy.rollover-interval' = '100ms', "
                + "'sink.rolling-policy.check-interval' = '100ms')");
        FailOnce.reset(1500);
        TableResult job = env.executeSql("INSERT INTO copied SELECT fail_once(id), s FROM sf_restored");
        TableEnvironment reader = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        reader.executeSql("CREATE TABLE copied (id BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = '" + out
                + "', 'format' = 'json')");
        try {
            // Snapshots committed while the job runs, before and after its failure.
            IcebergJavaTables.append(t, IcebergJavaTables.typedRows(1000, 1000, 22), "r2");
            IcebergJavaTables.append(t, IcebergJavaTables.typedRows(2000, 1000, 23), "r3");
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (rowsCopiedSoFar(reader) < 3000 && System.nanoTime() < deadline) {
                Thread.sleep(500);
            }
        } finally {
            job.getJobClient().orElseThrow().cancel().get();
        }
        assertThat(FailOnce.failed()).as("the job failed once").isTrue();
        List<Long> ids = collect(reader, "SELECT id FROM copied").stream()
                .map(r -> (Long) r.getField(0))
                .collect(Collectors.toList());
        assertThat(ids).containsExactlyInAnyOrderElementsOf(LongStream.range(0, 3000).boxed().collect(Collectors.toList()));
    }

    /**
     * The rows the running job has committed to {@code copied} so far; none when the listing raced
     * with the sink committing a part file (the hidden in-progress file listed is renamed before
     * it is read), which the next poll does not.
     */
    private static int rowsCopiedSoFar(TableEnvironment reader) throws Exception {
        try {
            return collect(reader, "SELECT id FROM copied").size();
        } catch (RuntimeException e) {
            if (ExceptionUtils.findThrowable(e, java.io.FileNotFoundException.class).isPresent()) {
                return 0;
            }
            throw e;
        }
    }

    @Test
    void rowsWrittenNativelyReadBackAsWrittenWithTheMetricsIcebergJavaRecords() throws Exception {
        // Every type but uuid, which is refused (below).
        List<String> columns = IcebergJavaTables.TYPES.columns().stream()
                .map(Types.NestedField::name)
                .filter(name -> !name.equals("u"))
                .collect(Collectors.toList());
        Schema written = IcebergJavaTables.TYPES.select(columns);
        catalog.createTable(TableIdentifier.of("db", "sink_ours"), written, PartitionSpec.unpartitioned());
        catalog.createTable(TableIdentifier.of("db", "sink_stock"), written, PartitionSpec.unpartitioned());
        catalog.createTable(TableIdentifier.of("db", "sink_uuid"), IcebergJavaTables.TYPES, PartitionSpec.unpartitioned());
        TableEnvironment env = batch();
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        String select = "SELECT " + columns.stream().map(c -> "`" + c + "`").collect(Collectors.joining(", ")) + " FROM stock.db.types";
        env.executeSql("INSERT INTO sf_sink_ours " + select).await();
        env.executeSql("INSERT INTO stock.db.sink_stock " + select).await();

        List<Row> rows = collect(env, "SELECT * FROM stock.db.sink_ours");
        assertThat(rows).containsExactlyInAnyOrderElementsOf(collect(env, select));
        assertThatThrownBy(() -> env.executeSql("INSERT INTO sf_sink_uuid SELECT * FROM stock.db.types").await())
                .hasStackTraceContaining("uuid column 'u'");
        // Columns reach the writer by position: another order (or a subset) is refused, not mixed up.
        env.executeSql("CREATE TABLE reordered (b BOOLEAN, id BIGINT NOT NULL) WITH ('connector' = 'streamfusion-iceberg', "
                + "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db', 'catalog-table' = 'sink_ours')");
        assertThatThrownBy(() -> env.executeSql("INSERT INTO reordered VALUES (true, 1)").await())
                .hasStackTraceContaining("declare the Iceberg table's columns, in its order");
        assertThat(collect(env, "SELECT * FROM sf_sink_ours")).containsExactlyInAnyOrderElementsOf(rows);
        Table ours = catalog.loadTable(TableIdentifier.of("db", "sink_ours"));
        Table stock = catalog.loadTable(TableIdentifier.of("db", "sink_stock"));
        try (CloseableIterable<Record> a = IcebergGenerics.read(ours).build();
                CloseableIterable<Record> b = IcebergGenerics.read(stock).build()) {
            assertThat(canonical(a)).containsExactlyInAnyOrderElementsOf(canonical(b));
        }
        DataFile ourFile = onlyDataFile(ours);
        DataFile stockFile = onlyDataFile(stock);
        assertThat(ourFile.recordCount()).isEqualTo(stockFile.recordCount());
        // A FLOAT or DOUBLE inside a struct is counted only where its struct is present, as Iceberg
        // Java's writer counts it (Parquet's statistics count the other rows too): the test rows
        // have such rows.
        assertThat(collect(env, "SELECT id FROM stock.db.types WHERE pt IS NULL")).isNotEmpty();
        // Every leaf column has its size, a list's element and a map's key and value (20, 21, 22)
        // too, as Iceberg Java records them; the sizes themselves are the writers' own.
        assertThat(ourFile.columnSizes().keySet()).isEqualTo(stockFile.columnSizes().keySet()).contains(20, 21, 22);
        assertThat(ourFile.valueCounts()).isEqualTo(stockFile.valueCounts());
        assertThat(ourFile.nullValueCounts()).isEqualTo(stockFile.nullValueCounts());
        assertThat(ourFile.nanValueCounts()).isEqualTo(stockFile.nanValueCounts());
        assertThat(ourFile.lowerBounds()).isEqualTo(stockFile.lowerBounds());
        assertThat(ourFile.upperBounds()).isEqualTo(stockFile.upperBounds());
        // Metrics were read (a scan without column stats would compare nothing).
        assertThat(ourFile.lowerBounds()).isNotEmpty();
    }

    /**
     * The table's metrics modes ({@code write.metadata.metrics.*}) give the manifests the metrics
     * Iceberg Java's writer records: long strings and binaries cut to {@code truncate(16)} by
     * default, nothing for a column in mode {@code none}, counts only in {@code counts}, whole
     * bounds in {@code full}.
     */
    @Test
    void theTablesMetricsModesGiveTheMetricsIcebergJavaRecords() throws Exception {
        Schema schema = new Schema(
                required(1, "id", Types.LongType.get()),
                optional(2, "text", Types.StringType.get()),
                optional(3, "bytes", Types.BinaryType.get()),
                optional(4, "unmeasured", Types.StringType.get()),
                optional(5, "counted", Types.StringType.get()),
                optional(6, "whole", Types.StringType.get()));
        Map<String, String> modes = Map.of(
                "write.metadata.metrics.column.unmeasured", "none",
                "write.metadata.metrics.column.counted", "counts",
                "write.metadata.metrics.column.whole", "full");
        catalog.createTable(TableIdentifier.of("db", "modes_ours"), schema, PartitionSpec.unpartitioned(), modes);
        catalog.createTable(TableIdentifier.of("db", "modes_stock"), schema, PartitionSpec.unpartitioned(), modes);
        TableEnvironment env = batch();
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        env.executeSql("CREATE TEMPORARY TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '300', "
                + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '300')");
        String rows = "SELECT id, CONCAT('a long text of row ', CAST(id AS STRING), ' ñ'), "
                + "CAST(CONCAT('bytes of row number ', CAST(id AS STRING)) AS BYTES), "
                + "CONCAT('unmeasured ', CAST(id AS STRING)), CONCAT('counted ', CAST(id AS STRING)), "
                + "IF(MOD(id, 7) = 0, CAST(NULL AS STRING), CONCAT('whole text of row ', CAST(id AS STRING))) FROM ids";
        env.executeSql("INSERT INTO sf_modes_ours " + rows).await();
        env.executeSql("INSERT INTO stock.db.modes_stock " + rows).await();

        DataFile ours = onlyDataFile(catalog.loadTable(TableIdentifier.of("db", "modes_ours")));
        DataFile stock = onlyDataFile(catalog.loadTable(TableIdentifier.of("db", "modes_stock")));
        assertThat(ours.columnSizes().keySet()).isEqualTo(stock.columnSizes().keySet()).doesNotContain(4);
        assertThat(ours.valueCounts()).isEqualTo(stock.valueCounts());
        assertThat(ours.nullValueCounts()).isEqualTo(stock.nullValueCounts());
        assertThat(ours.lowerBounds()).isEqualTo(stock.lowerBounds()).containsKeys(2, 3, 6).doesNotContainKeys(4, 5);
        assertThat(ours.upperBounds()).isEqualTo(stock.upperBounds());
        // truncate(16): the bounds of the long texts are 16 characters.
        assertThat(StandardCharsets.UTF_8.decode(ours.lowerBounds().get(2).duplicate()).toString()).hasSize(16);
    }

    /**
     * The table's Parquet layout properties shape the files the native writer writes, as they
     * shape parquet-java's: small row groups and pages of at most {@code page-row-limit} rows; with
     * the defaults, one row group per file at these sizes.
     */
    @Test
    void theTablesParquetLayoutPropertiesShapeTheFilesWritten() throws Exception {
        Schema schema = new Schema(required(1, "id", Types.LongType.get()), optional(2, "s", Types.StringType.get()));
        catalog.createTable(TableIdentifier.of("db", "layout_small"), schema, PartitionSpec.unpartitioned(), Map.of(
                TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "8192",
                TableProperties.PARQUET_PAGE_ROW_LIMIT, "100"));
        catalog.createTable(TableIdentifier.of("db", "layout_default"), schema, PartitionSpec.unpartitioned());
        TableEnvironment env = batch();
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        env.executeSql("CREATE TEMPORARY TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5000', "
                + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5000')");
        String rows = "SELECT id, CONCAT('row-', CAST(id AS STRING)) FROM ids";
        env.executeSql("INSERT INTO sf_layout_small " + rows).await();
        env.executeSql("INSERT INTO sf_layout_default " + rows).await();

        org.apache.parquet.hadoop.metadata.ParquetMetadata small = footer(onlyDataFile(catalog.loadTable(TableIdentifier.of("db", "layout_small"))));
        assertThat(small.getBlocks()).hasSizeGreaterThan(1);
        long rowsInFile = small.getBlocks().stream().mapToLong(org.apache.parquet.hadoop.metadata.BlockMetaData::getRowCount).sum();
        assertThat(rowsInFile).isEqualTo(5000);
        try (org.apache.parquet.hadoop.ParquetFileReader reader = reader(onlyDataFile(catalog.loadTable(TableIdentifier.of("db", "layout_small"))))) {
            for (org.apache.parquet.hadoop.metadata.BlockMetaData block : small.getBlocks()) {
                for (org.apache.parquet.hadoop.metadata.ColumnChunkMetaData column : block.getColumns()) {
                    org.apache.parquet.internal.column.columnindex.OffsetIndex pages = reader.readOffsetIndex(column);
                    for (int page = 0; page < pages.getPageCount(); page++) {
                        long first = pages.getFirstRowIndex(page);
                        long next = page + 1 < pages.getPageCount() ? pages.getFirstRowIndex(page + 1) : block.getRowCount();
                        assertThat(next - first).as("rows of page %s of %s", page, column.getPath()).isLessThanOrEqualTo(100);
                    }
                }
            }
        }
        assertThat(footer(onlyDataFile(catalog.loadTable(TableIdentifier.of("db", "layout_default")))).getBlocks()).hasSize(1);
        assertThat(collect(env, "SELECT COUNT(*), SUM(id) FROM stock.db.layout_small"))
                .containsExactly(Row.of(5000L, 12_502_500L));
    }

    /**
     * A column of a file written natively has a dictionary where iceberg-flink's writer
     * (parquet-java) keeps one: parquet-java drops the dictionary of a column whose first page it
     * does not make smaller, and the native writer decides from the same first rows.
     */
    @Test
    void eachColumnHasADictionaryWhereIcebergFlinksWriterKeepsOne() throws Exception {
        Schema schema = new Schema(
                required(1, "id", Types.LongType.get()),
                optional(2, "k", Types.IntegerType.get()),
                optional(3, "text", Types.StringType.get()),
                optional(4, "code", Types.StringType.get()),
                optional(5, "price", Types.DoubleType.get()),
                optional(6, "amount", Types.DecimalType.of(10, 2)),
                optional(7, "big", Types.DecimalType.of(30, 2)),
                optional(8, "nothing", Types.StringType.get()),
                optional(9, "wide", Types.DecimalType.of(30, 2)));
        catalog.createTable(TableIdentifier.of("db", "dict_ours"), schema, PartitionSpec.unpartitioned());
        catalog.createTable(TableIdentifier.of("db", "dict_stock"), schema, PartitionSpec.unpartitioned());
        TableEnvironment env = batch();
        env.getConfig().set("table.exec.resource.default-parallelism", "1");
        // More rows than parquet-java's first page holds (20,000), so rows after it are written too.
        env.executeSql("CREATE TEMPORARY TABLE ids (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '30000', "
                + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '30000')");
        String rows = "SELECT id, CAST(MOD(id, 50) AS INT), CONCAT('row number ', CAST(id AS STRING)), "
                + "CONCAT('code ', CAST(MOD(id, 20) AS STRING)), id / 3.0e0, CAST(MOD(id, 100) AS DECIMAL(10, 2)), "
                + "CAST(id * 1000003 AS DECIMAL(30, 2)), CAST(NULL AS STRING), CAST(MOD(id, 100) AS DECIMAL(30, 2)) FROM ids";
        env.executeSql("INSERT INTO sf_dict_ours " + rows).await();
        env.executeSql("INSERT INTO stock.db.dict_stock " + rows).await();

        Map<String, Boolean> stock = dictionaries(onlyDataFile(catalog.loadTable(TableIdentifier.of("db", "dict_stock"))));
        assertThat(stock).isEqualTo(Map.of(
                "id", false, "k", true, "text", false, "code", true,
                "price", false, "amount", true, "big", false, "nothing", false,
                // FIXED_LEN_BYTE_ARRAY, which parquet-java's format-v1 writer never dictionary-encodes.
                "wide", false));
        assertThat(dictionaries(onlyDataFile(catalog.loadTable(TableIdentifier.of("db", "dict_ours"))))).isEqualTo(stock);
        assertThat(collect(env, "SELECT * FROM stock.db.dict_ours")).containsExactlyInAnyOrderElementsOf(collect(env, rows));
    }

    /** Whether each column of a file's one row group has a dictionary page, by its path. */
    private static Map<String, Boolean> dictionaries(DataFile file) throws java.io.IOException {
        List<org.apache.parquet.hadoop.metadata.BlockMetaData> groups = footer(file).getBlocks();
        assertThat(groups).hasSize(1);
        return groups.get(0).getColumns().stream().collect(Collectors.toMap(
                c -> c.getPath().toDotString(), org.apache.parquet.hadoop.metadata.ColumnChunkMetaData::hasDictionaryPage));
    }

    private static org.apache.parquet.hadoop.ParquetFileReader reader(DataFile file) throws java.io.IOException {
        return org.apache.parquet.hadoop.ParquetFileReader.open(org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.location()), new org.apache.hadoop.conf.Configuration()));
    }

    private static org.apache.parquet.hadoop.metadata.ParquetMetadata footer(DataFile file) throws java.io.IOException {
        try (org.apache.parquet.hadoop.ParquetFileReader reader = reader(file)) {
            return reader.getFooter();
        }
    }

    /** Records as text, binary values as their bytes (records compare byte arrays by identity). */
    private static List<String> canonical(Iterable<Record> records) {
        List<String> out = new ArrayList<>();
        records.forEach(r -> out.add(canonical((Object) r)));
        return out;
    }

    private static String canonical(Object value) {
        if (value instanceof Record) {
            Record record = (Record) value;
            List<String> fields = new ArrayList<>();
            for (int i = 0; i < record.size(); i++) {
                fields.add(canonical(record.get(i)));
            }
            return fields.toString();
        }
        if (value instanceof byte[]) {
            return java.util.Arrays.toString((byte[]) value);
        }
        if (value instanceof java.nio.ByteBuffer) {
            return canonical(org.apache.iceberg.util.ByteBuffers.toByteArray((java.nio.ByteBuffer) value));
        }
        if (value instanceof List) {
            return ((List<?>) value).stream().map(StreamFusionIcebergITCase::canonical).collect(Collectors.toList()).toString();
        }
        if (value instanceof java.util.Map) {
            java.util.Map<String, String> sorted = new java.util.TreeMap<>();
            ((java.util.Map<?, ?>) value).forEach((k, v) -> sorted.put(canonical(k), canonical(v)));
            return sorted.toString();
        }
        return String.valueOf(value);
    }

    private static DataFile onlyDataFile(Table table) throws Exception {
        List<DataFile> files = new ArrayList<>();
        // With its column metrics: a scan leaves them out unless asked.
        try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
            tasks.forEach(t -> files.add(t.file()));
        }
        assertThat(files).hasSize(1);
        return files.get(0);
    }

    @Test
    void aPartitionedTableWrittenNativelyHasThePartitionsIcebergFlinkWrites() throws Exception {
        Table parted = catalog.loadTable(TableIdentifier.of("db", "parted"));
        catalog.createTable(TableIdentifier.of("db", "parted_ours"), parted.schema(), parted.spec());
        catalog.createTable(TableIdentifier.of("db", "parted_stock"), parted.schema(), parted.spec());
        TableEnvironment env = batch();
        env.executeSql("INSERT INTO sf_parted_ours SELECT * FROM stock.db.parted").await();
        env.executeSql("INSERT INTO stock.db.parted_stock SELECT * FROM stock.db.parted").await();
        assertThat(collect(env, "SELECT * FROM stock.db.parted_ours"))
                .containsExactlyInAnyOrderElementsOf(collect(env, "SELECT * FROM stock.db.parted"));
        assertThat(partitions(catalog.loadTable(TableIdentifier.of("db", "parted_ours"))))
                .isEqualTo(partitions(catalog.loadTable(TableIdentifier.of("db", "parted_stock"))));
        assertSameRows(env, "parted_ours", "SELECT id, category FROM %s WHERE category = 'c2'");
    }

    /**
     * Nanosecond timestamps (format v3) partitioned by {@code hour} and {@code bucket}: iceberg-rust
     * 0.10.1 has no hour of nanoseconds and buckets those before 1970 otherwise than Iceberg Java;
     * the files get iceberg-flink's partitions, and readers pruning by them find every row.
     */
    @Test
    void nanosecondTimestampsGetThePartitionsIcebergFlinkGivesThem() throws Exception {
        Schema schema = new Schema(required(1, "id", Types.LongType.get()), optional(2, "ts", Types.TimestampNanoType.withoutZone()));
        PartitionSpec spec = PartitionSpec.builderFor(schema).hour("ts").bucket("ts", 4).build();
        for (String name : List.of("ns_ours", "ns_stock")) {
            catalog.createTable(TableIdentifier.of("db", name), schema, spec, Map.of("format-version", "3"));
        }
        TableEnvironment env = batch();
        String rows = "VALUES (1, TIMESTAMP '1969-12-31 23:59:59.999999999'), (2, TIMESTAMP '1969-12-31 22:59:59.999999001'), "
                + "(3, TIMESTAMP '1970-01-01 00:00:00.000000001'), (4, TIMESTAMP '2024-05-06 07:08:09.123456789'), "
                + "(5, TIMESTAMP '1969-12-31 23:00:00.000000000'), (6, TIMESTAMP '1900-03-04 05:06:07.000000999'), "
                + "(7, CAST(NULL AS TIMESTAMP(9)))";
        env.executeSql("INSERT INTO sf_ns_ours " + rows).await();
        env.executeSql("INSERT INTO stock.db.ns_stock " + rows).await();
        assertThat(partitions(catalog.loadTable(TableIdentifier.of("db", "ns_ours"))))
                .isEqualTo(partitions(catalog.loadTable(TableIdentifier.of("db", "ns_stock"))))
                .hasSize(7);
        assertThat(collect(env, "SELECT * FROM stock.db.ns_ours")).hasSize(7)
                .containsExactlyInAnyOrderElementsOf(collect(env, "SELECT * FROM stock.db.ns_stock"));
        for (String filter : List.of("ts < TIMESTAMP '1970-01-01 00:00:00'", "ts >= TIMESTAMP '1969-12-31 23:00:00'",
                "ts = TIMESTAMP '1969-12-31 23:00:00'")) {
            assertThat(collect(env, "SELECT id FROM stock.db.ns_ours WHERE " + filter)).as(filter).isNotEmpty()
                    .containsExactlyInAnyOrderElementsOf(collect(env, "SELECT id FROM stock.db.ns_stock WHERE " + filter));
        }
    }

    /**
     * The day of a timestamp in the last second before a midnight before 1970, and identity
     * partitions of -0.0 and 0.0: the partitions Iceberg Java gives them (iceberg-rust 0.10.1 takes
     * the day after, and one partition for both zeros), and the rows read back as written.
     */
    @Test
    void daysBefore1970AndSignedZerosGetThePartitionsIcebergFlinkGivesThem() throws Exception {
        Schema schema = new Schema(required(1, "id", Types.LongType.get()), optional(2, "ts", Types.TimestampType.withoutZone()),
                optional(3, "f", Types.DoubleType.get()));
        PartitionSpec spec = PartitionSpec.builderFor(schema).day("ts").identity("f").build();
        Table source = catalog.createTable(TableIdentifier.of("db", "edges_in"), schema, PartitionSpec.unpartitioned());
        List<Record> rows = new ArrayList<>();
        Object[][] values = {
            {1L, java.time.LocalDateTime.parse("1969-12-30T23:59:59.5"), -0.0},
            {2L, java.time.LocalDateTime.parse("1969-12-30T23:59:59.5"), 0.0},
            {3L, java.time.LocalDateTime.parse("1969-12-31T23:59:59.999999"), -0.0},
            {4L, java.time.LocalDateTime.parse("1900-01-01T23:59:59.000001"), 1.5},
            {5L, java.time.LocalDateTime.parse("1970-01-01T00:00:00"), 0.0},
            {6L, null, null},
        };
        for (Object[] v : values) {
            Record r = org.apache.iceberg.data.GenericRecord.create(schema);
            r.setField("id", v[0]);
            r.setField("ts", v[1]);
            r.setField("f", v[2]);
            rows.add(r);
        }
        IcebergJavaTables.append(source, rows, "edges");
        for (String name : List.of("edges_ours", "edges_stock")) {
            catalog.createTable(TableIdentifier.of("db", name), schema, spec);
        }
        TableEnvironment env = batch();
        env.executeSql("INSERT INTO sf_edges_ours SELECT * FROM stock.db.edges_in").await();
        env.executeSql("INSERT INTO stock.db.edges_stock SELECT * FROM stock.db.edges_in").await();
        assertThat(partitions(catalog.loadTable(TableIdentifier.of("db", "edges_ours"))))
                .isEqualTo(partitions(catalog.loadTable(TableIdentifier.of("db", "edges_stock"))))
                .contains("ts_day=1969-12-30/f=-0.0", "ts_day=1969-12-30/f=0.0")
                .hasSize(6);
        // Identity columns read from the partitions: -0.0 stays -0.0.
        List<String> expected = new ArrayList<>();
        for (Object[] v : values) {
            expected.add(v[0] + " " + v[2]);
        }
        List<String> read = new ArrayList<>();
        for (Row row : collect(env, "SELECT id, f FROM stock.db.edges_ours")) {
            read.add(row.getField(0) + " " + row.getField(1));
        }
        assertThat(read).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static java.util.Set<String> partitions(Table table) throws Exception {
        java.util.Set<String> partitions = new java.util.TreeSet<>();
        try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(t -> partitions.add(table.spec().partitionToPath(t.file().partition())));
        }
        return partitions;
    }

    @Test
    void aSinkJobThatFailsMidStreamCommitsEveryRowExactlyOnce() throws Exception {
        StreamTableEnvironment env = FailOnce.restartingTables(2, Duration.ofMillis(200));
        env.executeSql("CREATE TABLE ids (id BIGINT, s STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '1500', "
                + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3000', 'fields.s.length' = '5', "
                + FailOnce.SOURCE_APART + ")");
        // Created in the catalog by the connector, as iceberg-flink does for a missing table.
        env.executeSql("CREATE TABLE failover (id BIGINT, s STRING) WITH ('connector' = 'streamfusion-iceberg', "
                + "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db')");
        FailOnce.reset(1500);
        env.executeSql("INSERT INTO failover SELECT fail_once(id), s FROM ids").await(3, TimeUnit.MINUTES);
        assertThat(FailOnce.failed()).as("the job failed once").isTrue();

        Table t = catalog.loadTable(TableIdentifier.of("db", "failover"));
        List<Long> ids = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(t).build()) {
            records.forEach(r -> ids.add((Long) r.getField("id")));
        }
        assertThat(ids).containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, 3000).boxed().collect(Collectors.toList()));
        assertThat(t.snapshots()).hasSizeGreaterThan(1)
                .allSatisfy(s -> assertThat(s.summary()).containsKeys("flink.job-id", "flink.max-committed-checkpoint-id"));
    }

    /**
     * A streaming job whose tasks take no checkpoint once finished
     * ({@code execution.checkpointing.checkpoints-after-tasks-finish} = false) commits the rows
     * after its last checkpoint at the end of its input, as iceberg-flink's committer does: no
     * final checkpoint comes to commit them.
     */
    @Test
    void aStreamingJobWithoutAFinalCheckpointCommitsItsLastRowsAtTheEnd() throws Exception {
        org.apache.flink.configuration.Configuration configuration = new org.apache.flink.configuration.Configuration();
        configuration.set(org.apache.flink.configuration.CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMinutes(10));
        configuration.set(org.apache.flink.configuration.CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, false);
        StreamTableEnvironment env = StreamTableEnvironment.create(
                org.apache.flink.streaming.api.environment.StreamExecutionEnvironment.getExecutionEnvironment(configuration));
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "')");
        env.executeSql("CREATE TABLE stock.db.no_final_stock (id BIGINT, s STRING)");
        env.executeSql("CREATE TABLE no_final (id BIGINT, s STRING) WITH ('connector' = 'streamfusion-iceberg', "
                + "'catalog-name' = 'sf', 'catalog-type' = 'hadoop', 'warehouse' = '" + warehouseUri + "', "
                + "'catalog-database' = 'db', 'catalog-table' = 'no_final_ours')");
        for (String table : List.of("stock.db.no_final_stock", "no_final")) {
            env.executeSql("INSERT INTO " + table + " VALUES (1, 'a'), (2, 'b')").await(2, TimeUnit.MINUTES);
        }
        for (String table : List.of("no_final_stock", "no_final_ours")) {
            List<Long> ids = new ArrayList<>();
            try (CloseableIterable<Record> records = IcebergGenerics.read(catalog.loadTable(TableIdentifier.of("db", table))).build()) {
                records.forEach(r -> ids.add((Long) r.getField("id")));
            }
            assertThat(ids).as(table).containsExactlyInAnyOrder(1L, 2L);
        }
    }

    @Test
    void readingTasksWithDeletesFreesEveryNativeAndArrowByte() throws Exception {
        Table types = catalog.loadTable(TableIdentifier.of("db", "types"));
        org.apache.flink.table.types.logical.RowType rowType = org.apache.flink.table.types.logical.RowType.of(
                new org.apache.flink.table.types.logical.BigIntType(false),
                new org.apache.flink.table.types.logical.VarCharType(org.apache.flink.table.types.logical.VarCharType.MAX_LENGTH));
        int[] ids = {types.schema().findField("id").fieldId(), types.schema().findField("s").fieldId()};
        List<dev.streamfusion.iceberg.internal.TaskDescription> tasks = new ArrayList<>();
        try (CloseableIterable<org.apache.iceberg.FileScanTask> planned = types.newScan().planFiles()) {
            planned.forEach(t -> tasks.add(dev.streamfusion.iceberg.internal.TaskDescription.of(
                    t, types.schema(), dev.streamfusion.iceberg.internal.TaskDescription.ColumnHistory.NONE, ids, null, false)));
        }
        assertThat(tasks).anyMatch(t -> t.json().contains("\"equality\"")).anyMatch(t -> t.json().contains("\"position\""));
        try (org.apache.arrow.memory.RootAllocator allocator = new org.apache.arrow.memory.RootAllocator()) {
            // The first read starts the process-wide read runtime; every later one returns to where it began.
            long rowsFirst = readAll(allocator, tasks, rowType);
            long before = dev.streamfusion.bridge.NativeLibrary.nativeAllocatedBytes();
            for (int round = 0; round < 3; round++) {
                assertThat(readAll(allocator, tasks, rowType)).isEqualTo(rowsFirst);
            }
            assertThat(dev.streamfusion.bridge.NativeLibrary.nativeAllocatedBytes()).isEqualTo(before);
            assertThat(allocator.getAllocatedMemory()).isZero();
        }
    }

    private static long readAll(
            org.apache.arrow.memory.BufferAllocator allocator,
            List<dev.streamfusion.iceberg.internal.TaskDescription> tasks,
            org.apache.flink.table.types.logical.RowType rowType) {
        long rows = 0;
        for (dev.streamfusion.iceberg.internal.TaskDescription task : tasks) {
            try (dev.streamfusion.iceberg.internal.NativeIcebergReader reader =
                    dev.streamfusion.iceberg.internal.NativeIcebergReader.open(allocator, task, rowType, 1000, null)) {
                for (org.apache.arrow.vector.VectorSchemaRoot batch = reader.next(); batch != null; batch = reader.next()) {
                    rows += batch.getRowCount();
                }
            }
        }
        return rows;
    }
}
