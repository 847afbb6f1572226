package dev.streamfusion.fluss.sqljar;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs in a JVM whose classpath is Flink's libraries, fluss-flink and StreamFusion's Fluss SQL jar,
 * nothing else: writes a log table with fluss-flink, reads it through a {@code streamfusion-fluss}
 * catalog, writes a copy through it, reads the copy with fluss-flink, and prints what each job
 * saw, one {@code name: result} line each (the rows sorted).
 *
 * <p>Arguments: the Fluss cluster's bootstrap servers.
 */
// CloseableIterator.close() declares Exception.
@SuppressWarnings("try")
public final class FlussSqlJarJob {

    private static final int ROWS = 500;
    private static final String EARLIEST = " /*+ OPTIONS('scan.startup.mode' = 'earliest') */";

    private FlussSqlJarJob() {}

    public static void main(String[] args) throws Exception {
        String servers = "'bootstrap.servers' = '" + args[0] + "'";
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tables.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', " + servers + ")");
        tables.executeSql("CREATE CATALOG sf WITH ('type' = 'streamfusion-fluss', " + servers + ")");
        tables.executeSql("CREATE TABLE stock.fluss.t (id BIGINT, name STRING, price DECIMAL(10, 2)) WITH ('bucket.num' = '2')");
        tables.executeSql("CREATE TABLE stock.fluss.copy (id BIGINT, name STRING, price DECIMAL(10, 2)) WITH ('bucket.num' = '2')");
        tables.executeSql("CREATE TEMPORARY TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '"
                + ROWS + "', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '" + ROWS + "')");
        tables.executeSql("CREATE TEMPORARY VIEW src AS SELECT id, CONCAT('name ', CAST(id AS STRING)) AS name, "
                + "CAST(id * 1.25 AS DECIMAL(10, 2)) AS price FROM gen");
        tables.executeSql("INSERT INTO stock.fluss.t SELECT * FROM src").await();
        List<String> stock = take(tables, "SELECT * FROM stock.fluss.t" + EARLIEST);
        System.out.println("stock: " + stock.size() + " " + stock.hashCode());
        List<String> ours = take(tables, "SELECT * FROM sf.fluss.t" + EARLIEST);
        System.out.println("streamfusion: " + ours.size() + " " + ours.hashCode());
        tables.executeSql("INSERT INTO sf.fluss.copy SELECT * FROM src").await();
        List<String> written = take(tables, "SELECT * FROM stock.fluss.copy" + EARLIEST);
        System.out.println("written: " + written.size() + " " + written.hashCode());
    }

    /** The table's first {@value #ROWS} rows, sorted; the job is cancelled then. */
    private static List<String> take(TableEnvironment tables, String query) throws Exception {
        TableResult result = tables.executeSql(query);
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (rows.size() < ROWS) {
                rows.add(it.next().toString());
            }
            result.getJobClient().orElseThrow().cancel().get();
        }
        rows.sort(null);
        return rows;
    }
}
