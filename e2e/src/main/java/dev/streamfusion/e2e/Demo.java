package dev.streamfusion.e2e;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.NativeProjection;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.types.ArrowTypes;
import dev.streamfusion.bridge.writer.RowDataArrowWriter;
import dev.streamfusion.testkit.kafka.ChildJvmKafkaBroker;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The demo: a real Kafka broker on this machine, Nexmark-shaped bids through StreamFusion's
 * native bridge (Flink rows to Arrow, into Rust and back, read by Flink as columnar rows), into a
 * topic and back out.
 */
public final class Demo {

    private static final int EVENTS = 200_000;
    private static final int BATCH = 4096;
    private static final String TOPIC = "bids";
    /** auction, price, date_time: what Nexmark q1 reads. */
    private static final int[] PROJECTION = {0, 2, 5};

    private Demo() {}

    public static void main(String[] args) throws Exception {
        NativeLibrary.Loaded library = NativeLibrary.load();
        System.out.println("StreamFusion demo");
        System.out.println("  native library: " + library.location());
        System.out.println("  build profile:  " + library.profile() + ", version " + library.version());

        long started = System.nanoTime();
        try (ChildJvmKafkaBroker broker = ChildJvmKafkaBroker.start()) {
            System.out.printf(
                    "  Kafka broker:   %s (KRaft, child JVM, up in %.1f s)%n",
                    broker.bootstrapServers(), seconds(System.nanoTime() - started));
            broker.createTopic(TOPIC, 1);

            long produced = bridgeIntoKafka(broker.bootstrapServers());
            List<String> firstRecords = new ArrayList<>();
            long consumed = readBack(broker.bootstrapServers(), produced, firstRecords);
            System.out.println();
            System.out.println("Topic '" + TOPIC + "': " + produced + " records produced, " + consumed + " read back; the first:");
            firstRecords.forEach(r -> System.out.println("  " + r));
            if (consumed != produced) {
                throw new IllegalStateException("read back " + consumed + " of " + produced + " records");
            }
        }
        System.out.println();
        System.out.println(
                "Native memory outstanding after close: " + NativeLibrary.nativeAllocatedBytes() + " bytes");
    }

    /** Bids -> Arrow -> Rust (checked, projected) -> Flink columnar rows -> Kafka. */
    private static long bridgeIntoKafka(String bootstrap) {
        RowType bid = BidGenerator.BID;
        BidGenerator generator = new BidGenerator(1);
        long transposeNanos = 0;
        long nativeNanos = 0;
        long readNanos = 0;
        long produced = 0;
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter writer = RowDataArrowWriter.create(bid, allocator);
                NativeProjection projection =
                        NativeProjection.create(allocator, ArrowTypes.toArrowSchema(bid), PROJECTION);
                KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
            RowType projected = ArrowTypes.toRowType(projection.outputSchema());
            for (int sent = 0; sent < EVENTS; sent += BATCH) {
                List<RowData> rows = generator.next(Math.min(BATCH, EVENTS - sent));

                long t0 = System.nanoTime();
                VectorSchemaRoot arrow = writer.write(rows);
                long t1 = System.nanoTime();
                VectorSchemaRoot back = projection.project(arrow);
                long t2 = System.nanoTime();
                ArrowColumnarBatch columns = ArrowColumnarBatch.of(back, projected);
                List<byte[]> values = new ArrayList<>(columns.rowCount());
                for (int r = 0; r < columns.rowCount(); r++) {
                    ColumnarRowData row = columns.row(r);
                    String csv = row.getLong(0) + "," + row.getLong(1) + "," + row.getTimestamp(2, 3);
                    values.add(csv.getBytes(StandardCharsets.UTF_8));
                }
                long t3 = System.nanoTime();
                transposeNanos += t1 - t0;
                nativeNanos += t2 - t1;
                readNanos += t3 - t2;
                for (byte[] value : values) {
                    producer.send(new ProducerRecord<>(TOPIC, value));
                }
                produced += values.size();
            }
            producer.flush();
        }
        System.out.println();
        System.out.println("Bridge, " + EVENTS + " bid rows in batches of " + BATCH + " (this run, one thread):");
        System.out.printf("  RowData -> Arrow (column by column):       %,12.0f rows/s%n", EVENTS / seconds(transposeNanos));
        System.out.printf("  Arrow -> Rust (validate, project) -> Java:  %,12.0f rows/s%n", EVENTS / seconds(nativeNanos));
        System.out.printf("  ColumnarRowData reads of 3 columns:        %,12.0f rows/s%n", EVENTS / seconds(readNanos));
        System.out.println(
                "  (stock-vs-StreamFusion connector figures are printed here once the connectors land)");
        return produced;
    }

    private static long readBack(String bootstrap, long expected, List<String> first) {
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        Map.of(
                                "bootstrap.servers", bootstrap,
                                "auto.offset.reset", "earliest",
                                "enable.auto.commit", "false"),
                        new ByteArrayDeserializer(),
                        new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long count = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (count < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (first.size() < 3) {
                        first.add("offset " + record.offset() + ": " + new String(record.value(), StandardCharsets.UTF_8));
                    }
                    count++;
                }
            }
            return count;
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
}
