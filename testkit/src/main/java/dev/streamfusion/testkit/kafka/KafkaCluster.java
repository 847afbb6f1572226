package dev.streamfusion.testkit.kafka;

import org.apache.flink.annotation.PublicEvolving;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * A running Kafka cluster for tests: where to connect, and the one administrative step tests need
 * before they produce, creating topics.
 *
 * <p>Closing it stops the servers and deletes their data. Implementations decide where the servers
 * run; {@link ChildJvmKafkaBroker} starts a real single-node broker in a child JVM.
 */
@PublicEvolving
public interface KafkaCluster extends AutoCloseable {

    /** The {@code bootstrap.servers} value for clients, such as {@code 127.0.0.1:41234}. */
    String bootstrapServers();

    /**
     * The {@code bootstrap.servers} value of a listener that authenticates with SASL/PLAIN (over
     * plaintext), for clients testing authentication.
     *
     * @throws IllegalStateException if the cluster was started without SASL/PLAIN users
     */
    String saslPlainBootstrapServers();

    /**
     * Creates a topic with the given number of partitions and the broker's default topic
     * configuration, and returns once every partition has a leader.
     *
     * @throws IllegalStateException if the broker refuses (for example, the topic already exists)
     */
    default void createTopic(String topic, int partitions) {
        createTopic(topic, partitions, Map.of());
    }

    /**
     * Creates a topic with the given number of partitions and topic-level configuration (such as
     * {@code cleanup.policy}), and returns once every partition has a leader.
     *
     * @throws IllegalStateException if the broker refuses (for example, the topic already exists or
     *     a configuration value is invalid)
     */
    void createTopic(String topic, int partitions, Map<String, String> topicConfigs);

    /**
     * Produces {@code values} (UTF-8, without keys) to {@code topic}, value {@code i} to partition
     * {@code i} modulo the topic's partitions, and returns once the broker has acknowledged every
     * one. Each partition holds its values in the order they are listed (the producer is
     * idempotent: a retried batch cannot overtake the next), and every partition spans the whole
     * list, so that per-partition watermarks advance together.
     *
     * @throws IllegalStateException if the broker does not take one
     */
    default void produce(String topic, List<String> values) {
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", bootstrapServers(), "enable.idempotence", "true", "acks", "all"),
                        new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            int partitions = producer.partitionsFor(topic).size();
            List<Future<RecordMetadata>> sent = new ArrayList<>(values.size());
            for (int i = 0; i < values.size(); i++) {
                byte[] value = values.get(i).getBytes(StandardCharsets.UTF_8);
                sent.add(producer.send(new ProducerRecord<>(topic, i % partitions, null, value)));
            }
            producer.flush();
            for (Future<RecordMetadata> acknowledged : sent) {
                acknowledged.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not produce to " + topic, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted producing to " + topic, e);
        }
    }

    /**
     * Every record of {@code topic} from its start up to its end offsets as of the call,
     * partition by partition, each partition's in offset order.
     *
     * @throws IllegalStateException if they cannot be read within a minute
     */
    default List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        Map.of("bootstrap.servers", bootstrapServers()), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " up to its end offsets " + ends);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        records.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
                .thenComparingLong(ConsumerRecord::offset));
        return records;
    }

    /**
     * Stops the servers abruptly and starts them again on the same addresses with the same data;
     * returns once they answer again and every partition has a leader.
     */
    void restart();

    /** Stops the cluster and deletes its data. Calling it again does nothing. */
    @Override
    void close();
}
