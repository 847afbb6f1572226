package dev.streamfusion.fluss.table;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.table.PlannerExtension;
import dev.streamfusion.bridge.table.StockCounterpart;
import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.internal.ScanOptions;
import dev.streamfusion.fluss.internal.StartupMode;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.config.TableConfigOptions;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.lookup.LookupOptions;
import org.apache.flink.table.connector.source.lookup.cache.DefaultLookupCache;
import org.apache.flink.table.connector.source.lookup.cache.LookupCache;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.config.TableConfig;
import org.apache.fluss.exception.TableNotExistException;
import org.apache.fluss.metadata.ChangelogImage;
import org.apache.fluss.metadata.DeleteBehavior;
import org.apache.fluss.metadata.MergeEngineType;
import org.apache.fluss.metadata.TableInfo;

import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code 'connector' = 'streamfusion-fluss'}: a Fluss table named by {@code database} and {@code
 * table} (by default the Flink table's database and name) on the cluster at {@code
 * bootstrap.servers}, with fluss-flink's options; {@code client.*} options go to the Fluss client.
 * The table must exist, with the Flink table's columns in its order.
 */
// The Fluss client's closeables declare Exception.
@SuppressWarnings("try")
@Internal
public final class StreamFusionFlussTableFactory
        implements DynamicTableSourceFactory, DynamicTableSinkFactory, StockCounterpart.SameOptions {

    private static final DateTimeFormatter STARTUP_TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    public static final String IDENTIFIER = "streamfusion-fluss";

    private static final long METADATA_TIMEOUT_SECONDS = 60;

    /** The client's own retry count of a lookup. */
    private static final String CLIENT_LOOKUP_MAX_RETRIES = "client.lookup.max-retries";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public String stockIdentifier() {
        return "fluss";
    }

    /** streamfusion-fluss reads a table's log without end, so no read of it can be bounded to a sample yet. */
    @Override
    public Sample sample(Map<String, String> options, long rows) {
        throw new IllegalArgumentException(
                "'" + FlussOptions.SCAN_STARTUP_MODE.key() + "': streamfusion-fluss reads a table's log without end, so a "
                        + "sample of it cannot end yet (advise with a sample of 0 rows for the plan alone)");
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(FlussOptions.BOOTSTRAP_SERVERS);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                FlussOptions.DATABASE,
                FlussOptions.TABLE,
                FlussOptions.SCAN_STARTUP_MODE,
                FlussOptions.SCAN_STARTUP_TIMESTAMP,
                FlussOptions.SCAN_KV_SNAPSHOT_LEASE_ID,
                FlussOptions.SCAN_KV_SNAPSHOT_LEASE_DURATION,
                FlussOptions.SCAN_PARTITION_DISCOVERY_INTERVAL,
                FlussOptions.SINK_IGNORE_DELETE,
                FlussOptions.BUCKET_NUM,
                FlussOptions.BUCKET_KEY,
                FlussOptions.LOOKUP_ASYNC,
                FlussOptions.LOOKUP_INSERT_IF_NOT_EXISTS,
                LookupOptions.MAX_RETRIES,
                LookupOptions.CACHE_TYPE,
                LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_ACCESS,
                LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_WRITE,
                LookupOptions.PARTIAL_CACHE_CACHE_MISSING_KEY,
                LookupOptions.PARTIAL_CACHE_MAX_ROWS);
    }

    /**
     * {@code scan.startup.timestamp} as fluss-flink reads it: epoch milliseconds (digits only), or
     * {@code yyyy-MM-dd HH:mm:ss} in the session's time zone.
     */
    static long startupTimestamp(String value, ZoneId zone, Object table) {
        if (value.matches("\\d+")) {
            return Long.parseLong(value);
        }
        try {
            return LocalDateTime.parse(value, STARTUP_TIMESTAMP).atZone(zone).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new ValidationException("Table " + table + ": 'scan.startup.timestamp' should be 'yyyy-MM-dd HH:mm:ss' "
                    + "or epoch milliseconds, such as '2023-12-09 23:09:12' or '1678883047356', but is '" + value + "'", e);
        }
    }

    @Override
    public DynamicTableSource createDynamicTableSource(DynamicTableFactory.Context context) {
        PlannerExtension.tablePlanned(context.getConfiguration(), context.getClassLoader());
        Resolved table = resolve(context);
        Configuration conf = table.conf;
        FlussTableRef ref = table.ref;
        TableInfo info = table.info;
        StartupMode mode = conf.get(FlussOptions.SCAN_STARTUP_MODE);
        long timestamp = -1;
        if (mode == StartupMode.TIMESTAMP) {
            String value = conf.get(FlussOptions.SCAN_STARTUP_TIMESTAMP);
            if (value == null) {
                throw new ValidationException("Table " + ref + ": 'scan.startup.mode' = 'timestamp' needs 'scan.startup.timestamp'");
            }
            String zone = context.getConfiguration().get(TableConfigOptions.LOCAL_TIME_ZONE);
            timestamp = startupTimestamp(value, TableConfigOptions.LOCAL_TIME_ZONE.defaultValue().equals(zone)
                    ? ZoneId.systemDefault() : ZoneId.of(zone), ref);
        }
        ScanOptions scan = new ScanOptions(mode, timestamp, conf.get(FlussOptions.SCAN_KV_SNAPSHOT_LEASE_ID),
                conf.get(FlussOptions.SCAN_KV_SNAPSHOT_LEASE_DURATION), conf.get(FlussOptions.SCAN_PARTITION_DISCOVERY_INTERVAL));
        LookupSettings lookups = new LookupSettings(
                lookupCache(conf), conf.get(FlussOptions.LOOKUP_ASYNC), conf.get(FlussOptions.LOOKUP_INSERT_IF_NOT_EXISTS));
        boolean streaming = context.getConfiguration().get(ExecutionOptions.RUNTIME_MODE) != RuntimeExecutionMode.BATCH;
        return new StreamFusionFlussTableSource(ref, info.getNumBuckets(), info.getPartitionKeys(), table.rowType,
                context.getPhysicalRowDataType(), scan, info.getPrimaryKeys(), prefixKey(info), changelogMode(info), lookups,
                streaming, info.getTableConfig().isDataLakeEnabled());
    }

    /**
     * The row kinds a table's log holds, as fluss-flink declares them: none but inserts for a log
     * table or a primary-key table merged by first row; inserts, updates' after images and (where
     * the table lets them be) deletes for a table that logs no before images ({@code
     * table.changelog.image} = WAL), so that Flink restores them; else every kind, deletes only
     * where the table lets them be.
     */
    static ChangelogMode changelogMode(TableInfo info) {
        TableConfig config = info.getTableConfig();
        if (!info.hasPrimaryKey() || config.getMergeEngineType().orElse(null) == MergeEngineType.FIRST_ROW) {
            return ChangelogMode.insertOnly();
        }
        boolean deletes = config.getDeleteBehavior().orElse(DeleteBehavior.ALLOW) == DeleteBehavior.ALLOW;
        ChangelogMode.Builder kinds = ChangelogMode.newBuilder().addContainedKind(RowKind.INSERT).addContainedKind(RowKind.UPDATE_AFTER);
        if (config.getChangelogImage() != ChangelogImage.WAL) {
            kinds.addContainedKind(RowKind.UPDATE_BEFORE);
        }
        if (deletes) {
            kinds.addContainedKind(RowKind.DELETE);
        }
        return kinds.build();
    }

    @Override
    public DynamicTableSink createDynamicTableSink(DynamicTableFactory.Context context) {
        PlannerExtension.tablePlanned(context.getConfiguration(), context.getClassLoader());
        Resolved table = resolve(context);
        int[] primaryKey = table.info.getPrimaryKeys().stream().mapToInt(table.rowType.getFieldNames()::indexOf).toArray();
        return new StreamFusionFlussTableSink(table.ref, table.rowType, primaryKey,
                table.info.getTableConfig().getMergeEngineType().orElse(null), table.conf.get(FlussOptions.SINK_IGNORE_DELETE));
    }

    /**
     * The columns a lookup by a prefix of the primary key gives, as Fluss takes them: the bucket
     * key then the partition keys, when the bucket key is a strict prefix of the primary key
     * without its partition keys; none otherwise.
     */
    private static List<String> prefixKey(TableInfo info) {
        List<String> physical = info.getPhysicalPrimaryKeys();
        List<String> bucket = info.getBucketKeys();
        if (!info.hasPrimaryKey() || bucket.isEmpty() || bucket.size() >= physical.size()
                || !physical.subList(0, bucket.size()).equals(bucket)) {
            return List.of();
        }
        List<String> prefix = new java.util.ArrayList<>(bucket);
        info.getPartitionKeys().stream().filter(k -> !prefix.contains(k)).forEach(prefix::add);
        return prefix;
    }

    /** Flink's lookup cache as {@code lookup.cache} and {@code lookup.partial-cache.*} say, or {@code null}. */
    private static LookupCache lookupCache(Configuration conf) {
        if (conf.get(LookupOptions.CACHE_TYPE) == LookupOptions.LookupCacheType.FULL) {
            // As fluss-flink refuses it, rather than reading without a cache.
            throw new UnsupportedOperationException("Full lookup caching is not supported yet.");
        }
        return conf.get(LookupOptions.CACHE_TYPE) == LookupOptions.LookupCacheType.PARTIAL
                ? DefaultLookupCache.fromConfig(conf)
                : null;
    }

    /** A Flink table's options, its Fluss table and that table's metadata, checked. */
    private static final class Resolved {
        final Configuration conf;
        final FlussTableRef ref;
        final RowType rowType;
        final TableInfo info;

        Resolved(Configuration conf, FlussTableRef ref, RowType rowType, TableInfo info) {
            this.conf = conf;
            this.ref = ref;
            this.rowType = rowType;
            this.info = info;
        }
    }

    private Resolved resolve(DynamicTableFactory.Context context) {
        // Batches are Arrow Java's: a JVM that cannot give it direct memory fails here, saying why.
        NativeLibrary.checkJvmOptions();
        Map<String, String> options = context.getCatalogTable().getOptions();
        Configuration conf = validated(options);
        FlussTableRef ref = tableRef(context.getObjectIdentifier(), options);
        RowType rowType = (RowType) context.getPhysicalRowDataType().getLogicalType();
        return new Resolved(conf, ref, rowType, tableInfo(ref, rowType));
    }

    /**
     * The options as a configuration, unknown ones refused ({@code client.*} aside, and what
     * {@link #definesTheFlussTable defines the Fluss table}).
     */
    private Configuration validated(Map<String, String> options) {
        Set<String> known = new java.util.HashSet<>(List.of("connector"));
        requiredOptions().forEach(o -> known.add(o.key()));
        optionalOptions().forEach(o -> known.add(o.key()));
        for (String key : options.keySet()) {
            if (!known.contains(key) && !key.startsWith(FlussOptions.CLIENT_PREFIX) && !definesTheFlussTable(key)) {
                throw new ValidationException("Unsupported option '" + key + "' of a streamfusion-fluss table; supported: "
                        + new java.util.TreeSet<>(known) + ", client.*, and table.*, fields.* and auto-increment.fields "
                        + "as a catalog creates the table with them");
            }
        }
        return Configuration.fromMap(options);
    }

    /**
     * Whether {@code key} is an option that defines the Fluss table rather than how it is read or
     * written: a storage property ({@code table.*}), a column's aggregate function ({@code
     * fields.*}) or the auto-increment columns. A catalog creates a table with them and shows them
     * among its options, as fluss-flink's does; the connector reads the table's own.
     */
    static boolean definesTheFlussTable(String key) {
        return key.startsWith(FlussOptions.TABLE_PREFIX) || key.startsWith(FlussOptions.FIELDS_PREFIX)
                || key.equals(FlussOptions.AUTO_INCREMENT_FIELDS);
    }

    static FlussTableRef tableRef(ObjectIdentifier identifier, Map<String, String> options) {
        Map<String, String> client = new HashMap<>();
        options.forEach((key, value) -> {
            if (key.startsWith(FlussOptions.CLIENT_PREFIX)) {
                client.put(key, value);
            }
        });
        // Lookups are retried by the client: Flink's 'lookup.max-retries' is its retry count.
        String retries = options.get(LookupOptions.MAX_RETRIES.key());
        if (retries != null) {
            client.putIfAbsent(CLIENT_LOOKUP_MAX_RETRIES, retries);
        }
        return new FlussTableRef(
                options.get(FlussOptions.BOOTSTRAP_SERVERS.key()),
                client,
                options.getOrDefault(FlussOptions.DATABASE.key(), identifier.getDatabaseName()),
                options.getOrDefault(FlussOptions.TABLE.key(), identifier.getObjectName()));
    }

    /** The table's metadata, checked against the Flink table's columns. */
    private static TableInfo tableInfo(FlussTableRef ref, RowType rowType) {
        for (RowType.RowField field : rowType.getFields()) {
            LogicalType type = field.getType();
            switch (type.getTypeRoot()) {
                case MULTISET:
                case RAW:
                case STRUCTURED_TYPE:
                case DISTINCT_TYPE:
                case INTERVAL_DAY_TIME:
                case INTERVAL_YEAR_MONTH:
                    throw new ValidationException("Column '" + field.getName() + "' of Fluss table " + ref + " is of type "
                            + type + ", which Fluss has no type for");
                default:
                    break;
            }
        }
        TableInfo info;
        Connection connection = null;
        try {
            connection = ref.connect();
            try (Admin admin = connection.getAdmin()) {
                info = admin.getTableInfo(ref.path()).get(METADATA_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TableNotExistException) {
                throw new ValidationException("Fluss table " + ref + " does not exist", e.getCause());
            }
            throw new ValidationException("Cannot read the metadata of Fluss table " + ref + ": " + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new ValidationException("The Fluss cluster of table " + ref + " did not answer within "
                    + METADATA_TIMEOUT_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ValidationException("Interrupted reading the metadata of Fluss table " + ref, e);
        } catch (Exception e) {
            throw new ValidationException("Cannot reach the Fluss cluster of table " + ref + ": " + e.getMessage(), e);
        } finally {
            // Planning does not wait out the client's shutdown.
            FlussTableRef.closeLater(connection);
        }
        List<String> flussColumns = info.getRowType().getFieldNames();
        if (!flussColumns.equals(rowType.getFieldNames())) {
            throw new ValidationException("Fluss table " + ref + " has the columns " + flussColumns
                    + ", and the Flink table declares " + rowType.getFieldNames() + "; declare the Fluss table's columns, in its order");
        }
        // Rows cross by position in the Fluss types: a column declared of another type (another
        // timestamp precision, a narrower integer) would be read and written in the wrong layout.
        for (int i = 0; i < flussColumns.size(); i++) {
            LogicalType declared = rowType.getTypeAt(i);
            org.apache.fluss.types.DataType fluss = info.getRowType().getTypeAt(i);
            org.apache.fluss.types.DataType mapped;
            try {
                mapped = FlussTypes.toFluss(declared);
            } catch (UnsupportedOperationException e) {
                throw new ValidationException("Column '" + flussColumns.get(i) + "' of Fluss table " + ref + ": " + e.getMessage(), e);
            }
            if (!FlussTypes.sameLayout(mapped, fluss) || (!declared.isNullable() && fluss.isNullable())) {
                throw new ValidationException("Column '" + flussColumns.get(i) + "' of Fluss table " + ref + " is " + fluss
                        + ", and the Flink table declares " + declared + "; declare the Fluss table's type");
            }
        }
        return info;
    }
}
