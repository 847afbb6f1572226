package dev.streamfusion.e2e;

import dev.streamfusion.formats.NativeFormatEncoder;
import dev.streamfusion.operators.StreamFusion;
import dev.streamfusion.testkit.flink.ChangelogRows;
import dev.streamfusion.testkit.nexmark.NexmarkBids;
import dev.streamfusion.testkit.nexmark.NexmarkQueries;
import dev.streamfusion.testkit.nexmark.proto.Bid;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Nexmark bids in a Kafka topic, in one of the formats {@code json}, {@code avro} or {@code
 * protobuf}, read by Flink SQL jobs through the stock {@code kafka} connector and through {@code
 * streamfusion-kafka} with the same options: the demo's and the benchmark's common ground.
 */
final class NexmarkKafka {

    /** Nexmark q0 (pass-through), q1 (currency conversion, an exact decimal), q2 (a selective filter). */
    static final Map<String, String> QUERIES = new LinkedHashMap<>();

    static {
        for (String query : List.of("q0", "q1", "q2")) {
            QUERIES.put(query, NexmarkQueries.bidCalcs().get(query));
        }
    }

    static final String STOCK = "kafka";
    /**
     * streamfusion-kafka on its native rung, forced: options the rung cannot take fail the job
     * rather than read through another reader. As a sink, streamfusion-kafka (the rung is a
     * source option).
     */
    static final String FUSED = "streamfusion-kafka:NATIVE";
    /** streamfusion-kafka forced to its Java rung (a connector name, then the rung after a colon). */
    static final String FUSED_JAVA_RUNG = "streamfusion-kafka:JAVA";
    /** streamfusion-kafka's native rung handing its rows on as views over the Arrow columns. */
    static final String FUSED_COLUMNAR_ROWS = "streamfusion-kafka:NATIVE:COLUMNAR";

    private static final int BATCH = 4096;

    private final String bootstrapServers;
    private final String topic;
    private final String format;

    NexmarkKafka(String bootstrapServers, String topic, String format) {
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
        this.format = format;
    }

    String format() {
        return format;
    }

    /** The bid's columns, as the topic's table declares them. */
    RowType rowType() {
        return "protobuf".equals(format) ? NexmarkBids.PROTOBUF_BID_TYPE : NexmarkBids.BID_TYPE;
    }

    private Map<String, String> formatOptions() {
        return "protobuf".equals(format) ? Map.of("message-class-name", Bid.class.getName()) : Map.of();
    }

