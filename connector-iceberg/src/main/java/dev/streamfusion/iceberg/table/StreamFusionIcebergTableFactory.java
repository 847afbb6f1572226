package dev.streamfusion.iceberg.table;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.table.PlannerExtension;
import dev.streamfusion.bridge.table.RowLayout;
import dev.streamfusion.bridge.table.StockCounterpart;
import dev.streamfusion.iceberg.internal.IcebergTableRef;
import dev.streamfusion.iceberg.source.ScanOptions;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.api.ValidationException;

import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code streamfusion-iceberg} connector: an Iceberg table of any catalog Iceberg Java builds,
 * with iceberg-flink's options. As iceberg-flink does, a table (and its database) missing from the
 * catalog is created from the Flink table's columns, primary key, partition keys and options (its
 * properties, and {@code location}). Reads are
 * planned by Iceberg Java and read natively; writes are written natively and committed by Iceberg
 * Java.
 */
@Internal
public final class StreamFusionIcebergTableFactory
        implements DynamicTableSourceFactory, DynamicTableSinkFactory, StockCounterpart.SameOptions {

    public static final String IDENTIFIER = "streamfusion-iceberg";

    /** The option whose value is the location of a table the connector creates. */
    private static final String LOCATION = "location";

    /**
     * The options iceberg-flink's catalog keeps off a table's properties when it creates the table
     * of a Flink table, compared ignoring case; with the connector's own {@link RowLayout#KEY}.
     * Every other option, the catalog's included, becomes a table property.
     */
    private static final List<String> NOT_TABLE_PROPERTIES = List.of("connector", LOCATION, "src-catalog");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public String stockIdentifier() {
        return "iceberg";
    }

    /** A batch read of the snapshot the options pin (the current one unless they pin another), whole. */
    @Override
    public Sample sample(Map<String, String> options, long rows) {
        if (streamFusion(options).isEmpty()) {
            throw new IllegalArgumentException("not an Iceberg table");
        }
        Map<String, String> bounded = new HashMap<>(options);
        bounded.put(IcebergOptions.STREAMING.key(), "false");
        bounded.remove(IcebergOptions.MONITOR_INTERVAL.key());
        bounded.remove(IcebergOptions.STARTING_STRATEGY.key());
        return new Sample(bounded, "the table's snapshot, read once and whole");
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(IcebergOptions.CATALOG_NAME);
    }

    /** Every other option is passed to the catalog, as iceberg-flink does; none is refused. */
    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                IcebergOptions.CATALOG_DATABASE,
                IcebergOptions.CATALOG_TABLE,
                IcebergOptions.STREAMING,
                IcebergOptions.MONITOR_INTERVAL,
                IcebergOptions.STARTING_STRATEGY,
                IcebergOptions.START_SNAPSHOT_ID,
                IcebergOptions.START_SNAPSHOT_TIMESTAMP,
                IcebergOptions.END_SNAPSHOT_ID,
                IcebergOptions.START_TAG,
                IcebergOptions.END_TAG,
                IcebergOptions.SNAPSHOT_ID,
                IcebergOptions.AS_OF_TIMESTAMP,
                IcebergOptions.BRANCH,
                IcebergOptions.TAG,
                IcebergOptions.SPLIT_SIZE,
                IcebergOptions.SPLIT_LOOKBACK,
                IcebergOptions.SPLIT_FILE_OPEN_COST,
                IcebergOptions.MAX_PLANNING_SNAPSHOT_COUNT,
                IcebergOptions.MAX_ALLOWED_PLANNING_FAILURES,
                IcebergOptions.LIMIT,
                IcebergOptions.CASE_SENSITIVE,
                IcebergOptions.INCLUDE_COLUMN_STATS,
                IcebergOptions.WATERMARK_COLUMN,
                IcebergOptions.WATERMARK_COLUMN_TIME_UNIT,
                IcebergOptions.UPSERT_ENABLED,
                IcebergOptions.DISTRIBUTION_MODE,
                IcebergOptions.WRITE_PARALLELISM,
                IcebergOptions.OVERWRITE_ENABLED,
                IcebergOptions.WRITE_FORMAT,
                IcebergOptions.TARGET_FILE_SIZE_BYTES,
                IcebergOptions.COMPRESSION_CODEC,
                IcebergOptions.COMPRESSION_LEVEL,
                RowLayout.OPTION);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        PlannerExtension.tablePlanned(context.getConfiguration(), context.getClassLoader());
        // Fails at planning, saying why, where the library cannot run.
        NativeLibrary.load();
        Map<String, String> options = context.getCatalogTable().getOptions();
        IcebergTableRef ref = tableRef(context.getObjectIdentifier(), options);
        RowType rowType = (RowType) context.getPhysicalRowDataType().getLogicalType();
        Schema schema = ensureTable(ref, context.getCatalogTable());
        try {
            ScanOptions scanOptions = IcebergOptions.scanOptions(options, context.getConfiguration());
            if (ref.isMetadataTable() && scanOptions.isStreaming()) {
                // Iceberg scans a metadata table whole; it has no appends to follow.
                throw new IllegalArgumentException("the metadata table " + ref + " is read in batch only, not streaming");
            }
            return new StreamFusionIcebergTableSource(
                    ref,
                    scanOptions,
                    schema,
                    rowType,
                    IcebergOptions.limit(options, context.getConfiguration()),
                    Configuration.fromMap(options).get(RowLayout.OPTION).binary(context.getConfiguration()),
                    ReadParallelism.of(context.getConfiguration()));
        } catch (IllegalArgumentException e) {
            throw new ValidationException("Table " + context.getObjectIdentifier() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        PlannerExtension.tablePlanned(context.getConfiguration(), context.getClassLoader());
        NativeLibrary.load();
        Map<String, String> options = context.getCatalogTable().getOptions();
        IcebergTableRef ref = tableRef(context.getObjectIdentifier(), options);
        if (ref.isMetadataTable()) {
            throw new ValidationException("Table " + context.getObjectIdentifier() + " is the metadata table " + ref
                    + ", which Iceberg derives from its table: it cannot be written");
        }
        RowType rowType = (RowType) context.getPhysicalRowDataType().getLogicalType();
        Schema schema = ensureTable(ref, context.getCatalogTable());
        List<String> primaryKey = context.getCatalogTable().getResolvedSchema().getPrimaryKey()
                .map(UniqueConstraint::getColumns)
                .orElse(List.of());
        Map<String, String> writeOptions;
        try {
            writeOptions = IcebergOptions.writeOptions(options, context.getConfiguration());
        } catch (IllegalArgumentException e) {
            throw new ValidationException("Table " + context.getObjectIdentifier() + ": " + e.getMessage(), e);
        }
        return StreamFusionIcebergTableSink.of(ref, rowType, writeOptions, primaryKey, schema);
    }

    static IcebergTableRef tableRef(ObjectIdentifier identifier, Map<String, String> options) {
        String catalogName = options.get(IcebergOptions.CATALOG_NAME.key());
        if (catalogName == null) {
            throw new ValidationException("Table " + identifier + " needs the option 'catalog-name'");
        }
        Map<String, String> catalogProperties = new HashMap<>(options);
        IcebergOptions.CONNECTOR_KEYS.forEach(catalogProperties::remove);
        return new IcebergTableRef(
                catalogName,
                catalogProperties,
                options.getOrDefault(IcebergOptions.CATALOG_DATABASE.key(), identifier.getDatabaseName()),
                options.getOrDefault(IcebergOptions.CATALOG_TABLE.key(), identifier.getObjectName()));
    }

    /**
     * The properties of an Iceberg table created for a Flink table of {@code options}, as
     * iceberg-flink's catalog gives them: every option but {@code connector}, {@code location} and
     * {@code src-catalog} (compared ignoring case), and this connector's own {@link RowLayout#KEY}.
     */
    static Map<String, String> tableProperties(Map<String, String> options) {
        Map<String, String> properties = new HashMap<>();
        options.forEach((name, value) -> {
            if (NOT_TABLE_PROPERTIES.stream().noneMatch(name::equalsIgnoreCase) && !name.equals(RowLayout.KEY)) {
                properties.put(name, value);
            }
        });
        return properties;
    }

    /** The location an Iceberg table created for a Flink table of {@code options} is given, or {@code null}. */
    static String location(Map<String, String> options) {
        return options.entrySet().stream()
                .filter(option -> option.getKey().equalsIgnoreCase(LOCATION))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(null);
    }

    /**
     * The table's current schema, after creating the table (and its database) if it is missing, as
     * iceberg-flink's connector creates it: with every option of the Flink table but {@code
     * connector}, {@code location} and {@code src-catalog} (compared ignoring case) as a table
     * property, the catalog's options included, and {@code location} as its location.
     */
    private static Schema ensureTable(IcebergTableRef ref, ResolvedCatalogTable flinkTable) {
        return ref.withCatalog(catalog -> {
            TableIdentifier id = ref.identifier();
            if (catalog.tableExists(id)) {
                return ref.loadFrom(catalog).schema();
            }
            if (ref.isMetadataTable()) {
                throw new ValidationException("Cannot read the metadata table " + ref + ": there is no table " + id.namespace()
                        + " in the Iceberg catalog");
            }
            if (catalog instanceof SupportsNamespaces) {
                SupportsNamespaces namespaces = (SupportsNamespaces) catalog;
                Namespace namespace = id.namespace();
                if (!namespaces.namespaceExists(namespace)) {
                    try {
                        namespaces.createNamespace(namespace);
                    } catch (AlreadyExistsException raced) {
                        // Created meanwhile by another job: the same outcome.
                    }
                }
            }
            List<String> key = flinkTable.getResolvedSchema().getPrimaryKey()
                    .map(UniqueConstraint::getColumns)
                    .orElse(List.of());
            Schema schema = IcebergTypes.toSchema(IcebergTypes.physicalRowType(flinkTable.getResolvedSchema()), key);
            PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
            for (String partitionKey : flinkTable.getPartitionKeys()) {
                spec.identity(partitionKey);
            }
            try {
                Table created = catalog.createTable(
                        id, schema, spec.build(), location(flinkTable.getOptions()), tableProperties(flinkTable.getOptions()));
                return created.schema();
            } catch (AlreadyExistsException raced) {
                return ref.loadFrom(catalog).schema();
            }
        });
    }
}
