package dev.streamfusion.iceberg.table;

import dev.streamfusion.bridge.table.TablesOnlyCatalog;
import dev.streamfusion.iceberg.internal.IcebergTableRef;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotPartitionedException;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;

import org.apache.iceberg.BaseMetadataTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A {@code streamfusion-iceberg} catalog: the databases (namespaces) and tables of an Iceberg
 * catalog Iceberg Java builds from the catalog's options, each table read by the {@code
 * streamfusion-iceberg} connector with the columns iceberg-flink gives it. Databases and tables can
 * be created and dropped; views, functions, partitions and statistics are not kept.
 */
@Internal
public final class StreamFusionIcebergCatalog extends TablesOnlyCatalog {

    /** The property a database's comment is kept in. */
    private static final String COMMENT = "comment";

    private final Map<String, String> properties;
    private Catalog catalog;

    public StreamFusionIcebergCatalog(String name, String defaultDatabase, Map<String, String> properties) {
        super(name, defaultDatabase, "streamfusion-iceberg");
        this.properties = Map.copyOf(properties);
    }

    @Override
    public void open() {
        try {
            catalog = IcebergTableRef.buildCatalog(getName(), properties);
        } catch (RuntimeException e) {
            throw new CatalogException("Cannot open the Iceberg catalog '" + getName() + "': " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            IcebergTableRef.close(catalog);
        } catch (IOException e) {
            throw new CatalogException("Cannot close the Iceberg catalog '" + getName() + "'", e);
        }
    }

    private SupportsNamespaces namespaces() {
        if (!(catalog instanceof SupportsNamespaces)) {
            throw new CatalogException("The Iceberg catalog '" + getName() + "' has no namespaces");
        }
        return (SupportsNamespaces) catalog;
    }

    /** The namespace of the database {@code name}: below the catalog's {@code base-namespace}, if it has one. */
    private Namespace namespace(String name) {
        return IcebergTableRef.namespace(properties, name);
    }

    /** The namespaces below the catalog's {@code base-namespace} (or at the top), each by its last level. */
    @Override
    public List<String> listDatabases() {
        return namespaces().listNamespaces(IcebergTableRef.baseNamespace(properties)).stream()
                .map(n -> n.level(n.length() - 1))
                .collect(Collectors.toList());
    }

    @Override
    public CatalogDatabase getDatabase(String databaseName) throws DatabaseNotExistException {
        try {
            Map<String, String> properties = new HashMap<>(namespaces().loadNamespaceMetadata(namespace(databaseName)));
            // A database's comment is its "comment" property, as iceberg-flink's catalog keeps it.
            String comment = properties.remove(COMMENT);
            return new CatalogDatabaseImpl(properties, comment);
        } catch (NoSuchNamespaceException e) {
            throw new DatabaseNotExistException(getName(), databaseName, e);
        }
    }

    @Override
    public boolean databaseExists(String databaseName) {
        return namespaces().namespaceExists(namespace(databaseName));
    }

    /**
     * The namespace properties of {@code database}: its properties, and its comment as the {@code
     * comment} property, as iceberg-flink's catalog stores them (which refuses a {@code comment}
     * among the properties as well).
     */
    private static Map<String, String> namespaceProperties(String name, CatalogDatabase database) {
        Map<String, String> properties = new HashMap<>(database == null ? Map.of() : database.getProperties());
        if (properties.containsKey(COMMENT)) {
            throw new CatalogException("The properties of database " + name + " cannot hold '" + COMMENT
                    + "': COMMENT says it, stored as that property");
        }
        String comment = database == null ? null : database.getComment();
        if (comment != null && !comment.isBlank()) {
            properties.put(COMMENT, comment);
        }
        return properties;
    }

    @Override
    public void createDatabase(String name, CatalogDatabase database, boolean ignoreIfExists)
            throws DatabaseAlreadyExistException {
        Map<String, String> properties = namespaceProperties(name, database);
        try {
            namespaces().createNamespace(namespace(name), properties);
        } catch (AlreadyExistsException e) {
            if (!ignoreIfExists) {
                throw new DatabaseAlreadyExistException(getName(), name, e);
            }
        }
    }

    /**
     * {@code ALTER DATABASE}: the namespace's properties set to the database's (and its comment),
     * those it no longer has removed, as iceberg-flink's catalog alters them.
     */
    @Override
    public void alterDatabase(String name, CatalogDatabase newDatabase, boolean ignoreIfNotExists)
            throws DatabaseNotExistException {
        Namespace namespace = namespace(name);
        Map<String, String> wanted = namespaceProperties(name, newDatabase);
        Map<String, String> current;
        try {
            current = namespaces().loadNamespaceMetadata(namespace);
        } catch (NoSuchNamespaceException e) {
            if (ignoreIfNotExists) {
                return;
            }
            throw new DatabaseNotExistException(getName(), name, e);
        }
        Map<String, String> updates = new HashMap<>();
        wanted.forEach((key, value) -> {
            if (!value.equals(current.get(key))) {
                updates.put(key, value);
            }
        });
        Set<String> removals = new java.util.HashSet<>(current.keySet());
        removals.removeAll(wanted.keySet());
        if (!updates.isEmpty()) {
            namespaces().setProperties(namespace, updates);
        }
        if (!removals.isEmpty()) {
            namespaces().removeProperties(namespace, removals);
        }
    }

    @Override
    public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade)
            throws DatabaseNotExistException, DatabaseNotEmptyException {
        Namespace namespace = namespace(name);
        if (!namespaces().namespaceExists(namespace)) {
            if (ignoreIfNotExists) {
                return;
            }
            throw new DatabaseNotExistException(getName(), name);
        }
        if (cascade) {
            // Each table dropped as DROP TABLE drops it: its files stay.
            for (TableIdentifier table : catalog.listTables(namespace)) {
                catalog.dropTable(table, false);
            }
        }
        try {
            namespaces().dropNamespace(namespace);
        } catch (NamespaceNotEmptyException e) {
            throw new DatabaseNotEmptyException(getName(), name, e);
        }
    }

