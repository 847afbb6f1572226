package dev.streamfusion.iceberg.table;

import dev.streamfusion.bridge.table.RowLayout;
import dev.streamfusion.iceberg.source.ScanOptions;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

import org.apache.iceberg.TableProperties;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The options of a {@code streamfusion-iceberg} table, under iceberg-flink's names: where the
 * table is (the catalog's options, every other option passed to the catalog as a property) and how
 * it is read and written.
 */
@PublicEvolving
public final class IcebergOptions {

    private IcebergOptions() {}

    public static final ConfigOption<String> CATALOG_NAME = ConfigOptions.key("catalog-name")
            .stringType()
            .noDefaultValue()
            .withDescription("The name of the Iceberg catalog the table is in.");

    public static final ConfigOption<String> CATALOG_DATABASE = ConfigOptions.key("catalog-database")
            .stringType()
            .noDefaultValue()
            .withDescription("The table's database (namespace) in the Iceberg catalog; by default the Flink table's database.");

    public static final ConfigOption<String> CATALOG_TABLE = ConfigOptions.key("catalog-table")
            .stringType()
            .noDefaultValue()
            .withDescription("The table's name in the Iceberg catalog; by default the Flink table's name.");

    public static final ConfigOption<Boolean> STREAMING = ConfigOptions.key("streaming")
            .booleanType()
            .defaultValue(false)
            .withDescription("Read the appends of new snapshots continuously instead of one snapshot.");

    public static final ConfigOption<Duration> MONITOR_INTERVAL = ConfigOptions.key("monitor-interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(60))
            .withDescription("How often a streaming read looks for new snapshots.");

    public static final ConfigOption<ScanOptions.StartingStrategy> STARTING_STRATEGY = ConfigOptions.key("starting-strategy")
            .enumType(ScanOptions.StartingStrategy.class)
            .defaultValue(ScanOptions.StartingStrategy.INCREMENTAL_FROM_LATEST_SNAPSHOT)
            .withDescription("Where a streaming read starts (iceberg-flink's default).");

    public static final ConfigOption<Long> START_SNAPSHOT_ID = ConfigOptions.key("start-snapshot-id").longType().noDefaultValue();
    public static final ConfigOption<Long> START_SNAPSHOT_TIMESTAMP =
            ConfigOptions.key("start-snapshot-timestamp").longType().noDefaultValue();
    public static final ConfigOption<Long> END_SNAPSHOT_ID = ConfigOptions.key("end-snapshot-id").longType().noDefaultValue();
    public static final ConfigOption<String> START_TAG = ConfigOptions.key("start-tag")
            .stringType()
            .noDefaultValue()
            .withDescription("A bounded read of the appends after the snapshot of this tag.");
    public static final ConfigOption<String> END_TAG = ConfigOptions.key("end-tag")
            .stringType()
            .noDefaultValue()
            .withDescription("A bounded read of the appends up to the snapshot of this tag.");
    public static final ConfigOption<Long> SNAPSHOT_ID = ConfigOptions.key("snapshot-id").longType().noDefaultValue();
    public static final ConfigOption<Long> AS_OF_TIMESTAMP = ConfigOptions.key("as-of-timestamp").longType().noDefaultValue();
    public static final ConfigOption<String> BRANCH = ConfigOptions.key("branch").stringType().noDefaultValue();
    public static final ConfigOption<String> TAG = ConfigOptions.key("tag").stringType().noDefaultValue();
    public static final ConfigOption<MemorySize> SPLIT_SIZE = ConfigOptions.key("split-size").memoryType().noDefaultValue();
    public static final ConfigOption<Integer> SPLIT_LOOKBACK = ConfigOptions.key("split-lookback").intType().noDefaultValue();
    public static final ConfigOption<MemorySize> SPLIT_FILE_OPEN_COST =
            ConfigOptions.key("split-file-open-cost").memoryType().noDefaultValue();
    public static final ConfigOption<Integer> MAX_PLANNING_SNAPSHOT_COUNT =
            ConfigOptions.key("max-planning-snapshot-count").intType().defaultValue(Integer.MAX_VALUE);
    public static final ConfigOption<Integer> MAX_ALLOWED_PLANNING_FAILURES =
            ConfigOptions.key("max-allowed-planning-failures")
                    .intType()
                    .defaultValue(3)
                    .withDescription("How many discoveries of new snapshots in a row a streaming read lets fail "
                            + "before the job fails; -1 for no bound.");
    public static final ConfigOption<Long> LIMIT = ConfigOptions.key("limit")
            .longType()
            .defaultValue(-1L)
            .withDescription("Rows each reader emits at most; 0 or less for no limit.");
    public static final ConfigOption<Boolean> CASE_SENSITIVE = ConfigOptions.key("case-sensitive").booleanType().defaultValue(false);
    public static final ConfigOption<Boolean> INCLUDE_COLUMN_STATS =
            ConfigOptions.key("include-column-stats").booleanType().defaultValue(false)
                    .withDescription("Accepted for iceberg-flink's sake; the native reader needs no column statistics in splits.");
    public static final ConfigOption<String> WATERMARK_COLUMN = ConfigOptions.key("watermark-column")
            .stringType()
            .noDefaultValue()
            .withDescription("iceberg-flink's watermarks from a column's statistics; refused: declare a WATERMARK in "
                    + "the table's schema instead.");
    public static final ConfigOption<String> WATERMARK_COLUMN_TIME_UNIT = ConfigOptions.key("watermark-column-time-unit")
            .stringType()
            .noDefaultValue()
            .withDescription("The time unit of 'watermark-column'; refused with it.");

    public static final ConfigOption<Boolean> UPSERT_ENABLED = ConfigOptions.key("upsert-enabled")
            .booleanType()
            .noDefaultValue()
            .withDescription("Write every inserted row as the new row of its key (equality fields: the primary key); "
                    + "by default the table property 'write.upsert.enabled'.");
    public static final ConfigOption<String> DISTRIBUTION_MODE = ConfigOptions.key("distribution-mode")
            .stringType()
            .noDefaultValue()
            .withDescription("How rows reach the writers: 'none' (by equality fields when the table has them) or 'hash' "
                    + "(by partition); by default the table property 'write.distribution-mode'.");
    public static final ConfigOption<Integer> WRITE_PARALLELISM = ConfigOptions.key("write-parallelism")
            .intType()
            .noDefaultValue()
            .withDescription("The writers' parallelism; by default the input's.");
    public static final ConfigOption<Boolean> OVERWRITE_ENABLED = ConfigOptions.key("overwrite-enabled")
            .booleanType()
            .noDefaultValue()
            .withDescription("Replace the partitions each commit writes ('true') or append to them ('false'); "
                    + "by default as the statement says (INSERT OVERWRITE or INSERT INTO).");
    public static final ConfigOption<String> WRITE_FORMAT = ConfigOptions.key("write-format")
            .stringType()
            .noDefaultValue()
            .withDescription("The data files' format; by default the table property 'write.format.default'.");
    public static final ConfigOption<Long> TARGET_FILE_SIZE_BYTES = ConfigOptions.key("target-file-size-bytes")
            .longType()
            .noDefaultValue()
            .withDescription("The size data files roll at; by default the table property 'write.target-file-size-bytes'.");
    public static final ConfigOption<String> COMPRESSION_CODEC = ConfigOptions.key("compression-codec")
            .stringType()
            .noDefaultValue()
            .withDescription("The Parquet compression codec; by default the table property "
                    + "'write.parquet.compression-codec'.");
    public static final ConfigOption<String> COMPRESSION_LEVEL = ConfigOptions.key("compression-level")
            .stringType()
            .noDefaultValue()
            .withDescription("The Parquet compression level; by default the table property "
                    + "'write.parquet.compression-level'.");

    /**
     * iceberg-flink's write options that fall back on the job's configuration (a session's {@code
     * SET 'upsert-enabled' = 'true'}, say) where a table's options and hints set none, before the
     * table's properties: those {@code FlinkWriteConf} reads as an option, then from Flink's
     * configuration, then as a table property. {@code overwrite-enabled} is not among them:
     * iceberg-flink's sink always sets it, from the statement, where no option does.
     */
    static final List<ConfigOption<?>> SESSION_WRITE_OPTIONS =
            List.of(WRITE_FORMAT, TARGET_FILE_SIZE_BYTES, COMPRESSION_CODEC, COMPRESSION_LEVEL, UPSERT_ENABLED, DISTRIBUTION_MODE);

    /** The names of iceberg-flink's write options: those above, and those never taken from the job. */
    static final List<String> WRITE_OPTION_NAMES = Stream.concat(
                    SESSION_WRITE_OPTIONS.stream(), Stream.of(OVERWRITE_ENABLED, WRITE_PARALLELISM, BRANCH))
            .map(ConfigOption::key)
            .collect(Collectors.toList());

    /**
     * The write options of a table: its options (and a query's hints, merged into them), with the
     * job's configuration ({@code job}) for those of {@link #SESSION_WRITE_OPTIONS} they set none
     * of, as iceberg-flink resolves them.
     *
     * @throws IllegalArgumentException when the job's configuration holds such an option that does
     *     not parse as its type
     */
    static Map<String, String> writeOptions(Map<String, String> options, ReadableConfig job) {
        Map<String, String> merged = new HashMap<>(options);
        for (ConfigOption<?> option : SESSION_WRITE_OPTIONS) {
            if (!merged.containsKey(option.key())) {
                job.getOptional(option).ifPresent(value -> merged.put(option.key(), value.toString()));
            }
        }
        return merged;
    }

    /**
     * iceberg-flink's job-wide split settings ({@code connector.iceberg.*} in the job's
     * configuration), used where a table's options and hints set none. Their defaults are Iceberg's,
     * and as in iceberg-flink 1.11 they take the place of the table's {@code read.split.*}
     * properties: iceberg-flink never reaches those, and splits (so a bounded read's inferred
     * parallelism) are planned as it plans them.
     */
    static final ConfigOption<Long> JOB_SPLIT_SIZE = ConfigOptions.key("connector.iceberg.split-size")
            .longType()
            .defaultValue(TableProperties.SPLIT_SIZE_DEFAULT)
            .withDescription("The target size of a bounded read's splits where a table's "
                    + "options set none (iceberg-flink's job-wide option).");
    static final ConfigOption<Integer> JOB_SPLIT_LOOKBACK = ConfigOptions.key("connector.iceberg.split-lookback")
            .intType()
            .defaultValue(TableProperties.SPLIT_LOOKBACK_DEFAULT)
            .withDescription("How many splits planning looks back to fill where a table's "
                    + "options set none (iceberg-flink's job-wide option).");
    static final ConfigOption<Long> JOB_SPLIT_FILE_OPEN_COST = ConfigOptions.key("connector.iceberg.split-file-open-cost")
            .longType()
            .defaultValue(TableProperties.SPLIT_OPEN_FILE_COST_DEFAULT)
            .withDescription("The least bytes a file counts for when splits are filled, where a "
                    + "table's options set none (iceberg-flink's job-wide option).");

    /**
     * iceberg-flink's job-wide read settings ({@code connector.iceberg.*} in the job's
     * configuration), used where a table's options and hints set none, with iceberg-flink's
     * defaults.
     */
    static final ConfigOption<Boolean> JOB_STREAMING =
            ConfigOptions.key(job(STREAMING)).booleanType().defaultValue(STREAMING.defaultValue());
    static final ConfigOption<Duration> JOB_MONITOR_INTERVAL =
            ConfigOptions.key(job(MONITOR_INTERVAL)).durationType().defaultValue(MONITOR_INTERVAL.defaultValue());
    static final ConfigOption<ScanOptions.StartingStrategy> JOB_STARTING_STRATEGY =
            ConfigOptions.key(job(STARTING_STRATEGY))
                    .enumType(ScanOptions.StartingStrategy.class)
                    .defaultValue(STARTING_STRATEGY.defaultValue());
    static final ConfigOption<Integer> JOB_MAX_PLANNING_SNAPSHOT_COUNT =
            ConfigOptions.key(job(MAX_PLANNING_SNAPSHOT_COUNT)).intType().defaultValue(MAX_PLANNING_SNAPSHOT_COUNT.defaultValue());
    static final ConfigOption<Integer> JOB_MAX_ALLOWED_PLANNING_FAILURES =
            ConfigOptions.key(job(MAX_ALLOWED_PLANNING_FAILURES)).intType().defaultValue(MAX_ALLOWED_PLANNING_FAILURES.defaultValue());
    static final ConfigOption<Long> JOB_LIMIT = ConfigOptions.key(job(LIMIT)).longType().defaultValue(LIMIT.defaultValue());
    static final ConfigOption<Boolean> JOB_CASE_SENSITIVE =
            ConfigOptions.key(job(CASE_SENSITIVE)).booleanType().defaultValue(CASE_SENSITIVE.defaultValue());
    static final ConfigOption<String> JOB_WATERMARK_COLUMN = ConfigOptions.key(job(WATERMARK_COLUMN)).stringType().noDefaultValue();

    /**
     * iceberg-flink's job-wide switch to its legacy source ({@code false}), whose streaming reads
     * start by other rules; refused for streaming reads (bounded reads give the same rows).
     */
    static final ConfigOption<Boolean> USE_FLIP27_SOURCE =
            ConfigOptions.key("table.exec.iceberg.use-flip27-source").booleanType().defaultValue(true);

    /** The job-wide key of a table's read option, as iceberg-flink names it. */
    private static String job(ConfigOption<?> table) {
        return "connector.iceberg." + table.key();
    }

    /** A table's option (or hint), else the job's counterpart (with iceberg-flink's default). */
    private static <T> T tableOrJob(Configuration table, ConfigOption<T> option, ReadableConfig job, ConfigOption<T> jobOption) {
        return table.getOptional(option).orElseGet(() -> job.get(jobOption));
    }

    /**
     * The rows each reader emits at most (the table's {@code limit}, else the job's), or -1 for
     * no limit: as in iceberg-flink, a limit of 0 or less is none.
     */
    static long limit(Map<String, String> options, ReadableConfig job) {
        long limit = tableOrJob(Configuration.fromMap(options), LIMIT, job, JOB_LIMIT);
        return limit > 0 ? limit : -1;
    }

    /** The connector's own options: neither catalog properties nor table properties. */
    static final List<String> CONNECTOR_KEYS =
            List.of("connector", CATALOG_NAME.key(), CATALOG_DATABASE.key(), CATALOG_TABLE.key(), RowLayout.KEY);

    /**
     * The scan the table's options (and a query's hints, merged into them) describe, with the
     * job's split settings ({@code job}) where they set none.
     */
    static ScanOptions scanOptions(Map<String, String> options, ReadableConfig job) {
        Configuration c = Configuration.fromMap(options);
        if (c.getOptional(WATERMARK_COLUMN).or(() -> job.getOptional(JOB_WATERMARK_COLUMN)).isPresent()) {
            throw new IllegalArgumentException("'" + WATERMARK_COLUMN.key() + "' (watermarks from a column's statistics) "
                    + "is not supported; declare a WATERMARK in the table's schema instead");
        }
        ScanOptions scan = new ScanOptions()
                .streaming(tableOrJob(c, STREAMING, job, JOB_STREAMING))
                .monitorInterval(tableOrJob(c, MONITOR_INTERVAL, job, JOB_MONITOR_INTERVAL))
                .startingStrategy(tableOrJob(c, STARTING_STRATEGY, job, JOB_STARTING_STRATEGY))
                .startSnapshotId(c.get(START_SNAPSHOT_ID))
                .startSnapshotTimestamp(c.get(START_SNAPSHOT_TIMESTAMP))
                .endSnapshotId(c.get(END_SNAPSHOT_ID))
                .startTag(c.get(START_TAG))
                .endTag(c.get(END_TAG))
                .snapshotId(c.get(SNAPSHOT_ID))
                .asOfTimestamp(c.get(AS_OF_TIMESTAMP))
                .branch(c.get(BRANCH))
                .tag(c.get(TAG))
                .splitSize(c.getOptional(SPLIT_SIZE).map(MemorySize::getBytes).orElse(job.get(JOB_SPLIT_SIZE)))
                .splitLookback(c.getOptional(SPLIT_LOOKBACK).orElse(job.get(JOB_SPLIT_LOOKBACK)))
                .splitOpenFileCost(
                        c.getOptional(SPLIT_FILE_OPEN_COST).map(MemorySize::getBytes).orElse(job.get(JOB_SPLIT_FILE_OPEN_COST)))
                .maxPlanningSnapshotCount(tableOrJob(c, MAX_PLANNING_SNAPSHOT_COUNT, job, JOB_MAX_PLANNING_SNAPSHOT_COUNT))
                .maxAllowedPlanningFailures(tableOrJob(c, MAX_ALLOWED_PLANNING_FAILURES, job, JOB_MAX_ALLOWED_PLANNING_FAILURES))
                .caseSensitive(tableOrJob(c, CASE_SENSITIVE, job, JOB_CASE_SENSITIVE));
        if (scan.isStreaming() && !job.get(USE_FLIP27_SOURCE)) {
            // iceberg-flink's legacy source follows other rules (it starts after 'start-snapshot-id'
            // or from a scan of the current snapshot, whatever 'starting-strategy' says): the rows
            // would differ, so the setting is refused rather than read past.
            throw new IllegalArgumentException("'" + USE_FLIP27_SOURCE.key() + "' = 'false' (iceberg-flink's legacy "
                    + "streaming source and its starting rules) is not supported; a streaming read follows the rules of "
                    + "iceberg-flink's default source: remove the setting, and choose the start with '"
                    + STARTING_STRATEGY.key() + "'");
        }
        if (scan.isStreaming()) {
            // iceberg-flink's checks of a streaming read, in its order.
            ScanOptions.StartingStrategy strategy = tableOrJob(c, STARTING_STRATEGY, job, JOB_STARTING_STRATEGY);
            boolean byId = strategy == ScanOptions.StartingStrategy.INCREMENTAL_FROM_SNAPSHOT_ID;
            boolean byTime = strategy == ScanOptions.StartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP;
            if ((byId && c.get(START_SNAPSHOT_ID) == null) || (byTime && c.get(START_SNAPSHOT_TIMESTAMP) == null)) {
                throw new IllegalArgumentException("'" + STARTING_STRATEGY.key() + "' = '" + strategy + "' needs '"
                        + (byId ? START_SNAPSHOT_ID : START_SNAPSHOT_TIMESTAMP).key() + "'");
            }
            if ((byId && c.get(START_SNAPSHOT_TIMESTAMP) != null) || (byTime && c.get(START_SNAPSHOT_ID) != null)) {
                throw new IllegalArgumentException("'" + STARTING_STRATEGY.key() + "' = '" + strategy + "' cannot take '"
                        + (byId ? START_SNAPSHOT_TIMESTAMP : START_SNAPSHOT_ID).key() + "'");
            }
            for (ConfigOption<?> pinning : List.of(SNAPSHOT_ID, AS_OF_TIMESTAMP, TAG, END_SNAPSHOT_ID, END_TAG)) {
                if (c.getOptional(pinning).isPresent()) {
                    throw new IllegalArgumentException("A streaming read ('streaming' = 'true') reads new snapshots as they "
                            + "come; '" + pinning.key() + "' cannot be set for it");
                }
            }
        }
        if (c.get(START_SNAPSHOT_ID) != null && c.get(START_TAG) != null) {
            throw new IllegalArgumentException("Set at most one of 'start-snapshot-id' and 'start-tag'");
        }
        if (c.get(END_SNAPSHOT_ID) != null && c.get(END_TAG) != null) {
            throw new IllegalArgumentException("Set at most one of 'end-snapshot-id' and 'end-tag'");
        }
        if (scan.maxAllowedPlanningFailures() < -1) {
            throw new IllegalArgumentException("'" + MAX_ALLOWED_PLANNING_FAILURES.key() + "' is "
                    + scan.maxAllowedPlanningFailures() + "; it must be -1 (no bound) or at least 0");
        }
        return scan;
    }
}
