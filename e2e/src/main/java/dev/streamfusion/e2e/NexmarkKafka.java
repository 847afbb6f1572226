package dev.streamfusion.e2e;

import dev.streamfusion.formats.NativeFormatEncoder;
import dev.streamfusion.testkit.flink.ChangelogRows;
import dev.streamfusion.testkit.nexmark.NexmarkBids;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Nexmark bids in a Kafka topic, read by Flink SQL jobs through the stock {@code kafka} connector
 * and through {@code streamfusion-kafka} with the same options: the demo's and the benchmark's
 * common ground.
 */
final class NexmarkKafka {

    /** Nexmark q0 (pass-through), q1 (currency conversion, an exact decimal), q2 (a selective filter). */
    static final Map<String, String[]> QUERIES = new LinkedHashMap<>();

    static {
        QUERIES.put(
                "q0",
                new String[] {
                    "auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP(3), extra STRING",
                    "SELECT auction, bidder, price, date_time, extra FROM %s"
                });
        QUERIES.put(
                "q1",
                new String[] {
                    "auction BIGINT, bidder BIGINT, price DECIMAL(23, 3), date_time TIMESTAMP(3), extra STRING",
                    "SELECT auction, bidder, 0.908 * price AS price, date_time, extra FROM %s"
                });
        QUERIES.put("q2", new String[] {"auction BIGINT, price BIGINT", "SELECT auction, price FROM %s WHERE MOD(auction, 123) = 0"});
    }

    static final String STOCK = "kafka";
    static final String FUSED = "streamfusion-kafka";

    private static final String BID_COLUMNS =
            "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time TIMESTAMP(3), extra STRING";
    private static final int BATCH = 4096;

    private final String bootstrapServers;
    private final String topic;

    NexmarkKafka(String bootstrapServers, String topic) {
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
    }

    /** Produces {@code events} bids (seed 1) as JSON, encoded natively a batch at a time. */
    void produceJson(int events) throws Exception {
        NexmarkBids bids = new NexmarkBids(1);
        Map<String, Object> config =
                Map.of(
                        "bootstrap.servers", bootstrapServers,
                        "linger.ms", 20,
                        "batch.size", 1 << 20,
                        "acks", "1");
        try (BufferAllocator allocator = new RootAllocator();
                NativeFormatEncoder encoder = NativeFormatEncoder.create(allocator, "json", Map.of(), NexmarkBids.BID_TYPE);
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int done = 0; done < events; done += BATCH) {
                for (byte[] value : encoder.encode(bids.next(Math.min(BATCH, events - done)))) {
                    producer.send(new ProducerRecord<>(topic, value));
                }
            }
            producer.flush();
        }
    }

    /** A table environment with the bids topic as table {@code bids} through {@code connector}. */
    StreamTableEnvironment tables(String connector, int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(
                "CREATE TABLE bids (" + BID_COLUMNS + ") WITH ("
                        + "'connector' = '" + connector + "', "
                        + "'topic' = '" + topic + "', "
                        + "'properties.bootstrap.servers' = '" + bootstrapServers + "', "
                        + "'scan.startup.mode' = 'earliest-offset', "
                        + "'scan.bounded.mode' = 'latest-offset', "
                        + "'format' = 'json')");
        return tables;
    }

    /** Runs {@code query} into a blackhole sink; returns the job's net run time in milliseconds. */
    long runIntoBlackhole(String connector, String query) throws Exception {
        String[] spec = QUERIES.get(query);
        StreamTableEnvironment tables = tables(connector, 1);
        tables.executeSql("CREATE TABLE sink (" + spec[0] + ") WITH ('connector' = 'blackhole')");
        TableResult result = tables.executeSql("INSERT INTO sink " + String.format(spec[1], "bids"));
        JobExecutionResult done =
                result.getJobClient().orElseThrow().getJobExecutionResult().get(30, TimeUnit.MINUTES);
        return done.getNetRuntime();
    }

    /** The final rows of a bounded query through {@code connector}, as strings. */
    List<String> collect(String connector, String query) throws Exception {
        return ChangelogRows.drain(
                tables(connector, 1).executeSql(String.format(query, "bids")).collect(), Duration.ofMinutes(30));
    }
}
