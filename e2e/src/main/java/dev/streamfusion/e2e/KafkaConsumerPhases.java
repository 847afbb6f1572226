package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.kafka.internal.NativeKafkaConsumer;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;

import java.util.HashMap;
import java.util.Map;

/**
 * The phases of one native Kafka consumer's life, as a bounded reader of the native rung lives it:
 * created, assigned one partition from its first offset to its end, polled until the partition is
 * finished (no decoding), and closed. The phases outside the drain weigh on every bounded job.
 * Rounds alternate librdkafka's default {@code max.partition.fetch.bytes} (1 MiB, as
 * kafka-clients') with the size given, so both are measured on the same broker in one run.
 *
 * <p>{@code mvn -B -q -ntp -Prelease -pl e2e exec:exec@bench-kafka-consumer
 * -Dbench.events=N -Dbench.rounds=R -Dbench.fetch.bytes=B}: by default 200,000 JSON bids, 10
 * rounds, 8 MiB. Refuses a debug native build.
 */
public final class KafkaConsumerPhases {

    private static final int MAX_RECORDS = 10_000;

    private KafkaConsumerPhases() {}

    public static void main(String[] args) throws Exception {
        NativeLibrary.requireRelease("the Kafka consumer benchmark");
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        String fetchBytes = args.length > 2 ? args[2] : "8388608";
        try (ChildJvmKafkaBroker broker = ChildJvmKafkaBroker.start()) {
            String topic = "bids-json";
            broker.createTopic(topic, 1);
            new NexmarkKafka(broker.bootstrapServers(), topic, "json").produce(events);
            System.out.printf(
                    "%n| round | max.partition.fetch.bytes | create (ms) | assign (ms) | first record (ms) | drain (ms) "
                            + "| polls | close (ms) |%n");
            System.out.println("|---|---|---|---|---|---|---|---|");
            int[] runSplits = new int[MAX_RECORDS];
            int[] runCounts = new int[MAX_RECORDS];
            for (int round = 0; round < rounds; round++) {
                Map<String, String> properties = new HashMap<>();
                properties.put("bootstrap.servers", broker.bootstrapServers());
                boolean larger = round % 2 == 1;
                if (larger) {
                    properties.put("max.partition.fetch.bytes", fetchBytes);
                }
                long[] marks = new long[5];
                marks[0] = System.nanoTime();
                NativeKafkaConsumer consumer = new NativeKafkaConsumer(properties, false, false, 60_000);
                int polls = 0;
                try {
                    marks[1] = System.nanoTime();
                    consumer.addSplit(topic, 0, 0, events);
                    marks[2] = System.nanoTime();
                    long records = 0;
                    while (consumer.finished().length == 0) {
                        int runs = consumer.poll(MAX_RECORDS, 100, runSplits, runCounts);
                        polls++;
                        for (int r = 0; r < runs; r++) {
                            records += runCounts[r];
                        }
                        if (marks[3] == 0 && records > 0) {
                            marks[3] = System.nanoTime();
                        }
                    }
                    marks[4] = System.nanoTime();
                    if (records != events) {
                        throw new IllegalStateException("read " + records + " records of " + events);
                    }
                } finally {
                    consumer.close();
                }
                long closed = System.nanoTime();
                System.out.printf(
                        "| %d | %s | %.1f | %.1f | %.1f | %.1f | %d | %.1f |%n",
                        round,
                        larger ? fetchBytes : "default",
                        (marks[1] - marks[0]) / 1e6,
                        (marks[2] - marks[1]) / 1e6,
                        (marks[3] - marks[2]) / 1e6,
                        (marks[4] - marks[3]) / 1e6,
                        polls,
                        (closed - marks[4]) / 1e6);
            }
        }
    }
}
