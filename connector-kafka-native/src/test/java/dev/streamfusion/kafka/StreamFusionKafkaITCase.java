package dev.streamfusion.kafka;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.table.RowLayout;
import dev.streamfusion.formats.NativeFormatDecoder;
import dev.streamfusion.formats.testing.JsonCorpus;
import dev.streamfusion.formats.testing.MalformedMessage;
import dev.streamfusion.testkit.flink.ChangelogRows;
import dev.streamfusion.testkit.flink.FailOnce;
import dev.streamfusion.testkit.flink.MiniClusters;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;
import dev.streamfusion.testkit.kafka.KafkaBrokerExtension;
import dev.streamfusion.testkit.nexmark.NexmarkBids;
import dev.streamfusion.testkit.nexmark.proto.Bid;

import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.formats.protobuf.PbFormatConfig;
import org.apache.flink.formats.protobuf.serialize.PbRowDataSerializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * streamfusion-kafka against Flink's kafka connector on a real broker, in real MiniCluster jobs:
 * the same table options over the same topic give the same rows (Nexmark's queries, every startup
 * and bounded mode, topic patterns, formats, keys, metadata, event-time windows, malformed
 * records), a failed job resumes without loss or duplication, and the sink writes the bytes
 * Flink's sink writes.
 *
 * <p>The suite runs once per rung: the system property {@code streamfusion.it.rung} ({@code
 * NATIVE} or {@code JAVA}) is set on every streamfusion-kafka table it reads.
 */
class StreamFusionKafkaITCase {

    /** The rung every streamfusion-kafka table of this run reads with. */
    private static final String RUNG = System.getProperty("streamfusion.it.rung", "NATIVE");

    /** How this run's sinks produce, as their summaries say. */
    private static final String PRODUCER =
            RUNG.equals("JAVA")
                    ? "produced by kafka-clients (chosen by 'streamfusion.rung' = 'JAVA'), "
                    : "produced by librdkafka, ";

    private static final String RUNG_DESCRIPTION =
            RUNG.equals("JAVA")
                    ? "Java rung (chosen by 'streamfusion.rung' = 'JAVA'): kafka-clients polls, 'json' decoded natively per poll"
                    : "native rung: librdkafka polls, 'json' decoded natively";

