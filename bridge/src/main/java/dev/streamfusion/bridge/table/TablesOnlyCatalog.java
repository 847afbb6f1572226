package dev.streamfusion.bridge.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.catalog.AbstractCatalog;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogFunction;
import org.apache.flink.table.catalog.CatalogPartition;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.FunctionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionAlreadyExistsException;
import org.apache.flink.table.catalog.exceptions.PartitionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionSpecInvalidException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotPartitionedException;
import org.apache.flink.table.catalog.stats.CatalogColumnStatistics;
import org.apache.flink.table.catalog.stats.CatalogTableStatistics;
import org.apache.flink.table.expressions.Expression;

import java.util.Collections;
import java.util.List;

/**
 * A catalog of a store's databases and tables only, as the connectors' catalogs are: it keeps no
 * views, functions or statistics, and alters neither databases nor tables; each such request is
 * refused naming the catalog's type, as is any question about partitions a catalog does not answer
 * itself (never an empty answer that would say a partitioned table has none).
 */
@Internal
public abstract class TablesOnlyCatalog extends AbstractCatalog {

    private final String type;

    /** A catalog named {@code name} of the catalog type {@code type} (its factory identifier). */
    protected TablesOnlyCatalog(String name, String defaultDatabase, String type) {
        super(name, defaultDatabase);
        this.type = type;
    }

    private UnsupportedOperationException refused(String what) {
        return new UnsupportedOperationException(what + " is not supported by the " + type + " catalog " + getName());
    }

    @Override
    public void alterDatabase(String name, CatalogDatabase newDatabase, boolean ignoreIfNotExists)
            throws DatabaseNotExistException {
        throw refused("ALTER DATABASE");
    }

    @Override
    public List<String> listViews(String databaseName) {
        return Collections.emptyList();
    }

    @Override
    public void alterTable(ObjectPath path, CatalogBaseTable newTable, boolean ignoreIfNotExists) {
        throw refused("ALTER TABLE");
    }

    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath path) throws TableNotExistException, TableNotPartitionedException {
        throw refused("Listing partitions");
    }

    @Override
    public List<CatalogPartitionSpec> listPartitions(ObjectPath path, CatalogPartitionSpec spec)
            throws TableNotExistException, TableNotPartitionedException, PartitionSpecInvalidException {
        throw refused("Listing partitions by spec");
    }

    @Override
    public List<CatalogPartitionSpec> listPartitionsByFilter(ObjectPath path, List<Expression> filters) {
        throw refused("Listing partitions by filter");
    }

    @Override
    public CatalogPartition getPartition(ObjectPath path, CatalogPartitionSpec spec) throws PartitionNotExistException {
        throw refused("Looking a partition up");
    }

    @Override
    public boolean partitionExists(ObjectPath path, CatalogPartitionSpec spec) {
        throw refused("Looking a partition up");
    }

    @Override
    public void createPartition(ObjectPath path, CatalogPartitionSpec spec, CatalogPartition partition, boolean ignoreIfExists)
            throws TableNotExistException, TableNotPartitionedException, PartitionSpecInvalidException,
                    PartitionAlreadyExistsException {
        throw refused("Creating a partition explicitly");
    }

    @Override
    public void dropPartition(ObjectPath path, CatalogPartitionSpec spec, boolean ignoreIfNotExists)
            throws PartitionNotExistException {
        throw refused("Dropping a partition explicitly");
    }

    @Override
    public void alterPartition(ObjectPath path, CatalogPartitionSpec spec, CatalogPartition partition, boolean ignoreIfNotExists) {
        throw refused("Altering a partition");
    }

    @Override
    public List<String> listFunctions(String dbName) {
        return Collections.emptyList();
    }

    @Override
    public CatalogFunction getFunction(ObjectPath functionPath) throws FunctionNotExistException {
        throw new FunctionNotExistException(getName(), functionPath);
    }

    @Override
    public boolean functionExists(ObjectPath functionPath) {
        return false;
    }

    @Override
    public void createFunction(ObjectPath functionPath, CatalogFunction function, boolean ignoreIfExists) {
        throw refused("Keeping a function");
    }

    @Override
    public void alterFunction(ObjectPath functionPath, CatalogFunction newFunction, boolean ignoreIfNotExists) {
        throw refused("Keeping a function");
    }

    @Override
    public void dropFunction(ObjectPath functionPath, boolean ignoreIfNotExists) {
        throw refused("Keeping a function");
    }

    @Override
    public CatalogTableStatistics getTableStatistics(ObjectPath tablePath) {
        return CatalogTableStatistics.UNKNOWN;
    }

    @Override
    public CatalogColumnStatistics getTableColumnStatistics(ObjectPath tablePath) {
        return CatalogColumnStatistics.UNKNOWN;
    }

    @Override
    public CatalogTableStatistics getPartitionStatistics(ObjectPath tablePath, CatalogPartitionSpec partitionSpec) {
        return CatalogTableStatistics.UNKNOWN;
    }

    @Override
    public CatalogColumnStatistics getPartitionColumnStatistics(ObjectPath tablePath, CatalogPartitionSpec partitionSpec) {
        return CatalogColumnStatistics.UNKNOWN;
    }

    @Override
    public void alterTableStatistics(ObjectPath tablePath, CatalogTableStatistics tableStatistics, boolean ignoreIfNotExists) {
        throw refused("Keeping statistics");
    }

    @Override
    public void alterTableColumnStatistics(ObjectPath tablePath, CatalogColumnStatistics columnStatistics, boolean ignoreIfNotExists) {
        throw refused("Keeping statistics");
    }

    @Override
    public void alterPartitionStatistics(
            ObjectPath tablePath, CatalogPartitionSpec partitionSpec, CatalogTableStatistics partitionStatistics,
            boolean ignoreIfNotExists) {
        throw refused("Keeping statistics");
    }

    @Override
    public void alterPartitionColumnStatistics(
            ObjectPath tablePath, CatalogPartitionSpec partitionSpec, CatalogColumnStatistics columnStatistics,
            boolean ignoreIfNotExists) {
        throw refused("Keeping statistics");
    }
}
