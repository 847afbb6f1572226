package dev.streamfusion.testkit.kafka;

import org.apache.flink.annotation.PublicEvolving;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

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
     * Produces {@code values} (UTF-8, without keys) to {@code topic} one at a time, each
     * acknowledged before the next is sent, so that they are in the topic in this order.
     *
     * @throws IllegalStateException if the broker does not take one
     */
    default void produce(String topic, List<String> values) {
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (String value : values) {
                producer.send(new ProducerRecord<>(topic, value.getBytes(StandardCharsets.UTF_8))).get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not produce to " + topic, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted producing to " + topic, e);
        }
    }

    /**
     * Stops the servers abruptly and starts them again on the same addresses with the same data;
     * returns once they answer again.
     */
    void restart();

    /** Stops the cluster and deletes its data. Calling it again does nothing. */
    @Override
    void close();
}
