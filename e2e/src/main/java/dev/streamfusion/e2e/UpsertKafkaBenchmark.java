package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;
import dev.streamfusion.testkit.nexmark.NexmarkBids;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.util.concurrent.TimeUnit;

/**
 * Upsert tables, stock {@code upsert-kafka} against {@code streamfusion-upsert-kafka}, JSON keys
 * (the bid's auction) and JSON values, same JVM, parallelism 1, one warm-up run then the best of
 * three:
 *
 * <ul>
 *   <li>the sink: Nexmark bids (read by streamfusion-kafka's native rung, so that the sink bounds
 *       the job) written as upserts keyed by auction, unbuffered;
 *   <li>the source: that topic read as a changelog into a blackhole (the planner's
 *       ChangelogNormalize, keyed state on the heap, runs after either source).
 * </ul>
 *
 * Each sink's topic must hold as many records as the other's. Refuses a debug native build.
 *
 * <p>{@code ./bin/bench-upsert-kafka [events]}: by default 1,000,000 events.
 */
public final class UpsertKafkaBenchmark {

    private static final int RUNS = 3;
    private static final String STOCK = "upsert-kafka";
    private static final String FUSED = "streamfusion-upsert-kafka";

    private UpsertKafkaBenchmark() {}

    public static void main(String[] args) throws Exception {
        NativeLibrary.requireRelease("the upsert-kafka benchmark");
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        try (ChildJvmKafkaBroker broker = ChildJvmKafkaBroker.start()) {
            broker.createTopic("bids", 1);
            NexmarkKafka bids = new NexmarkKafka(broker.bootstrapServers(), "bids", "json");
            bids.produce(events);
            String[] written = new String[2];
            long[] sinks = new long[2];
            for (int s = 0; s < 2; s++) {
                String sink = s == 0 ? STOCK : FUSED;
                long best = Long.MAX_VALUE;
                for (int run = 0; run <= RUNS; run++) {
                    String topic = "upserts-" + sink + "-" + run;
                    broker.createTopic(topic, 1);
                    long millis = write(bids, broker.bootstrapServers(), sink, topic);
                    if (run > 0) {
                        best = Math.min(best, millis);
                    }
                    written[s] = topic;
                }
                sinks[s] = best;
            }
            long stockRecords = KafkaSinkBenchmark.records(broker.bootstrapServers(), written[0]);
            long fusedRecords = KafkaSinkBenchmark.records(broker.bootstrapServers(), written[1]);
            if (stockRecords != fusedRecords || stockRecords != events) {
                throw new IllegalStateException(
                        "the sinks wrote " + stockRecords + " and " + fusedRecords + " records of " + events + " rows");
            }
            long[] sources = new long[2];
            for (int s = 0; s < 2; s++) {
                String source = s == 0 ? STOCK : FUSED;
                long best = Long.MAX_VALUE;
                for (int run = 0; run <= RUNS; run++) {
                    long millis = read(broker.bootstrapServers(), source, written[0]);
                    if (run > 0) {
                        best = Math.min(best, millis);
                    }
                }
                sources[s] = best;
            }
            System.out.printf("%n| job | records | stock `upsert-kafka` (records/s) | `streamfusion-upsert-kafka` (records/s) | ratio |%n");
            System.out.println("|---|---|---|---|---|");
            print("bids written as upserts (sink)", events, sinks);
            print("upserts read as a changelog (source)", events, sources);
        }
    }

    private static void print(String job, long records, long[] millis) {
        double stock = records * 1000.0 / millis[0];
        double fused = records * 1000.0 / millis[1];
        System.out.printf("| %s | %,d | %,.0f | %,.0f | %.2fx |%n", job, records, stock, fused, fused / stock);
    }

    /** The DDL of an upsert table of bids keyed by auction, through {@code connector}. */
    private static String upsertTable(String name, String connector, String bootstrap, String topic) {
        return "CREATE TABLE " + name + " (" + NexmarkKafka.columns(NexmarkBids.BID_TYPE)
                + ", PRIMARY KEY (auction) NOT ENFORCED) WITH ("
                + "'connector' = '" + connector + "', "
                + "'topic' = '" + topic + "', "
                + "'properties.bootstrap.servers' = '" + bootstrap + "', "
                + "'scan.bounded.mode' = 'latest-offset', "
                + "'key.format' = 'json', 'value.format' = 'json')";
    }

    /** Writes the bids to {@code topic} through {@code sink}; the job's net run time in ms. */
    private static long write(NexmarkKafka bids, String bootstrap, String sink, String topic) throws Exception {
        StreamTableEnvironment tables = bids.tables(NexmarkKafka.FUSED, 1);
        tables.executeSql(upsertTable("upserts", sink, bootstrap, topic));
        return await(tables, "INSERT INTO upserts SELECT * FROM bids");
    }

    /** Reads {@code topic} as a changelog through {@code source} into a blackhole; net ms. */
    private static long read(String bootstrap, String source, String topic) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(upsertTable("upserts", source, bootstrap, topic));
        tables.executeSql("CREATE TABLE sink (" + NexmarkKafka.columns(NexmarkBids.BID_TYPE) + ") WITH ('connector' = 'blackhole')");
        return await(tables, "INSERT INTO sink SELECT * FROM upserts");
    }

    private static long await(StreamTableEnvironment tables, String insert) throws Exception {
        JobExecutionResult done =
                tables.executeSql(insert).getJobClient().orElseThrow().getJobExecutionResult().get(30, TimeUnit.MINUTES);
        return done.getNetRuntime();
    }
}
