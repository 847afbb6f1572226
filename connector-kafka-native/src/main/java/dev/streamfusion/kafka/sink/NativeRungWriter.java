package dev.streamfusion.kafka.sink;

import dev.streamfusion.kafka.internal.LibrdkafkaLog;
import dev.streamfusion.kafka.internal.NativeKafkaProducer;
import dev.streamfusion.formats.NativeFormatEncoder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.flink.table.data.RowData;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.kafka.common.header.Header;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Collects rows into batches; each batch is transposed to Arrow once, encoded natively (values,
 * and keys) and sent by librdkafka in one native call, so the encoded bytes never enter the JVM.
 * Batches from the operator island are encoded and sent as they come ({@link #sendBatch}).
 * Flushed on every checkpoint for at-least-once, and at the end of input.
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class NativeRungWriter implements SinkWriter<RowData> {

    private final String topic;
    private final RecordLayout layout;
    /** Flink's partitioner of the table (fixed), or {@code null} for librdkafka's. */
    private final KafkaPartitioner<RowData> partitioner;
    private final DeliveryGuarantee deliveryGuarantee;
    /** {@code max.block.ms}: how long a send waits for room in librdkafka's queue, or for the topic's partitions. */
    private final long maxBlockMs;
    private final long flushTimeoutMs;
    private final PendingRecords pending;
    private final NativeKafkaProducer producer;
    /** Names the producer in librdkafka's log lines. */
    private final String clientName;
    private final Counter recordsSent;
    private final Counter bytesSent;
    private int[] partitions;

    NativeRungWriter(
            Map<String, String> librdkafka,
            long maxBlockMs,
            String topic,
            String format,
            Map<String, String> formatOptions,
            RecordLayout layout,
            KafkaPartitioner<RowData> partitioner,
            DeliveryGuarantee deliveryGuarantee,
            long flushTimeoutMs,
            TypeSerializer<RowData> copier,
            SinkWriterMetricGroup metrics,
            ProcessingTimeService time) {
        this.topic = topic;
        this.clientName = "Kafka producer of topic " + topic;
        this.layout = layout;
        this.partitioner = partitioner;
        this.deliveryGuarantee = deliveryGuarantee;
        this.maxBlockMs = maxBlockMs;
        this.flushTimeoutMs = flushTimeoutMs;
        this.recordsSent = metrics.getNumRecordsSendCounter();
        this.bytesSent = metrics.getNumBytesSendCounter();
        this.pending = new PendingRecords(format, formatOptions, layout, copier);
        try {
            this.producer = new NativeKafkaProducer(librdkafka, topic, maxBlockMs);
        } catch (RuntimeException e) {
            pending.close();
            throw e;
        }
        pending.sendEvery(time, this::sendPending);
    }

    @Override
    public void write(RowData row, Context context) throws IOException {
        if (pending.add(row)) {
            sendPending();
        }
    }

    /**
     * Sends what is pending; then waits for every record's delivery where the guarantee asks for
     * it (and at the end of the input), else fails with a delivery that failed so far, as Flink's
     * writer checks at every checkpoint whatever its guarantee.
     */
    @Override
    public void flush(boolean endOfInput) throws IOException {
        sendPending();
        try {
            if (deliveryGuarantee == DeliveryGuarantee.AT_LEAST_ONCE || endOfInput) {
                producer.flush(flushTimeoutMs);
            } else {
                producer.checkDeliveries();
            }
        } catch (RuntimeException e) {
            throw new IOException("Failed to send data to Kafka topic " + topic + ": " + e.getMessage(), e);
        } finally {
            LibrdkafkaLog.log(clientName, producer.logs());
        }
    }

    /**
     * A record's timestamp as librdkafka can write it: a negative one fails as kafka-clients'
     * {@code ProducerRecord} fails it; 0 (the epoch) fails too, as librdkafka writes the time of
     * sending for it, where Flink's writer writes 0 (the Java rung writes it).
     */
    private long checkedTimestamp(long timestamp) throws IOException {
        if (timestamp < 0) {
            throw new IOException("Invalid timestamp: " + timestamp + ". Timestamp should always be non-negative or null "
                    + "(the 'timestamp' metadata column of a row written to Kafka topic " + topic + ")");
        }
        if (timestamp == 0) {
            throw new IOException("A record timestamp of 0 (1970-01-01T00:00:00Z) cannot be written to Kafka topic " + topic
                    + " by librdkafka, which writes the time of sending for it; the Java rung ('streamfusion.rung' = 'JAVA') "
                    + "writes it");
        }
        return timestamp;
    }

    private void sendPending() throws IOException {
        if (pending.isEmpty()) {
            return;
        }
        List<RowData> rows = pending.rows();
        int n = rows.size();
        int[] rowPartitions = partitioner == null ? null : new int[n];
        long[] timestamps = layout.writesTimestamp() ? new long[n] : null;
        int[] headerCounts = layout.writesHeaders() ? new int[n] : null;
        List<byte[]> headers = headerCounts == null ? null : new ArrayList<>();
        for (int i = 0; i < n; i++) {
            RowData row = rows.get(i);
            if (rowPartitions != null) {
                rowPartitions[i] = partitioner.partition(row, null, null, topic, partitions());
            }
            if (timestamps != null) {
                Long timestamp = layout.timestamp(row);
                timestamps[i] = timestamp == null ? Long.MIN_VALUE : checkedTimestamp(timestamp);
            }
            if (headerCounts != null) {
                for (Header header : layout.headers(row)) {
                    headers.add(header.key().getBytes(StandardCharsets.UTF_8));
                    headers.add(header.value());
                    headerCounts[i]++;
                }
            }
        }
        byte[][] headerBytes = headers == null ? null : headers.toArray(new byte[0][]);
        boolean[] tombstones = layout.tombstones(rows);
        List<RowData> valued = RecordLayout.valued(rows, tombstones);
        send(
                n,
                call -> pending.values.encode(layout.values(valued), call),
                pending.keys == null ? null : call -> pending.keys.encode(layout.keys(rows), call),
                rowPartitions,
                timestamps,
                headerCounts,
                headerBytes,
                tombstones);
        pending.clear();
    }

    /**
     * Sends a batch from the operator island as it is: its values (and keys) encoded from its
     * Arrow columns. Only for tables without metadata columns; Flink's fixed partitioner, the only
     * one a natively written table has, does not read the row.
     */
    void sendBatch(VectorSchemaRoot batch) throws IOException {
        int n = batch.getRowCount();
        if (n == 0) {
            return;
        }
        int[] rowPartitions = null;
        if (partitioner != null) {
            rowPartitions = new int[n];
            Arrays.fill(rowPartitions, partitioner.partition(null, null, null, topic, partitions()));
        }
        VectorSchemaRoot values = layout.values(batch);
        VectorSchemaRoot keys = pending.keys == null ? null : layout.keys(batch);
        send(
                n,
                call -> pending.values.encode(values, call),
                keys == null ? null : call -> pending.keys.encode(keys, call),
                rowPartitions,
                null,
                null,
                null,
                null);
    }

    /** How the rows of a send reach one of its encoders. */
    @FunctionalInterface
    private interface Encoding {
        void encode(NativeFormatEncoder.NativeRows call);
    }

    /**
     * Encodes and sends {@code n} records in one native call per encoder.
     *
     * @param tombstones per record whether its value is null (an upsert table's delete), or {@code
     *     null} for none
     */
    private void send(
            int n,
            Encoding values,
            Encoding keys,
            int[] rowPartitions,
            long[] timestamps,
            int[] headerCounts,
            byte[][] headerBytes,
            boolean[] tombstones)
            throws IOException {
        long[] bytes = {0};
        try {
            values.encode((valueEncoder, valueRows) -> {
                if (keys == null) {
                    bytes[0] =
                            producer.send(
                                    valueEncoder, valueRows, 0, 0, rowPartitions, timestamps, headerCounts, headerBytes, tombstones);
                } else {
                    keys.encode((keyEncoder, keyRows) ->
                            bytes[0] = producer.send(
                                    valueEncoder,
                                    valueRows,
                                    keyEncoder,
                                    keyRows,
                                    rowPartitions,
                                    timestamps,
                                    headerCounts,
                                    headerBytes,
                                    tombstones));
                }
            });
        } catch (RuntimeException e) {
            throw new IOException("Failed to send data to Kafka topic " + topic + ": " + e.getMessage(), e);
        } finally {
            LibrdkafkaLog.log(clientName, producer.logs());
        }
        recordsSent.inc(n);
        bytesSent.inc(bytes[0]);
    }

    /**
     * The topic's partitions, read once, for Flink's partitioner. As kafka-clients' {@code
     * partitionsFor}, waits up to {@code max.block.ms} for them (a topic the broker creates on
     * its first use has none at first).
     */
    private int[] partitions() throws IOException {
        if (partitions == null) {
            int count;
            try {
                count = producer.partitions(maxBlockMs);
            } catch (RuntimeException e) {
                throw new IOException(
                        "Failed to read the partitions of Kafka topic " + topic + ": " + e.getMessage(), e);
            } finally {
                LibrdkafkaLog.log(clientName, producer.logs());
            }
            partitions = IntStream.range(0, count).toArray();
        }
        return partitions;
    }

    @Override
    public void close() {
        try {
            if (!producer.isClosed()) {
                LibrdkafkaLog.log(clientName, producer.logs());
            }
            producer.close();
        } finally {
            pending.close();
        }
    }
}
