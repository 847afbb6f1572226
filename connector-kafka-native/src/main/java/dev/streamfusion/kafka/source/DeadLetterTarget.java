package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;

import org.apache.kafka.clients.producer.ProducerConfig;

import java.io.Serializable;
import java.util.Map;
import java.util.Properties;

/**
 * Where a streamfusion-kafka source produces the records it cannot decode under {@code
 * 'streamfusion.errors' = 'DEAD_LETTER'}: a topic, and the producer's properties (the table's
 * {@code properties.*} a producer knows, such as {@code bootstrap.servers} and security, then
 * {@code streamfusion.errors.properties.*} over them).
 */
@Internal
public final class DeadLetterTarget implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final Properties producer;

    /**
     * @param tableProperties the table's {@code properties.*}, without the prefix
     * @param overrides {@code streamfusion.errors.properties.*}, without the prefix
     */
    public DeadLetterTarget(String topic, Properties tableProperties, Map<String, String> overrides) {
        this.topic = topic;
        this.producer = new Properties();
        for (String key : tableProperties.stringPropertyNames()) {
            if (ProducerConfig.configNames().contains(key)) {
                producer.setProperty(key, tableProperties.getProperty(key));
            }
        }
        overrides.forEach(producer::setProperty);
    }

    public String topic() {
        return topic;
    }

    /** A producer of dead letters for one reader, counting them in its metrics. */
    DeadLetters open(String clientId, ReaderMetrics metrics) {
        Properties properties = new Properties();
        properties.putAll(producer);
        properties.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        return new DeadLetters(topic, properties, metrics);
    }
}
