package dev.streamfusion.e2e;

import dev.streamfusion.testkit.fluss.ChildJvmFlussCluster;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.scanner.log.ScanRecords;
import org.apache.fluss.metadata.TableBucket;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.types.RowType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The demo's Kafka -> Fluss step: the topic's bids appended into a Fluss log table by {@code
 * kafka} into fluss-flink and by {@code streamfusion-kafka} into {@code streamfusion-fluss}, on a
 * real Fluss cluster in a child JVM; both tables read back through the Fluss client and checked
 * equal, and both jobs timed (after a warm-up run of each).
 */
// The Fluss client's closeables declare Exception.
@SuppressWarnings("try")
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
            List<String> stock = readAll(servers, "bids_stock");
            List<String> fused = readAll(servers, "bids_sf");
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

    /** Every row of the log table {@code fluss.<table>}, read to its end through the Fluss client, as text, sorted. */
    private static List<String> readAll(String servers, String table) throws Exception {
        org.apache.fluss.config.Configuration conf = new org.apache.fluss.config.Configuration();
        conf.setString("bootstrap.servers", servers);
        TablePath path = TablePath.of("fluss", table);
        List<String> rows = new ArrayList<>();
        try (Connection connection = ConnectionFactory.createConnection(conf);
                Admin admin = connection.getAdmin();
                Table log = connection.getTable(path);
                LogScanner scanner = log.newScan().createLogScanner()) {
            List<Integer> buckets = IntStream.range(0, BUCKETS).boxed().collect(Collectors.toList());
            Map<Integer, Long> end = admin.listOffsets(path, buckets, new OffsetSpec.LatestSpec()).all().get();
            Map<Integer, Long> next = new HashMap<>();
            for (int bucket : buckets) {
                scanner.subscribeFromBeginning(bucket);
                next.put(bucket, 0L);
            }
            RowType type = log.getTableInfo().getRowType();
            List<InternalRow.FieldGetter> getters = IntStream.range(0, type.getFieldCount())
                    .mapToObj(i -> InternalRow.createFieldGetter(type.getTypeAt(i), i)).collect(Collectors.toList());
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (buckets.stream().anyMatch(b -> next.get(b) < end.get(b))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Fluss table " + path + " was not read to its end " + end + " in 5 minutes");
                }
                ScanRecords records = scanner.poll(Duration.ofMillis(200));
                for (TableBucket bucket : records.buckets()) {
                    for (ScanRecord record : records.records(bucket)) {
                        InternalRow row = record.getRow();
                        rows.add(getters.stream().map(g -> String.valueOf(g.getFieldOrNull(row)))
                                .collect(Collectors.joining(", ")));
                        next.put(bucket.getBucket(), record.logOffset() + 1);
                    }
                }
            }
        }
        rows.sort(null);
        return rows;
    }
}