    /** Produces {@code events} bids (seed 1), encoded natively a batch at a time. */
    void produce(int events) throws Exception {
        NexmarkBids bids = new NexmarkBids(1);
        Map<String, Object> config =
                Map.of(
                        "bootstrap.servers", bootstrapServers,
                        "linger.ms", 20,
                        "batch.size", 1 << 20,
                        "acks", "1");
        try (BufferAllocator allocator = new RootAllocator();
                NativeFormatEncoder encoder = NativeFormatEncoder.create(allocator, format, formatOptions(), rowType());
                KafkaProducer<byte[], byte[]> producer =
                        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int done = 0; done < events; done += BATCH) {
                List<RowData> rows = bids.next(Math.min(BATCH, events - done));
                for (byte[] value : encoder.encode("protobuf".equals(format) ? NexmarkBids.withEpochMillis(rows) : rows)) {
                    producer.send(new ProducerRecord<>(topic, value));
                }
            }
            producer.flush();
        }
    }

    /**
     * A table environment with the topic as table {@code bids} through {@code connector} (a
     * connector name, optionally followed by {@code :RUNG} and {@code :ROW_LAYOUT} for
     * streamfusion-kafka).
     */
    StreamTableEnvironment tables(String connector, int parallelism) {
        String rung = "";
        String[] parts = connector.split(":");
        if (parts.length > 1) {
            rung = ", 'streamfusion.rung' = '" + parts[1] + "'";
            if (parts.length > 2) {
                rung += ", 'streamfusion.row-layout' = '" + parts[2] + "'";
            }
            connector = connectorName(connector);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        String with = formatWith();
        tables.executeSql(
                "CREATE TABLE bids (" + columns(rowType()) + ") WITH ("
                        + "'connector' = '" + connector + "', "
                        + "'topic' = '" + topic + "', "
                        + "'properties.bootstrap.servers' = '" + bootstrapServers + "', "
                        + "'scan.startup.mode' = 'earliest-offset', "
                        + "'scan.bounded.mode' = 'latest-offset', "
                        + "'format' = '" + format + "'" + with + rung + ")");
        return tables;
    }

    /** The connector of {@code connector}, which may be followed by {@code :RUNG} and {@code :ROW_LAYOUT}. */
    static String connectorName(String connector) {
        return connector.split(":")[0];
    }

    static String columns(RowType type) {
        List<String> columns = new ArrayList<>();
        type.getFields().forEach(f -> columns.add(f.getName() + " " + f.getType().copy(true).asSerializableString()));
        return String.join(", ", columns);
    }

    /** Runs {@code query} into a blackhole sink; returns the job's net run time in milliseconds. */
    long runIntoBlackhole(String connector, String query) throws Exception {
        return runInto(tables(connector, 1), NexmarkQueries.bidCalc(query, "bids"), "'connector' = 'blackhole'");
    }

    /**
     * Runs {@code select} into a table {@code sink} of its result's columns with the options
     * {@code with}; returns the job's net run time in milliseconds.
     */
    private static long runInto(StreamTableEnvironment tables, String select, String with) throws Exception {
        List<String> columns = new ArrayList<>();
        tables.sqlQuery(select).getResolvedSchema().getColumns().forEach(
                c -> columns.add("`" + c.getName() + "` " + c.getDataType().getLogicalType().asSerializableString()));
        tables.executeSql("CREATE TABLE sink (" + String.join(", ", columns) + ") WITH (" + with + ")");
        if (tables.getConfig().get(StreamFusion.ISLAND_ENABLED)) {
            IslandBenchmark.requireNative(tables, "INSERT INTO sink " + select, null);
        }
        TableResult result = tables.executeSql("INSERT INTO sink " + select);
        JobExecutionResult done =
                result.getJobClient().orElseThrow().getJobExecutionResult().get(30, TimeUnit.MINUTES);
        return done.getNetRuntime();
    }

    /**
     * Runs {@code query} through {@code connector} into {@code sink} ({@code blackhole}, or a
     * Parquet table under {@code directory}: the stock filesystem connector after the stock
     * source, streamfusion-parquet after streamfusion-kafka), with the operator island when
     * {@code island}; returns the job's net run time in milliseconds.
     *
     * @throws IllegalStateException if the island is asked for and the planner's classes are hidden
     */
    long runIntoSink(String connector, String query, String sink, Path directory, boolean island)
            throws Exception {
        StreamTableEnvironment tables = IslandBenchmark.withIsland(tables(connector, 1), island);
        String with = "blackhole".equals(sink)
                ? "'connector' = 'blackhole'"
                : "'connector' = '" + (STOCK.equals(connector) ? "filesystem" : "streamfusion-parquet") + "', 'path' = '"
                        + directory + "', 'format' = 'parquet'";
        return runInto(tables, NexmarkQueries.bidCalc(query, "bids"), with);
    }

    /**
     * Whether the sink benchmark writes {@code query} in {@code format}: protobuf writes rows of
     * the bid's own message class, so only q0, with every field of the bid.
     */
    static boolean sinkWrites(String format, String query) {
        return !"protobuf".equals(format) || "q0".equals(query);
    }

    /**
     * Runs {@code query} over the topic (read through streamfusion-kafka's native rung) into
     * {@code outTopic} through {@code sink}, in this topic's format, at least once, with the
     * operator island when {@code island}; returns the job's net run time in milliseconds.
     *
     * @throws IllegalStateException if the island is asked for and the planner's classes are hidden
     */
    long runIntoTopic(String sink, String query, String outTopic, boolean island) throws Exception {
        String select = "protobuf".equals(format) ? "SELECT * FROM bids" : NexmarkQueries.bidCalc(query, "bids");
        StreamTableEnvironment tables = IslandBenchmark.withIsland(tables(FUSED, 1), island);
        return runInto(
                tables,
                select,
                "'connector' = '" + connectorName(sink) + "', "
                        + "'topic' = '" + outTopic + "', "
                        + "'properties.bootstrap.servers' = '" + bootstrapServers + "', "
                        + "'sink.delivery-guarantee' = 'at-least-once', "
                        + "'format' = '" + format + "'" + formatWith() + producerWith());
    }

    /**
     * The producer's {@code batch.size} for both sinks when the system property
     * {@code bench.sink.batch.size} names one; otherwise each producer's default (kafka-clients:
     * 16,384 bytes, librdkafka: 1,000,000).
     */
    private static String producerWith() {
        String batchSize = System.getProperty("bench.sink.batch.size", "");
        return batchSize.isEmpty() ? "" : ", 'properties.batch.size' = '" + Integer.parseInt(batchSize) + "'";
    }

    /** The table options of this topic's format beyond {@code format} itself. */
    private String formatWith() {
        StringBuilder with = new StringBuilder();
        formatOptions().forEach((key, value) -> with.append(", '").append(format).append('.').append(key)
                .append("' = '").append(value).append('\''));
        return with.toString();
    }

    /** The final rows of a bounded query through {@code connector}, as strings. */
    List<String> collect(String connector, String query) throws Exception {
        return ChangelogRows.drain(
                tables(connector, 1).executeSql(String.format(query, "bids")).collect(), Duration.ofMinutes(30));
    }
}
