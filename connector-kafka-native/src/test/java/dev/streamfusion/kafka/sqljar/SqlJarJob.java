package dev.streamfusion.kafka.sqljar;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs in a JVM whose classpath is a Flink distribution's, Flink's Kafka SQL jar and
 * StreamFusion's Kafka SQL jar, nothing else: reads one topic through both connectors, writes it
 * through streamfusion-kafka, and prints what each job saw, one {@code name: result} line each.
 *
 * <p>Arguments: bootstrap servers, the input topic, the output topic.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
public final class SqlJarJob {

    private static final String COLUMNS = "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING";

    private SqlJarJob() {}

    public static void main(String[] args) throws Exception {
        String servers = args[0];
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tables.executeSql(table("stock", "kafka", servers, args[1]));
        tables.executeSql(table("fused", "streamfusion-kafka", servers, args[1]));
        tables.executeSql(table("fused_out", "streamfusion-kafka", servers, args[2]));
        tables.executeSql(table("written", "kafka", servers, args[2]));
        String summary = "SELECT COUNT(*), SUM(price), MAX(channel) FROM %s";
        System.out.println("stock: " + rows(tables, String.format(summary, "stock")));
        System.out.println("streamfusion: " + rows(tables, String.format(summary, "fused")));
        tables.executeSql("INSERT INTO fused_out SELECT * FROM fused").await();
        System.out.println("written: " + rows(tables, String.format(summary, "written")));
        Class<?> library = Class.forName("dev.streamfusion.bridge.NativeLibrary");
        System.out.println("native: " + library.getMethod("load").invoke(null));
    }

    private static String table(String name, String connector, String servers, String topic) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ("
                + "'connector' = '" + connector + "', 'topic' = '" + topic + "', "
                + "'properties.bootstrap.servers' = '" + servers + "', "
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', "
                + "'format' = 'json')";
    }

    private static List<String> rows(TableEnvironment tables, String query) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tables.executeSql(query).collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        return rows;
    }
}
