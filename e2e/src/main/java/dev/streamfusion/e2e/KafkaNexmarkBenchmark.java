package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;

import java.util.List;
import java.util.Map;

/**
 * Nexmark q0-q2 over JSON bids in Kafka, stock {@code kafka} against {@code streamfusion-kafka},
 * same topic, same JVM, parallelism 1, into a blackhole sink: one warm-up run per connector and
 * query, then the best of three. Rows per second from the jobs' net run times. Refuses a debug
 * native build.
 *
 * <p>{@code ./bin/bench-kafka [events]} (default 2,000,000).
 */
public final class KafkaNexmarkBenchmark {

    private static final int RUNS = 3;

    private KafkaNexmarkBenchmark() {}

    public static void main(String[] args) throws Exception {
        NativeLibrary.requireRelease("the Kafka benchmark");
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        try (ChildJvmKafkaBroker broker = ChildJvmKafkaBroker.start()) {
            broker.createTopic("bids", 1);
            NexmarkKafka kafka = new NexmarkKafka(broker.bootstrapServers(), "bids");
            long t0 = System.nanoTime();
            kafka.produceJson(events);
            System.out.printf("Produced %,d JSON bids in %.1f s%n", events, (System.nanoTime() - t0) / 1e9);
            String check = "SELECT COUNT(*), SUM(price) FROM %s WHERE MOD(auction, 123) = 0";
            List<String> stock = kafka.collect(NexmarkKafka.STOCK, check);
            List<String> fused = kafka.collect(NexmarkKafka.FUSED, check);
            if (!stock.equals(fused)) {
                throw new IllegalStateException("the connectors disagree on q2: " + stock + " vs " + fused);
            }
            System.out.println("Both connectors agree on q2's count and sum: " + fused);
            System.out.printf("%n| query | stock `kafka` (rows/s) | `streamfusion-kafka`, Java rung (rows/s) | ratio |%n");
            System.out.println("|---|---|---|---|");
            for (String query : NexmarkKafka.QUERIES.keySet()) {
                Map<String, Double> best = Map.of(
                        NexmarkKafka.STOCK, bestRate(kafka, NexmarkKafka.STOCK, query, events),
                        NexmarkKafka.FUSED, bestRate(kafka, NexmarkKafka.FUSED, query, events));
                System.out.printf(
                        "| %s | %,.0f | %,.0f | %.2fx |%n",
                        query,
                        best.get(NexmarkKafka.STOCK),
                        best.get(NexmarkKafka.FUSED),
                        best.get(NexmarkKafka.FUSED) / best.get(NexmarkKafka.STOCK));
            }
        }
    }

    private static double bestRate(NexmarkKafka kafka, String connector, String query, int events) throws Exception {
        kafka.runIntoBlackhole(connector, query);
        long best = Long.MAX_VALUE;
        for (int run = 0; run < RUNS; run++) {
            best = Math.min(best, kafka.runIntoBlackhole(connector, query));
        }
        return events * 1000.0 / best;
    }
}
