package dev.streamfusion.iceberg.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.MetadataTableType;
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
     * with Hadoop's configuration when Hadoop is on the classpath (for the hive type, with the
     * files of {@code hive-conf-dir} and {@code hadoop-conf-dir}, as in iceberg-flink).
     */
    public static Catalog buildCatalog(String name, Map<String, String> properties) {
        Map<String, String> props = new HashMap<>(properties);
        String type = props.remove("catalog-type");
        String impl = props.get(CatalogProperties.CATALOG_IMPL);
        if (type != null && impl != null) {
            throw new IllegalArgumentException("The Iceberg catalog '" + name + "' has both 'catalog-type' = '" + type
                    + "' and 'catalog-impl' = '" + impl + "': give one");
        }
        boolean hive = false;
        if (impl == null) {
            String resolved = type == null ? CatalogUtil.ICEBERG_CATALOG_TYPE_HIVE : type;
            props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, resolved);
            hive = resolved.equalsIgnoreCase(CatalogUtil.ICEBERG_CATALOG_TYPE_HIVE);
        }
        return CatalogUtil.buildIcebergCatalog(name, props, hadoopConfiguration(hive, props));
    }

    /** The option naming the directory of a Hive catalog's {@code hive-site.xml}, as in iceberg-flink. */
    static final String HIVE_CONF_DIR = "hive-conf-dir";
    /** The option naming the directory of a Hive catalog's {@code hdfs-site.xml} and {@code core-site.xml}. */
    static final String HADOOP_CONF_DIR = "hadoop-conf-dir";

    /**
     * Hadoop's configuration for a catalog of {@code properties}, or {@code null} without Hadoop on
     * the classpath. For a Hive catalog, as iceberg-flink builds it: with {@code hive-site.xml} of
     * {@code hive-conf-dir} (else of the classpath, if there is one), and {@code hdfs-site.xml} and
     * {@code core-site.xml} of {@code hadoop-conf-dir}, each required where its directory is named.
     */
    static Object hadoopConfiguration(boolean hive, Map<String, String> properties) {
        Object conf = HadoopConf.newConfigurationIfPresent();
        String hiveConfDir = hive ? properties.get(HIVE_CONF_DIR) : null;
        String hadoopConfDir = hive ? properties.get(HADOOP_CONF_DIR) : null;
        if (conf == null) {
            if (hiveConfDir != null || hadoopConfDir != null) {
                throw new IllegalArgumentException("'" + HIVE_CONF_DIR + "' and '" + HADOOP_CONF_DIR
                        + "' need Hadoop's client on the classpath");
            }
            return null;
        }
        if (hive) {
            if (hiveConfDir != null) {
                HadoopConf.addResource(conf, required(hiveConfDir, "hive-site.xml", HIVE_CONF_DIR));
            } else {
                java.net.URL onClasspath = IcebergTableRef.class.getClassLoader().getResource("hive-site.xml");
                if (onClasspath != null) {
                    HadoopConf.addResource(conf, onClasspath);
                }
            }
            if (hadoopConfDir != null) {
                HadoopConf.addResource(conf, required(hadoopConfDir, "hdfs-site.xml", HADOOP_CONF_DIR));
                HadoopConf.addResource(conf, required(hadoopConfDir, "core-site.xml", HADOOP_CONF_DIR));
            }
        }
        return conf;
    }

    private static java.net.URL required(String dir, String file, String option) {
        java.nio.file.Path path = java.nio.file.Path.of(dir, file);
        if (!java.nio.file.Files.isRegularFile(path)) {
            throw new IllegalArgumentException("There is no " + file + " in the directory '" + dir + "' of the option '"
                    + option + "'");
        }
        try {
            return path.toUri().toURL();
        } catch (java.net.MalformedURLException e) {
            throw new IllegalArgumentException("Cannot read " + path + " of the option '" + option + "'", e);
        }
    }

    /** The table's identifier: {@code table} in the database's namespace ({@link #identifier(Namespace, String)}). */
    public TableIdentifier identifier() {
        return identifier(namespace(catalogProperties, database), table);
    }

    /**
     * The identifier of the table named {@code table} in {@code namespace}; {@code t$snapshots}
     * (a table's name, {@code $}, the name of one of Iceberg's metadata tables) names that metadata
     * table of {@code t}, as in iceberg-flink's catalog. Any other name is the table's own.
     */
    public static TableIdentifier identifier(Namespace namespace, String table) {
        int dollar = metadataSeparator(table);
        return dollar < 0
                ? TableIdentifier.of(namespace, table)
                : TableIdentifier.of(appendLevel(namespace, table.substring(0, dollar)), table.substring(dollar + 1));
    }

    /** Whether {@code table} names a metadata table ({@link #identifier(Namespace, String)}). */
    public static boolean namesMetadataTable(String table) {
        return metadataSeparator(table) >= 0;
    }

    /** Whether this names a metadata table ({@link #identifier(Namespace, String)}). */
    public boolean isMetadataTable() {
        return namesMetadataTable(table);
    }

    /** The position of the {@code $} before a metadata table's kind in {@code table}, or -1. */
    private static int metadataSeparator(String table) {
        int dollar = table.indexOf('$');
        boolean named = dollar > 0 && table.indexOf('$', dollar + 1) < 0
                && MetadataTableType.from(table.substring(dollar + 1)) != null;
        return named ? dollar : -1;
    }

    /**
     * The namespace of the Flink database {@code database} in a catalog of {@code properties}:
     * below the catalog's {@code base-namespace} (levels separated by dots), as in iceberg-flink.
     */
    public static Namespace namespace(Map<String, String> properties, String database) {
        return appendLevel(baseNamespace(properties), database);
    }

    private static Namespace appendLevel(Namespace namespace, String level) {
        String[] levels = java.util.Arrays.copyOf(namespace.levels(), namespace.levels().length + 1);
        levels[namespace.levels().length] = level;
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

        static void addResource(Object conf, java.net.URL resource) {
            try {
                conf.getClass().getMethod("addResource", java.net.URL.class).invoke(conf, resource);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Cannot add " + resource + " to Hadoop's configuration", e);
            }
        }
    }
}
