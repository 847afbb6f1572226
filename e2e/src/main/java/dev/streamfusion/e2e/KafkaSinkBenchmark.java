package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.util.List;
import java.util.Map;

/**
 * The Kafka sink, stock {@code kafka} against {@code streamfusion-kafka}: Nexmark q0-q2 over bids
 * in a topic, read by the same source (streamfusion-kafka's native rung, the fastest reader, so
 * that the sink bounds the job) and written to a new topic in the same format by each sink,
 * at-least-once, same JVM, parallelism 1: one warm-up run per sink and query, then the best of
 * three. Each run writes a topic of its own, whose record count must be the query's row count.
 * Protobuf writes every field of the bid (its message class is the bid's), as q0 does.
 * Refuses a debug native build.
 *
 * <p>{@code ./bin/bench-kafka-sink [events [formats [queries]]]}: by default 1,000,000 events,
 * formats {@code json,avro,protobuf}, queries {@code q0,q1,q2}. A fourth argument, a connector's
 * name, runs that sink alone (for a profile) and prints its rate only.
 */
public final class KafkaSinkBenchmark {

    private static final int RUNS = 3;

    private KafkaSinkBenchmark() {}

    public static void main(String[] args) throws Exception {
        NativeLibrary.requireRelease("the Kafka sink benchmark");
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        List<String> formats = args.length > 1 ? List.of(args[1].split(",")) : List.of("json", "avro", "protobuf");
        List<String> queries = args.length > 2 ? List.of(args[2].split(",")) : List.copyOf(NexmarkKafka.QUERIES.keySet());
        String batchSize = System.getProperty("bench.sink.batch.size", "");
        try (ChildJvmKafkaBroker broker = ChildJvmKafkaBroker.start()) {
            System.out.printf("%nProducers' batch.size: %s%n",
                    batchSize.isEmpty() ? "each one's default (kafka-clients 16,384, librdkafka 1,000,000)" : batchSize);
            System.out.printf("%n| format | query | rows | stock `kafka` sink (rows/s) | `streamfusion-kafka` sink (rows/s) | ratio |%n");
            System.out.println("|---|---|---|---|---|---|");
            for (String format : formats) {
                String topic = "bids-" + format;
                broker.createTopic(topic, 1);
                NexmarkKafka kafka = new NexmarkKafka(broker.bootstrapServers(), topic, format);
                kafka.produce(events);
                for (String query : queries) {
                    if (!NexmarkKafka.sinkWrites(format, query)) {
                        continue;
                    }
                    if (args.length > 3) {
                        long[] alone = best(broker, kafka, args[3], query, false);
                        System.out.printf("| %s | %s | %,d | %s alone: %,.0f rows/s |%n", format, query, alone[1], args[3],
                                events * 1000.0 / alone[0]);
                        continue;
                    }
                    long[] stock = best(broker, kafka, NexmarkKafka.STOCK, query, false);
                    long[] fused = best(broker, kafka, NexmarkKafka.FUSED, query, false);
                    if (stock[1] != fused[1]) {
                        throw new IllegalStateException(
                                format + " " + query + ": the sinks wrote " + stock[1] + " and " + fused[1] + " records");
                    }
                    double stockRate = events * 1000.0 / stock[0];
                    double fusedRate = events * 1000.0 / fused[0];
                    System.out.printf(
                            "| %s | %s | %,d | %,.0f | %,.0f | %.2fx |%n",
                            format, query, stock[1], stockRate, fusedRate, fusedRate / stockRate);
                }
            }
        }
    }

    private static int topics;

    /**
     * The best net run time of {@code RUNS} runs after a warm-up (with the operator island when
     * {@code island}), and the records each wrote.
     */
    static long[] best(ChildJvmKafkaBroker broker, NexmarkKafka kafka, String sink, String query, boolean island)
            throws Exception {
        long best = Long.MAX_VALUE;
        long written = -1;
        for (int run = 0; run <= RUNS; run++) {
            String out = "out-" + (++topics);
            broker.createTopic(out, 1);
            long millis = kafka.runIntoTopic(sink, query, out, island);
            long records = records(broker.bootstrapServers(), out);
            if (written >= 0 && records != written) {
                throw new IllegalStateException(sink + " wrote " + records + " records in one run and " + written + " in another");
            }
            written = records;
            if (run > 0) {
                best = Math.min(best, millis);
            }
        }
        return new long[] {best, written};
    }

    /** Records in the one partition of {@code topic}. */
    static long records(String bootstrap, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            List<TopicPartition> partitions = List.of(partition);
            return consumer.endOffsets(partitions).get(partition) - consumer.beginningOffsets(partitions).get(partition);
        }
    }
}
