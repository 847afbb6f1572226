package dev.streamfusion.e2e;

import dev.streamfusion.testkit.fluss.ChildJvmFlussCluster;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.apache.fluss.metadata.TablePath;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The demo's Kafka -> Fluss step: the topic's bids appended into a Fluss log table by {@code
 * kafka} into fluss-flink and by {@code streamfusion-kafka} into {@code streamfusion-fluss}, on a
 * real Fluss cluster in a child JVM; both tables read back through the Fluss client and checked
 * equal, and both jobs timed (after a warm-up run of each).
 */
final class FlussDemo {

    private static final int BUCKETS = 2;

    private FlussDemo() {}

    static void run(NexmarkKafka kafka, Figures figures) throws Exception {
        long started = System.nanoTime();
        try (ChildJvmFlussCluster fluss = ChildJvmFlussCluster.start()) {
            String servers = fluss.bootstrapServers();
            System.out.printf("  a Fluss cluster (ZooKeeper, coordinator, tablet server) up at %s in %.1f s%n", servers,
                    (System.nanoTime() - started) / 1e9);
            for (String table : List.of("warm_stock", "warm_sf", "bids_stock", "bids_sf")) {
                tables(kafka, NexmarkKafka.STOCK, servers).executeSql("CREATE TABLE stock.fluss." + table + " ("
                        + NexmarkKafka.columns(kafka.rowType()) + ") WITH ('bucket.num' = '" + BUCKETS + "')");
            }
            System.out.println("  appending the topic's bids into Fluss log tables through each (after a warm-up) ...");
            append(kafka, servers, NexmarkKafka.STOCK, "stock.fluss.warm_stock");
            append(kafka, servers, NexmarkKafka.FUSED, "sf.fluss.warm_sf");
            long stockMillis = append(kafka, servers, NexmarkKafka.STOCK, "stock.fluss.bids_stock");
            long fusedMillis = append(kafka, servers, NexmarkKafka.FUSED, "sf.fluss.bids_sf");
            List<String> stock = FlussLogs.readAll(servers, TablePath.of("fluss", "bids_stock"));
            List<String> fused = FlussLogs.readAll(servers, TablePath.of("fluss", "bids_sf"));
            if (!stock.equals(fused)) {
                throw new IllegalStateException("the Fluss tables written by fluss-flink (" + stock.size()
                        + " rows) and streamfusion-fluss (" + fused.size() + " rows) differ");
            }
            System.out.println("  both tables hold the same " + String.format("%,d", fused.size()) + " rows; the first:");
            fused.stream().limit(2).forEach(row -> System.out.println("    " + row));
            System.out.printf("    kafka -> fluss %,d ms, streamfusion-kafka -> streamfusion-fluss %,d ms%n", stockMillis,
                    fusedMillis);
            figures.runTime("Kafka (JSON) -> Fluss log table", stockMillis, fusedMillis);
            figures.note("the Fluss client of 0.9.1 takes rows, so streamfusion-fluss hands it views over Flink's rows;"
                    + " the gain is the Kafka side's");
        }
    }

    /** The topic as table {@code bids} through {@code connector}, with both Fluss catalogs. */
    private static StreamTableEnvironment tables(NexmarkKafka kafka, String connector, String servers) {
        StreamTableEnvironment env = kafka.tables(connector, 1);
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + servers + "')");
        env.executeSql("CREATE CATALOG sf WITH ('type' = 'streamfusion-fluss', 'bootstrap.servers' = '" + servers + "')");
        return env;
    }

    /** Appends the topic's bids read through {@code connector} into {@code table}; the job's net run time. */
    private static long append(NexmarkKafka kafka, String servers, String connector, String table) throws Exception {
        TableResult result = tables(kafka, connector, servers).executeSql("INSERT INTO " + table + " SELECT * FROM bids");
        JobExecutionResult done = result.getJobClient().orElseThrow().getJobExecutionResult().get(30, TimeUnit.MINUTES);
        return done.getNetRuntime();
    }
}
