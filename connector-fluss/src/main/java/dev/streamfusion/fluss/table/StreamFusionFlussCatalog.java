package dev.streamfusion.fluss.table;

import dev.streamfusion.bridge.table.TablesOnlyCatalog;
import dev.streamfusion.fluss.internal.FlussTableRef;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.CatalogPartition;
import org.apache.flink.table.catalog.CatalogPartitionImpl;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionAlreadyExistsException;
import org.apache.flink.table.catalog.exceptions.PartitionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionSpecInvalidException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotPartitionedException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.expressions.Expression;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.metadata.AggFunction;
import org.apache.fluss.metadata.DatabaseDescriptor;
import org.apache.fluss.metadata.MergeEngineType;
import org.apache.fluss.metadata.PartitionInfo;
import org.apache.fluss.metadata.PartitionSpec;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.types.DataType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * {@code CREATE CATALOG c WITH ('type' = 'streamfusion-fluss', 'bootstrap.servers' = ...)}: the
 * databases and tables of a Fluss cluster, as fluss-flink's catalog shows them, each table read and
 * written through the {@code streamfusion-fluss} connector. Databases and tables (log or
 * primary-key, with {@code bucket.num} and {@code bucket.key}) can be created and dropped.
 */
// The Fluss client's closeables declare Exception.
@SuppressWarnings("try")
@Internal
public final class StreamFusionFlussCatalog extends TablesOnlyCatalog {

    private final String bootstrapServers;
    private final Map<String, String> clientOptions;
    private Connection connection;
    private Admin admin;

    StreamFusionFlussCatalog(String name, String defaultDatabase, String bootstrapServers, Map<String, String> clientOptions) {
        super(name, defaultDatabase, StreamFusionFlussTableFactory.IDENTIFIER);
        this.bootstrapServers = bootstrapServers;
        this.clientOptions = clientOptions;
    }

    @Override
    public void open() {
        connection = new FlussTableRef(bootstrapServers, clientOptions, getDefaultDatabase(), "").connect();
        admin = connection.getAdmin();
        // As fluss-flink's catalog: a default database the cluster lacks fails at once.
        if (!databaseExists(getDefaultDatabase())) {
            close();
            throw new CatalogException("The default database '" + getDefaultDatabase() + "' of the Fluss catalog " + getName()
                    + " does not exist in the Fluss cluster at " + bootstrapServers);
        }
    }

    @Override
    public void close() {
        try (AutoCloseable c = connection; AutoCloseable a = admin) {
            // Closed in reverse order: the admin, then the connection.
        } catch (Exception e) {
            throw new CatalogException("Cannot close the Fluss catalog " + getName(), e);
        }
    }

