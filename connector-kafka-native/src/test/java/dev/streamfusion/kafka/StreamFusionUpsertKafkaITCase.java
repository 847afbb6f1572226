package dev.streamfusion.kafka;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.table.StockCounterpart;
import dev.streamfusion.kafka.table.StreamFusionUpsertKafkaTableFactory;
import dev.streamfusion.testkit.flink.ChangelogRows;
import dev.streamfusion.testkit.flink.FailOnce;
import dev.streamfusion.testkit.flink.MiniClusters;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;
import dev.streamfusion.testkit.kafka.KafkaBrokerExtension;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * streamfusion-upsert-kafka against Flink's upsert-kafka connector on a real broker, in real
 * MiniCluster jobs, on both rungs: the same topic reads as the same changelog (updates, deletes by
 * tombstone, NULL values, a key prefix and EXCEPT_KEY values, metadata, a compacted topic), the
 * sink writes the records Flink's sink writes (upserts and tombstones, reduced by key when
 * buffered, also by the interval alone, values without fields), each reads what the other
 * wrote, a failed job loses no update, and a malformed key is named or skipped.
 */
class StreamFusionUpsertKafkaITCase {

    /** The log cleaner looks for work every half second, so a compacted topic compacts in a test. */
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA =
            new KafkaBrokerExtension(ChildJvmKafkaBroker.builder().brokerProperty("log.cleaner.backoff.ms", "500"));

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2, new Configuration());

    /** A changelog topic: upserts and tombstones of 20 keys, each key on one of two partitions. */
    private static final String UPDATES = "updates";
    /** An append-only topic of orders, aggregated into upsert tables by the sink tests. */
    private static final String ORDERS = "orders";

    private static final int UPDATE_COUNT = 300;
    private static final int ORDER_COUNT = 600;
    private static final int ORDER_KEYS = 7;

    private static final String UPSERT_COLUMNS = "id BIGINT, name STRING, amount INT, PRIMARY KEY (id) NOT ENFORCED";
    private static final String TOTALS_COLUMNS = "name STRING, cnt BIGINT, total BIGINT, PRIMARY KEY (name) NOT ENFORCED";
    /** Per name, its orders' count and sum, dropped whenever the count is a multiple of 10. */
    private static final String TOTALS_QUERY =
            "SELECT name, COUNT(*) AS cnt, SUM(CAST(amount AS BIGINT)) AS total FROM orders GROUP BY name"
                    + " HAVING COUNT(*) % 10 <> 0";

    private static long nativeBaseline;

    @BeforeAll
    static void produce() throws Exception {
        nativeBaseline = NativeLibrary.nativeAllocatedBytes();
        KAFKA.cluster().createTopic(UPDATES, 2);
        KAFKA.cluster().createTopic(ORDERS, 1);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (ProducerRecord<byte[], byte[]> record : updates(UPDATES, 0, UPDATE_COUNT)) {
                producer.send(record).get();
            }
            // A tombstone of a key never written, and a record without a key: Flink reads neither.
            producer.send(new ProducerRecord<>(UPDATES, 1, bytes("{\"id\":1001}"), null)).get();
            producer.send(new ProducerRecord<>(UPDATES, 0, null, bytes(value(7, "keyless", 1)))).get();
            for (int i = 0; i < ORDER_COUNT; i++) {
                String order = "{\"name\":\"k" + (i % ORDER_KEYS) + "\",\"amount\":" + i + "}";
                producer.send(new ProducerRecord<>(ORDERS, 0, null, bytes(order))).get();
            }
        }
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

    /**
     * Records {@code from} up to {@code to} of the changelog script: key {@code i % 20} (on
     * partition {@code key % 2}), a tombstone every seventh record, NULL names and amounts now and
     * then.
     */
    private static List<ProducerRecord<byte[], byte[]>> updates(String topic, int from, int to) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = from; i < to; i++) {
            int id = i % 20;
            byte[] key = bytes("{\"id\":" + id + "}");
            byte[] value =
                    i % 7 == 3
                            ? null
                            : bytes(value(id, i % 11 == 0 ? null : "n" + i, i % 13 == 0 ? null : i));
            records.add(new ProducerRecord<>(topic, id % 2, key, value));
        }
        return records;
    }

    /**
     * The changelog Flink's planner makes of the first {@code count} records of the script, per
     * key: an upsert inserts a key or updates it (-U, +U), a tombstone deletes a key it holds.
     */
    private static Map<Object, List<String>> normalized(int count) {
        Map<Long, String> rows = new HashMap<>();
        Map<Object, List<String>> changelog = new HashMap<>();
        for (int i = 0; i < count; i++) {
            long id = i % 20;
            List<String> changes = new ArrayList<>();
            if (i % 7 == 3) {
                String deleted = rows.remove(id);
                if (deleted != null) {
                    changes.add("-D" + deleted);
                }
            } else {
                String row = "[" + id + ", " + (i % 11 == 0 ? null : "n" + i) + ", " + (i % 13 == 0 ? null : i) + "]";
                String before = rows.put(id, row);
                if (before != null) {
                    changes.add("-U" + before);
                }
                changes.add((before == null ? "+I" : "+U") + row);
            }
            if (!changes.isEmpty()) {
                changelog.computeIfAbsent(id, k -> new ArrayList<>()).addAll(changes);
            }
        }
        return changelog;
    }

    private static String value(long id, String name, Integer amount) {
        return "{\"id\":" + id + ",\"name\":" + (name == null ? "null" : "\"" + name + "\"") + ",\"amount\":" + amount + "}";
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"NATIVE", "JAVA"})
    void aTopicReadsAsTheChangelogFlinkReads(String rung) throws Exception {
        Map<String, String> options = upsertTable(UPDATES, rung, Map.of("scan.bounded.mode", "latest-offset"));
        assertThat(source(options, UPSERT_COLUMNS).asSummaryString())
                .isEqualTo(
                        "StreamFusion upsert Kafka table source ("
                                + (rung.equals("JAVA")
                                        ? "Java rung (chosen by 'streamfusion.rung' = 'JAVA'): kafka-clients polls, 'json' values and 'json' keys decoded natively per poll"
                                        : "native rung: librdkafka polls, 'json' values and 'json' keys decoded natively")
                                + ")");
        Map<Object, List<String>> expected = assertSameChangelog("SELECT * FROM %s", UPSERT_COLUMNS, options);
        // Both are the script's changelog: keys updated, deleted by tombstones and written again,
        // NULLs, and nothing of the tombstone of a key never written or of the keyless record.
        assertThat(expected).isEqualTo(normalized(UPDATE_COUNT));

        // The key's columns under a prefix, values without them, and metadata columns.
        String prefixed =
                "k_id BIGINT, name STRING, amount INT, part INT METADATA FROM 'partition' VIRTUAL, PRIMARY KEY (k_id) NOT ENFORCED";
        Map<String, String> exceptKey = new HashMap<>(options);
        exceptKey.put("key.fields-prefix", "k_");
        exceptKey.put("value.fields-include", "EXCEPT_KEY");
        assertSameChangelog("SELECT k_id, part, amount FROM %s", prefixed, exceptKey);

        // A raw value: its decoder makes a NULL row of a tombstone, which stays a delete.
        Map<String, String> raw = new HashMap<>(options);
        raw.put("value.format", "raw");
        raw.put("value.fields-include", "EXCEPT_KEY");
        assertSameChangelog("SELECT * FROM %s", "id BIGINT, payload STRING, PRIMARY KEY (id) NOT ENFORCED", raw);
    }

    @ParameterizedTest
    @ValueSource(strings = {"NATIVE", "JAVA"})
    void theSinkWritesTheRecordsFlinksSinkWrites(String rung) throws Exception {
        String stockTopic = "totals-stock-" + rung;
        String fusedTopic = "totals-fused-" + rung;
        KAFKA.cluster().createTopic(stockTopic, 2);
        KAFKA.cluster().createTopic(fusedTopic, 2);
        Map<String, String> fused = upsertTable(fusedTopic, rung, Map.of());
        assertThat(sink(fused, TOTALS_COLUMNS).asSummaryString())
                .startsWith("StreamFusion upsert Kafka table sink (upserts and tombstones, 'json' values and 'json' keys encoded natively per batch, ");
        StreamTableEnvironment tables = tables(1);
        tables.executeSql(ordersDdl());
        tables.executeSql(ddl("stock_out", "upsert-kafka", TOTALS_COLUMNS, upsertTable(stockTopic, null, Map.of())));
        tables.executeSql(ddl("fused_out", "streamfusion-upsert-kafka", TOTALS_COLUMNS, fused));
        tables.executeSql("INSERT INTO stock_out " + TOTALS_QUERY).await(3, TimeUnit.MINUTES);
        tables.executeSql("INSERT INTO fused_out " + TOTALS_QUERY).await(3, TimeUnit.MINUTES);

        Map<String, List<String>> written = recordsByKey(fusedTopic);
        assertThat(written).isEqualTo(recordsByKey(stockTopic));
        // One record per update of a key, a tombstone each time its count reached a multiple of 10.
        assertThat(written.get("{\"name\":\"k0\"}")).hasSizeGreaterThan(10).contains("null");

        // Each connector reads what the other wrote as the table's final rows.
        Map<String, String> readFused = upsertTable(fusedTopic, null, Map.of("scan.bounded.mode", "latest-offset"));
        Map<String, String> readStock = upsertTable(stockTopic, rung, Map.of("scan.bounded.mode", "latest-offset"));
        tables.executeSql(ddl("fused_by_stock", "upsert-kafka", TOTALS_COLUMNS, readFused));
        tables.executeSql(ddl("stock_by_fused", "streamfusion-upsert-kafka", TOTALS_COLUMNS, readStock));
        List<String> expected = finalRows(tables.executeSql(TOTALS_QUERY));
        assertThat(expected).hasSize(ORDER_KEYS);
        assertThat(finalRows(tables.executeSql("SELECT * FROM fused_by_stock"))).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(finalRows(tables.executeSql("SELECT * FROM stock_by_fused"))).containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * A table whose every column is in its key ({@code EXCEPT_KEY}) has values without fields:
     * Flink's sink writes an empty JSON object for each upsert and a tombstone for each delete, and
     * so does StreamFusion's, whose encoders then take batches with rows but no columns.
     */
    @ParameterizedTest
    @ValueSource(strings = {"NATIVE", "JAVA"})
    void aTableOfKeysOnlyWritesTheRecordsFlinksSinkWrites(String rung) throws Exception {
        String columns = "name STRING, PRIMARY KEY (name) NOT ENFORCED";
        String query = "SELECT name FROM orders GROUP BY name HAVING COUNT(*) % 10 <> 0";
        String stockTopic = "keys-only-stock-" + rung;
        String fusedTopic = "keys-only-fused-" + rung;
        KAFKA.cluster().createTopic(stockTopic, 2);
        KAFKA.cluster().createTopic(fusedTopic, 2);
        Map<String, String> exceptKey = Map.of("value.fields-include", "EXCEPT_KEY");
        Map<String, String> fused = upsertTable(fusedTopic, rung, exceptKey);
        assertThat(sink(fused, columns).asSummaryString())
                .startsWith("StreamFusion upsert Kafka table sink (upserts and tombstones, 'json' values and 'json' keys encoded natively per batch, ");
        writeThroughBoth(columns, query, upsertTable(stockTopic, null, exceptKey), fused);

        Map<String, List<String>> written = recordsByKey(fusedTopic);
        assertThat(written).isEqualTo(recordsByKey(stockTopic)).hasSize(ORDER_KEYS);
        assertThat(written.get("{\"name\":\"k0\"}")).contains("{}", "null").containsOnly("{}", "null");
    }

    /**
     * Flink's upsert sink never serializes a delete's value (it writes a tombstone), so a delete
     * may hold values its value format cannot write: here a TIMESTAMP(9) past the years Arrow's
     * nanoseconds hold, which no native encoder takes. Neither sink encodes it, and both write the
     * same records.
     */
    @ParameterizedTest
    @ValueSource(strings = {"NATIVE", "JAVA"})
    void aDeletesValueIsNeverEncoded(String rung) throws Exception {
        String columns = "id BIGINT NOT NULL, ends TIMESTAMP(9), PRIMARY KEY (id) NOT ENFORCED";
        String stockTopic = "deletes-stock-" + rung;
        String fusedTopic = "deletes-fused-" + rung;
        KAFKA.cluster().createTopic(stockTopic, 1);
        KAFKA.cluster().createTopic(fusedTopic, 1);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        // Deletes as they come, not as a materializer in front of the sink would restate them.
        tables.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        LocalDateTime near = LocalDateTime.of(2026, 12, 6, 10, 30, 0, 123_456_789);
        LocalDateTime far = LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_999);
        tables.createTemporaryView(
                "changes",
                tables.fromChangelogStream(
                        env.fromData(
                                        Types.ROW(Types.LONG, Types.LOCAL_DATE_TIME),
                                        Row.ofKind(RowKind.INSERT, 1L, near),
                                        Row.ofKind(RowKind.INSERT, 2L, near),
                                        Row.ofKind(RowKind.DELETE, 1L, far),
                                        Row.ofKind(RowKind.UPDATE_BEFORE, 2L, near),
                                        Row.ofKind(RowKind.UPDATE_AFTER, 2L, near.plusDays(1))),
                        Schema.newBuilder()
                                .column("f0", DataTypes.BIGINT().notNull())
                                .column("f1", DataTypes.TIMESTAMP(9))
                                .primaryKey("f0")
                                .build(),
                        ChangelogMode.all()));
        tables.executeSql(ddl("stock_out", "upsert-kafka", columns, upsertTable(stockTopic, null, Map.of())));
        tables.executeSql(ddl("fused_out", "streamfusion-upsert-kafka", columns, upsertTable(fusedTopic, rung, Map.of())));
        tables.executeSql("INSERT INTO stock_out SELECT * FROM changes").await(3, TimeUnit.MINUTES);
        tables.executeSql("INSERT INTO fused_out SELECT * FROM changes").await(3, TimeUnit.MINUTES);

        Map<String, List<String>> written = recordsByKey(fusedTopic);
        assertThat(written).isEqualTo(recordsByKey(stockTopic));
        assertThat(written.get("{\"id\":1}")).containsExactly("{\"id\":1,\"ends\":\"2026-12-06 10:30:00.123456789\"}", "null");
        // The update-before never reaches an upsert sink: the planner drops it for both.
        assertThat(written.get("{\"id\":2}"))
                .containsExactly(
                        "{\"id\":2,\"ends\":\"2026-12-06 10:30:00.123456789\"}",
                        "{\"id\":2,\"ends\":\"2026-12-07 10:30:00.123456789\"}");
    }

    /**
     * Writes {@code query} over the orders into a table of {@code columns}: through stock
     * upsert-kafka with the options {@code stock}, then through streamfusion-upsert-kafka with
     * {@code fused}.
     */
    private static void writeThroughBoth(String columns, String query, Map<String, String> stock, Map<String, String> fused)
            throws Exception {
        StreamTableEnvironment tables = tables(1);
        tables.executeSql(ordersDdl());
        tables.executeSql(ddl("stock_out", "upsert-kafka", columns, stock));
        tables.executeSql(ddl("fused_out", "streamfusion-upsert-kafka", columns, fused));
        tables.executeSql("INSERT INTO stock_out " + query).await(3, TimeUnit.MINUTES);
        tables.executeSql("INSERT INTO fused_out " + query).await(3, TimeUnit.MINUTES);
    }

    @ParameterizedTest
    @ValueSource(strings = {"NATIVE", "JAVA"})
    void aBufferedSinkReducesByKeyAsFlinksDoes(String rung) throws Exception {
        String stockTopic = "buffered-stock-" + rung;
        String fusedTopic = "buffered-fused-" + rung;
        KAFKA.cluster().createTopic(stockTopic, 2);
        KAFKA.cluster().createTopic(fusedTopic, 2);
        // Neither the row count nor the interval is reached: the end of input sends each key's
        // latest row once.
        Map<String, String> buffering =
                Map.of("sink.buffer-flush.max-rows", "1000", "sink.buffer-flush.interval", "10 min");
        Map<String, String> fused = upsertTable(fusedTopic, rung, buffering);
        assertThat(sink(fused, TOTALS_COLUMNS).asSummaryString())
                .startsWith("StreamFusion upsert Kafka table sink (upserts and tombstones reduced by key (up to 1000 keys or 600000 ms), ");
        writeThroughBoth(TOTALS_COLUMNS, TOTALS_QUERY, upsertTable(stockTopic, null, buffering), fused);

        Map<String, List<String>> written = recordsByKey(fusedTopic);
        assertThat(written).isEqualTo(recordsByKey(stockTopic)).hasSize(ORDER_KEYS);
        assertThat(written.values()).allSatisfy(records -> assertThat(records).hasSize(1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"NATIVE", "JAVA"})
    void bufferedRowsGoOutOnceTheIntervalPasses(String rung) throws Exception {
        String topic = "interval-" + rung;
        KAFKA.cluster().createTopic(topic, 1);
        StreamTableEnvironment tables = tables(1);
        Map<String, String> unbounded = new HashMap<>(ordersOptions());
        unbounded.remove("scan.bounded.mode");
        tables.executeSql(ddl("orders", "kafka", "name STRING, amount INT", unbounded));
        tables.executeSql(
                ddl(
                        "fused_out",
                        "streamfusion-upsert-kafka",
                        TOTALS_COLUMNS,
                        upsertTable(topic, rung, Map.of("sink.buffer-flush.max-rows", "1000", "sink.buffer-flush.interval", "300 ms"))));
        // No checkpoints, no end of input, fewer keys than the row count: only the interval sends.
        TableResult job = tables.executeSql("INSERT INTO fused_out " + TOTALS_QUERY);
        try {
            Map<String, String> expected = new TreeMap<>();
            for (int k = 0; k < ORDER_KEYS; k++) {
                long count = 0;
                long total = 0;
                for (int i = k; i < ORDER_COUNT; i += ORDER_KEYS) {
                    count++;
                    total += i;
                }
                expected.put(
                        "{\"name\":\"k" + k + "\"}",
                        count % 10 == 0 ? "null" : "{\"name\":\"k" + k + "\",\"cnt\":" + count + ",\"total\":" + total + "}");
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            Map<String, String> latest = latestByKey(topic);
            while (!latest.equals(expected) && System.nanoTime() < deadline) {
                Thread.sleep(500);
                latest = latestByKey(topic);
            }
            assertThat(latest).isEqualTo(expected);
        } finally {
            job.getJobClient().orElseThrow().cancel().get(1, TimeUnit.MINUTES);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"NATIVE", "JAVA"})
    void aJobThatFailsResumesWithoutLosingAnUpdate(String rung) throws Exception {
        String topic = "failover-" + rung;
        KAFKA.cluster().createTopic(topic, 2);
        StreamTableEnvironment tables = FailOnce.restartingTables(2, Duration.ofMillis(100));
        tables.executeSql(
                ddl("src", "streamfusion-upsert-kafka", UPSERT_COLUMNS, upsertTable(UPDATES, rung, Map.of("scan.bounded.mode", "latest-offset"))));
        tables.executeSql(ddl("fused_out", "streamfusion-upsert-kafka", UPSERT_COLUMNS, upsertTable(topic, rung, Map.of())));
        FailOnce.reset(UPDATE_COUNT / 2);
        tables.executeSql("INSERT INTO fused_out SELECT id, name, CAST(fail_once(amount) AS INT) FROM src").await(3, TimeUnit.MINUTES);
        assertThat(FailOnce.failed()).as("the job failed once").isTrue();

        tables.executeSql(ddl("stock_in", "upsert-kafka", UPSERT_COLUMNS, upsertTable(UPDATES, null, Map.of("scan.bounded.mode", "latest-offset"))));
        tables.executeSql(ddl("written", "upsert-kafka", UPSERT_COLUMNS, upsertTable(topic, null, Map.of("scan.bounded.mode", "latest-offset"))));
        List<String> expected = finalRows(tables.executeSql("SELECT * FROM stock_in"));
        assertThat(expected).isNotEmpty();
        // At least once: a record sent again after the restart rewrites its key's row; the table
        // ends as its input ends.
        assertThat(finalRows(tables.executeSql("SELECT * FROM written"))).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aCompactedTopicReadsAsFlinkReadsIt() throws Exception {
        String topic = "compacted";
        KAFKA.cluster()
                .createTopic(
                        topic,
                        2,
                        Map.of(
                                "cleanup.policy", "compact",
                                "segment.ms", "100",
                                "min.cleanable.dirty.ratio", "0.01",
                                "delete.retention.ms", "3600000"));
        int produced = 0;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (ProducerRecord<byte[], byte[]> record : updates(topic, 0, UPDATE_COUNT)) {
                producer.send(record).get();
                produced++;
            }
            // Each later record rolls its partition's segment, until the cleaner has compacted the
            // earlier ones: the topic then has gaps in its offsets.
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            int next = UPDATE_COUNT;
            while (readable(topic) == produced && System.nanoTime() < deadline) {
                Thread.sleep(300);
                for (ProducerRecord<byte[], byte[]> record : updates(topic, next, next + 2)) {
                    producer.send(record).get();
                    produced++;
                }
                next += 2;
            }
        }
        assertThat(readable(topic)).as("records left after compaction").isLessThan(produced);
        for (String rung : List.of("NATIVE", "JAVA")) {
            assertSameChangelog(
                    "SELECT * FROM %s", UPSERT_COLUMNS, upsertTable(topic, rung, Map.of("scan.bounded.mode", "latest-offset")));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"NATIVE", "JAVA"})
    void aMalformedKeyFailsNamingItsRecordOrIsSkipped(String rung) throws Exception {
        String topic = "bad-keys-" + rung;
        KAFKA.cluster().createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            producer.send(new ProducerRecord<>(topic, 0, bytes("{\"id\":1}"), bytes(value(1, "a", 1)))).get();
            producer.send(new ProducerRecord<>(topic, 0, bytes("{\"id\": oops"), bytes(value(2, "b", 2)))).get();
            producer.send(new ProducerRecord<>(topic, 0, bytes("{\"id\": oops"), null)).get();
            producer.send(new ProducerRecord<>(topic, 0, bytes("{\"id\":3}"), bytes(value(3, "c", 3)))).get();
            producer.send(new ProducerRecord<>(topic, 0, bytes("{\"id\":1}"), null)).get();
        }
        StreamTableEnvironment tables = tables(1);
        tables.executeSql(ddl("failing", "streamfusion-upsert-kafka", UPSERT_COLUMNS, upsertTable(topic, rung, Map.of("scan.bounded.mode", "latest-offset"))));
        assertThatThrownBy(() -> finalRows(tables.executeSql("SELECT * FROM failing")))
                .hasStackTraceContaining("Failed to decode the key of the Kafka record at offset 1 of " + topic + "-0 (json)");

        tables.executeSql(
                ddl(
                        "skipping",
                        "streamfusion-upsert-kafka",
                        UPSERT_COLUMNS,
                        upsertTable(topic, rung, Map.of("scan.bounded.mode", "latest-offset", "streamfusion.errors", "SKIP"))));
        // Both records with the malformed key are skipped; the tombstone of key 1 deletes it.
        assertThat(finalRows(tables.executeSql("SELECT * FROM skipping"))).containsExactly("+I[3, c, 3]");
    }

    /**
     * A value Flink's JSON format makes a NULL row of (a JSON {@code null} in an array, or under
     * {@code ignore-parse-errors} an element that is no object) deletes its key in Flink's
     * upsert source, as a tombstone does; the rows before it in the same array stay upserts.
     * Without the option, a value that does not convert fails both.
     */
    @ParameterizedTest
    @ValueSource(strings = {"NATIVE", "JAVA"})
    void aValueTheFormatMakesANullRowOfDeletesItsKey(String rung) throws Exception {
        String topic = "null-values-" + rung;
        KAFKA.cluster().createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int id = 1; id <= 4; id++) {
                producer.send(new ProducerRecord<>(topic, 0, bytes("{\"id\":" + id + "}"), bytes(value(id, "a" + id, id)))).get();
            }
            producer.send(new ProducerRecord<>(topic, 0, bytes("{\"id\":1}"), bytes("[null]"))).get();
            producer.send(new ProducerRecord<>(topic, 0, bytes("{\"id\":2}"), bytes("[" + value(2, "b2", 20) + ",null]"))).get();
            producer.send(new ProducerRecord<>(topic, 0, bytes("{\"id\":3}"), bytes("[1]"))).get();
        }
        Map<String, String> ignoring =
                upsertTable(topic, rung, Map.of("scan.bounded.mode", "latest-offset", "value.json.ignore-parse-errors", "true"));
        Map<Object, List<String>> changelog = assertSameChangelog("SELECT * FROM %s", UPSERT_COLUMNS, ignoring);
        assertThat(changelog.get(1L)).containsExactly("+I[1, a1, 1]", "-D[1, a1, 1]");
        assertThat(changelog.get(2L)).containsExactly("+I[2, a2, 2]", "-U[2, a2, 2]", "+U[2, b2, 20]", "-D[2, b2, 20]");
        assertThat(changelog.get(3L)).containsExactly("+I[3, a3, 3]", "-D[3, a3, 3]");
        assertThat(changelog.get(4L)).containsExactly("+I[4, a4, 4]");

        StreamTableEnvironment tables = tables(1);
        tables.executeSql(ddl("failing", "streamfusion-upsert-kafka", UPSERT_COLUMNS, upsertTable(topic, rung, Map.of("scan.bounded.mode", "latest-offset"))));
        assertThatThrownBy(() -> finalRows(tables.executeSql("SELECT * FROM failing")))
                .hasStackTraceContaining("of the Kafka record at offset 6 of " + topic + "-0");
    }

    /**
     * Runs {@code query} over a stock upsert-kafka table and a streamfusion-upsert-kafka table of
     * the same options and asserts their changelogs match: per key, the same rows of the same
     * kinds in the same order (keys interleave by timing).
     *
     * @return the changelog per key
     */
    private static Map<Object, List<String>> assertSameChangelog(String query, String columns, Map<String, String> options)
            throws Exception {
        StreamTableEnvironment tables = tables(2);
        Map<String, String> stockOptions = new HashMap<>(options);
        stockOptions.remove("streamfusion.rung");
        tables.executeSql(ddl("stock", "upsert-kafka", columns, stockOptions));
        tables.executeSql(ddl("fused", "streamfusion-upsert-kafka", columns, options));
        Map<Object, List<String>> expected = changelogByKey(tables.executeSql(String.format(query, "stock")));
        assertThat(expected).isNotEmpty();
        assertThat(changelogByKey(tables.executeSql(String.format(query, "fused")))).isEqualTo(expected);
        return expected;
    }

    /** The advisor's sample of an upsert topic: its first records per partition, read alike by both connectors. */
    @Test
    void aSampleIsTheFirstRecordsOfEachPartitionReadAlikeByBothConnectors() throws Exception {
        Map<String, String> declared = new HashMap<>(upsertTable(UPDATES, "NATIVE", Map.of()));
        declared.put("connector", "upsert-kafka");
        StockCounterpart counterpart = new StreamFusionUpsertKafkaTableFactory();
        StockCounterpart.Sample sample = counterpart.sample(declared, 40);
        assertThat(sample.description())
                .isEqualTo("the first 40 records of topic '" + UPDATES + "' (up to 20 of each of its 2 partitions)");
        Map<String, String> stock = counterpart.stock(sample.options()).orElseThrow();
        assertThat(stock)
                .containsEntry("connector", "upsert-kafka")
                .containsEntry("scan.bounded.mode", "specific-offsets")
                .containsEntry("scan.bounded.specific-offsets", "partition:0,offset:20;partition:1,offset:20")
                .doesNotContainKeys("streamfusion.rung", "scan.startup.mode");
        Map<String, String> ours = new HashMap<>(counterpart.streamFusion(sample.options()).orElseThrow());
        assertThat(ours.remove("connector")).isEqualTo(StreamFusionUpsertKafkaTableFactory.IDENTIFIER);
        assertThat(ours).containsEntry("streamfusion.rung", "NATIVE");
        Map<Object, List<String>> changelog = assertSameChangelog("SELECT * FROM %s", UPSERT_COLUMNS, ours);
        // A record read is one +I, +U or -D (an update also retracts the row it replaces with a -U).
        long applied = changelog.values().stream().flatMap(List::stream).filter(row -> !row.startsWith("-U")).count();
        assertThat(applied).isBetween(1L, 40L);
    }

    /** A bounded query's changelog, per its first column, in order; two minutes at most. */
    private static Map<Object, List<String>> changelogByKey(TableResult result) throws Exception {
        Map<Object, List<String>> rows = new LinkedHashMap<>();
        CloseableIterator<Row> changelog = result.collect();
        try {
            CompletableFuture.runAsync(
                            () -> changelog.forEachRemaining(
                                    row -> rows.computeIfAbsent(row.getField(0), k -> new ArrayList<>()).add(row.toString())))
                    .get(2, TimeUnit.MINUTES);
        } finally {
            changelog.close();
        }
        return rows;
    }

    private static List<String> finalRows(TableResult result) throws Exception {
        return ChangelogRows.drain(result.collect(), Duration.ofMinutes(2));
    }

    /** An upsert table of {@code topic} with JSON keys and values, on {@code rung} if not null. */
    private static Map<String, String> upsertTable(String topic, String rung, Map<String, String> extra) {
        Map<String, String> options = new HashMap<>();
        options.put("topic", topic);
        options.put("properties.bootstrap.servers", KAFKA.bootstrapServers());
        options.put("key.format", "json");
        options.put("value.format", "json");
        if (rung != null) {
            options.put("streamfusion.rung", rung);
        }
        options.putAll(extra);
        return options;
    }

    private static Map<String, String> ordersOptions() {
        return Map.of(
                "topic", ORDERS,
                "properties.bootstrap.servers", KAFKA.bootstrapServers(),
                "scan.startup.mode", "earliest-offset",
                "scan.bounded.mode", "latest-offset",
                "format", "json");
    }

    private static String ordersDdl() {
        return ddl("orders", "kafka", "name STRING, amount INT", ordersOptions());
    }

    private static String ddl(String name, String connector, String columns, Map<String, String> options) {
        String with =
                options.entrySet().stream()
                        .map(e -> "'" + e.getKey() + "' = '" + e.getValue() + "'")
                        .collect(Collectors.joining(", "));
        return "CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = '" + connector + "', " + with + ")";
    }

    private static StreamTableEnvironment tables(int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        return StreamTableEnvironment.create(env);
    }

    /** Every record of {@code topic}, per key (as text), in offset order; a tombstone is "null". */
    private static Map<String, List<String>> recordsByKey(String topic) {
        Map<String, List<String>> records = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records(topic)) {
            records.computeIfAbsent(text(record.key()), k -> new ArrayList<>()).add(text(record.value()));
        }
        return records;
    }

    /** The latest record of each key of {@code topic} (as text; a tombstone is "null"). */
    private static Map<String, String> latestByKey(String topic) {
        Map<String, String> latest = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records(topic)) {
            latest.put(text(record.key()), text(record.value()));
        }
        return latest;
    }

    /** How many records of {@code topic} a consumer reads from its start (compaction removes some). */
    private static int readable(String topic) {
        return records(topic).size();
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
    }

    private static List<ConsumerRecord<byte[], byte[]>> records(String topic) {
        return KAFKA.cluster().readAll(topic);
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        Properties props = new Properties();
        props.put("bootstrap.servers", KAFKA.bootstrapServers());
        props.put("key.serializer", ByteArraySerializer.class.getName());
        props.put("value.serializer", ByteArraySerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    private static org.apache.flink.table.connector.source.DynamicTableSource source(
            Map<String, String> options, String columns) {
        return FactoryUtil.createDynamicTableSource(
                null,
                ObjectIdentifier.of("default_catalog", "default_database", "upserts"),
                table("streamfusion-upsert-kafka", options, columns),
                Map.of(),
                new Configuration(),
                StreamFusionUpsertKafkaITCase.class.getClassLoader(),
                false);
    }

    private static org.apache.flink.table.connector.sink.DynamicTableSink sink(Map<String, String> options, String columns) {
        return FactoryUtil.createDynamicTableSink(
                null,
                ObjectIdentifier.of("default_catalog", "default_database", "upserts"),
                table("streamfusion-upsert-kafka", options, columns),
                Map.of(),
                new Configuration(),
                StreamFusionUpsertKafkaITCase.class.getClassLoader(),
                false);
    }

    /** A catalog table of {@code connector} with {@code columns} and {@code options}. */
    private static ResolvedCatalogTable table(String connector, Map<String, String> options, String columns) {
        Map<String, String> all = new HashMap<>(options);
        all.put("connector", connector);
        StreamTableEnvironment tables = tables(1);
        tables.executeSql("CREATE TEMPORARY TABLE shape (" + columns + ") WITH ('connector' = 'datagen')");
        ResolvedSchema schema = tables.from("shape").getResolvedSchema();
        CatalogTable table =
                CatalogTable.newBuilder()
                        .schema(Schema.newBuilder().fromResolvedSchema(schema).build())
                        .options(all)
                        .build();
        return new ResolvedCatalogTable(table, schema);
    }
}
