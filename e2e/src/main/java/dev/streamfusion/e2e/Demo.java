package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeHandle;
import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.formats.NativeFormatDecoder;
import dev.streamfusion.formats.NativeFormatEncoder;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;
import dev.streamfusion.testkit.nexmark.NexmarkBids;

import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The demo: a real Kafka broker on this machine; Nexmark bids encoded to JSON by StreamFusion's
 * native encoder into a topic; the topic read back and decoded both by stock Flink's JSON format
 * and by the native decoder, the rows compared; Flink SQL jobs reading the topic through {@code
 * streamfusion-kafka} and the stock {@code kafka} connector, results compared; the topic appended
 * into Fluss through both connector pairs; then Parquet and Iceberg the same way. Every result is checked equal to stock Flink's, every speed measured beside
 * it in this run, and the figures end in one table and a chart of the ratios.
 */
public final class Demo {

    private static final int EVENTS = 200_000;
    private static final int BATCH = 4096;
    private static final String TOPIC = "bids";

    private Demo() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Path output = Paths.get(System.getProperty("streamfusion.demo.dir", "target/demo")).toAbsolutePath();
        NativeLibrary.Loaded library = NativeLibrary.load();
        System.out.println("StreamFusion demo: stock Flink and StreamFusion side by side on this machine");
        System.out.println("  native library: " + library.profile() + " build " + library.version() + ", " + library.location());
        if (!library.isRelease()) {
            System.out.println("  (a debug build: the figures below say nothing of StreamFusion's speed; ./bin/demo uses a release build)");
        }

        Figures figures = new Figures();
        Memory memory = new Memory();
        long started = System.nanoTime();
        step(1, "Starting a Kafka broker (KRaft, in a child JVM)");
        try (ChildJvmKafkaBroker broker = ChildJvmKafkaBroker.start();
                BufferAllocator allocator = new RootAllocator()) {
            System.out.printf("  up at %s in %.1f s%n", broker.bootstrapServers(), seconds(System.nanoTime() - started));
            broker.createTopic(TOPIC, 1);

            step(2, "JSON: " + String.format("%,d", EVENTS) + " Nexmark bids encoded, produced, read back and decoded, stock and native");
            List<RowData> bids = new NexmarkBids(1).next(EVENTS);
            Rates encode = encodeIntoKafka(allocator, bids, broker.bootstrapServers());
            List<byte[]> messages = readBack(broker.bootstrapServers(), EVENTS);
            System.out.println("  topic '" + TOPIC + "': " + messages.size() + " messages; the first: "
                    + new String(messages.get(0), StandardCharsets.UTF_8));
            Rates decode = decodeBothWays(allocator, messages);
            figures.rate("JSON encode, one thread", "rows/s", encode.stock, encode.streamfusion);
            figures.note("from Java rows, most of the time goes into copying each row's fields into Arrow"
                    + " (the encode itself runs at over a million rows/s natively); sinks that receive"
                    + " batches will skip that copy");
            figures.rate("JSON decode, one thread", "rows/s", decode.stock, decode.streamfusion);

            step(3, "Flink SQL over the topic: 'connector' = 'kafka' and 'streamfusion-kafka'");
            NexmarkKafka kafka = new NexmarkKafka(broker.bootstrapServers(), TOPIC, "json");
            runQueries(kafka, figures);
            step(4, "Kafka -> Fluss: 'kafka' into 'fluss', and 'streamfusion-kafka' into 'streamfusion-fluss'");
            FlussDemo.run(kafka, figures);
        }
        step(5, "Parquet: 'connector' = 'filesystem' and 'streamfusion-parquet'");
        ParquetDemo.run(figures);
        step(6, "Iceberg: 'iceberg' and 'streamfusion-iceberg' catalogs");
        IcebergDemo.run(figures, memory);
        memory.atEnd();

