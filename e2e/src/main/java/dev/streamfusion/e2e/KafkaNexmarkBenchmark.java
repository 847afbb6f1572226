package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;

import java.util.List;

/**
 * Nexmark q0-q2 over bids in Kafka as JSON, Avro and Protobuf, stock {@code kafka} against {@code
 * streamfusion-kafka} on each rung (native: librdkafka polls; Java: kafka-clients polls), same
 * topic, same JVM, parallelism 1, into a blackhole sink: one warm-up run per connector and query,
 * then the best of three. Rows per second from the jobs' net run times.
 * Each format's topic is checked first: every reader must agree on q2's count, sum and maximum.
 * Refuses a debug native build.
 *
 * <p>{@code ./bin/bench-kafka [events [formats [queries]]]}: by default 2,000,000 events, formats
 * {@code json,avro,protobuf}, queries {@code q0,q1,q2}.
 */
public final class KafkaNexmarkBenchmark {

    private static final int RUNS = 3;
    private static final List<String> FORMATS = List.of("json", "avro", "protobuf");

    private KafkaNexmarkBenchmark() {}

    public static void main(String[] args) throws Exception {
        NativeLibrary.requireRelease("the Kafka benchmark");
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        List<String> formats = args.length > 1 ? List.of(args[1].split(",")) : FORMATS;
        List<String> queries = args.length > 2 ? List.of(args[2].split(",")) : List.copyOf(NexmarkKafka.QUERIES.keySet());
        try (ChildJvmKafkaBroker broker = ChildJvmKafkaBroker.start()) {
            System.out.printf(
                    "%n| format | query | stock `kafka` (rows/s) | native rung (rows/s) | ratio | native rung, columnar rows (rows/s) | ratio | Java rung (rows/s) | ratio |%n");
            System.out.println("|---|---|---|---|---|---|---|---|---|");
            for (String format : formats) {
                String topic = "bids-" + format;
                broker.createTopic(topic, 1);
                NexmarkKafka kafka = new NexmarkKafka(broker.bootstrapServers(), topic, format);
                kafka.produce(events);
                String check = "SELECT COUNT(*), SUM(price), MAX(url) FROM %s WHERE MOD(auction, 123) = 0";
                List<String> stock = kafka.collect(NexmarkKafka.STOCK, check);
                for (String rung :
                        List.of(NexmarkKafka.FUSED, NexmarkKafka.FUSED_COLUMNAR_ROWS, NexmarkKafka.FUSED_JAVA_RUNG)) {
                    List<String> fused = kafka.collect(rung, check);
                    if (!stock.equals(fused)) {
                        throw new IllegalStateException(format + ": " + rung + " disagrees on q2: " + stock + " vs " + fused);
                    }
                }
                for (String query : queries) {
                    double stockRate = bestRate(kafka, NexmarkKafka.STOCK, query, events);
                    double nativeRate = bestRate(kafka, NexmarkKafka.FUSED, query, events);
                    double columnarRate = bestRate(kafka, NexmarkKafka.FUSED_COLUMNAR_ROWS, query, events);
                    double javaRate = bestRate(kafka, NexmarkKafka.FUSED_JAVA_RUNG, query, events);
                    System.out.printf(
                            "| %s | %s | %,.0f | %,.0f | %.2fx | %,.0f | %.2fx | %,.0f | %.2fx |%n",
                            format,
                            query,
                            stockRate,
                            nativeRate,
                            nativeRate / stockRate,
                            columnarRate,
                            columnarRate / stockRate,
                            javaRate,
                            javaRate / stockRate);
                }
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