    /** What {@code future} completes with; a failure as the Fluss exception it carries. */
    private <T> T await(CompletableFuture<T> future, String what) throws Exception {
        try {
            return future.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception) {
                throw (Exception) e.getCause();
            }
            throw new CatalogException("Cannot " + what + " in the Fluss catalog " + getName(), e.getCause());
        }
    }

    private CatalogException failed(String what, Exception e) {
        return new CatalogException("Cannot " + what + " in the Fluss catalog " + getName() + ": " + e.getMessage(), e);
    }

    @Override
    public List<String> listDatabases() {
        try {
            return await(admin.listDatabases(), "list databases");
        } catch (Exception e) {
            throw failed("list databases", e);
        }
    }

    @Override
    public CatalogDatabase getDatabase(String databaseName) throws DatabaseNotExistException {
        DatabaseDescriptor descriptor;
        try {
            descriptor = await(admin.getDatabaseInfo(databaseName), "look up database " + databaseName).getDatabaseDescriptor();
        } catch (org.apache.fluss.exception.DatabaseNotExistException e) {
            throw new DatabaseNotExistException(getName(), databaseName, e);
        } catch (Exception e) {
            throw failed("look up database " + databaseName, e);
        }
        return new CatalogDatabaseImpl(descriptor.getCustomProperties(), descriptor.getComment().orElse(null));
    }

    @Override
    public boolean databaseExists(String databaseName) {
        try {
            return await(admin.databaseExists(databaseName), "look up database " + databaseName);
        } catch (Exception e) {
            throw failed("look up database " + databaseName, e);
        }
    }

    @Override
    public void createDatabase(String name, CatalogDatabase database, boolean ignoreIfExists) throws DatabaseAlreadyExistException {
        try {
            // Its comment and properties, as fluss-flink's catalog keeps them.
            DatabaseDescriptor descriptor = database == null
                    ? DatabaseDescriptor.EMPTY
                    : DatabaseDescriptor.builder()
                            .comment(database.getComment())
                            .customProperties(database.getProperties())
                            .build();
            await(admin.createDatabase(name, descriptor, ignoreIfExists), "create database " + name);
        } catch (org.apache.fluss.exception.DatabaseAlreadyExistException e) {
            throw new DatabaseAlreadyExistException(getName(), name, e);
        } catch (Exception e) {
            throw failed("create database " + name, e);
        }
    }

    @Override
    public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade)
            throws DatabaseNotExistException, DatabaseNotEmptyException {
        try {
            await(admin.dropDatabase(name, ignoreIfNotExists, cascade), "drop database " + name);
        } catch (org.apache.fluss.exception.DatabaseNotExistException e) {
            throw new DatabaseNotExistException(getName(), name, e);
        } catch (org.apache.fluss.exception.DatabaseNotEmptyException e) {
            throw new DatabaseNotEmptyException(getName(), name, e);
        } catch (Exception e) {
            throw failed("drop database " + name, e);
        }
    }

    @Override
    public List<String> listTables(String databaseName) throws DatabaseNotExistException {
        try {
            return await(admin.listTables(databaseName), "list the tables of " + databaseName);
        } catch (org.apache.fluss.exception.DatabaseNotExistException e) {
            throw new DatabaseNotExistException(getName(), databaseName, e);
        } catch (Exception e) {
            throw failed("list the tables of " + databaseName, e);
        }
    }

    @Override
    public CatalogBaseTable getTable(ObjectPath path) throws TableNotExistException {
        TableInfo info;
        try {
            info = await(admin.getTableInfo(tablePath(path)), "look up table " + path);
        } catch (org.apache.fluss.exception.TableNotExistException e) {
            throw new TableNotExistException(getName(), path, e);
        } catch (Exception e) {
            throw failed("look up table " + path, e);
        }
        Map<String, String> custom = info.getCustomProperties().toMap();
        org.apache.flink.table.api.Schema.Builder columns = org.apache.flink.table.api.Schema.newBuilder();
        StoredSchemaParts.restore(info.getSchema().getColumns(), custom, columns);
        if (info.hasPrimaryKey()) {
            columns.primaryKey(info.getPrimaryKeys());
        }
        Map<String, String> options = new HashMap<>(clientOptions);
        // Connector options stored with the table when it was created (as fluss-flink's catalog
        // stores them), those this connector takes, and what defines the Fluss table as
        // fluss-flink's catalog shows it: its storage properties and auto-increment columns (so
        // CREATE TABLE ... LIKE copies them), and its columns' aggregate functions.
        Set<String> known = new HashSet<>();
        new StreamFusionFlussTableFactory().optionalOptions().forEach(o -> known.add(o.key()));
        // A table's own client.* options too, over the catalog's: they go to the client as
        // fluss-flink's catalog hands them on.
        custom.forEach((key, value) -> {
            if (known.contains(key) || key.startsWith(FlussOptions.CLIENT_PREFIX)
                    || StreamFusionFlussTableFactory.definesTheFlussTable(key)) {
                options.put(key, value);
            }
        });
        info.getProperties().toMap().forEach((key, value) -> {
            if (key.startsWith(FlussOptions.TABLE_PREFIX)) {
                options.put(key, value);
            }
        });
        for (Schema.Column column : info.getSchema().getColumns()) {
            column.getAggFunction().ifPresent(aggregate -> StoredSchemaParts.showAggFunction(column.getName(), aggregate, options));
        }
        // The table's distribution, as fluss-flink's catalog shows it (CREATE TABLE ... LIKE
        // takes it on).
        options.put(FlussOptions.BUCKET_NUM.key(), String.valueOf(info.getNumBuckets()));
        if (!info.getBucketKeys().isEmpty()) {
            options.put(FlussOptions.BUCKET_KEY.key(), String.join(",", info.getBucketKeys()));
        }
        options.put("connector", StreamFusionFlussTableFactory.IDENTIFIER);
        options.put(FlussOptions.BOOTSTRAP_SERVERS.key(), bootstrapServers);
        options.put(FlussOptions.DATABASE.key(), path.getDatabaseName());
        options.put(FlussOptions.TABLE.key(), path.getObjectName());
        return CatalogTable.newBuilder()
                .schema(columns.build())
                .comment(info.getComment().orElse(""))
                .partitionKeys(info.getPartitionKeys())
                .options(options)
                .build();
    }

    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath path) throws TableNotExistException, TableNotPartitionedException {
        try {
            return listPartitions(path, null);
        } catch (PartitionSpecInvalidException e) {
            throw new CatalogException("Cannot list the partitions of " + path + " in the Fluss catalog " + getName(), e);
        }
    }

    /** The partitions of the table, those matching {@code spec} if given, as fluss-flink's catalog lists them. */
    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath path, CatalogPartitionSpec spec)
            throws TableNotExistException, TableNotPartitionedException, PartitionSpecInvalidException {
        List<PartitionInfo> partitions;
        try {
            partitions = await(spec == null
                    ? admin.listPartitionInfos(tablePath(path))
                    : admin.listPartitionInfos(tablePath(path), new PartitionSpec(spec.getPartitionSpec())),
                    "list the partitions of " + path);
        } catch (org.apache.fluss.exception.TableNotExistException e) {
            throw new TableNotExistException(getName(), path, e);
        } catch (org.apache.fluss.exception.TableNotPartitionedException e) {
            throw new TableNotPartitionedException(getName(), path, e);
        } catch (org.apache.fluss.exception.InvalidPartitionException e) {
            if (spec == null) {
                throw failed("list the partitions of " + path, e);
            }
            throw new PartitionSpecInvalidException(getName(), List.of(), path, spec, e);
        } catch (Exception e) {
            throw failed("list the partitions of " + path, e);
        }
        List<CatalogPartitionSpec> specs = new ArrayList<>();
        for (PartitionInfo partition : partitions) {
            specs.add(new CatalogPartitionSpec(partition.getPartitionSpec().getSpecMap()));
        }
        return specs;
    }

    @Override
    public List<CatalogPartitionSpec> listPartitionsByFilter(ObjectPath path, List<Expression> filters) {
        // As fluss-flink's catalog; the connector lists a table's partitions itself.
        throw new UnsupportedOperationException("The Fluss catalog " + getName() + " lists partitions by spec, not by filter");
    }

    @Override
    public boolean partitionExists(ObjectPath path, CatalogPartitionSpec spec) {
        try {
            return listPartitions(path, spec).contains(spec);
        } catch (TableNotExistException | TableNotPartitionedException | PartitionSpecInvalidException e) {
            return false;
        }
    }

    @Override
    public CatalogPartition getPartition(ObjectPath path, CatalogPartitionSpec spec) throws PartitionNotExistException {
        if (!partitionExists(path, spec)) {
            throw new PartitionNotExistException(getName(), path, spec);
        }
        // A Fluss partition has no properties of its own.
        return new CatalogPartitionImpl(Map.of(), null);
    }

    /** {@code ALTER TABLE ... ADD PARTITION}, as fluss-flink's catalog creates it. */
    @Override
    public void createPartition(ObjectPath path, CatalogPartitionSpec spec, CatalogPartition partition, boolean ignoreIfExists)
            throws TableNotExistException, TableNotPartitionedException, PartitionSpecInvalidException,
                    PartitionAlreadyExistsException {
        try {
            await(admin.createPartition(tablePath(path), new PartitionSpec(spec.getPartitionSpec()), ignoreIfExists),
                    "create partition " + spec + " of " + path);
        } catch (org.apache.fluss.exception.TableNotExistException e) {
            throw new TableNotExistException(getName(), path, e);
        } catch (org.apache.fluss.exception.TableNotPartitionedException e) {
            throw new TableNotPartitionedException(getName(), path, e);
        } catch (org.apache.fluss.exception.InvalidPartitionException e) {
            throw new PartitionSpecInvalidException(getName(), List.of(), path, spec, e);
        } catch (org.apache.fluss.exception.PartitionAlreadyExistsException e) {
            throw new PartitionAlreadyExistsException(getName(), path, spec);
        } catch (Exception e) {
            throw failed("create partition " + spec + " of " + path, e);
        }
    }

    /** {@code ALTER TABLE ... DROP PARTITION}, as fluss-flink's catalog drops it. */
    @Override
    public void dropPartition(ObjectPath path, CatalogPartitionSpec spec, boolean ignoreIfNotExists)
            throws PartitionNotExistException {
        try {
            await(admin.dropPartition(tablePath(path), new PartitionSpec(spec.getPartitionSpec()), ignoreIfNotExists),
                    "drop partition " + spec + " of " + path);
        } catch (org.apache.fluss.exception.PartitionNotExistException e) {
            throw new PartitionNotExistException(getName(), path, spec, e);
        } catch (Exception e) {
            throw failed("drop partition " + spec + " of " + path, e);
        }
    }

    @Override
    public boolean tableExists(ObjectPath path) {
        try {
            return await(admin.tableExists(tablePath(path)), "look up table " + path);
        } catch (Exception e) {
            throw failed("look up table " + path, e);
        }
    }

    @Override
    public void dropTable(ObjectPath path, boolean ignoreIfNotExists) throws TableNotExistException {
        try {
            await(admin.dropTable(tablePath(path), ignoreIfNotExists), "drop table " + path);
        } catch (org.apache.fluss.exception.TableNotExistException e) {
            throw new TableNotExistException(getName(), path, e);
        } catch (Exception e) {
            throw failed("drop table " + path, e);
        }
    }

    @Override
    public void renameTable(ObjectPath path, String newName, boolean ignoreIfNotExists) {
        throw new UnsupportedOperationException("Fluss tables cannot be renamed");
    }

    @Override
    public void createTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfExists)
            throws TableAlreadyExistException, DatabaseNotExistException {
        if (!(table instanceof ResolvedCatalogTable)) {
            throw new CatalogException("Only tables can be created in the Fluss catalog " + getName());
        }
        ResolvedCatalogTable resolved = (ResolvedCatalogTable) table;
        String connector = resolved.getOptions().get("connector");
        if (connector != null && !connector.equals(StreamFusionFlussTableFactory.IDENTIFIER) && !connector.equals("fluss")) {
            // As fluss-flink's catalog: its tables are Fluss tables.
            throw new CatalogException("Table " + path + " of the Fluss catalog " + getName() + " cannot have 'connector' = '"
                    + connector + "': the catalog holds Fluss tables; create a TEMPORARY table for another connector");
        }
        Map<String, String> options = withoutConnection(resolved.getOptions());
        // Computed columns and watermarks, kept as fluss-flink's catalog keeps them.
        Map<String, String> custom = new HashMap<>();
        StoredSchemaParts.store(resolved.getResolvedSchema(), custom);
        String mergeEngine = options.get(ConfigOptions.TABLE_MERGE_ENGINE.key());
        boolean aggregating = mergeEngine != null && MergeEngineType.fromString(mergeEngine) == MergeEngineType.AGGREGATION;
        Schema.Builder schema = Schema.newBuilder();
        for (Column column : resolved.getResolvedSchema().getColumns()) {
            if (!column.isPhysical()) {
                continue;
            }
            DataType type;
            try {
                type = FlussTypes.toFluss(column.getDataType().getLogicalType());
            } catch (UnsupportedOperationException e) {
                throw new CatalogException("Column '" + column.getName() + "' of table " + path + ": " + e.getMessage(), e);
            }
            // A column's aggregate function ('fields.<column>.agg'), for the aggregation merge engine only.
            Optional<AggFunction> aggregate =
                    aggregating ? StoredSchemaParts.aggFunction(column.getName(), type, options) : Optional.empty();
            if (aggregate.isPresent()) {
                schema.column(column.getName(), type, aggregate.get());
            } else {
                schema.column(column.getName(), type);
            }
            column.getComment().ifPresent(schema::withComment);
        }
        String autoIncrement = options.get(FlussOptions.AUTO_INCREMENT_FIELDS);
        if (autoIncrement != null) {
            for (String column : autoIncrement.split(",")) {
                schema.enableAutoIncrement(column.trim());
            }
        }
        resolved.getResolvedSchema().getPrimaryKey().ifPresent(key -> schema.primaryKey(key.getColumns()));
        String bucketNum = options.get(FlussOptions.BUCKET_NUM.key());
        String bucketKey = options.get(FlussOptions.BUCKET_KEY.key());
        List<String> bucketKeys = new ArrayList<>();
        if (bucketKey != null) {
            for (String key : bucketKey.split(",")) {
                bucketKeys.add(key.trim());
            }
        }
        TableDescriptor.Builder descriptor = TableDescriptor.builder()
                .schema(schema.build())
                .partitionedBy(resolved.getPartitionKeys())
                .distributedBy(bucketNum == null ? null : Integer.valueOf(bucketNum), bucketKeys)
                .comment(resolved.getComment());
        for (Map.Entry<String, String> option : options.entrySet()) {
            String key = option.getKey();
            if (key.startsWith(FlussOptions.TABLE_PREFIX)) {
                descriptor.property(key, option.getValue());
            } else if (key.startsWith(StoredSchemaParts.PREFIX)) {
                throw new CatalogException("Option '" + key + "' of table " + path + " names a part of the schema a "
                        + "Fluss table keeps; declare columns and watermarks in the schema");
            } else if (!key.equals(FlussOptions.BUCKET_NUM.key()) && !key.equals(FlussOptions.BUCKET_KEY.key())) {
                // Connector options (scan.startup.mode, sink.ignore-delete, lookup.*, ...),
                // aggregate functions and auto-increment columns are kept with the table, as
                // fluss-flink's catalog keeps them.
                descriptor.customProperty(key, option.getValue());
            }
        }
        custom.forEach(descriptor::customProperty);
        try {
            await(admin.createTable(tablePath(path), descriptor.build(), ignoreIfExists), "create table " + path);
        } catch (org.apache.fluss.exception.TableAlreadyExistException e) {
            throw new TableAlreadyExistException(getName(), path, e);
        } catch (org.apache.fluss.exception.DatabaseNotExistException e) {
            throw new DatabaseNotExistException(getName(), path.getDatabaseName(), e);
        } catch (Exception e) {
            throw failed("create table " + path, e);
        }
    }

    /**
     * {@code options} without what names this catalog's cluster and a table of it (the options
     * {@link #getTable} gives a table, which {@code CREATE TABLE ... LIKE} copies), which are no
     * properties of a table.
     */
    private Map<String, String> withoutConnection(Map<String, String> options) {
        Map<String, String> own = new HashMap<>(options);
        clientOptions.forEach(own::remove);
        own.remove(FlussOptions.BOOTSTRAP_SERVERS.key(), bootstrapServers);
        own.remove(FlussOptions.DATABASE.key());
        own.remove(FlussOptions.TABLE.key());
        own.remove("connector", StreamFusionFlussTableFactory.IDENTIFIER);
        return own;
    }

    private static TablePath tablePath(ObjectPath path) {
        return TablePath.of(path.getDatabaseName(), path.getObjectName());
    }
}