    @Override
    public List<String> listTables(String databaseName) throws DatabaseNotExistException {
        try {
            return catalog.listTables(namespace(databaseName)).stream().map(TableIdentifier::name).collect(Collectors.toList());
        } catch (NoSuchNamespaceException e) {
            throw new DatabaseNotExistException(getName(), databaseName, e);
        }
    }

    @Override
    public CatalogBaseTable getTable(ObjectPath path) throws TableNotExistException {
        Table table;
        try {
            table = catalog.loadTable(identifier(path));
        } catch (NoSuchTableException e) {
            throw new TableNotExistException(getName(), path, e);
        }
        Schema schema = table.schema();
        RowType rowType = IcebergTypes.toRowType(schema);
        org.apache.flink.table.api.Schema.Builder columns = org.apache.flink.table.api.Schema.newBuilder()
                .fromRowDataType(TypeConversions.fromLogicalToDataType(rowType));
        List<String> key = schema.identifierFieldNames().stream().sorted().collect(Collectors.toList());
        if (!key.isEmpty()) {
            columns.primaryKey(key);
        }
        List<String> partitionKeys = new ArrayList<>();
        // A metadata table's spec is its table's, over fields of another schema.
        PartitionSpec spec = table instanceof BaseMetadataTable ? PartitionSpec.unpartitioned() : table.spec();
        for (PartitionField field : spec.fields()) {
            if (field.transform().isIdentity()) {
                partitionKeys.add(schema.findColumnName(field.sourceId()));
            }
        }
        Map<String, String> options = new HashMap<>(properties);
        // As in iceberg-flink's catalog, whose tables' options are their properties: a property
        // named as one of iceberg-flink's write options (stored so by a connector-form DDL, say)
        // acts as that option.
        for (String option : IcebergOptions.WRITE_OPTION_NAMES) {
            String value = table.properties().get(option);
            if (value != null) {
                options.put(option, value);
            }
        }
        options.put("connector", StreamFusionIcebergTableFactory.IDENTIFIER);
        options.put(IcebergOptions.CATALOG_NAME.key(), getName());
        options.put(IcebergOptions.CATALOG_DATABASE.key(), path.getDatabaseName());
        options.put(IcebergOptions.CATALOG_TABLE.key(), path.getObjectName());
        return CatalogTable.newBuilder()
                .schema(columns.build())
                .comment(table.properties().getOrDefault("comment", ""))
                .partitionKeys(partitionKeys.size() == spec.fields().size() ? partitionKeys : List.of())
                .options(options)
                .build();
    }