    /** A broker with a second listener that authenticates with SASL/PLAIN. */
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA =
            new KafkaBrokerExtension(ChildJvmKafkaBroker.builder().saslPlainUser("alice", "alice-secret"));

    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2, METRICS.addToConfiguration(new Configuration()));

    private static final String BIDS = "bids-json";
    private static final String BAD = "bids-bad-json";
    /** Two partitions, the second never written to. */
    private static final String SPARSE = "bids-sparse-json";
    private static final int PARTITIONS = 3;
    private static final int COUNT = 3_000;
    /** Record timestamps start an hour ago (brokers refuse timestamps far in the future). */
    private static final long BASE_TIME = System.currentTimeMillis() - 3_600_000;
    /** The timestamp of the record at offset 100 of partition 0. */
    private static final long T100 = BASE_TIME + 100 * PARTITIONS;

    private static final String BID_COLUMNS =
            "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time TIMESTAMP(3), extra STRING";

    @BeforeAll
    static void produce() throws Exception {
        KAFKA.cluster().createTopic(BIDS, PARTITIONS);
        KAFKA.cluster().createTopic(BAD, 1);
        KAFKA.cluster().createTopic(SPARSE, 2);
        JsonRowDataSerializationSchema json = json();
        List<RowData> bids = new NexmarkBids(5).next(COUNT);
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < COUNT; i++) {
                // Record i goes to partition i % 3 with timestamp base + i: offset n of every
                // partition has a timestamp between base + 3n and base + 3n + 2.
                sent.add(producer.send(new ProducerRecord<>(BIDS, i % PARTITIONS, BASE_TIME + i, null, json.serialize(bids.get(i)))));
            }
            for (int i = 0; i < 10; i++) {
                sent.add(producer.send(new ProducerRecord<>(SPARSE, 0, BASE_TIME + i, null, json.serialize(bids.get(i)))));
            }
            List<String> bad = List.of("{\"auction\": 1, \"price\": 5}", "{\"auction\": oops", "{\"auction\": 3, \"price\": 7}");
            for (String value : bad) {
                ProducerRecord<byte[], byte[]> record =
                        new ProducerRecord<>(BAD, 0, null, value.getBytes(StandardCharsets.UTF_8));
                record.headers().add("source", value.getBytes(StandardCharsets.UTF_8)).add("n", new byte[] {1, 2});
                sent.add(producer.send(record));
            }
            producer.flush();
            for (Future<RecordMetadata> send : sent) {
                send.get();
            }
        }
        // Committed offsets of a consumer group, for group-offsets startup.
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("committed")) {
            consumer.commitSync(
                    Map.of(
                            new TopicPartition(BIDS, 0), new OffsetAndMetadata(500),
                            new TopicPartition(BIDS, 1), new OffsetAndMetadata(5),
                            new TopicPartition(BIDS, 2), new OffsetAndMetadata(999)));
        }
    }

    /** Native bytes held before any job: state the library builds once and keeps. */
    private static long nativeBaseline;

    /**
     * The first protobuf decoder builds prost-reflect's descriptors of protobuf's well-known types
     * once (a global it keeps); building it here puts it in the baseline.
     */
    @BeforeAll
    static void measureNativeBaseline() {
        try (BufferAllocator allocator = new RootAllocator();
                NativeFormatDecoder decoder =
                        NativeFormatDecoder.create(
                                allocator,
                                "protobuf",
                                Map.of("message-class-name", Bid.class.getName()),
                                NexmarkBids.PROTOBUF_BID_TYPE)) {
            assertThat(decoder.rowType()).isEqualTo(NexmarkBids.PROTOBUF_BID_TYPE);
        }
        nativeBaseline = NativeLibrary.nativeAllocatedBytes();
    }

    /** Every reader and writer freed its native memory once the jobs ended (cancelled ones too). */
    @AfterAll
    static void nativeMemoryIsFreed() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (NativeLibrary.nativeAllocatedBytes() != nativeBaseline && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(NativeLibrary.nativeAllocatedBytes()).as("native bytes still allocated").isEqualTo(nativeBaseline);
    }

    static Stream<Map<String, String>> readModes() {
        return Stream.of(
                Map.of("scan.startup.mode", "earliest-offset", "scan.bounded.mode", "latest-offset"),
                Map.of(
                        "scan.startup.mode", "specific-offsets",
                        "scan.startup.specific-offsets", "partition:0,offset:10;partition:1,offset:0;partition:2,offset:999",
                        "scan.bounded.mode", "specific-offsets",
                        "scan.bounded.specific-offsets", "partition:0,offset:700;partition:1,offset:1000;partition:2,offset:1000"),
                // Starts past the partitions' ends: those splits finish empty, nothing is reset.
                Map.of(
                        "scan.startup.mode", "specific-offsets",
                        "scan.startup.specific-offsets", "partition:0,offset:100000;partition:1,offset:5;partition:2,offset:100000",
                        "scan.bounded.mode", "latest-offset"),
                Map.of(
                        "scan.startup.mode", "timestamp",
                        "scan.startup.timestamp-millis", Long.toString(T100),
                        "scan.bounded.mode", "timestamp",
                        "scan.bounded.timestamp-millis", Long.toString(T100 + 1500)),
                Map.of(
                        "scan.startup.mode", "earliest-offset",
                        "properties.group.id", "committed",
                        "scan.bounded.mode", "group-offsets"),
                Map.of(
                        "scan.startup.mode", "group-offsets",
                        "properties.group.id", "committed",
                        "properties.auto.offset.reset", "earliest",
                        "scan.bounded.mode", "latest-offset"));
    }

    @ParameterizedTest
    @MethodSource("readModes")
    void startupAndBoundedModesReadWhatFlinkReads(Map<String, String> mode) throws Exception {
        assertSameRows("SELECT * FROM %s", bidsTable("topic", BIDS, mode));
    }

    /**
     * A bounded read starting where the group's committed offsets are, for a group that has
     * committed none: where it starts is `auto.offset.reset`'s to say, and a partition with
     * nothing between there and the end finishes at once, as in Flink, instead of waiting for a
     * record forever.
     */
    @ParameterizedTest
    @ValueSource(strings = {"earliest", "latest"})
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aBoundedReadFromOffsetsNeverCommittedEndsAsFlinksDoes(String reset) throws Exception {
        Map<String, String> options = bidsTable("topic", SPARSE, Map.of(
                "scan.startup.mode", "group-offsets",
                "properties.group.id", "never-committed-" + reset,
                "properties.auto.offset.reset", reset,
                "scan.bounded.mode", "latest-offset"));
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("stock", "kafka", BID_COLUMNS, options));
        tables.executeSql(ddl("fused", "streamfusion-kafka", BID_COLUMNS, options));
        List<String> expected = collect(tables.executeSql("SELECT * FROM stock"));
        assertThat(expected).hasSize(reset.equals("earliest") ? 10 : 0);
        assertThat(collect(tables.executeSql("SELECT * FROM fused"))).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void nexmarkQueriesGiveFlinksResults() throws Exception {
        Map<String, String> table = bidsTable("topic", BIDS, Map.of());
        // q0: pass-through; q1: currency conversion, an exact decimal; q2: a selective filter.
        assertSameRows("SELECT auction, bidder, price, date_time, extra FROM %s", table);
        assertSameRows("SELECT auction, bidder, 0.908 * price AS price, date_time, extra FROM %s", table);
        assertSameRows("SELECT auction, price FROM %s WHERE MOD(auction, 123) = 0", table);
        assertSameRows("SELECT channel, COUNT(*), MAX(price), MIN(url) FROM %s GROUP BY channel", table);
    }

    /**
     * Rows handed on in Flink's binary layout (BINARY, and AUTO where the job copies rows) and as
     * columnar views (COLUMNAR, and AUTO where the job reuses objects) are Flink's rows.
     */
    @ParameterizedTest
    @ValueSource(strings = {"BINARY", "COLUMNAR", "AUTO with object reuse"})
    void rowsInEitherLayoutAreFlinksRows(String layout) throws Exception {
        boolean objectReuse = layout.endsWith("object reuse");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        if (objectReuse) {
            env.getConfig().enableObjectReuse();
        }
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        if (objectReuse) {
            tables.getConfig().set(PipelineOptions.OBJECT_REUSE, true);
        }
        Map<String, String> options = bidsTable("topic", BIDS, Map.of());
        Map<String, String> fused = new HashMap<>(options);
        fused.put(RowLayout.KEY, objectReuse ? "AUTO" : layout);
        tables.executeSql(ddl("stock", "kafka", options));
        tables.executeSql(ddl("fused", "streamfusion-kafka", fused));
        for (String query :
                List.of(
                        "SELECT auction, bidder, 0.908 * price AS price, date_time, extra FROM %s",
                        "SELECT channel, COUNT(*), MAX(price), MIN(url) FROM %s WHERE MOD(auction, 3) = 0 GROUP BY channel")) {
            List<String> expected = collect(tables.executeSql(String.format(query, "stock")));
            assertThat(expected).isNotEmpty();
            assertThat(collect(tables.executeSql(String.format(query, "fused"))))
                    .as("%s: %s", layout, query)
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    @Test
    void theSmallestPrefetchBoundReadsWhatFlinkReadsAndAnOutOfRangeOneIsRefused() throws Exception {
        Map<String, String> table = bidsTable("topic", BIDS, Map.of());
        Map<String, String> bounded = new HashMap<>(table);
        bounded.put("streamfusion.prefetch.kbytes", "1");
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("stock", "kafka", table));
        tables.executeSql(ddl("fused", "streamfusion-kafka", bounded));
        List<String> expected = collect(tables.executeSql("SELECT * FROM stock"));
        assertThat(expected).isNotEmpty();
        assertThat(collect(tables.executeSql("SELECT * FROM fused"))).containsExactlyInAnyOrderElementsOf(expected);

        bounded.put("streamfusion.prefetch.kbytes", "0");
        tables.executeSql(ddl("refused", "streamfusion-kafka", bounded));
        assertThatThrownBy(() -> tables.explainSql("SELECT * FROM refused"))
                .hasStackTraceContaining("'streamfusion.prefetch.kbytes' = '0' is not between 1 and 2097151");
    }

    @Test
    void topicPatternsAndTopicListsReadEveryMatchingTopic() throws Exception {
        assertSameRows("SELECT auction, price FROM %s", bidsTable("topic-pattern", "bids-.*", Map.of("json.ignore-parse-errors", "true")));
        assertSameRows("SELECT auction, price FROM %s", bidsTable("topic", BIDS + ";" + BAD, Map.of("json.ignore-parse-errors", "true")));
    }

    @Test
    void theTableSaysHowItReads() {
        assertThat(source(bidsTable("topic", BIDS, Map.of())).asSummaryString())
                .isEqualTo("StreamFusion Kafka table source (" + RUNG_DESCRIPTION + ")");
        Map<String, String> auto = new HashMap<>(bidsTable("topic", BIDS, Map.of()));
        auto.put("streamfusion.rung", "AUTO");
        assertThat(source(auto).asSummaryString())
                .isEqualTo("StreamFusion Kafka table source (native rung: librdkafka polls, 'json' decoded natively)");
        // A JKS trust store has no librdkafka equivalent: AUTO reads with kafka-clients, NATIVE fails.
        auto.put("properties.ssl.truststore.location", "/etc/kafka/truststore.jks");
        assertThat(source(auto).asSummaryString())
                .isEqualTo(
                        "StreamFusion Kafka table source (Java rung (librdkafka cannot take 'ssl.truststore.location' = "
                                + "'/etc/kafka/truststore.jks': librdkafka reads CA certificates from PEM only "
                                + "(ssl.truststore.type is JKS)): kafka-clients polls, 'json' decoded natively per poll)");
        // Secrets are named but never shown, in the summary (which the log repeats) and in errors.
        Map<String, String> secret = new HashMap<>(auto);
        secret.put("properties.ssl.truststore.password", "trust-secret");
        assertThat(source(secret).asSummaryString())
                .contains("'ssl.truststore.password' = '******'")
                .doesNotContain("trust-secret");
        Map<String, String> secretForced = new HashMap<>(secret);
        secretForced.put("streamfusion.rung", "NATIVE");
        assertThatThrownBy(() -> source(secretForced))
                .satisfies(e -> assertThat(stackTrace(e)).contains("ssl.truststore.password").doesNotContain("trust-secret"));
        Map<String, String> nativeForced = new HashMap<>(auto);
        nativeForced.put("streamfusion.rung", "NATIVE");
        nativeForced.put("properties.sasl.jaas.config", "com.example.Login required token=\"t\";");
        assertThatThrownBy(() -> source(nativeForced))
                .hasStackTraceContaining(
                        "'streamfusion.rung' = 'NATIVE', but librdkafka cannot take these properties: "
                                + "'sasl.jaas.config' = '******': only PlainLoginModule and ScramLoginModule with username "
                                + "and password translate; 'ssl.truststore.location' = '/etc/kafka/truststore.jks'");
        // A value kafka-clients takes and librdkafka refuses when its client starts: kafka-clients reads.
        Map<String, String> slow = new HashMap<>(bidsTable("topic", BIDS, Map.of()));
        slow.put("streamfusion.rung", "AUTO");
        slow.put("properties.request.timeout.ms", "400000");
        assertThat(source(slow).asSummaryString())
                .startsWith("StreamFusion Kafka table source (Java rung (librdkafka cannot take 'socket.timeout.ms' = "
                        + "'400000': librdkafka refuses it (");
        slow.put("streamfusion.rung", "NATIVE");
        assertThatThrownBy(() -> source(slow)).hasStackTraceContaining("'socket.timeout.ms' = '400000'");
        Map<String, String> changelog =
                bidsTable("topic", BIDS, Map.of("format", "debezium-json", "streamfusion.rung", "AUTO"));
        assertThat(source(changelog).asSummaryString())
                .isEqualTo("StreamFusion Kafka table source (Flink's own reader: the value format 'debezium-json' is not decoded natively)");
        Map<String, String> forced = new HashMap<>(changelog);
        forced.put("streamfusion.rung", "JAVA");
        assertThatThrownBy(() -> source(forced))
                .hasStackTraceContaining("'streamfusion.rung' = 'JAVA', but the value format 'debezium-json' is not decoded natively");
        Map<String, String> unknown = new HashMap<>(bidsTable("topic", BIDS, Map.of()));
        unknown.put("streamfusion.rung", "FASTEST");
        assertThatThrownBy(() -> source(unknown)).hasStackTraceContaining("streamfusion.rung");
    }

    private static String stackTrace(Throwable e) {
        java.io.StringWriter out = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }

    private static Map<String, String> sinkTable(String topic, String format) {
        return Map.of(
                "topic", topic,
                "properties.bootstrap.servers", KAFKA.bootstrapServers(),
                "format", format,
                "sink.delivery-guarantee", "at-least-once");
    }

    /** The options of a JSON sink table of a new one-partition {@code topic}, on {@code rung}. */
    private static Map<String, String> jsonSinkOfRung(String topic, String rung) {
        KAFKA.cluster().createTopic(topic, 1);
        Map<String, String> options = new HashMap<>(sinkTable(topic, "json"));
        options.put("streamfusion.rung", rung);
        return options;
    }

    /** Every value in {@code topic}, as hex. */
    private static List<String> values(String topic) {
        return records(topic, false);
    }

    /**
     * Every record in {@code topic}: its value as hex, and with {@code whole} also its key, headers
     * and timestamp.
     */
    private static List<String> records(String topic, boolean whole) {
        return KAFKA.cluster().readAll(topic).stream().map(r -> describe(r, whole)).collect(Collectors.toList());
    }

    private static String describe(ConsumerRecord<byte[], byte[]> record, boolean whole) {
        HexFormat hex = HexFormat.of();
        String value = record.value() == null ? "null" : hex.formatHex(record.value());
        if (!whole) {
            return value;
        }
        StringBuilder headers = new StringBuilder();
        record.headers().forEach(h -> headers.append(h.key()).append('=').append(h.value() == null ? "null" : hex.formatHex(h.value())).append(';'));
        return (record.key() == null ? "null" : hex.formatHex(record.key())) + "|" + value + "|" + headers + "|"
                + record.timestamp() + "|" + record.timestampType() + "|partition " + record.partition();
    }

    /** The sink the factory makes for a bids table with {@code options}. */
    private static DynamicTableSink sink(Map<String, String> options) {
        return sink(options, BID_COLUMNS);
    }

    /** The sink the factory makes for a table of {@code columns} with {@code options}. */
    private static DynamicTableSink sink(Map<String, String> options, String columns) {
        return FactoryUtil.createDynamicTableSink(
                null,
                ObjectIdentifier.of("default_catalog", "default_database", "out"),
                table(options, columns),
                Map.of(),
                new Configuration(),
                StreamFusionKafkaITCase.class.getClassLoader(),
                false);
    }

    /** The sum over a job's readers of StreamFusion's counter {@code name}. */
    private static long sum(Map<String, Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().endsWith("." + name))
                .mapToLong(e -> ((Counter) e.getValue()).getCount())
                .sum();
    }

    /** The source the factory makes for a bids table with {@code options}. */
    private static DynamicTableSource source(Map<String, String> options) {
        return source(options, BID_COLUMNS);
    }

    /** The source the factory makes for a table of {@code columns} with {@code options}. */
    private static DynamicTableSource source(Map<String, String> options, String columns) {
        return FactoryUtil.createDynamicTableSource(
                null,
                ObjectIdentifier.of("default_catalog", "default_database", "bids"),
                table(options, columns),
                Map.of(),
                new Configuration(),
                StreamFusionKafkaITCase.class.getClassLoader(),
                false);
    }

    /** A streamfusion-kafka catalog table of {@code columns} with {@code options}. */
    private static ResolvedCatalogTable table(Map<String, String> options, String columns) {
        Map<String, String> all = new HashMap<>(withRung("streamfusion-kafka", options));
        all.put("connector", "streamfusion-kafka");
        StreamTableEnvironment tables = tables();
        tables.executeSql("CREATE TEMPORARY TABLE shape (" + columns + ") WITH ('connector' = 'datagen')");
        ResolvedSchema schema = tables.from("shape").getResolvedSchema();
        CatalogTable table =
                CatalogTable.newBuilder()
                        .schema(Schema.newBuilder().fromResolvedSchema(schema).build())
                        .options(all)
                        .build();
        return new ResolvedCatalogTable(table, schema);
    }

    @Test
    void malformedRecordsAreSkippedAsInFlinkOrFailNamingTheirOffset() throws Exception {
        assertSameRows("SELECT auction, price FROM %s", bidsTable("topic", BAD, Map.of("json.ignore-parse-errors", "true")));
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("skipping", "streamfusion-kafka", bidsTable("topic", BAD, Map.of("json.ignore-parse-errors", "true"))));
        TableResult skipping = tables.executeSql("SELECT auction FROM skipping");
        assertThat(collect(skipping)).hasSize(2);
        Map<String, Metric> metrics = METRICS.findMetrics(skipping.getJobClient().orElseThrow().getJobID(), "streamfusion");
        // The reader's total, and its partition's.
        assertThat(sum(metrics, "skippedRecords")).isEqualTo(2);
        assertThat(sum(metrics, "partition." + BAD + "-0.skippedRecords")).isEqualTo(1);
        assertThat(sum(metrics, "batches")).isPositive();
        assertThat(sum(metrics, "decodeNanos")).isPositive();
        assertThat(metrics.entrySet().stream().filter(e -> e.getKey().endsWith(".rung")))
                .isNotEmpty()
                .allSatisfy(e -> assertThat(((Gauge<?>) e.getValue()).getValue()).isEqualTo(RUNG.toLowerCase(Locale.ROOT)));

        tables.executeSql(ddl("bad", "streamfusion-kafka", bidsTable("topic", BAD, Map.of())));
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT auction FROM bad")))
                .hasStackTraceContaining("Failed to decode the value of the Kafka record at offset 1 of " + BAD + "-0 (json)");
    }

    /**
     * A record batch that fails its checksum (corrupted on the broker's disk, which serves it as it
     * is) fails the read naming its partition and offset, as Flink's reader fails on it. Its records
     * are never skipped: librdkafka reports such a batch and reads on past it.
     */
    @Test
    void aCorruptRecordBatchFailsTheReadNamingItsPartitionAndOffset() throws Exception {
        String topic = "corrupt";
        KAFKA.cluster().createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int n = 0; n < 6; n++) {
                // One batch a record: each send waits for the one before.
                producer.send(new ProducerRecord<>(topic, 0, null, numbered(n))).get();
            }
        }
        corruptBatch(KAFKA.cluster().partitionDirectory(topic, 0), 3);
        Map<String, String> options = bidsTable("topic", topic, Map.of());
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("stock_corrupt", "kafka", "n INT", options));
        tables.executeSql(ddl("fused_corrupt", "streamfusion-kafka", "n INT", options));
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT n FROM stock_corrupt")))
                .hasStackTraceContaining("Record batch for partition " + topic + "-0 at offset 3 is invalid");
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT n FROM fused_corrupt")))
                .hasStackTraceContaining(topic + "-0 at offset 3");
    }

    /** Flips the last byte (of its last record, which its checksum covers) of the batch at {@code offset}. */
    private static void corruptBatch(Path partition, long offset) throws IOException {
        Path segment = partition.resolve(String.format("%020d.log", 0));
        try (FileChannel file = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            // Each batch starts with its base offset (8 bytes) and the length of what follows (4).
            ByteBuffer header = ByteBuffer.allocate(12);
            for (long position = 0; position < file.size(); ) {
                header.clear();
                file.read(header, position);
                long base = header.getLong(0);
                long end = position + 12 + header.getInt(8);
                if (base == offset) {
                    ByteBuffer last = ByteBuffer.allocate(1);
                    file.read(last, end - 1);
                    file.write(ByteBuffer.wrap(new byte[] {(byte) (last.get(0) ^ 0x5a)}), end - 1);
                    return;
                }
                position = end;
            }
        }
        throw new IllegalStateException("no record batch at offset " + offset + " in " + segment);
    }

    /**
     * What the native decoders and encoders refuse that Flink's formats take (here a charset the
     * native raw format does not have) is found at planning: AUTO reads and writes with Flink's
     * own reader and sink and says why, a forced rung fails naming it. Nothing is refused on a
     * task manager.
     */
    @Test
    void formatsTheNativeCodeRefusesAreFoundAtPlanning() throws Exception {
        String topic = "latin-text";
        KAFKA.cluster().createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(topic, 0, null, "caf\u00e9".getBytes(java.nio.charset.Charset.forName("windows-1252"))))
                    .get();
        }
        Map<String, String> options =
                new HashMap<>(bidsTable("topic", topic, Map.of("format", "raw", "raw.charset", "windows-1252")));
        String reason = "the value format 'raw' is not handled natively here: Unsupported 'raw.charset' name: windows-1252";
        Map<String, String> auto = new HashMap<>(options);
        auto.put("streamfusion.rung", "AUTO");
        assertThat(source(auto, "text STRING").asSummaryString()).contains("Flink's own reader: " + reason);
        assertThat(sink(auto, "text STRING").asSummaryString()).contains("Flink's own sink: " + reason);
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("stock_latin", "kafka", "text STRING", options));
        tables.executeSql(ddl("fused_latin", "streamfusion-kafka", "text STRING", auto));
        assertThat(collect(tables.executeSql("SELECT text FROM fused_latin")))
                .containsExactly("+I[caf\u00e9]")
                .isEqualTo(collect(tables.executeSql("SELECT text FROM stock_latin")));
        Map<String, String> forced = new HashMap<>(options);
        forced.put("streamfusion.rung", "NATIVE");
        assertThatThrownBy(() -> source(forced, "text STRING")).hasStackTraceContaining(reason);
        assertThatThrownBy(() -> sink(forced, "text STRING")).hasStackTraceContaining(reason);
    }

    /**
     * Committed, aborted and still open transactions read as Flink's reader reads them: by
     * default kafka-clients' {@code read_uncommitted} (every record, a bounded read up to the high
     * watermark, open transactions too), and with {@code read_committed} the committed records.
     * A topic that ends with a transaction marker still finishes a bounded read.
     */
    @Test
    void transactionsReadAsFlinksReaderReadsThem() throws Exception {
        String closed = "txn-closed";
        String open = "txn-open";
        KAFKA.cluster().createTopic(closed, 1);
        KAFKA.cluster().createTopic(open, 1);
        try (KafkaProducer<byte[], byte[]> producer = transactionalProducer("sf-txn-closed")) {
            transaction(producer, closed, 0, 3, true);
            transaction(producer, closed, 3, 5, false);
            transaction(producer, closed, 5, 7, true);
        }
        KafkaProducer<byte[], byte[]> pending = transactionalProducer("sf-txn-open");
        try {
            transaction(pending, open, 0, 2, true);
            transaction(pending, open, 2, 4, false);
            pending.beginTransaction();
            for (int n = 4; n < 6; n++) {
                pending.send(new ProducerRecord<>(open, 0, null, numbered(n))).get();
            }
            Map<String, Integer> expected = Map.of(closed, 7, open, 6);
            for (String topic : List.of(closed, open)) {
                Map<String, String> uncommitted = bidsTable("topic", topic, Map.of());
                StreamTableEnvironment counting = tables();
                counting.executeSql(ddl("every_record", "kafka", "n INT", uncommitted));
                assertThat(collect(counting.executeSql("SELECT n FROM every_record"))).hasSize(expected.get(topic));
                assertSameRows("SELECT n FROM %s", "n INT", uncommitted);
            }
            // Committed records only. (A bounded read_committed read of a topic with an open
            // transaction waits for it to end, on Flink's reader as on this one.)
            Map<String, String> committed = bidsTable("topic", closed, Map.of("properties.isolation.level", "read_committed"));
            StreamTableEnvironment counting = tables();
            counting.executeSql(ddl("committed_only", "kafka", "n INT", committed));
            assertThat(collect(counting.executeSql("SELECT n FROM committed_only"))).hasSize(5);
            assertSameRows("SELECT n FROM %s", "n INT", committed);
        } finally {
            pending.close(Duration.ZERO);
        }
    }

    private static KafkaProducer<byte[], byte[]> transactionalProducer(String id) {
        Properties props = new Properties();
        props.put("bootstrap.servers", KAFKA.bootstrapServers());
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        props.put("transactional.id", id);
        props.put("transaction.timeout.ms", "600000");
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props);
        producer.initTransactions();
        return producer;
    }

    private static void transaction(KafkaProducer<byte[], byte[]> producer, String topic, int from, int to, boolean commit)
            throws Exception {
        producer.beginTransaction();
        for (int n = from; n < to; n++) {
            producer.send(new ProducerRecord<>(topic, 0, null, numbered(n))).get();
        }
        if (commit) {
            producer.commitTransaction();
        } else {
            producer.abortTransaction();
        }
    }

    private static byte[] numbered(int n) {
        return ("{\"n\": " + n + "}").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * With a group id, offsets are committed to the group when checkpoints complete, on either
     * rung, and the reader reports each partition's current and committed offsets as Flink's
     * reader does.
     */
    @Test
    @SuppressWarnings("try")
    void checkpointsCommitOffsetsToTheGroup() throws Exception {
        String group = "sf-commits-" + RUNG.toLowerCase(Locale.ROOT);
        Map<String, String> options = new HashMap<>(bidsTable("topic", BIDS, Map.of("properties.group.id", group)));
        options.remove("scan.bounded.mode");
        Configuration configuration = new Configuration();
        configuration.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.setParallelism(2);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(ddl("committing", "streamfusion-kafka", options));
        TableResult result = tables.executeSql("SELECT auction FROM committing");
        try (CloseableIterator<Row> live = result.collect();
                Admin admin = Admin.create(Map.of("bootstrap.servers", KAFKA.bootstrapServers()))) {
            take(live, new ArrayList<>(), COUNT);
            Map<TopicPartition, Long> perPartition = new HashMap<>();
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (System.nanoTime() < deadline) {
                perPartition.clear();
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().forEach(
                        (partition, offset) -> perPartition.put(partition, offset.offset()));
                if (perPartition.values().stream().filter(o -> o == COUNT / PARTITIONS).count() == PARTITIONS) {
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(perPartition)
                    .containsOnlyKeys(new TopicPartition(BIDS, 0), new TopicPartition(BIDS, 1), new TopicPartition(BIDS, 2))
                    .allSatisfy((partition, offset) -> assertThat(offset).isEqualTo(COUNT / PARTITIONS));
            Map<String, Metric> metrics = METRICS.findMetrics(result.getJobClient().orElseThrow().getJobID(), "Offset");
            for (int p = 0; p < PARTITIONS; p++) {
                String partition = "." + BIDS + ".partition." + p + ".";
                assertThat(gauge(metrics, partition + "currentOffset")).isEqualTo((long) COUNT / PARTITIONS - 1);
                assertThat(gauge(metrics, partition + "committedOffset")).isEqualTo((long) COUNT / PARTITIONS);
            }
        } finally {
            result.getJobClient().orElseThrow().cancel().get(1, TimeUnit.MINUTES);
        }
    }

    /** The value of the one gauge whose name contains {@code name}. */
    private static Object gauge(Map<String, Metric> metrics, String name) {
        List<Object> values =
                metrics.entrySet().stream()
                        .filter(e -> e.getKey().contains(name))
                        .map(e -> ((Gauge<?>) e.getValue()).getValue())
                        .collect(Collectors.toList());
        assertThat(values).as("gauges named %s among %s", name, metrics.keySet()).hasSize(1);
        return values.get(0);
    }

    /**
     * Every message of the malformed JSON corpus, as values and as keys: with ignore-parse-errors
     * the tables give stock's rows (a bad field is NULL, a bad message gives no row, a message
     * Flink reads despite trouble gives Flink's rows); without it both fail, and StreamFusion
     * names the first record Flink fails on.
     */
    @Test
    void malformedJsonValuesAndKeysMeanWhatTheyMeanToFlink() throws Exception {
        String values = "json-corpus-values";
        String keys = "json-corpus-keys";
        KAFKA.cluster().createTopic(values, 1);
        KAFKA.cluster().createTopic(keys, 1);
        List<MalformedMessage> corpus = JsonCorpus.corpus();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < corpus.size(); i++) {
                byte[] id = ("{\"id\": " + i + "}").getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(values, 0, null, corpus.get(i).bytes)).get();
                producer.send(new ProducerRecord<>(keys, 0, corpus.get(i).bytes, id)).get();
            }
        }
        String columns = columns(JsonCorpus.PHYSICAL, "");
        Map<String, String> ignoring = bidsTable("topic", values, Map.of("json.ignore-parse-errors", "true"));
        assertSameRows("SELECT * FROM %s", columns, ignoring);
        assertSameRows("SELECT a, r.y, s FROM %s", columns, ignoring);
        String withOffsets = columns + ", off BIGINT METADATA FROM 'offset' VIRTUAL";
        assertSameRows("SELECT off, arr, t FROM %s", withOffsets, ignoring);

        String keyed = columns(JsonCorpus.PHYSICAL, "k_") + ", id INT";
        Map<String, String> keyOptions = new HashMap<>(bidsTable("topic", keys, Map.of()));
        keyOptions.remove("format");
        keyOptions.putAll(
                Map.of(
                        "key.format", "json",
                        "key.json.ignore-parse-errors", "true",
                        "key.fields", String.join(";", prefixed(JsonCorpus.PHYSICAL, "k_")),
                        "key.fields-prefix", "k_",
                        "value.format", "json",
                        "value.json.ignore-parse-errors", "true",
                        "value.fields-include", "EXCEPT_KEY"));
        assertSameRows("SELECT * FROM %s", keyed, keyOptions);
        assertSameRows("SELECT id, k_a, k_m FROM %s", keyed, keyOptions);

        // Without ignore-parse-errors: both fail, at the first record Flink's format fails on.
        int firstBad = firstFailing(corpus);
        StreamTableEnvironment tables = tables();
        Map<String, String> failing = bidsTable("topic", values, Map.of());
        tables.executeSql(ddl("stock_values", "kafka", columns, failing));
        tables.executeSql(ddl("fused_values", "streamfusion-kafka", columns, failing));
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT a FROM stock_values")))
                .hasStackTraceContaining("Failed to deserialize JSON");
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT a FROM fused_values")))
                .hasStackTraceContaining(
                        "Failed to decode the value of the Kafka record at offset " + firstBad + " of " + values + "-0 (json)");
        Map<String, String> failingKeys = new HashMap<>(keyOptions);
        failingKeys.remove("key.json.ignore-parse-errors");
        tables.executeSql(ddl("fused_keys", "streamfusion-kafka", keyed, failingKeys));
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT id FROM fused_keys")))
                .hasStackTraceContaining(
                        "Failed to decode the key of the Kafka record at offset " + firstBad + " of " + keys + "-0 (json)");
        // A key Flink's format makes a NULL row of (under the key's ignore-parse-errors) fails
        // Flink's connector unless the value format ignores parse errors too.
        Map<String, String> nullKeys = new HashMap<>(keyOptions);
        nullKeys.remove("value.json.ignore-parse-errors");
        tables.executeSql(ddl("stock_null_keys", "kafka", keyed, nullKeys));
        tables.executeSql(ddl("fused_null_keys", "streamfusion-kafka", keyed, nullKeys));
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT id FROM stock_null_keys")))
                .hasStackTraceContaining("Failed to deserialize JSON");
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT id FROM fused_null_keys")))
                .hasStackTraceContaining("Flink's key format makes a NULL row of it");

        // Only the JSON format's error handling covers the rows it hands on: a CSV value format
        // ignoring parse errors still fails Flink's connector on a NULL key row.
        String csvValues = "json-null-keys-csv-values";
        KAFKA.cluster().createTopic(csvValues, 1);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(csvValues, 0, "{\"a\": 1}".getBytes(StandardCharsets.UTF_8), "7".getBytes(StandardCharsets.UTF_8))).get();
            producer.send(new ProducerRecord<>(csvValues, 0, "[1]".getBytes(StandardCharsets.UTF_8), "8".getBytes(StandardCharsets.UTF_8))).get();
        }
        Map<String, String> csvOptions = new HashMap<>(bidsTable("topic", csvValues, Map.of()));
        csvOptions.remove("format");
        csvOptions.putAll(
                Map.of(
                        "key.format", "json",
                        "key.json.ignore-parse-errors", "true",
                        "key.fields", "k_a",
                        "key.fields-prefix", "k_",
                        "value.format", "csv",
                        "value.csv.ignore-parse-errors", "true",
                        "value.fields-include", "EXCEPT_KEY"));
        tables.executeSql(ddl("stock_csv_values", "kafka", "k_a INT, id INT", csvOptions));
        tables.executeSql(ddl("fused_csv_values", "streamfusion-kafka", "k_a INT, id INT", csvOptions));
        // (Flink's connector asserts the key row is there: an AssertionError with assertions on,
        // as in tests, else a NullPointerException.)
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT * FROM stock_csv_values")))
                .hasStackTraceContaining("DynamicKafkaDeserializationSchema$OutputProjectionCollector.emitRow");
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT * FROM fused_csv_values")))
                .hasStackTraceContaining("Failed to decode the key of the Kafka record at offset 1 of " + csvValues + "-0")
                .hasStackTraceContaining("Flink's key format makes a NULL row of it");
    }

    /**
     * A record giving a NOT NULL column no value (the field missing, or {@code null}): Flink's
     * format makes a row with a NULL there, and the native decoder hands such a record to Flink's
     * format, so both tables give the same rows. The sink's NOT NULL check then drops them in
     * both jobs under {@code DROP}, or fails both with Flink's message under {@code ERROR}.
     */
    @Test
    void aRecordWithoutAValueForANotNullColumnMeansWhatItMeansToFlink() throws Exception {
        String topic = "json-not-null";
        KAFKA.cluster().createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (String message :
                    List.of("{\"id\": 1, \"name\": \"a\"}", "{\"name\": \"b\"}", "{\"id\": null, \"name\": \"c\"}", "{\"id\": 4}")) {
                producer.send(new ProducerRecord<>(topic, 0, null, message.getBytes(StandardCharsets.UTF_8))).get();
            }
        }
        String columns = "id BIGINT NOT NULL, name STRING";
        Map<String, String> options = bidsTable("topic", topic, Map.of());
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("stock_not_null", "kafka", columns, options));
        tables.executeSql(ddl("fused_not_null", "streamfusion-kafka", columns, options));
        for (String table : List.of("stock_not_null", "fused_not_null")) {
            assertThatThrownBy(() -> collect(tables.executeSql("SELECT id, name FROM " + table)))
                    .as(table)
                    .hasStackTraceContaining("Column 'id' is NOT NULL, however, a null value is being written into it");
        }
        tables.getConfig()
                .set(
                        ExecutionConfigOptions.TABLE_EXEC_SINK_NOT_NULL_ENFORCER,
                        ExecutionConfigOptions.NotNullEnforcer.DROP);
        List<String> expected = collect(tables.executeSql("SELECT id, name FROM stock_not_null"));
        assertThat(expected).containsExactlyInAnyOrder("+I[1, a]", "+I[4, null]");
        assertThat(collect(tables.executeSql("SELECT id, name FROM fused_not_null")))
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * {@code 'streamfusion.errors' = 'SKIP'}: every record Flink's format fails on is dropped
     * (for a bad key, the whole record), counted in total and per partition, and the rows are
     * exactly those of the records Flink reads: JSON values and keys from the malformed corpus,
     * Avro records truncated or garbled and a protobuf message cut short among good ones. A table
     * Flink's own reader serves is refused.
     */
    @Test
    void undecodableRecordsAreSkippedCountedAndLoggedUnderTheSkipPolicy() throws Exception {
        String mixed = "skip-json-mixed";
        String good = "skip-json-good";
        String keys = "skip-json-keys";
        for (String topic : List.of(mixed, good, keys)) {
            KAFKA.cluster().createTopic(topic, 1);
        }
        List<MalformedMessage> corpus = JsonCorpus.corpus();
        JsonParserRowDataDeserializationSchema flink = flinkJson();
        List<Integer> goodIds = new ArrayList<>();
        int bad = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < corpus.size(); i++) {
                byte[] bytes = corpus.get(i).bytes;
                // Flink reads it: without an error, and without a NULL row (which fails Flink's
                // connector downstream).
                boolean decodes = true;
                List<RowData> rows = new ArrayList<>();
                try {
                    flink.deserialize(bytes, new ListCollector<>(rows));
                    decodes = !rows.contains(null);
                } catch (IOException e) {
                    decodes = false;
                }
                producer.send(new ProducerRecord<>(mixed, 0, null, bytes)).get();
                producer.send(new ProducerRecord<>(keys, 0, bytes, ("{\"id\": " + i + "}").getBytes(StandardCharsets.UTF_8))).get();
                if (!decodes) {
                    bad++;
                } else {
                    producer.send(new ProducerRecord<>(good, 0, null, bytes)).get();
                    // A key of several rows pairs each with the value, as in Flink.
                    for (int row = 0; row < rows.size(); row++) {
                        goodIds.add(i);
                    }
                }
            }
        }
        assertThat(bad).as("the corpus has records Flink fails on").isPositive();
        assertThat(goodIds).as("and records it reads").isNotEmpty();

        String columns = columns(JsonCorpus.PHYSICAL, "");
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("stock_good", "kafka", columns, bidsTable("topic", good, Map.of())));
        tables.executeSql(ddl("fused_skip", "streamfusion-kafka", columns, bidsTable("topic", mixed, Map.of("streamfusion.errors", "SKIP"))));
        List<String> expected = collect(tables.executeSql("SELECT * FROM stock_good"));
        TableResult skipping = tables.executeSql("SELECT * FROM fused_skip");
        assertThat(collect(skipping)).containsExactlyInAnyOrderElementsOf(expected);
        Map<String, Metric> metrics = METRICS.findMetrics(skipping.getJobClient().orElseThrow().getJobID(), "streamfusion");
        assertThat(sum(metrics, "skippedRecords")).as("in total and in the partition's group").isEqualTo(2L * bad);
        assertThat(metrics.keySet()).anyMatch(name -> name.contains("partition." + mixed + "-0.skippedRecords"));

        // A key Flink's format fails on drops its whole record.
        Map<String, String> keyed = new HashMap<>(bidsTable("topic", keys, Map.of("streamfusion.errors", "SKIP")));
        keyed.remove("format");
        keyed.putAll(Map.of(
                "key.format", "json",
                "key.fields", String.join(";", prefixed(JsonCorpus.PHYSICAL, "k_")),
                "key.fields-prefix", "k_",
                "value.format", "json",
                "value.fields-include", "EXCEPT_KEY"));
        tables.executeSql(ddl("fused_keys", "streamfusion-kafka", columns(JsonCorpus.PHYSICAL, "k_") + ", id INT", keyed));
        List<String> ids = goodIds.stream().map(id -> "+I[" + id + "]").collect(Collectors.toList());
        assertThat(collect(tables.executeSql("SELECT id FROM fused_keys"))).containsExactlyInAnyOrderElementsOf(ids);

        // Avro: good records written by Flink, then a truncated copy of one and bytes that are not Avro.
        String avroGood = "skip-avro-good";
        String avroMixed = "skip-avro-mixed";
        KAFKA.cluster().createTopic(avroGood, 1);
        KAFKA.cluster().createTopic(avroMixed, 1);
        tables.executeSql(ddl("bids", "kafka", bidsTable("topic", BIDS, Map.of())));
        tables.executeSql(ddl("avro_good", "kafka", bidsTable("topic", avroGood, Map.of("format", "avro"))));
        tables.executeSql(ddl("avro_mixed_out", "kafka", bidsTable("topic", avroMixed, Map.of("format", "avro"))));
        tables.executeSql("INSERT INTO avro_good SELECT * FROM bids").await(2, TimeUnit.MINUTES);
        tables.executeSql("INSERT INTO avro_mixed_out SELECT * FROM bids").await(2, TimeUnit.MINUTES);
        byte[] first = HexFormat.of().parseHex(values(avroGood).get(0));
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(avroMixed, 0, null, Arrays.copyOf(first, first.length / 2))).get();
            producer.send(new ProducerRecord<>(avroMixed, 0, null, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff})).get();
        }
        tables.executeSql(ddl("avro_skip", "streamfusion-kafka", bidsTable("topic", avroMixed,
                Map.of("format", "avro", "streamfusion.errors", "SKIP"))));
        String summary = "SELECT COUNT(*), SUM(price), MAX(url) FROM %s";
        assertThat(collect(tables.executeSql(String.format(summary, "avro_skip"))))
                .isEqualTo(collect(tables.executeSql(String.format(summary, "avro_good"))));

        // Without the policy the same topic fails, naming the first bad record.
        tables.executeSql(ddl("avro_fail", "streamfusion-kafka", bidsTable("topic", avroMixed, Map.of("format", "avro"))));
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT COUNT(*) FROM avro_fail")))
                .hasStackTraceContaining("Failed to decode the value of the Kafka record at offset " + COUNT + " of " + avroMixed + "-0 (avro)");

        // Protobuf: good bids, and a message whose length-delimited field runs past its end.
        String protobufTopic = "skip-protobuf";
        KAFKA.cluster().createTopic(protobufTopic, 1);
        PbRowDataSerializationSchema protobuf = new PbRowDataSerializationSchema(
                NexmarkBids.PROTOBUF_BID_TYPE, new PbFormatConfig(Bid.class.getName(), false, false, ""));
        protobuf.open(null);
        long protobufPrices = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            List<RowData> protobufBids = NexmarkBids.withEpochMillis(new NexmarkBids(5).next(100));
            for (int i = 0; i < protobufBids.size(); i++) {
                if (i == 50) {
                    producer.send(new ProducerRecord<>(protobufTopic, 0, null, new byte[] {0x2a, 0x7f, 0x61})).get();
                }
                producer.send(new ProducerRecord<>(protobufTopic, 0, null, protobuf.serialize(protobufBids.get(i)))).get();
                protobufPrices += protobufBids.get(i).getLong(2);
            }
        }
        tables.executeSql(ddl("protobuf_skip", "streamfusion-kafka",
                "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time BIGINT, extra STRING",
                bidsTable("topic", protobufTopic, Map.of("format", "protobuf", "protobuf.message-class-name", Bid.class.getName(),
                        "streamfusion.errors", "SKIP"))));
        assertThat(collect(tables.executeSql("SELECT COUNT(*), SUM(price) FROM protobuf_skip")))
                .containsExactly("+I[100, " + protobufPrices + "]");

        // Flink's own reader has no such policy: a table it would read is refused at planning.
        tables.executeSql(ddl("refused_skip", "streamfusion-kafka", "v STRING", bidsTable("topic", mixed,
                Map.of("format", "raw", "raw.charset", "windows-1252", "streamfusion.errors", "SKIP", "streamfusion.rung", "AUTO"))));
        assertThatThrownBy(() -> tables.explainSql("SELECT * FROM refused_skip"))
                .hasStackTraceContaining("'streamfusion.errors' = 'SKIP' needs StreamFusion's reader, but the table reads with"
                        + " Flink's own: the value format 'raw' is not handled natively here");
    }

    /**
     * {@code 'streamfusion.errors' = 'DEAD_LETTER'}: the rows are those of SKIP, and each record
     * skipped (for its value, its key, or both) is produced once, unchanged (key, value, headers,
     * timestamp), to the dead-letter topic, with headers naming its topic, partition, offset and
     * timestamp and the reason; counted per partition. The options are checked at planning.
     */
    @Test
    void undecodableRecordsGoUnchangedToTheDeadLetterTopic() throws Exception {
        String source = "dead-letter-source-" + RUNG;
        String dead = "dead-letters-" + RUNG;
        KAFKA.cluster().createTopic(source, 1);
        KAFKA.cluster().createTopic(dead, 1);
        List<MalformedMessage> corpus = JsonCorpus.corpus();
        JsonParserRowDataDeserializationSchema flink = flinkJson();
        List<String> expectedIds = new ArrayList<>();
        Map<Long, ProducerRecord<byte[], byte[]>> deadExpected = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < corpus.size(); i++) {
                byte[] value = corpus.get(i).bytes;
                List<RowData> rows = new ArrayList<>();
                boolean valueDecodes;
                try {
                    flink.deserialize(value, new ListCollector<>(rows));
                    valueDecodes = !rows.contains(null);
                } catch (IOException e) {
                    valueDecodes = false;
                }
                boolean keyDecodes = i % 7 != 3;
                byte[] key = (keyDecodes ? "{\"id\": " + i + "}" : "{\"id\": ").getBytes(StandardCharsets.UTF_8);
                ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(
                        source, 0, 1_700_000_000_000L + i, key, value,
                        List.of(new RecordHeader("origin", ("record " + i).getBytes(StandardCharsets.UTF_8))));
                long offset = producer.send(record).get().offset();
                if (valueDecodes && keyDecodes) {
                    for (int row = 0; row < rows.size(); row++) {
                        expectedIds.add("+I[" + i + "]");
                    }
                } else {
                    deadExpected.put(offset, record);
                }
            }
        }
        assertThat(deadExpected).as("bad values and bad keys").hasSizeGreaterThan(corpus.size() / 7);

        Map<String, String> options = new HashMap<>(bidsTable("topic", source, Map.of(
                "streamfusion.errors", "DEAD_LETTER",
                "streamfusion.errors.topic", dead,
                "streamfusion.errors.properties.linger.ms", "5")));
        options.remove("format");
        options.putAll(Map.of(
                "key.format", "json",
                "key.fields", "id",
                "value.format", "json",
                "value.fields-include", "EXCEPT_KEY"));
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("dead_lettering", "streamfusion-kafka", "id INT, " + columns(JsonCorpus.PHYSICAL, ""), options));
        TableResult read = tables.executeSql("SELECT id FROM dead_lettering");
        assertThat(collect(read)).containsExactlyInAnyOrderElementsOf(expectedIds);
        Map<String, Metric> metrics = METRICS.findMetrics(read.getJobClient().orElseThrow().getJobID(), "streamfusion");
        assertThat(sum(metrics, "deadLetteredRecords")).as("in total and in the partition's group").isEqualTo(2L * deadExpected.size());

        Map<Long, ConsumerRecord<byte[], byte[]>> letters = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> letter : deadLetters(dead)) {
            long offset = Long.parseLong(header(letter, "streamfusion.error.offset"));
            assertThat(letters.put(offset, letter)).as("one dead letter per record").isNull();
        }
        assertThat(letters.keySet()).isEqualTo(deadExpected.keySet());
        for (Map.Entry<Long, ConsumerRecord<byte[], byte[]>> entry : letters.entrySet()) {
            ProducerRecord<byte[], byte[]> sent = deadExpected.get(entry.getKey());
            ConsumerRecord<byte[], byte[]> letter = entry.getValue();
            assertThat(letter.key()).isEqualTo(sent.key());
            assertThat(letter.value()).isEqualTo(sent.value());
            assertThat(letter.timestamp()).isEqualTo(sent.timestamp());
            assertThat(header(letter, "origin")).isEqualTo(new String(sent.headers().lastHeader("origin").value(), StandardCharsets.UTF_8));
            assertThat(header(letter, "streamfusion.error.topic")).isEqualTo(source);
            assertThat(header(letter, "streamfusion.error.partition")).isEqualTo("0");
            assertThat(header(letter, "streamfusion.error.timestamp")).isEqualTo(String.valueOf(sent.timestamp()));
            assertThat(header(letter, "streamfusion.error.message"))
                    .startsWith("Failed to decode the ")
                    .contains("the Kafka record at offset " + entry.getKey() + " of " + source + "-0 (json)");
        }

        // The options are checked when the table is planned.
        Map<String, String> noTopic = new HashMap<>(bidsTable("topic", source, Map.of("streamfusion.errors", "DEAD_LETTER")));
        assertThatThrownBy(() -> source(noTopic))
                .hasStackTraceContaining("'streamfusion.errors' = 'DEAD_LETTER' needs the topic to produce to: 'streamfusion.errors.topic'");
        Map<String, String> stray = new HashMap<>(bidsTable("topic", source, Map.of("streamfusion.errors.topic", dead)));
        assertThatThrownBy(() -> source(stray))
                .hasStackTraceContaining("are for 'streamfusion.errors' = 'DEAD_LETTER', but it is 'FAIL'");
    }

    /**
     * Dead letters through a failure: the job fails once mid-stream and resumes from its last
     * checkpoint; every bad record is in the dead-letter topic (records read again after the
     * checkpoint may be there twice: at least once), and the rows are read exactly once.
     */
    @Test
    void deadLettersSurviveAFailoverAtLeastOnce() throws Exception {
        String source = "dead-letter-failover-" + RUNG;
        String dead = "dead-letters-failover-" + RUNG;
        KAFKA.cluster().createTopic(source, 2);
        KAFKA.cluster().createTopic(dead, 1);
        Set<String> bad = new HashSet<>();
        HexFormat hex = HexFormat.of();
        List<String> good = values(BIDS);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < good.size(); i++) {
                producer.send(new ProducerRecord<>(source, i % 2, null, hex.parseHex(good.get(i))));
                if (i % 97 == 0) {
                    RecordMetadata sent = producer.send(new ProducerRecord<>(
                            source, i % 2, null, ("{\"auction\": " + i).getBytes(StandardCharsets.UTF_8))).get();
                    bad.add(sent.partition() + ":" + sent.offset());
                }
            }
        }
        StreamTableEnvironment stock = tables();
        stock.executeSql(ddl("stock", "kafka", bidsTable("topic", BIDS, Map.of())));
        List<String> expected = collect(stock.executeSql("SELECT auction, bidder, price, date_time FROM stock"));

        StreamTableEnvironment tables = failingOnceTables();
        tables.executeSql(ddl("fused", "streamfusion-kafka", bidsTable("topic", source,
                Map.of("streamfusion.errors", "DEAD_LETTER", "streamfusion.errors.topic", dead))));
        FailOnce.reset(COUNT * 2 / 3);
        List<String> actual =
                collect(tables.executeSql("SELECT auction, bidder, fail_once(price) AS price, date_time FROM fused"));
        assertThat(FailOnce.failed()).as("the job failed once").isTrue();
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);

        List<String> letters = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> letter : deadLetters(dead)) {
            letters.add(header(letter, "streamfusion.error.partition") + ":" + header(letter, "streamfusion.error.offset"));
        }
        assertThat(new HashSet<>(letters)).isEqualTo(bad);
        assertThat(letters.size()).isGreaterThanOrEqualTo(bad.size());
    }

    /** Every record of the one partition of the dead-letter topic {@code topic}. */
    private static List<ConsumerRecord<byte[], byte[]>> deadLetters(String topic) {
        List<ConsumerRecord<byte[], byte[]>> letters = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("dead-letter-reader-" + topic)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            while (consumer.position(partition) < end) {
                consumer.poll(Duration.ofMillis(200)).forEach(letters::add);
            }
        }
        return letters;
    }

    /** Flink's JSON deserializer of the malformed corpus's rows, opened. */
    private static JsonParserRowDataDeserializationSchema flinkJson() throws Exception {
        JsonParserRowDataDeserializationSchema flink =
                new JsonParserRowDataDeserializationSchema(
                        JsonCorpus.PHYSICAL, InternalTypeInfo.of(JsonCorpus.PHYSICAL), false, false, TimestampFormat.SQL);
        flink.open(null);
        return flink;
    }

    /** The value of {@code record}'s last header {@code key}, as text. */
    private static String header(ConsumerRecord<byte[], byte[]> record, String key) {
        Header header = record.headers().lastHeader(key);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** The index of the first message of {@code corpus} Flink's JSON format fails on. */
    private static int firstFailing(List<MalformedMessage> corpus) throws Exception {
        JsonParserRowDataDeserializationSchema flink = flinkJson();
        for (int i = 0; i < corpus.size(); i++) {
            try {
                flink.deserialize(corpus.get(i).bytes, new ListCollector<>(new ArrayList<>()));
            } catch (IOException e) {
                return i;
            }
        }
        throw new AssertionError("no message of the corpus fails");
    }

    /** DDL columns of {@code type}'s fields, named with {@code prefix}. */
    private static String columns(RowType type, String prefix) {
        List<String> columns = new ArrayList<>();
        for (RowType.RowField field : type.getFields()) {
            columns.add("`" + prefix + field.getName() + "` " + field.getType().asSerializableString());
        }
        return String.join(", ", columns);
    }

    private static List<String> prefixed(RowType type, String prefix) {
        return type.getFieldNames().stream().map(name -> prefix + name).collect(Collectors.toList());
    }

    @Test
    void keyFormatsReadWhatFlinkReads() throws Exception {
        // Flink's own sink writes keyed records: JSON keys {"auction", "channel"} and values
        // without them; two more records have no key.
        String topic = "keyed";
        KAFKA.cluster().createTopic(topic, 2);
        String keyed = "k_auction BIGINT, k_channel STRING, " + BID_COLUMNS;
        Map<String, String> jsonKeys = new HashMap<>(bidsTable("topic", topic, Map.of()));
        jsonKeys.remove("format");
        jsonKeys.putAll(
                Map.of(
                        "key.format", "json",
                        "key.fields", "k_auction;k_channel",
                        "key.fields-prefix", "k_",
                        "value.format", "json",
                        "value.fields-include", "EXCEPT_KEY"));
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("bids", "kafka", BID_COLUMNS, bidsTable("topic", BIDS, Map.of())));
        tables.executeSql(ddl("written", "kafka", keyed, jsonKeys));
        tables.executeSql("INSERT INTO written SELECT auction, channel, * FROM bids").await(2, TimeUnit.MINUTES);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 2; i++) {
                byte[] value = ("{\"auction\": " + i + ", \"price\": 9}").getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(topic, i, null, value)).get();
            }
        }
        assertSameRows("SELECT * FROM %s", keyed, jsonKeys);
        assertSameRows("SELECT k_channel, COUNT(*) FROM %s GROUP BY k_channel", keyed, jsonKeys);
        assertSameRows("SELECT COUNT(*) FROM %s", keyed, jsonKeys);
        assertThat(source(jsonKeys, keyed).asSummaryString()).contains("'json' values and 'json' keys decoded natively");

        // A raw key beside a value that carries the same column (the value wins), and apart.
        Map<String, String> rawKeys = new HashMap<>(jsonKeys);
        rawKeys.putAll(Map.of("key.format", "raw", "key.fields", "url", "value.fields-include", "ALL"));
        rawKeys.remove("key.fields-prefix");
        assertSameRows("SELECT url, price, auction FROM %s", BID_COLUMNS, rawKeys);
        rawKeys.putAll(Map.of("key.fields", "k", "value.fields-include", "EXCEPT_KEY"));
        assertSameRows("SELECT k, auction, price FROM %s", "k STRING, " + BID_COLUMNS, rawKeys);
    }

    @Test
    void metadataColumnsReadWhatFlinkReads() throws Exception {
        String columns =
                BID_COLUMNS
                        + ", topic STRING METADATA VIRTUAL, part INT METADATA FROM 'partition' VIRTUAL"
                        + ", off BIGINT METADATA FROM 'offset' VIRTUAL, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'"
                        + ", kind STRING METADATA FROM 'timestamp-type' VIRTUAL, headers MAP<STRING, BYTES> METADATA VIRTUAL"
                        + ", epoch INT METADATA FROM 'leader-epoch' VIRTUAL";
        Map<String, String> bids = bidsTable("topic", BIDS, Map.of());
        assertSameRows("SELECT price, topic, part, off, ts, kind, epoch, headers FROM %s", columns, bids);
        assertSameRows("SELECT off, part, auction FROM %s WHERE MOD(off, 10) = 0", columns, bids);
        Map<String, String> withHeaders = bidsTable("topic", BAD, Map.of("json.ignore-parse-errors", "true"));
        assertSameRows("SELECT auction, off, headers, kind FROM %s", columns, withHeaders);
        assertThat(source(bids).asSummaryString()).contains(RUNG_DESCRIPTION);
    }

    @Test
    void eventTimeWindowsFireAsOnStockFlink() throws Exception {
        // Watermarks are generated per partition in the source (watermark push-down), so windows
        // over three partitions fire with the same contents as the stock connector's.
        String columns = BID_COLUMNS + ", WATERMARK FOR date_time AS date_time - INTERVAL '0.005' SECOND";
        // A partition idle for the timeout stops holding the watermark back; the timeout must
        // outlast a consumer's first fetch on a loaded machine, or a partition whose first records
        // come later reads as idle and its records as late (with either connector).
        Map<String, String> options = bidsTable("topic", BIDS, Map.of("scan.watermark.idle-timeout", "10 s"));
        String windows =
                "SELECT window_start, window_end, COUNT(*), MAX(price), SUM(bidder) "
                        + "FROM TABLE(TUMBLE(TABLE %s, DESCRIPTOR(date_time), INTERVAL '0.02' SECOND)) "
                        + "GROUP BY window_start, window_end";
        assertSameRows(windows, columns, options);

        // Unbounded, windows fire only if the source's watermarks advance: the first ones must
        // arrive while the job runs, equal to the stock connector's.
        List<String> stockWindows = new ArrayList<>();
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("stock", "kafka", columns, options));
        stockWindows.addAll(collect(tables.executeSql(String.format(windows, "stock"))));
        Map<String, String> unbounded = new HashMap<>(options);
        unbounded.remove("scan.bounded.mode");
        tables.executeSql(ddl("live", "streamfusion-kafka", columns, unbounded));
        List<String> fired = new ArrayList<>();
        CloseableIterator<Row> live = tables.executeSql(String.format(windows, "live")).collect();
        try {
            take(live, fired, 5);
        } finally {
            live.close();
        }
        assertThat(fired).hasSize(5);
        assertThat(stockWindows).containsAll(fired);
    }

    @ParameterizedTest
    @ValueSource(strings = {"csv", "avro", "raw"})
    void everyFormatReadsWhatFlinkReads(String format) throws Exception {
        // Flink's own kafka sink writes the bids in the format; both connectors read them back.
        String topic = "formats-" + format;
        KAFKA.cluster().createTopic(topic, 2);
        boolean raw = "raw".equals(format);
        String columns = raw ? "url STRING" : BID_COLUMNS;
        Map<String, String> options = new HashMap<>(bidsTable("topic", topic, Map.of("format", format)));
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("bids", "kafka", BID_COLUMNS, bidsTable("topic", BIDS, Map.of())));
        tables.executeSql(ddl("written", "kafka", columns, options));
        tables.executeSql("INSERT INTO written SELECT " + (raw ? "url" : "*") + " FROM bids").await(2, TimeUnit.MINUTES);
        if (raw) {
            assertSameRows("SELECT url FROM %s", columns, options);
            assertSameRows("SELECT CHAR_LENGTH(url), COUNT(*) FROM %s GROUP BY CHAR_LENGTH(url)", columns, options);
        } else {
            assertSameRows("SELECT * FROM %s", columns, options);
            assertSameRows("SELECT price, auction FROM %s WHERE MOD(auction, 7) = 0", columns, options);
        }
    }

    /**
     * A STRING whose bytes are not UTF-8 (Flink's raw format in UTF-8 reads a value's bytes as
     * they are) is written as Flink's formats write it, through {@code StringData.toString()}:
     * each malformed sequence one U+FFFD, the messages equal to the stock sink's.
     */
    @Test
    void textThatIsNotUtf8IsWrittenAsFlinksFormatsWriteIt() throws Exception {
        String source = "invalid-text";
        KAFKA.cluster().createTopic(source, 1);
        HexFormat hex = HexFormat.of();
        List<String> texts = List.of("61eda0806280", "e4b8", "f09f98", "c3a9", "eda041", "80");
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (String text : texts) {
                producer.send(new ProducerRecord<>(source, 0, null, hex.parseHex(text))).get();
            }
        }
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("texts", "kafka", "text STRING", bidsTable("topic", source, Map.of("format", "raw"))));
        for (String format : List.of("json", "csv")) {
            String stockTopic = "text-stock-" + format;
            String fusedTopic = "text-fused-" + format;
            KAFKA.cluster().createTopic(stockTopic, 1);
            KAFKA.cluster().createTopic(fusedTopic, 1);
            tables.executeSql(ddl("stock_" + format, "kafka", "text STRING", sinkTable(stockTopic, format)));
            tables.executeSql(ddl("fused_" + format, "streamfusion-kafka", "text STRING", sinkTable(fusedTopic, format)));
            tables.executeSql("INSERT INTO stock_" + format + " SELECT text FROM texts").await(2, TimeUnit.MINUTES);
            tables.executeSql("INSERT INTO fused_" + format + " SELECT text FROM texts").await(2, TimeUnit.MINUTES);
            List<String> stock = values(stockTopic);
            assertThat(stock).hasSize(texts.size());
            if (format.equals("json")) {
                assertThat(stock).contains(hex.formatHex("{\"text\":\"a\ufffdb\ufffd\"}".getBytes(StandardCharsets.UTF_8)));
            }
            assertThat(values(fusedTopic)).as(format).containsExactlyInAnyOrderElementsOf(stock);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"json", "csv", "avro"})
    void theSinkWritesTheBytesFlinkWrites(String format) throws Exception {
        String stockTopic = "sink-stock-" + format;
        String fusedTopic = "sink-fused-" + format;
        KAFKA.cluster().createTopic(stockTopic, 2);
        KAFKA.cluster().createTopic(fusedTopic, 2);
        Map<String, String> stockOut = sinkTable(stockTopic, format);
        Map<String, String> fusedOut = sinkTable(fusedTopic, format);
        assertThat(sink(fusedOut).asSummaryString())
                .isEqualTo("StreamFusion Kafka table sink ('" + format + "' encoded natively per batch, " + PRODUCER + "at-least-once)");
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("bids", "kafka", bidsTable("topic", BIDS, Map.of())));
        tables.executeSql(ddl("stock_out", "kafka", stockOut));
        tables.executeSql(ddl("fused_out", "streamfusion-kafka", fusedOut));
        tables.executeSql("INSERT INTO stock_out SELECT * FROM bids").await(2, TimeUnit.MINUTES);
        tables.executeSql("INSERT INTO fused_out SELECT * FROM bids").await(2, TimeUnit.MINUTES);

        List<String> stockBytes = values(stockTopic);
        assertThat(stockBytes).hasSize(COUNT);
        assertThat(values(fusedTopic)).containsExactlyInAnyOrderElementsOf(stockBytes);

        // Read by streamfusion-kafka, the rows reach the sink in Flink's binary layout, which the
        // sink transposes natively.
        String binaryTopic = "sink-binary-" + format;
        KAFKA.cluster().createTopic(binaryTopic, 2);
        tables.executeSql(ddl("fused_bids", "streamfusion-kafka", bidsTable("topic", BIDS, Map.of())));
        tables.executeSql(ddl("binary_out", "streamfusion-kafka", sinkTable(binaryTopic, format)));
        tables.executeSql("INSERT INTO binary_out SELECT * FROM fused_bids").await(2, TimeUnit.MINUTES);
        assertThat(values(binaryTopic)).containsExactlyInAnyOrderElementsOf(stockBytes);
    }

    @Test
    void keysHeadersAndTimestampsAreWrittenAsFlinkWritesThem() throws Exception {
        // Fixed, and the producer's own (kafka-clients' murmur2 of the key, librdkafka's
        // murmur2_random): each key in the same partition either way.
        for (String partitioning : List.of("fixed", "default")) {
            assertKeyedRecordsAsFlinkWritesThem(partitioning);
        }
    }

    private void assertKeyedRecordsAsFlinkWritesThem(String partitioning) throws Exception {
        String columns =
                "k_auction BIGINT, k_channel STRING, " + BID_COLUMNS
                        + ", headers MAP<STRING, BYTES> METADATA, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'";
        Map<String, List<String>> written = new HashMap<>();
        for (String connector : List.of("kafka", "streamfusion-kafka")) {
            String topic = "sink-keyed-" + partitioning + "-" + connector;
            KAFKA.cluster().createTopic(topic, 2);
            Map<String, String> options = new HashMap<>(sinkTable(topic, "json"));
            options.remove("format");
            options.putAll(
                    Map.of(
                            "key.format", "json",
                            "key.fields", "k_auction;k_channel",
                            "key.fields-prefix", "k_",
                            "value.format", "json",
                            "value.fields-include", "EXCEPT_KEY",
                            "sink.partitioner", partitioning));
            if (connector.equals("streamfusion-kafka")) {
                assertThat(sink(options, columns).asSummaryString())
                        .isEqualTo("StreamFusion Kafka table sink ('json' values and 'json' keys encoded natively per batch, " + PRODUCER + "at-least-once)");
            }
            StreamTableEnvironment tables = tables();
            tables.executeSql(ddl("bids", "kafka", bidsTable("topic", BIDS, Map.of())));
            tables.executeSql(ddl("keyed_out", connector, columns, options));
            tables.executeSql(
                            "INSERT INTO keyed_out SELECT auction, channel, *, "
                                    + "MAP['bidder', CAST(CAST(bidder AS STRING) AS BYTES), 'empty', CAST(NULL AS BYTES)], "
                                    + "TO_TIMESTAMP_LTZ(auction, 3) FROM bids")
                    .await(2, TimeUnit.MINUTES);
            written.put(connector, records(topic, true));
        }
        assertThat(written.get("kafka")).hasSize(COUNT);
        assertThat(written.get("streamfusion-kafka")).as(partitioning).containsExactlyInAnyOrderElementsOf(written.get("kafka"));
    }

    /**
     * A subclass of Flink's fixed partitioner is the user's partitioner: Flink's sink hands it each
     * record's row and encoded key and value, so kafka-clients produces (librdkafka's sends keep
     * the bytes native) and every record lands in the partition the stock sink puts it in; a
     * forced native rung fails at planning.
     */
    @Test
    void aSubclassOfTheFixedPartitionerIsGivenTheRowKeyAndValueAsInFlink() throws Exception {
        String columns = "k_auction BIGINT, " + BID_COLUMNS;
        String partitioner = ValueRoutingPartitioner.class.getName();
        HexFormat hex = HexFormat.of();
        Map<String, List<String>> written = new HashMap<>();
        for (String connector : List.of("kafka", "streamfusion-kafka")) {
            String topic = "sink-subclassed-partitioner-" + connector;
            KAFKA.cluster().createTopic(topic, 3);
            Map<String, String> options = new HashMap<>(sinkTable(topic, "json"));
            options.remove("format");
            options.putAll(
                    Map.of(
                            "key.format", "json",
                            "key.fields", "k_auction",
                            "key.fields-prefix", "k_",
                            "value.format", "json",
                            "value.fields-include", "EXCEPT_KEY",
                            "sink.partitioner", partitioner));
            if (connector.equals("streamfusion-kafka")) {
                options.put("streamfusion.rung", "AUTO");
                assertThat(sink(options, columns).asSummaryString())
                        .isEqualTo(
                                "StreamFusion Kafka table sink ('json' values and 'json' keys encoded natively per batch, "
                                        + "produced by kafka-clients (the partitioner " + partitioner
                                        + " may read the encoded bytes), at-least-once)");
                Map<String, String> forced = new HashMap<>(options);
                forced.put("streamfusion.rung", "NATIVE");
                assertThatThrownBy(() -> sink(forced, columns))
                        .hasStackTraceContaining(
                                "'streamfusion.rung' = 'NATIVE', but the partitioner " + partitioner + " may read the encoded bytes");
            }
            StreamTableEnvironment tables = tables();
            tables.executeSql(ddl("bids", "kafka", bidsTable("topic", BIDS, Map.of())));
            tables.executeSql(ddl("routed_out", connector, columns, options));
            tables.executeSql("INSERT INTO routed_out SELECT auction, * FROM bids WHERE MOD(price, 7) = 0")
                    .await(2, TimeUnit.MINUTES);
            written.put(
                    connector,
                    KAFKA.cluster().readAll(topic).stream()
                            .map(r -> hex.formatHex(r.key()) + "|" + hex.formatHex(r.value()) + "|partition " + r.partition())
                            .collect(Collectors.toList()));
        }
        assertThat(written.get("kafka")).isNotEmpty();
        assertThat(written.get("streamfusion-kafka")).containsExactlyInAnyOrderElementsOf(written.get("kafka"));
    }

    /**
     * With both {@code format} and {@code value.format}, Flink's factory takes {@code format}, its
     * options under its identifier ({@code json.*}); so does StreamFusion, reading and writing.
     */
    @Test
    void formatIsTakenOverValueFormatAsFlinkTakesIt() throws Exception {
        Map<String, String> both = bidsTable("topic", BAD, Map.of("json.ignore-parse-errors", "true", "value.format", "csv"));
        assertThat(source(both).asSummaryString()).isEqualTo("StreamFusion Kafka table source (" + RUNG_DESCRIPTION + ")");
        assertSameRows("SELECT auction, price FROM %s", both);

        Map<String, List<String>> written = new HashMap<>();
        for (String connector : List.of("kafka", "streamfusion-kafka")) {
            String topic = "both-formats-" + connector;
            KAFKA.cluster().createTopic(topic, 1);
            Map<String, String> options = new HashMap<>(sinkTable(topic, "json"));
            options.put("value.format", "csv");
            if (connector.equals("streamfusion-kafka")) {
                assertThat(sink(options).asSummaryString())
                        .isEqualTo("StreamFusion Kafka table sink ('json' encoded natively per batch, " + PRODUCER + "at-least-once)");
            }
            StreamTableEnvironment tables = tables();
            tables.executeSql(ddl("bids", "kafka", bidsTable("topic", BIDS, Map.of())));
            tables.executeSql(ddl("both_out", connector, options));
            tables.executeSql("INSERT INTO both_out SELECT * FROM bids WHERE MOD(price, 7) = 0").await(2, TimeUnit.MINUTES);
            written.put(connector, values(topic));
        }
        // JSON objects, not CSV lines.
        String json = HexFormat.of().formatHex("{\"auction\":".getBytes(StandardCharsets.UTF_8));
        assertThat(written.get("kafka")).isNotEmpty().allSatisfy(value -> assertThat(value).startsWith(json));
        assertThat(written.get("streamfusion-kafka")).containsExactlyInAnyOrderElementsOf(written.get("kafka"));
    }

    /**
     * A record timestamp of 0 is written as 0 by kafka-clients (Flink's writer, the Java rung);
     * librdkafka would write the time of sending for it, so its producer fails naming the topic.
     * A negative one fails every producer, as kafka-clients refuses it.
     */
    @Test
    void recordTimestampsLibrdkafkaCannotWriteFailInsteadOfChanging() throws Exception {
        String columns = BID_COLUMNS + ", ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'";
        String row = "SELECT 1, 2, 3, 'c', 'u', TIMESTAMP '2024-01-01 00:00:00', 'e', TO_TIMESTAMP_LTZ(%d, 3)";
        for (String rung : List.of("NATIVE", "JAVA")) {
            String topic = "epoch-" + rung.toLowerCase(java.util.Locale.ROOT);
            Map<String, String> options = jsonSinkOfRung(topic, rung);
            StreamTableEnvironment tables = tables();
            tables.executeSql(ddl("epoch_out", "streamfusion-kafka", columns, options));
            assertThatThrownBy(() -> tables.executeSql("INSERT INTO epoch_out " + String.format(row, -1)).await(2, TimeUnit.MINUTES))
                    .as(rung)
                    .hasStackTraceContaining("Invalid timestamp: -1");
            if (rung.equals("NATIVE")) {
                assertThatThrownBy(() -> tables.executeSql("INSERT INTO epoch_out " + String.format(row, 0)).await(2, TimeUnit.MINUTES))
                        .hasStackTraceContaining("A record timestamp of 0")
                        .hasStackTraceContaining(topic);
            } else {
                tables.executeSql("INSERT INTO epoch_out " + String.format(row, 0)).await(2, TimeUnit.MINUTES);
                assertThat(KAFKA.cluster().readAll(topic)).singleElement().satisfies(r -> assertThat(r.timestamp()).isZero());
            }
        }
    }

    /**
     * A streaming job without checkpoints whose rows come slower than a batch fills: each rung's
     * sink sends them as they come (within its linger), as Flink's writer does, not at the next
     * checkpoint or when a batch of them fills.
     */
    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aStreamingSinkSendsRowsAsTheyComeWithoutACheckpoint() throws Exception {
        for (String rung : List.of("NATIVE", "JAVA")) {
            String topic = "trickle-" + rung.toLowerCase(java.util.Locale.ROOT);
            Map<String, String> options = jsonSinkOfRung(topic, rung);
            StreamTableEnvironment tables = tables();
            tables.executeSql("CREATE TABLE trickle (" + BID_COLUMNS + ") WITH ('connector' = 'datagen', 'rows-per-second' = '4')");
            tables.executeSql(ddl("trickle_out", "streamfusion-kafka", options));
            TableResult job = tables.executeSql("INSERT INTO trickle_out SELECT * FROM trickle");
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (values(topic).size() < 8 && System.nanoTime() < deadline) {
                    Thread.sleep(500);
                }
                assertThat(values(topic)).as(rung).hasSizeGreaterThanOrEqualTo(8);
            } finally {
                job.getJobClient().orElseThrow().cancel().get(1, TimeUnit.MINUTES);
            }
        }
    }

    /**
     * One reader, one writer, one partition in and out: the sink keeps the order of its rows, and
     * where only some rows carry headers (queued one by one; the others a run at a time) their
     * order among one another too, as Flink's sink writes them.
     */
    @Test
    void theSinkWritesRowsInTheirOrderWithAndWithoutHeaders() throws Exception {
        String source = "ordered-source";
        KAFKA.cluster().createTopic(source, 1);
        HexFormat hex = HexFormat.of();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (String value : values(BIDS)) {
                producer.send(new ProducerRecord<>(source, 0, null, hex.parseHex(value)));
            }
        }
        String columns = BID_COLUMNS + ", headers MAP<STRING, BYTES> METADATA";
        Map<String, List<String>> written = new HashMap<>();
        for (String connector : List.of("kafka", "streamfusion-kafka")) {
            String topic = "sink-ordered-" + connector;
            KAFKA.cluster().createTopic(topic, 1);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            StreamTableEnvironment tables = StreamTableEnvironment.create(env);
            tables.executeSql(ddl("bids", "kafka", bidsTable("topic", source, Map.of())));
            tables.executeSql(ddl("ordered_out", connector, columns, sinkTable(topic, "json")));
            tables.executeSql(
                            "INSERT INTO ordered_out SELECT *, CASE WHEN MOD(price, 3) = 0 "
                                    + "THEN MAP['price', CAST(CAST(price AS STRING) AS BYTES)] END FROM bids")
                    .await(2, TimeUnit.MINUTES);
            List<String> records = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> record : KAFKA.cluster().readAll(topic)) {
                StringBuilder headers = new StringBuilder();
                record.headers().forEach(h -> headers.append(h.key()).append('=').append(hex.formatHex(h.value())).append(';'));
                records.add(hex.formatHex(record.value()) + "|" + headers);
            }
            written.put(connector, records);
        }
        assertThat(written.get("kafka")).hasSize(COUNT);
        assertThat(written.get("kafka")).anyMatch(r -> r.endsWith("|")).anyMatch(r -> r.contains("|price="));
        assertThat(written.get("streamfusion-kafka")).containsExactlyElementsOf(written.get("kafka"));
    }

    @Test
    void sinksFallBackToFlinksWhereTheTableAsksForIt() {
        Map<String, String> exactlyOnce = new HashMap<>(sinkTable("unused", "json"));
        exactlyOnce.putAll(Map.of("sink.delivery-guarantee", "exactly-once", "sink.transactional-id-prefix", "sf"));
        assertThat(sink(exactlyOnce).asSummaryString())
                .isEqualTo(
                        "StreamFusion Kafka table sink ('json' encoded natively per batch, produced by kafka-clients "
                                + "(exactly-once runs in Kafka transactions), exactly-once)");
        Map<String, String> changelog = new HashMap<>(sinkTable("unused", "json"));
        changelog.put("format", "debezium-json");
        assertThat(sink(changelog).asSummaryString())
                .isEqualTo("StreamFusion Kafka table sink (Flink's own sink: the value format 'debezium-json' is not encoded natively)");
        Map<String, String> none = new HashMap<>(sinkTable("unused", "json"));
        none.put("sink.delivery-guarantee", "none");
        assertThat(sink(none).asSummaryString())
                .isEqualTo("StreamFusion Kafka table sink ('json' encoded natively per batch, " + PRODUCER + "none)");
        // A round-robin partitioner is kafka-clients' own class: librdkafka has none like it.
        Map<String, String> roundRobin = new HashMap<>(none);
        roundRobin.put("properties.partitioner.class", "org.apache.kafka.clients.producer.RoundRobinPartitioner");
        roundRobin.put("streamfusion.rung", "AUTO");
        assertThat(sink(roundRobin).asSummaryString())
                .isEqualTo(
                        "StreamFusion Kafka table sink ('json' encoded natively per batch, produced by kafka-clients "
                                + "(librdkafka cannot take 'partitioner.class' = "
                                + "'org.apache.kafka.clients.producer.RoundRobinPartitioner': no librdkafka equivalent), none)");
        roundRobin.put("streamfusion.rung", "NATIVE");
        assertThatThrownBy(() -> sink(roundRobin))
                .hasStackTraceContaining("'streamfusion.rung' = 'NATIVE', but librdkafka cannot take 'partitioner.class'");
    }

    @Test
    void anAtLeastOnceSinkLosesNothingWhenItsJobFails() throws Exception {
        String topic = "sink-failover";
        KAFKA.cluster().createTopic(topic, 2);
        StreamTableEnvironment tables = failingOnceTables();
        tables.executeSql(ddl("bids", "kafka", bidsTable("topic", BIDS, Map.of())));
        tables.executeSql(ddl("fused_out", "streamfusion-kafka", sinkTable(topic, "json")));
        FailOnce.reset(COUNT * 2 / 3);
        tables.executeSql(
                        "INSERT INTO fused_out SELECT auction, bidder, fail_once(price), channel, url, date_time, extra FROM bids")
                .await(3, TimeUnit.MINUTES);
        assertThat(FailOnce.failed()).as("the job failed once").isTrue();

        tables.executeSql(ddl("written", "kafka", bidsTable("topic", topic, Map.of())));
        List<String> written = collect(tables.executeSql("SELECT * FROM written"));
        List<String> expected = collect(tables.executeSql("SELECT * FROM bids"));
        // At least once: every row, perhaps some twice (those sent after the last checkpoint).
        assertThat(new HashSet<>(written)).isEqualTo(new HashSet<>(expected));
        assertThat(written.size()).isGreaterThanOrEqualTo(expected.size());
    }

    /**
     * Under {@code 'sink.delivery-guarantee' = 'none'} no record is waited for, yet a delivery that
     * failed fails the job at the next checkpoint, as Flink's Kafka writer checks at every flush:
     * here the job is idle after its one record, which the topic refuses as too large.
     */
    @Test
    void aFailedDeliveryFailsTheNextCheckpointUnderTheGuaranteeNone() throws Exception {
        String source = "one-large-value";
        String topic = "refuses-large-values";
        KAFKA.cluster().createTopic(source, 1);
        KAFKA.cluster().createTopic(topic, 1, Map.of("max.message.bytes", "1000"));
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(source, 0, null, "x".repeat(5000).getBytes(StandardCharsets.UTF_8))).get();
        }
        Configuration configuration = new Configuration();
        configuration.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(200));
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.setParallelism(1);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        // Unbounded: the job waits for more records after the one it has.
        tables.executeSql(ddl("oversized", "kafka", "v STRING", Map.of(
                "topic", source,
                "properties.bootstrap.servers", KAFKA.bootstrapServers(),
                "scan.startup.mode", "earliest-offset",
                "format", "raw")));
        Map<String, String> none = new HashMap<>(sinkTable(topic, "raw"));
        none.put("sink.delivery-guarantee", "none");
        tables.executeSql(ddl("refusing", "streamfusion-kafka", "v STRING", none));
        TableResult job = tables.executeSql("INSERT INTO refusing SELECT v FROM oversized");
        try {
            assertThatThrownBy(() -> job.await(2, TimeUnit.MINUTES)).hasStackTraceContaining(topic);
        } finally {
            job.getJobClient().orElseThrow().cancel();
        }
    }

    /**
     * Under either transaction naming strategy: {@code POOLING} looks up the transactions of the
     * sink's topic, which the natively encoded records' schema names to Flink's sink (as the stock
     * table sink's does), else the sink fails at planning.
     */
    @ParameterizedTest
    @ValueSource(strings = {"INCREMENTING", "POOLING"})
    void anExactlyOnceJobThatFailsWritesEveryRowOnceAndLeavesNoTransactionOpen(String naming) throws Exception {
        String topic = "sink-exactly-once-" + naming.toLowerCase(Locale.ROOT);
        String prefix = "sf-eos-" + RUNG + "-" + naming;
        KAFKA.cluster().createTopic(topic, 2);
        StreamTableEnvironment tables = failingOnceTables();
        tables.executeSql(ddl("bids", "streamfusion-kafka", bidsTable("topic", BIDS, Map.of())));
        Map<String, String> exactlyOnce = new HashMap<>(sinkTable(topic, "json"));
        exactlyOnce.putAll(
                Map.of(
                        "sink.delivery-guarantee", "exactly-once",
                        "sink.transactional-id-prefix", prefix,
                        "sink.transaction-naming-strategy", naming,
                        "properties.transaction.timeout.ms", "60000"));
        tables.executeSql(ddl("fused_out", "streamfusion-kafka", exactlyOnce));
        FailOnce.reset(COUNT * 2 / 3);
        tables.executeSql(
                        "INSERT INTO fused_out SELECT auction, bidder, fail_once(price), channel, url, date_time, extra FROM bids")
                .await(3, TimeUnit.MINUTES);
        assertThat(FailOnce.failed()).as("the job failed once").isTrue();

        tables.executeSql(
                ddl("committed_out", "kafka", bidsTable("topic", topic, Map.of("properties.isolation.level", "read_committed"))));
        List<String> written = collect(tables.executeSql("SELECT * FROM committed_out"));
        List<String> expected = collect(tables.executeSql("SELECT * FROM bids"));
        // Exactly once end to end: the source emits each record once after its restore, and the
        // transactions of the failed attempt were aborted.
        assertThat(written).hasSameSizeAs(expected).containsExactlyInAnyOrderElementsOf(expected);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", KAFKA.bootstrapServers()))) {
            List<String> open =
                    admin
                            .listTransactions(new ListTransactionsOptions().filterStates(List.of(TransactionState.ONGOING)))
                            .all()
                            .get(30, TimeUnit.SECONDS)
                            .stream()
                            .map(TransactionListing::transactionalId)
                            .filter(id -> id.startsWith(prefix))
                            .collect(Collectors.toList());
            assertThat(open).as("transactions left open").isEmpty();
        }
    }

    @Test
    void saslPlainCredentialsReachLibrdkafkaAndWrongOnesFailClearly() throws Exception {
        Map<String, String> sasl = new HashMap<>(bidsTable("topic", BIDS, Map.of()));
        sasl.put("properties.bootstrap.servers", KAFKA.cluster().saslPlainBootstrapServers());
        sasl.put("properties.security.protocol", "SASL_PLAINTEXT");
        sasl.put("properties.sasl.mechanism", "PLAIN");
        sasl.put("properties.sasl.jaas.config", plainLogin("alice-secret"));
        // The native rung takes the credentials through the translation table.
        assertThat(source(sasl).asSummaryString()).contains(RUNG_DESCRIPTION);
        assertSameRows("SELECT auction, price FROM %s", sasl);

        Map<String, String> wrong = new HashMap<>(sasl);
        wrong.put("properties.sasl.jaas.config", plainLogin("not-the-password"));
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("denied", "streamfusion-kafka", wrong));
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT auction FROM denied")))
                .hasStackTraceContaining("Authentication failed");
    }

    private static String plainLogin(String password) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" password=\""
                + password + "\";";
    }

    @Test
    void anUnknownTopicFailsTheJobNamingIt() {
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("missing", "streamfusion-kafka", bidsTable("topic", "no-such-topic", Map.of())));
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT auction FROM missing")))
                .hasStackTraceContaining("no-such-topic");
    }

    @Test
    void protobufReadsWhatFlinkReads() throws Exception {
        String topic = "formats-protobuf";
        KAFKA.cluster().createTopic(topic, 2);
        RowType type = NexmarkBids.PROTOBUF_BID_TYPE;
        PbRowDataSerializationSchema protobuf =
                new PbRowDataSerializationSchema(type, new PbFormatConfig(Bid.class.getName(), false, false, ""));
        protobuf.open(null);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (RowData bid : NexmarkBids.withEpochMillis(new NexmarkBids(9).next(COUNT))) {
                producer.send(new ProducerRecord<>(topic, protobuf.serialize(bid)));
            }
            producer.flush();
        }
        String columns =
                "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time BIGINT, extra STRING";
        Map<String, String> options =
                bidsTable("topic", topic, Map.of("format", "protobuf", "protobuf.message-class-name", Bid.class.getName()));
        assertSameRows("SELECT * FROM %s", columns, options);
        assertSameRows("SELECT url, price FROM %s WHERE MOD(auction, 7) = 0", columns, options);
    }

    @Test
    void aPartitionAddedWhileTheJobRunsIsRead() throws Exception {
        String topic = "growing";
        KAFKA.cluster().createTopic(topic, 1);
        List<RowData> bids = new NexmarkBids(11).next(15);
        JsonRowDataSerializationSchema json = json();
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, json.serialize(bids.get(i)))).get();
            }
        }
        Map<String, String> options =
                new HashMap<>(bidsTable("topic", topic, Map.of("scan.topic-partition-discovery.interval", "200 ms")));
        options.remove("scan.bounded.mode");
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("live", "streamfusion-kafka", BID_COLUMNS + ", part INT METADATA FROM 'partition' VIRTUAL", options));
        List<String> rows = new ArrayList<>();
        CloseableIterator<Row> live = tables.executeSql("SELECT part, auction FROM live").collect();
        try {
            take(live, rows, 10);
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", KAFKA.bootstrapServers()));
                    KafkaProducer<byte[], byte[]> producer = producer()) {
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(2))).all().get();
                for (int i = 10; i < 15; i++) {
                    producer.send(new ProducerRecord<>(topic, 1, null, json.serialize(bids.get(i)))).get();
                }
            }
            take(live, rows, 15);
        } finally {
            live.close();
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            expected.add("+I[" + (i < 10 ? 0 : 1) + ", " + bids.get(i).getLong(0) + "]");
        }
        assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void anUnreachableBrokerFailsTheJobAfterTheConfiguredTimeout() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Map<String, String> options = new HashMap<>(bidsTable("topic", BIDS, Map.of("properties.default.api.timeout.ms", "2000", "properties.request.timeout.ms", "1000")));
        options.put("properties.bootstrap.servers", "127.0.0.1:" + closedPort);
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("unreachable", "streamfusion-kafka", options));
        long started = System.nanoTime();
        assertThatThrownBy(() -> collect(tables.executeSql("SELECT auction FROM unreachable")))
                .hasStackTraceContaining("Timed out");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(60));
    }

    @Test
    void aBrokerRestartedMidStreamLosesAndDuplicatesNothing() throws Exception {
        String topic = "restarting";
        KAFKA.cluster().createTopic(topic, 2);
        List<RowData> bids = new NexmarkBids(13).next(1000);
        JsonRowDataSerializationSchema json = json();
        produceAlternating(topic, json, bids.subList(0, 500));
        // Bounded at the offsets the whole input will reach, so the job ends once it read it all.
        Map<String, String> options =
                new HashMap<>(
                        bidsTable(
                                "topic",
                                topic,
                                Map.of(
                                        "scan.bounded.mode", "specific-offsets",
                                        "scan.bounded.specific-offsets", "partition:0,offset:500;partition:1,offset:500")));
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("restarting", "streamfusion-kafka", options));
        List<String> rows = new ArrayList<>();
        CloseableIterator<Row> live = tables.executeSql("SELECT auction, bidder, price, url FROM restarting").collect();
        try {
            take(live, rows, 500);
            KAFKA.cluster().restart();
            produceAlternating(topic, json, bids.subList(500, 1000));
            CompletableFuture.runAsync(() -> live.forEachRemaining(row -> rows.add(row.toString())))
                    .get(3, TimeUnit.MINUTES);
        } finally {
            live.close();
        }
        List<String> expected = new ArrayList<>();
        for (RowData bid : bids) {
            expected.add(
                    "+I[" + bid.getLong(0) + ", " + bid.getLong(1) + ", " + bid.getLong(2) + ", " + bid.getString(4) + "]");
        }
        assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
    }

    /** Reads rows of a running query until {@code rows} holds {@code count}; two minutes at most. */
    private static void take(CloseableIterator<Row> live, List<String> rows, int count) throws Exception {
        CompletableFuture.runAsync(
                        () -> {
                            while (rows.size() < count && live.hasNext()) {
                                rows.add(live.next().toString());
                            }
                        })
                .get(2, TimeUnit.MINUTES);
    }

    /** Flink's JSON serializer of bids. */
    private static JsonRowDataSerializationSchema json() throws Exception {
        JsonRowDataSerializationSchema json =
                new JsonRowDataSerializationSchema(
                        NexmarkBids.BID_TYPE, TimestampFormat.SQL, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
        json.open(null);
        return json;
    }

    /** Produces {@code bids} as JSON, record {@code i} to partition {@code i % 2}. */
    private static void produceAlternating(String topic, JsonRowDataSerializationSchema json, List<RowData> bids)
            throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < bids.size(); i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, i % 2, null, json.serialize(bids.get(i)))));
            }
            for (Future<RecordMetadata> send : sent) {
                send.get();
            }
        }
    }

    @Test
    void aFailedJobResumesFromItsCheckpointWithoutLossOrDuplication() throws Exception {
        Map<String, String> options = bidsTable("topic", BIDS, Map.of());
        StreamTableEnvironment stock = tables();
        stock.executeSql(ddl("stock", "kafka", options));
        List<String> expected = collect(stock.executeSql("SELECT auction, bidder, price, date_time FROM stock"));

        StreamTableEnvironment tables = failingOnceTables();
        tables.executeSql(ddl("fused", "streamfusion-kafka", options));
        FailOnce.reset(COUNT * 2 / 3);
        List<String> actual =
                collect(tables.executeSql("SELECT auction, bidder, fail_once(price) AS price, date_time FROM fused"));

        assertThat(FailOnce.failed()).as("the job failed once").isTrue();
        // Restarted from a checkpoint, not from the start: fewer calls than two full reads.
        assertThat(FailOnce.calls()).isLessThan(COUNT * 2 / 3 + COUNT);
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * Tables whose jobs checkpoint every 100 ms and restart after a failure, with {@code
     * fail_once} (see {@link FailOnce}) registered.
     */
    private static StreamTableEnvironment failingOnceTables() {
        return FailOnce.restartingTables(2, Duration.ofMillis(100));
    }

    private static Map<String, String> bidsTable(String topicOption, String topic, Map<String, String> extra) {
        Map<String, String> options = new HashMap<>();
        options.put(topicOption, topic);
        options.put("properties.bootstrap.servers", KAFKA.bootstrapServers());
        options.put("scan.startup.mode", "earliest-offset");
        options.put("scan.bounded.mode", "latest-offset");
        options.put("format", "json");
        options.putAll(extra);
        return options;
    }

    /** Runs {@code query} (with {@code %s} for the table) on the stock and the StreamFusion table. */
    private static void assertSameRows(String query, Map<String, String> options) throws Exception {
        assertSameRows(query, BID_COLUMNS, options);
    }

    private static void assertSameRows(String query, String columns, Map<String, String> options) throws Exception {
        StreamTableEnvironment tables = tables();
        tables.executeSql(ddl("stock", "kafka", columns, options));
        tables.executeSql(ddl("fused", "streamfusion-kafka", columns, options));
        List<String> expected = collect(tables.executeSql(String.format(query, "stock")));
        List<String> actual = collect(tables.executeSql(String.format(query, "fused")));
        assertThat(expected).isNotEmpty();
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static StreamTableEnvironment tables() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        return StreamTableEnvironment.create(env);
    }

    private static String ddl(String name, String connector, Map<String, String> options) {
        return ddl(name, connector, BID_COLUMNS, options);
    }

    private static String ddl(String name, String connector, String columns, Map<String, String> options) {
        String with =
                withRung(connector, options).entrySet().stream()
                        .map(e -> "'" + e.getKey() + "' = '" + e.getValue() + "'")
                        .collect(Collectors.joining(", "));
        return "CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = '" + connector + "', " + with + ")";
    }

    /** {@code options}, with this run's rung for a streamfusion-kafka table that names none. */
    private static Map<String, String> withRung(String connector, Map<String, String> options) {
        if (!connector.equals("streamfusion-kafka") || options.containsKey("streamfusion.rung")) {
            return options;
        }
        Map<String, String> withRung = new HashMap<>(options);
        withRung.put("streamfusion.rung", RUNG);
        return withRung;
    }

    /** The final rows of a bounded query; a job still running after two minutes fails the test. */
    private static List<String> collect(TableResult result) throws Exception {
        return ChangelogRows.drain(result.collect(), Duration.ofMinutes(2));
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        Properties props = new Properties();
        props.put("bootstrap.servers", KAFKA.bootstrapServers());
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String group) {
        Properties props = new Properties();
        props.put("bootstrap.servers", KAFKA.bootstrapServers());
        props.put("group.id", group);
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        return new KafkaConsumer<>(props);
    }
}