        System.out.println();
        System.out.println("Summary: stock Flink vs StreamFusion, " + library.profile() + " native build, parallelism 1 (Iceberg's reads at their splits' count), same run");
        figures.printTable(System.out);
        Path chart = output.resolve("streamfusion-demo.png");
        figures.writeChart(chart, "StreamFusion vs stock Flink (" + library.profile() + " build, " + LocalDate.now() + ")");
        System.out.println("  chart of the ratios: " + chart);
        System.out.println();
        memory.print();
        System.out.println("Flink's, Kafka's and Hadoop's logs: " + System.getProperty("streamfusion.log.file", "(the console)"));
    }

    /** Prints a step's heading. */
    private static void step(int number, String what) {
        System.out.println();
        System.out.println("[" + number + "/6] " + what);
    }

    /**
     * Flink SQL jobs over the topic: a query's results through streamfusion-kafka, checked against
     * the stock kafka connector, then Nexmark q0-q2 into a blackhole through both, timed.
     */
    private static void runQueries(NexmarkKafka kafka, Figures figures) throws Exception {
        String q2 = "SELECT auction, price FROM %s WHERE MOD(auction, 123) = 0";
        List<String> fused = kafka.collect(NexmarkKafka.FUSED, q2);
        List<String> stock = kafka.collect(NexmarkKafka.STOCK, q2);
        if (!sorted(fused).equals(sorted(stock))) {
            throw new IllegalStateException("streamfusion-kafka and kafka disagree on q2");
        }
        System.out.println("  " + String.format(q2, "bids") + ": " + fused.size() + " rows, equal to 'kafka''s; the first:");
        fused.stream().limit(3).forEach(row -> System.out.println("    " + row));

        System.out.println("  Nexmark q0-q2 into a blackhole sink, one job per query and connector (after a warm-up):");
        kafka.runIntoBlackhole(NexmarkKafka.STOCK, "q0");
        kafka.runIntoBlackhole(NexmarkKafka.FUSED, "q0");
        for (String query : NexmarkKafka.QUERIES.keySet()) {
            long stockMillis = kafka.runIntoBlackhole(NexmarkKafka.STOCK, query);
            long fusedMillis = kafka.runIntoBlackhole(NexmarkKafka.FUSED, query);
            System.out.printf("    %s: kafka %,d ms, streamfusion-kafka %,d ms%n", query, stockMillis, fusedMillis);
            figures.runTime("Nexmark " + query + " from Kafka (JSON)", stockMillis, fusedMillis);
        }
    }

    private static List<String> sorted(List<String> rows) {
        List<String> copy = new ArrayList<>(rows);
        Collections.sort(copy);
        return copy;
    }

    /**
     * Encodes the bids with stock Flink's JSON format and natively, each message compared byte for
     * byte, and produces the native messages to the topic. Each side encodes every row once
     * before its timed pass, so neither is timed cold.
     */
    private static Rates encodeIntoKafka(BufferAllocator allocator, List<RowData> bids, String bootstrap)
            throws Exception {
        RowType bid = NexmarkBids.BID_TYPE;
        JsonRowDataSerializationSchema flink =
                new JsonRowDataSerializationSchema(
                        bid, TimestampFormat.SQL, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
        flink.open(null);
        List<byte[]> stockMessages = new ArrayList<>(bids.size());
        long stockNanos = 0;
        for (int pass = 0; pass < 2; pass++) {
            stockMessages.clear();
            long t0 = System.nanoTime();
            for (RowData row : bids) {
                stockMessages.add(flink.serialize(row));
            }
            stockNanos = System.nanoTime() - t0;
        }

        long nativeNanos = 0;
        try (NativeFormatEncoder encoder = NativeFormatEncoder.create(allocator, "json", Map.of(), bid);
                KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            for (int pass = 0; pass < 2; pass++) {
                nativeNanos = 0;
                for (int from = 0; from < bids.size(); from += BATCH) {
                    List<RowData> batch = bids.subList(from, Math.min(from + BATCH, bids.size()));
                    long t1 = System.nanoTime();
                    List<byte[]> encoded = encoder.encode(batch);
                    nativeNanos += System.nanoTime() - t1;
                    if (pass == 0) {
                        continue;
                    }
                    for (int i = 0; i < encoded.size(); i++) {
                        byte[] value = encoded.get(i);
                        if (!Arrays.equals(value, stockMessages.get(from + i))) {
                            throw new IllegalStateException("native JSON differs from Flink's for bid " + (from + i) + ": "
                                    + new String(value, StandardCharsets.UTF_8) + " vs "
                                    + new String(stockMessages.get(from + i), StandardCharsets.UTF_8));
                        }
                        producer.send(new ProducerRecord<>(TOPIC, value));
                    }
                }
            }
            producer.flush();
        }
        return new Rates(bids.size(), stockNanos, nativeNanos);
    }

    /**
     * Decodes the topic's messages with stock Flink and natively, reading every field of every
     * row on both sides; the rows must be equal. Each side decodes every message once before its
     * timed pass.
     */
    private static Rates decodeBothWays(BufferAllocator allocator, List<byte[]> messages) throws Exception {
        RowType bid = NexmarkBids.BID_TYPE;
        JsonParserRowDataDeserializationSchema flink =
                new JsonParserRowDataDeserializationSchema(bid, InternalTypeInfo.of(bid), false, false, TimestampFormat.SQL);
        flink.open(null);
        long[] stock = new long[2];
        Collector<RowData> checksums = new Collector<>() {
            @Override
            public void collect(RowData row) {
                stock[0]++;
                stock[1] += checksum(row);
            }

            @Override
            public void close() {}
        };
        long stockNanos = 0;
        for (int pass = 0; pass < 2; pass++) {
            Arrays.fill(stock, 0);
            long t0 = System.nanoTime();
            for (byte[] message : messages) {
                flink.deserialize(message, checksums);
            }
            stockNanos = System.nanoTime() - t0;
        }

        long nativeNanos = 0;
        long nativeChecksum = 0;
        long nativeRows = 0;
        List<String> firstBids = new ArrayList<>();
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(allocator, "json", Map.of(), bid)) {
            for (int pass = 0; pass < 2; pass++) {
                nativeNanos = 0;
                nativeChecksum = 0;
                nativeRows = 0;
                for (int from = 0; from < messages.size(); from += BATCH) {
                    long t1 = System.nanoTime();
                    ArrowColumnarBatch batch =
                            ArrowColumnarBatch.of(
                                    decoder.decode(messages.subList(from, Math.min(from + BATCH, messages.size()))), bid);
                    for (int r = 0; r < batch.rowCount(); r++) {
                        nativeChecksum += checksum(batch.row(r));
                    }
                    nativeNanos += System.nanoTime() - t1;
                    nativeRows += batch.rowCount();
                    for (int r = 0; pass == 1 && firstBids.size() < 3 && r < batch.rowCount(); r++) {
                        RowData row = batch.row(r);
                        firstBids.add(String.format(
                                "auction %d, bidder %d, price %d -> %s EUR (q1: price * 0.908), at %s",
                                row.getLong(0), row.getLong(1), row.getLong(2),
                                BigDecimal.valueOf(row.getLong(2)).multiply(new BigDecimal("0.908")).toPlainString(),
                                row.getTimestamp(5, 3)));
                    }
                }
            }
        }
        if (nativeRows != stock[0] || nativeChecksum != stock[1]) {
            throw new IllegalStateException(
                    "native decode differs from stock Flink: " + nativeRows + " rows vs " + stock[0]);
        }
        System.out.println("  decoded natively and by stock Flink: " + nativeRows + " rows each, the same rows"
                + " (checksum over every field " + Long.toHexString(nativeChecksum) + "); the first bids:");
        firstBids.forEach(b -> System.out.println("    " + b));
        return new Rates(messages.size(), stockNanos, nativeNanos);
    }

    /** Reads every field once, as a query selecting all columns does. */
    private static long checksum(RowData row) {
        long sum = row.getLong(0) * 31 + row.getLong(1) * 17 + row.getLong(2);
        sum = sum * 31 + row.getString(3).toString().hashCode();
        sum = sum * 31 + row.getString(4).toString().hashCode();
        sum = sum * 31 + row.getTimestamp(5, 3).getMillisecond();
        return sum * 31 + row.getString(6).toString().hashCode();
    }

    private static List<byte[]> readBack(String bootstrap, int expected) {
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        Map.of("bootstrap.servers", bootstrap, "auto.offset.reset", "earliest", "enable.auto.commit", "false"),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<byte[]> values = new ArrayList<>(expected);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    values.add(record.value());
                }
            }
            if (values.size() != expected) {
                throw new IllegalStateException("read back " + values.size() + " of " + expected + " records");
            }
            return values;
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(
                Map.of("bootstrap.servers", bootstrap, "linger.ms", "5", "batch.size", "262144"),
                new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    /** Rows per second of stock Flink and StreamFusion over the same rows. */
    private static final class Rates {
        private final double stock;
        private final double streamfusion;

        Rates(long rows, long stockNanos, long nativeNanos) {
            this.stock = rows / seconds(stockNanos);
            this.streamfusion = rows / seconds(nativeNanos);
        }
    }

    /**
     * Native memory and handles, after the last step's first (warm-up) jobs and at the end: what
     * stays allocated must be the library's process-wide state, the same at both points.
     */
    static final class Memory {
        private long afterWarmUp = -1;
        private long atEnd;
        private long handlesAtEnd;

        /** Called once the last step has run each of its jobs once. */
        void afterWarmUp() {
            afterWarmUp = NativeLibrary.nativeAllocatedBytes();
        }

        void atEnd() {
            atEnd = NativeLibrary.nativeAllocatedBytes();
            handlesAtEnd = NativeHandle.openHandles();
        }

        void print() {
            System.out.println("Native memory: " + handlesAtEnd + " native objects open (every reader, writer and batch"
                    + " was freed); " + String.format("%,d", atEnd) + " bytes stay allocated by state the library keeps"
                    + " while it is loaded (Iceberg's I/O runtime and its threads, per-thread state of JVM threads that"
                    + " outlive the jobs).");
            if (afterWarmUp == atEnd) {
                System.out.println("  The same " + String.format("%,d", atEnd) + " bytes after the first Iceberg jobs as after"
                        + " all of them: it does not grow with jobs.");
            } else {
                System.out.println("  It was " + String.format("%,d", afterWarmUp) + " bytes after the first Iceberg jobs and is "
                        + String.format("%,d", atEnd) + " now: memory that grows with jobs is a leak; please report it.");
            }
        }
    }
}
