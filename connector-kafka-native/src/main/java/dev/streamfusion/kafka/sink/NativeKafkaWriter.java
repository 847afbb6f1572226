package dev.streamfusion.kafka.sink;

import dev.streamfusion.formats.NativeFormatEncoder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.table.data.RowData;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes rows a batch at a time: one native encode call per batch for the values (and one for the
 * keys), then one send per record.
 */
@Internal
final class NativeKafkaWriter implements SinkWriter<RowData> {

    /** Rows per native encode call. */
    static final int BATCH = 1024;

    private final String topic;
    private final KafkaPartitioner<RowData> partitioner;
    private final DeliveryGuarantee deliveryGuarantee;
    private final TypeSerializer<RowData> copier;
    private final BufferAllocator allocator;
    private final NativeFormatEncoder encoder;
    /** The key encoder, or {@code null} when the table writes no key. */
    private final NativeFormatEncoder keyEncoder;
    private final RecordLayout layout;
    private final KafkaProducer<byte[], byte[]> producer;
    private final List<RowData> pending = new ArrayList<>(BATCH);
    /** The first failed send, reported by the next write or flush. */
    private final AtomicReference<Exception> sendError = new AtomicReference<>();
    private int[] partitions;

    /** @param copier copies incoming rows when the job reuses objects; {@code null} otherwise */
    NativeKafkaWriter(
            Properties producerProperties,
            String topic,
            String format,
            Map<String, String> formatOptions,
            RecordLayout layout,
            KafkaPartitioner<RowData> partitioner,
            DeliveryGuarantee deliveryGuarantee,
            TypeSerializer<RowData> copier) {
        this.topic = topic;
        this.partitioner = partitioner;
        this.deliveryGuarantee = deliveryGuarantee;
        this.copier = copier;
        this.layout = layout;
        this.allocator = new RootAllocator();
        NativeFormatEncoder opened = null;
        NativeFormatEncoder openedKey = null;
        try {
            opened = NativeFormatEncoder.create(allocator, format, formatOptions, layout.valueType);
            if (layout.keyFormat != null) {
                openedKey = NativeFormatEncoder.create(allocator, layout.keyFormat, layout.keyFormatOptions, layout.keyType);
            }
            this.producer =
                    new KafkaProducer<>(producerProperties, new ByteArraySerializer(), new ByteArraySerializer());
        } catch (RuntimeException e) {
            if (openedKey != null) {
                openedKey.close();
            }
            if (opened != null) {
                opened.close();
            }
            allocator.close();
            throw e;
        }
        this.encoder = opened;
        this.keyEncoder = openedKey;
    }

    @Override
    public void write(RowData row, Context context) throws IOException {
        checkSendError();
        pending.add(copier == null ? row : copier.copy(row));
        if (pending.size() >= BATCH) {
            sendPending();
        }
    }

    @Override
    public void flush(boolean endOfInput) throws IOException {
        sendPending();
        if (deliveryGuarantee == DeliveryGuarantee.AT_LEAST_ONCE || endOfInput) {
            producer.flush();
        }
        checkSendError();
    }

    private void sendPending() throws IOException {
        if (pending.isEmpty()) {
            return;
        }
        List<byte[]> values = encoder.encode(layout.values(pending));
        List<byte[]> keys = keyEncoder == null ? null : keyEncoder.encode(layout.keys(pending));
        for (int i = 0; i < values.size(); i++) {
            RowData row = pending.get(i);
            byte[] value = values.get(i);
            byte[] key = keys == null ? null : keys.get(i);
            Integer partition = partitioner == null ? null : partitioner.partition(row, key, value, topic, partitions());
            producer.send(
                    new ProducerRecord<>(topic, partition, layout.timestamp(row), key, value, layout.headers(row)),
                    (metadata, error) -> {
                        if (error != null) {
                            sendError.compareAndSet(null, error);
                        }
                    });
        }
        pending.clear();
        checkSendError();
    }

    private int[] partitions() {
        if (partitions == null) {
            List<PartitionInfo> infos = producer.partitionsFor(topic);
            partitions = infos.stream().mapToInt(PartitionInfo::partition).sorted().toArray();
        }
        return partitions;
    }

    private void checkSendError() throws IOException {
        Exception error = sendError.get();
        if (error != null) {
            throw new IOException("Failed to send data to Kafka topic " + topic + ": " + error.getMessage(), error);
        }
    }

    @Override
    public void close() {
        try {
            producer.close();
        } finally {
            encoder.close();
            if (keyEncoder != null) {
                keyEncoder.close();
            }
            allocator.close();
        }
    }
}
