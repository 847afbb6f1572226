package dev.streamfusion.parquet.sqljar;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs in a JVM whose classpath is Flink's libraries, Flink's Parquet format, and StreamFusion's
 * Parquet and Kafka SQL jars, nothing else: writes files with stock Flink, reads them through
 * both connectors, writes through {@code streamfusion-parquet} and through {@code 'format' =
 * 'streamfusion-parquet'}, and prints what each job saw, one {@code name: result} line each; plans
 * a {@code streamfusion-kafka} read to show the other SQL jar's factory is found.
 *
 * <p>Arguments: a directory for the tables.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
public final class ParquetSqlJarJob {

    private static final String COLUMNS = "id BIGINT, name STRING, price DECIMAL(10, 2), ts TIMESTAMP(3)";
    private static final String SUMMARY = "SELECT COUNT(*), SUM(id), SUM(price), MAX(name), MAX(ts) FROM %s";

    private ParquetSqlJarJob() {}

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tables.executeSql(
                "CREATE TABLE gen (" + COLUMNS + ") WITH ('connector' = 'datagen', 'number-of-rows' = '5000', "
                        + "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5000', "
                        + "'fields.name.length' = '8')");
        tables.executeSql(table("stock_in", "'connector' = 'filesystem', 'format' = 'parquet'", dir + "/in"));
        tables.executeSql("INSERT INTO stock_in SELECT * FROM gen").await();
        tables.executeSql(table("fused_in", "'connector' = 'streamfusion-parquet'", dir + "/in"));
        System.out.println("stock: " + rows(tables, String.format(SUMMARY, "stock_in")));
        System.out.println("streamfusion: " + rows(tables, String.format(SUMMARY, "fused_in")));

        tables.executeSql(table("fused_out", "'connector' = 'streamfusion-parquet'", dir + "/out"));
        tables.executeSql("INSERT INTO fused_out SELECT * FROM fused_in").await();
        tables.executeSql(table("stock_out", "'connector' = 'filesystem', 'format' = 'parquet'", dir + "/out"));
        System.out.println("written: " + rows(tables, String.format(SUMMARY, "stock_out")));

        tables.executeSql(
                table("format_out", "'connector' = 'filesystem', 'format' = 'streamfusion-parquet'", dir + "/format"));
        tables.executeSql("INSERT INTO format_out SELECT * FROM stock_in").await();
        System.out.println("format: " + rows(tables, String.format(SUMMARY, "format_out")));

        tables.executeSql(
                "CREATE TABLE kafka_planned (" + COLUMNS + ") WITH ('connector' = 'streamfusion-kafka', 'topic' = 't', "
                        + "'properties.bootstrap.servers' = '127.0.0.1:9', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', "
                        + "'format' = 'json')");
        tables.explainSql("SELECT id FROM kafka_planned");
        System.out.println("kafka planned: " + FactoryUtil.discoverFactory(
                        ParquetSqlJarJob.class.getClassLoader(), DynamicTableFactory.class, "streamfusion-kafka")
                .getClass()
                .getName());
        Class<?> library = Class.forName("dev.streamfusion.bridge.NativeLibrary");
        System.out.println("native: " + library.getMethod("load").invoke(null));
    }

    private static String table(String name, String connector, String path) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH (" + connector + ", 'path' = '" + path + "')";
    }

    private static List<String> rows(TableEnvironment tables, String query) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tables.executeSql(query).collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        return rows;
    }
}