    /**
     * The partitions of the table's current data files, named by their partition fields, values as
     * text, as iceberg-flink's catalog lists them.
     */
    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath path) throws TableNotExistException, TableNotPartitionedException {
        Table table;
        try {
            table = catalog.loadTable(identifier(path));
        } catch (NoSuchTableException e) {
            throw new TableNotExistException(getName(), path, e);
        }
        if (table.spec().isUnpartitioned()) {
            throw new TableNotPartitionedException(getName(), path);
        }
        Set<CatalogPartitionSpec> partitions = new LinkedHashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                PartitionSpec spec = table.specs().get(file.specId());
                StructLike values = file.partition();
                Map<String, String> partition = new LinkedHashMap<>();
                for (int i = 0; i < values.size(); i++) {
                    partition.put(spec.fields().get(i).name(), String.valueOf(values.get(i, Object.class)));
                }
                partitions.add(new CatalogPartitionSpec(partition));
            }
        } catch (IOException e) {
            throw new CatalogException("Cannot list the partitions of " + path + " in the Iceberg catalog " + getName(), e);
        }
        return new ArrayList<>(partitions);
    }

    /** The partitions {@link #listPartitions(ObjectPath)} lists that hold every value of {@code spec}. */
    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath path, CatalogPartitionSpec spec)
            throws TableNotExistException, TableNotPartitionedException {
        List<CatalogPartitionSpec> matching = new ArrayList<>();
        for (CatalogPartitionSpec partition : listPartitions(path)) {
            if (partition.getPartitionSpec().entrySet().containsAll(spec.getPartitionSpec().entrySet())) {
                matching.add(partition);
            }
        }
        return matching;
    }

    @Override
    public boolean tableExists(ObjectPath path) {
        return catalog.tableExists(identifier(path));
    }

    @Override
    public void dropTable(ObjectPath path, boolean ignoreIfNotExists) throws TableNotExistException {
        if (!catalog.dropTable(ownIdentifier(path, "dropped"), false) && !ignoreIfNotExists) {
            throw new TableNotExistException(getName(), path);
        }
    }

    @Override
    public void renameTable(ObjectPath path, String newName, boolean ignoreIfNotExists)
            throws TableNotExistException, TableAlreadyExistException {
        try {
            catalog.renameTable(ownIdentifier(path, "renamed"), ownIdentifier(new ObjectPath(path.getDatabaseName(), newName), "created"));
        } catch (NoSuchTableException e) {
            if (!ignoreIfNotExists) {
                throw new TableNotExistException(getName(), path, e);
            }
        } catch (AlreadyExistsException e) {
            throw new TableAlreadyExistException(getName(), new ObjectPath(path.getDatabaseName(), newName), e);
        }
    }

    /**
     * Creates the Iceberg table of a Flink table's columns, primary key, (identity) partition keys
     * and options, as iceberg-flink's catalog creates it (see {@link
     * StreamFusionIcebergTableFactory#tableProperties}).
     */
    @Override
    public void createTable(ObjectPath path, CatalogBaseTable table, boolean ignoreIfExists)
            throws TableAlreadyExistException, DatabaseNotExistException {
        if (!databaseExists(path.getDatabaseName())) {
            throw new DatabaseNotExistException(getName(), path.getDatabaseName());
        }
        if (!(table instanceof ResolvedCatalogTable)) {
            throw new CatalogException("Only tables can be created in the streamfusion-iceberg catalog " + getName());
        }
        ResolvedCatalogTable resolved = (ResolvedCatalogTable) table;
        // As iceberg-flink's catalog: an Iceberg table holds no computed or metadata column and
        // no watermark, and dropping them would leave a table other than the one declared.
        for (Column column : resolved.getResolvedSchema().getColumns()) {
            if (!column.isPhysical()) {
                throw new CatalogException("Table " + path.getFullName() + " of the streamfusion-iceberg catalog " + getName()
                        + " cannot have the " + (column instanceof Column.ComputedColumn ? "computed" : "metadata")
                        + " column '" + column.getName() + "': an Iceberg table holds physical columns only");
            }
        }
        if (!resolved.getResolvedSchema().getWatermarkSpecs().isEmpty()) {
            throw new CatalogException("Table " + path.getFullName() + " of the streamfusion-iceberg catalog " + getName()
                    + " cannot have a watermark: an Iceberg table holds none (declare it on a table of the "
                    + "'streamfusion-iceberg' connector, or with CREATE TEMPORARY TABLE ... LIKE)");
        }
        List<String> key = resolved.getResolvedSchema().getPrimaryKey().map(k -> k.getColumns()).orElse(List.of());
        Schema schema = IcebergTypes.toSchema(IcebergTypes.physicalRowType(resolved.getResolvedSchema()), key);
        PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
        resolved.getPartitionKeys().forEach(spec::identity);
        Map<String, String> options = withoutConnection(resolved.getOptions());
        try {
            catalog.createTable(ownIdentifier(path, "created"), schema, spec.build(), StreamFusionIcebergTableFactory.location(options),
                    StreamFusionIcebergTableFactory.tableProperties(options));
        } catch (AlreadyExistsException e) {
            if (!ignoreIfExists) {
                throw new TableAlreadyExistException(getName(), path, e);
            }
        }
    }

    /**
     * {@code options} without what names this catalog and a table of it (the options {@link
     * #getTable} gives a table, which {@code CREATE TABLE ... LIKE} copies): the catalog's own
     * options, which may hold credentials, are no properties of a table.
     */
    private Map<String, String> withoutConnection(Map<String, String> options) {
        Map<String, String> own = new HashMap<>(options);
        properties.forEach(own::remove);
        own.remove(IcebergOptions.CATALOG_NAME.key());
        own.remove(IcebergOptions.CATALOG_DATABASE.key());
        own.remove(IcebergOptions.CATALOG_TABLE.key());
        return own;
    }

    /** The table {@code path} names: its own, or one of its metadata tables ({@code t$snapshots}). */
    private TableIdentifier identifier(ObjectPath path) {
        return IcebergTableRef.identifier(namespace(path.getDatabaseName()), path.getObjectName());
    }

    /**
     * The table {@code path} names, to be {@code done} (created, dropped, renamed): refused for a
     * metadata table, which Iceberg derives from its table.
     */
    private TableIdentifier ownIdentifier(ObjectPath path, String done) {
        TableIdentifier identifier = identifier(path);
        if (IcebergTableRef.namesMetadataTable(path.getObjectName())) {
            throw new CatalogException("Table " + path.getFullName() + " of the streamfusion-iceberg catalog " + getName()
                    + " is the " + identifier.name() + " metadata table of " + identifier.namespace()
                    + ": it cannot be " + done);
        }
        return identifier;
    }
}
