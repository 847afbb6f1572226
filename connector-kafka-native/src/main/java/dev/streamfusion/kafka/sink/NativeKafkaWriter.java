package dev.streamfusion.kafka.sink;

import dev.streamfusion.formats.NativeFormatEncoder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

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

/** Writes rows a batch at a time: one native encode call per batch, then one send per message. */
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
            RowType rowType,
            KafkaPartitioner<RowData> partitioner,
            DeliveryGuarantee deliveryGuarantee,
            TypeSerializer<RowData> copier) {
        this.topic = topic;
        this.partitioner = partitioner;
        this.deliveryGuarantee = deliveryGuarantee;
        this.copier = copier;
        this.allocator = new RootAllocator();
        NativeFormatEncoder opened = null;
        try {
            opened = NativeFormatEncoder.create(allocator, format, formatOptions, rowType);
            this.producer =
                    new KafkaProducer<>(producerProperties, new ByteArraySerializer(), new ByteArraySerializer());
        } catch (RuntimeException e) {
            if (opened != null) {
                opened.close();
            }
            allocator.close();
            throw e;
        }
        this.encoder = opened;
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
        List<byte[]> values = encoder.encode(pending);
        for (int i = 0; i < values.size(); i++) {
            byte[] value = values.get(i);
            Integer partition = partitioner == null ? null : partitioner.partition(pending.get(i), null, value, topic, partitions());
            producer.send(
                    new ProducerRecord<>(topic, partition, null, null, value),
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
            allocator.close();
        }
    }
}
