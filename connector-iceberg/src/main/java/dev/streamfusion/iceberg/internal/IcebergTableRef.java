package dev.streamfusion.iceberg.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

import java.io.Closeable;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * An Iceberg table as the job finds it again wherever it runs: the catalog's name and properties
 * (iceberg-flink's names: {@code catalog-type} or {@code catalog-impl}, {@code warehouse}, {@code
 * uri}, {@code io-impl} and any catalog property) and the table's identifier. Iceberg Java builds
 * the catalog, so every catalog it supports works.
 */
@Internal
public final class IcebergTableRef implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The catalog option naming the namespace a catalog's databases are in, as in iceberg-flink. */
    public static final String BASE_NAMESPACE = "base-namespace";

    private final String catalogName;
    private final HashMap<String, String> catalogProperties;
    private final String database;
    private final String table;

    public IcebergTableRef(String catalogName, Map<String, String> catalogProperties, String database, String table) {
        this.catalogName = catalogName;
        this.catalogProperties = new HashMap<>(catalogProperties);
        this.database = database;
        this.table = table;
    }

    /** The catalog, built by Iceberg Java from the properties. */
    public Catalog catalog() {
        return buildCatalog(catalogName, catalogProperties);
    }

    /**
     * A catalog of iceberg-flink's properties: {@code catalog-type} (hadoop, hive, rest, and
     * Iceberg's jdbc, glue and nessie; hive where neither it nor {@code catalog-impl} is given, as
     * in iceberg-flink) or {@code catalog-impl}, never both, and the catalog's own properties;
     * with Hadoop's configuration when Hadoop is on the classpath.
     */
    public static Catalog buildCatalog(String name, Map<String, String> properties) {
        Map<String, String> props = new HashMap<>(properties);
        String type = props.remove("catalog-type");
        String impl = props.get(CatalogProperties.CATALOG_IMPL);
        if (type != null && impl != null) {
            throw new IllegalArgumentException("The Iceberg catalog '" + name + "' has both 'catalog-type' = '" + type
                    + "' and 'catalog-impl' = '" + impl + "': give one");
        }
        if (impl == null) {
            props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, type == null ? CatalogUtil.ICEBERG_CATALOG_TYPE_HIVE : type);
        }
        return CatalogUtil.buildIcebergCatalog(name, props, HadoopConf.newConfigurationIfPresent());
    }

    /** The table's identifier: {@code table} in the database's namespace. */
    public TableIdentifier identifier() {
        return TableIdentifier.of(namespace(catalogProperties, database), table);
    }

    /**
     * The namespace of the Flink database {@code database} in a catalog of {@code properties}:
     * below the catalog's {@code base-namespace} (levels separated by dots), as in iceberg-flink.
     */
    public static Namespace namespace(Map<String, String> properties, String database) {
        Namespace base = baseNamespace(properties);
        String[] levels = java.util.Arrays.copyOf(base.levels(), base.levels().length + 1);
        levels[base.levels().length] = database;
        return Namespace.of(levels);
    }

    /** The catalog's {@code base-namespace}, empty without one. */
    public static Namespace baseNamespace(Map<String, String> properties) {
        String base = properties.get(BASE_NAMESPACE);
        return base == null ? Namespace.empty() : Namespace.of(base.split("\\."));
    }

    /** Loads the table from {@code catalog} (one {@link #catalog()} built). */
    public Table loadFrom(Catalog catalog) {
        return catalog.loadTable(identifier());
    }

    /**
     * What {@code action} makes of a catalog built for the call and closed after it, for planning:
     * a catalog that cannot be built is a {@link ValidationException} naming the table.
     */
    public <T> T withCatalog(Function<Catalog, T> action) {
        Catalog catalog;
        try {
            catalog = catalog();
        } catch (RuntimeException e) {
            throw new ValidationException("Cannot open the Iceberg catalog of table " + this + ": " + e.getMessage(), e);
        }
        T result;
        try {
            result = action.apply(catalog);
        } catch (RuntimeException | Error e) {
            try {
                close(catalog);
            } catch (IOException | RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        try {
            close(catalog);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot close the Iceberg catalog of table " + this, e);
        }
        return result;
    }

    /** What {@code action} makes of the table, loaded as {@link #withCatalog} says. */
    public <T> T withTable(Function<Table, T> action) {
        return withCatalog(catalog -> action.apply(loadFrom(catalog)));
    }

    /** Closes {@code catalog} when it holds resources (connections, clients). */
    public static void close(Catalog catalog) throws IOException {
        if (catalog instanceof Closeable) {
            ((Closeable) catalog).close();
        }
    }

    @Override
    public String toString() {
        return catalogName + "." + database + "." + table;
    }

    /** Hadoop's configuration, when Hadoop is on the classpath (catalogs over HDFS need it). */
    private static final class HadoopConf {
        static Object newConfigurationIfPresent() {
            try {
                Class<?> conf = Class.forName(
                        "org.apache.hadoop.conf.Configuration", true, IcebergTableRef.class.getClassLoader());
                return conf.getConstructor().newInstance();
            } catch (ReflectiveOperationException | LinkageError e) {
                return null;
            }
        }
    }
}
