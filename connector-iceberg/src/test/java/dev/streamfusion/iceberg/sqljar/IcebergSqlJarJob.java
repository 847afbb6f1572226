package dev.streamfusion.iceberg.sqljar;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs in a JVM whose classpath is Flink's libraries, Hadoop's client, iceberg-flink-runtime and
 * StreamFusion's Iceberg SQL jar, nothing else: writes a table with iceberg-flink, reads it through
 * a {@code streamfusion-iceberg} catalog (and copies of it iceberg-flink wrote as Avro and ORC
 * files, which Iceberg Java's reader inside the jar reads), writes a copy through it, reads the copy
 * with iceberg-flink, and prints what each job saw, one {@code name: result} line each.
 *
 * <p>Arguments: a directory for the warehouse.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
public final class IcebergSqlJarJob {

    private static final String COLUMNS = "id BIGINT, name STRING, price DECIMAL(10, 2), ts TIMESTAMP(6)";
    private static final String SUMMARY = "SELECT COUNT(*), SUM(id), SUM(price), MAX(name), MAX(ts) FROM %s";

    private IcebergSqlJarJob() {}

    public static void main(String[] args) throws Exception {
        String warehouse = "'catalog-type' = 'hadoop', 'warehouse' = 'file://" + args[0] + "'";
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tables.executeSql(
                "CREATE TABLE gen (" + COLUMNS + ") WITH ('connector' = 'datagen', 'number-of-rows' = '5000', "
                        + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5000', "
                        + "'fields.name.length' = '8')");
        tables.executeSql("CREATE CATALOG stock WITH ('type' = 'iceberg', " + warehouse + ")");
        tables.executeSql("CREATE DATABASE stock.db");
        tables.executeSql("CREATE TABLE stock.db.t (" + COLUMNS + ")");
        tables.executeSql("INSERT INTO stock.db.t SELECT * FROM gen").await();
        tables.executeSql("CREATE CATALOG sf WITH ('type' = 'streamfusion-iceberg', " + warehouse + ")");
        System.out.println("stock: " + rows(tables, String.format(SUMMARY, "stock.db.t")));
        System.out.println("streamfusion: " + rows(tables, String.format(SUMMARY, "sf.db.t")));

        for (String format : new String[] {"avro", "orc"}) {
            tables.executeSql("CREATE TABLE stock.db." + format + " (" + COLUMNS + ") WITH ('write.format.default' = '" + format + "')");
            tables.executeSql("INSERT INTO stock.db." + format + " SELECT * FROM stock.db.t").await();
            System.out.println(format + ": " + rows(tables, String.format(SUMMARY, "sf.db." + format)));
        }

        tables.executeSql("CREATE TABLE sf.db.copy (" + COLUMNS + ")");
        tables.executeSql("INSERT INTO sf.db.copy SELECT * FROM sf.db.t").await();
        System.out.println("written: " + rows(tables, String.format(SUMMARY, "stock.db.copy")));
        Class<?> library = Class.forName("dev.streamfusion.bridge.NativeLibrary");
        System.out.println("native: " + library.getMethod("load").invoke(null));
    }

    private static List<String> rows(TableEnvironment tables, String query) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tables.executeSql(query).collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        return rows;
    }
}
