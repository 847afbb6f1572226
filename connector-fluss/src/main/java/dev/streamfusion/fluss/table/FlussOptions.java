package dev.streamfusion.fluss.table;

import dev.streamfusion.fluss.internal.StartupMode;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.time.Duration;

/**
 * The options of a {@code streamfusion-fluss} table, under fluss-flink's names, and the Fluss
 * table's place ({@code database}, {@code table}), which fluss-flink takes from its catalog.
 * Options starting with {@code client.} go to the Fluss client as they are.
 */
@PublicEvolving
public final class FlussOptions {

    private FlussOptions() {}

    public static final ConfigOption<String> BOOTSTRAP_SERVERS = ConfigOptions.key("bootstrap.servers")
            .stringType()
            .noDefaultValue()
            .withDescription("The Fluss coordinator's host:port (a comma-separated list).");

    public static final ConfigOption<String> DATABASE = ConfigOptions.key("database")
            .stringType()
            .noDefaultValue()
            .withDescription("The table's Fluss database; by default the Flink table's database.");

    public static final ConfigOption<String> TABLE = ConfigOptions.key("table")
            .stringType()
            .noDefaultValue()
            .withDescription("The table's name in Fluss; by default the Flink table's name.");

    public static final ConfigOption<StartupMode> SCAN_STARTUP_MODE = ConfigOptions.key("scan.startup.mode")
            .enumType(StartupMode.class)
            .defaultValue(StartupMode.FULL)
            .withDescription("Where a read starts: full, earliest, latest or timestamp.");

    public static final ConfigOption<String> SCAN_STARTUP_TIMESTAMP = ConfigOptions.key("scan.startup.timestamp")
            .stringType()
            .noDefaultValue()
            .withDescription("With 'scan.startup.mode' = 'timestamp': epoch milliseconds.");

    public static final ConfigOption<String> SCAN_KV_SNAPSHOT_LEASE_ID = ConfigOptions.key("scan.kv.snapshot.lease.id")
            .stringType()
            .noDefaultValue()
            .withDescription("The id of the lease that keeps the key-value snapshots a 'full' read of a primary-key "
                    + "table reads from being deleted; by default one made up when the job first starts.");

    public static final ConfigOption<Duration> SCAN_KV_SNAPSHOT_LEASE_DURATION =
            ConfigOptions.key("scan.kv.snapshot.lease.duration")
                    .durationType()
                    .defaultValue(Duration.ofDays(1))
                    .withDescription("How long the server keeps leased key-value snapshots when the lease is not "
                            + "let go (a job that stopped for good).");

    public static final ConfigOption<Duration> SCAN_PARTITION_DISCOVERY_INTERVAL =
            ConfigOptions.key("scan.partition.discovery.interval")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription("How often new partitions are looked for.");

    public static final ConfigOption<Boolean> SINK_IGNORE_DELETE = ConfigOptions.key("sink.ignore-delete")
            .booleanType()
            .defaultValue(false)
            .withDescription("Drop UPDATE_BEFORE and DELETE rows instead of writing them.");

    public static final ConfigOption<Integer> BUCKET_NUM = ConfigOptions.key("bucket.num")
            .intType()
            .noDefaultValue()
            .withDescription("The number of buckets of a table the connector creates.");

    public static final ConfigOption<String> BUCKET_KEY = ConfigOptions.key("bucket.key")
            .stringType()
            .noDefaultValue()
            .withDescription("The comma-separated bucket key of a table the connector creates.");

    public static final ConfigOption<Boolean> LOOKUP_ASYNC = ConfigOptions.key("lookup.async")
            .booleanType()
            .defaultValue(true)
            .withDescription("Whether lookup joins look rows up asynchronously (several keys in flight) or one "
                    + "key at a time.");

    public static final ConfigOption<Boolean> LOOKUP_INSERT_IF_NOT_EXISTS = ConfigOptions.key("lookup.insert-if-not-exists")
            .booleanType()
            .defaultValue(false)
            .withDescription("Whether a lookup by the primary key that finds no row inserts one holding the key "
                    + "(its other columns NULL) and returns it; not for lookups by a prefix of the key.");

    /** The prefix of the options passed to the Fluss client as they are. */
    public static final String CLIENT_PREFIX = "client.";

    /** The prefix of a Fluss table's storage properties, which define the table. */
    public static final String TABLE_PREFIX = "table.";

    /** The prefix of the aggregate functions of a table's columns ({@code fields.<column>.agg}). */
    public static final String FIELDS_PREFIX = "fields.";

    /** The option naming a table's auto-increment columns. */
    public static final String AUTO_INCREMENT_FIELDS = "auto-increment.fields";
}
