package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A reader's producer of dead letters: each record it cannot decode, produced unchanged (key,
 * value, headers, timestamp) to the dead-letter topic with headers naming where it came from and
 * why it was not read.
 *
 * <p>Sends are asynchronous; {@link #flush()} waits for all of them and runs before the reader's
 * checkpoint state is taken. Records are decoded (and their dead letters sent) before any later
 * record of their partition is emitted, so every dead letter of a record before a checkpoint's
 * position is in the topic when the checkpoint completes: none is lost. Records after it are read
 * again after a restore, so their dead letters may appear twice: at least once.
 */
@Internal
final class DeadLetters implements AutoCloseable {

    /** Headers added to each dead letter. */
    static final String TOPIC = "streamfusion.error.topic";
    static final String PARTITION = "streamfusion.error.partition";
    static final String OFFSET = "streamfusion.error.offset";
    static final String TIMESTAMP = "streamfusion.error.timestamp";
    static final String MESSAGE = "streamfusion.error.message";

    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final ReaderMetrics metrics;
    /** The first failed send, reported by the next send or flush. */
    private final AtomicReference<Exception> failure = new AtomicReference<>();

    DeadLetters(String topic, Properties properties, ReaderMetrics metrics) {
        this.topic = topic;
        this.metrics = metrics;
        this.producer = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * Produces the record at {@code offset} of {@code sourceTopic}'s {@code partition}, unchanged,
     * with the reason it was not read.
     *
     * @param timestamp the record's timestamp, kept on the dead letter (negative: none)
     */
    void send(
            String sourceTopic,
            int partition,
            long offset,
            long timestamp,
            byte[] key,
            byte[] value,
            Iterable<Header> headers,
            String reason)
            throws IOException {
        throwFailure();
        RecordHeaders all = new RecordHeaders();
        headers.forEach(all::add);
        all.add(TOPIC, utf8(sourceTopic));
        all.add(PARTITION, utf8(String.valueOf(partition)));
        all.add(OFFSET, utf8(String.valueOf(offset)));
        all.add(TIMESTAMP, utf8(String.valueOf(timestamp)));
        all.add(MESSAGE, utf8(reason));
        producer.send(
                new ProducerRecord<>(topic, null, timestamp < 0 ? null : timestamp, key, value, all),
                (metadata, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
        metrics.deadLettered(sourceTopic + "-" + partition);
    }

    /** Waits until every dead letter sent so far is written. */
    void flush() throws IOException {
        producer.flush();
        throwFailure();
    }

    private void throwFailure() throws IOException {
        Exception e = failure.get();
        if (e != null) {
            throw new IOException("Failed to produce a dead letter to the Kafka topic " + topic + ": " + e.getMessage(), e);
        }
    }

    private static byte[] utf8(String text) {
        return text == null ? new byte[0] : text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        producer.close();
    }
}
