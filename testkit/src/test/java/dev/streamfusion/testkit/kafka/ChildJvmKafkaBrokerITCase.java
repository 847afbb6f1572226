package dev.streamfusion.testkit.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChildJvmKafkaBrokerITCase {

    @Test
    void producesAndConsumesARecordThenStopsAndCleansUp() throws Exception {
        ChildJvmKafkaBroker kafka = ChildJvmKafkaBroker.start();
        Path directory = kafka.directory();
        int port;
        try {
            assertThat(kafka.bootstrapServers()).startsWith("127.0.0.1:");
            port = Integer.parseInt(kafka.bootstrapServers().substring("127.0.0.1:".length()));
            assertThat(directory).isDirectory();

            kafka.createTopic("greetings", 2);
            produce(kafka, "greetings", "alice", "hello");

            List<ConsumerRecord<String, String>> records = consume(kafka, "greetings", 1);
            assertThat(records).hasSize(1);
            assertThat(records.get(0).key()).isEqualTo("alice");
            assertThat(records.get(0).value()).isEqualTo("hello");
        } finally {
            kafka.close();
        }

        assertThat(directory).doesNotExist();
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
        kafka.close(); // idempotent
        assertThatThrownBy(() -> kafka.createTopic("late", 1)).hasMessageContaining("closed");
    }

    @Test
    void aRestartedBrokerKeepsItsAddressAndData() throws Exception {
        try (ChildJvmKafkaBroker kafka = ChildJvmKafkaBroker.start()) {
            String address = kafka.bootstrapServers();
            kafka.createTopic("kept", 1);
            produce(kafka, "kept", "before", "1");
            kafka.restart();
            assertThat(kafka.bootstrapServers()).isEqualTo(address);
            produce(kafka, "kept", "after", "2");
            List<ConsumerRecord<String, String>> records = consume(kafka, "kept", 2);
            assertThat(records).extracting(ConsumerRecord::key).containsExactly("before", "after");
        }
    }

    @Test
    void twoBrokersRunSideBySideIndependently() throws Exception {
        try (ChildJvmKafkaBroker first = ChildJvmKafkaBroker.start();
                ChildJvmKafkaBroker second = ChildJvmKafkaBroker.start()) {
            assertThat(first.bootstrapServers()).isNotEqualTo(second.bootstrapServers());
            assertThat(first.directory()).isNotEqualTo(second.directory());

            // The same topic name on both: each broker has its own.
            first.createTopic("events", 1);
            second.createTopic("events", 1, Map.of("cleanup.policy", "compact"));
            produce(first, "events", "k", "from-first");
            produce(second, "events", "k", "from-second");

            assertThat(consume(first, "events", 1)).extracting(ConsumerRecord::value).containsExactly("from-first");
            assertThat(consume(second, "events", 1)).extracting(ConsumerRecord::value).containsExactly("from-second");
            assertThatThrownBy(() -> first.createTopic("events", 1))
                    .hasMessageContaining("events")
                    .hasMessageContaining("already exists");
        }
    }

    @Test
    void recordsWithOldTimestampsAreKept() throws Exception {
        try (ChildJvmKafkaBroker kafka =
                ChildJvmKafkaBroker.builder()
                        .brokerProperty("log.initial.task.delay.ms", "0")
                        .brokerProperty("log.retention.check.interval.ms", "200")
                        .start()) {
            kafka.createTopic("kept-forever", 1);
            kafka.createTopic("kept-a-minute", 1, Map.of("retention.ms", "60000"));
            long twoThousandAndOne = 978_307_200_000L;
            try (KafkaProducer<String, String> producer = producer(kafka)) {
                for (String topic : List.of("kept-forever", "kept-a-minute")) {
                    producer.send(new ProducerRecord<>(topic, 0, twoThousandAndOne, "k", "old")).get();
                }
            }

            // The retention check has run once the topic with a retention of its own lost its record.
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (earliest(admin, "kept-a-minute") == 0) {
                    assertThat(System.nanoTime()).as("the retention check deleted the old record").isLessThan(deadline);
                    Thread.sleep(100);
                }
                assertThat(earliest(admin, "kept-forever")).isZero();
            }
            assertThat(consume(kafka, "kept-forever", 1)).extracting(ConsumerRecord::timestamp).containsExactly(twoThousandAndOne);
        }
    }

    private static long earliest(Admin admin, String topic) throws Exception {
        TopicPartition partition = new TopicPartition(topic, 0);
        return admin.listOffsets(Map.of(partition, OffsetSpec.earliest())).partitionResult(partition).get().offset();
    }

    @Test
    void brokenStartFailsWithTheBrokersOwnLog() {
        ChildJvmKafkaBroker.Builder broken = ChildJvmKafkaBroker.builder().brokerProperty("num.partitions", "many");

        assertThatThrownBy(broken::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code")
                // Kafka's own words, read from the broker's log.
                .hasMessageContaining("Invalid value many for configuration num.partitions")
                .satisfies(e -> assertThat(brokerDirectory(e.getMessage())).doesNotExist());
    }

    @Test
    void reservedPropertiesAreRejected() {
        assertThatThrownBy(() -> ChildJvmKafkaBroker.builder().brokerProperty("listeners", "PLAINTEXT://:9092"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("listeners");
    }

    private static Path brokerDirectory(String message) {
        Matcher log = Pattern.compile("\\((\\S+broker\\.log), now deleted\\)").matcher(message);
        assertThat(log.find()).as("log file named in: %s", message).isTrue();
        Path directory = Path.of(log.group(1)).getParent();
        assertThat(directory.getFileName().toString()).startsWith("streamfusion-kafka-");
        return directory;
    }

    static void produce(KafkaCluster kafka, String topic, String key, String value) throws Exception {
        try (KafkaProducer<String, String> producer = producer(kafka)) {
            producer.send(new ProducerRecord<>(topic, 0, key, value)).get();
        }
    }

    private static KafkaProducer<String, String> producer(KafkaCluster kafka) {
        Map<String, Object> config =
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    static List<ConsumerRecord<String, String>> consume(KafkaCluster kafka, String topic, int count) {
        Map<String, Object> config =
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
