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
import java.util.List;
import java.util.Map;

/**
 * The options of a {@code streamfusion-iceberg} table, under iceberg-flink's names: where the
 * table is (the catalog's options, every other option passed to the catalog as a property) and how
 * it is read.
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
            .defaultValue(ScanOptions.StartingStrategy.TABLE_SCAN_THEN_INCREMENTAL)
            .withDescription("Where a streaming read starts.");

    public static final ConfigOption<Long> START_SNAPSHOT_ID = ConfigOptions.key("start-snapshot-id").longType().noDefaultValue();
    public static final ConfigOption<Long> START_SNAPSHOT_TIMESTAMP =
            ConfigOptions.key("start-snapshot-timestamp").longType().noDefaultValue();
    public static final ConfigOption<Long> END_SNAPSHOT_ID = ConfigOptions.key("end-snapshot-id").longType().noDefaultValue();
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
    public static final ConfigOption<Long> LIMIT = ConfigOptions.key("limit").longType().defaultValue(-1L);
    public static final ConfigOption<Boolean> CASE_SENSITIVE = ConfigOptions.key("case-sensitive").booleanType().defaultValue(false);
    public static final ConfigOption<Boolean> INCLUDE_COLUMN_STATS =
            ConfigOptions.key("include-column-stats").booleanType().defaultValue(false)
                    .withDescription("Accepted for iceberg-flink's sake; the native reader needs no column statistics in splits.");

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

    /** The connector's own options: neither catalog properties nor table properties. */
    static final List<String> CONNECTOR_KEYS =
            List.of("connector", CATALOG_NAME.key(), CATALOG_DATABASE.key(), CATALOG_TABLE.key(), RowLayout.KEY);

    /**
     * The scan the table's options (and a query's hints, merged into them) describe, with the
     * job's split settings ({@code job}) where they set none.
     */
    static ScanOptions scanOptions(Map<String, String> options, ReadableConfig job) {
        Configuration c = Configuration.fromMap(options);
        ScanOptions scan = new ScanOptions()
                .streaming(c.get(STREAMING))
                .monitorInterval(c.get(MONITOR_INTERVAL))
                .startingStrategy(c.get(STARTING_STRATEGY))
                .startSnapshotId(c.get(START_SNAPSHOT_ID))
                .startSnapshotTimestamp(c.get(START_SNAPSHOT_TIMESTAMP))
                .endSnapshotId(c.get(END_SNAPSHOT_ID))
                .snapshotId(c.get(SNAPSHOT_ID))
                .asOfTimestamp(c.get(AS_OF_TIMESTAMP))
                .branch(c.get(BRANCH))
                .tag(c.get(TAG))
                .splitSize(c.getOptional(SPLIT_SIZE).map(MemorySize::getBytes).orElse(job.get(JOB_SPLIT_SIZE)))
                .splitLookback(c.getOptional(SPLIT_LOOKBACK).orElse(job.get(JOB_SPLIT_LOOKBACK)))
                .splitOpenFileCost(
                        c.getOptional(SPLIT_FILE_OPEN_COST).map(MemorySize::getBytes).orElse(job.get(JOB_SPLIT_FILE_OPEN_COST)))
                .maxPlanningSnapshotCount(c.get(MAX_PLANNING_SNAPSHOT_COUNT))
                .caseSensitive(c.get(CASE_SENSITIVE));
        int pinned = (c.get(SNAPSHOT_ID) != null ? 1 : 0) + (c.get(AS_OF_TIMESTAMP) != null ? 1 : 0)
                + (c.get(BRANCH) != null && !scan.isStreaming() ? 1 : 0) + (c.get(TAG) != null ? 1 : 0);
        if (pinned > 1) {
            throw new IllegalArgumentException(
                    "Set at most one of 'snapshot-id', 'as-of-timestamp', 'branch' and 'tag' for a bounded read");
        }
        if (scan.isStreaming() && (c.get(SNAPSHOT_ID) != null || c.get(AS_OF_TIMESTAMP) != null || c.get(TAG) != null)) {
            throw new IllegalArgumentException(
                    "A streaming read ('streaming' = 'true') reads new snapshots; 'snapshot-id', 'as-of-timestamp' and 'tag' pin one");
        }
        if (c.get(END_SNAPSHOT_ID) != null && c.get(START_SNAPSHOT_ID) == null && !scan.isStreaming()) {
            throw new IllegalArgumentException("'end-snapshot-id' needs 'start-snapshot-id' for a bounded read");
        }
        return scan;
    }
}
