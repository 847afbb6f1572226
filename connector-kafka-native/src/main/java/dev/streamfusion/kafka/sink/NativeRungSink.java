package dev.streamfusion.kafka.sink;

import dev.streamfusion.bridge.batch.ArrowBatch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.table.data.RowData;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The streamfusion-kafka sink for {@code none} and {@code at-least-once} delivery through
 * librdkafka: rows are encoded and sent a batch at a time in native code.
 */
@Internal
public final class NativeRungSink implements Sink<RowData> {

    private static final long serialVersionUID = 1L;

    private final TreeMap<String, String> librdkafka;
    private final String topic;
    private final String format;
    private final HashMap<String, String> formatOptions;
    private final RecordLayout layout;
    private final KafkaPartitioner<RowData> partitioner;
    private final DeliveryGuarantee deliveryGuarantee;
    private final long maxBlockMs;

    /**
     * @param librdkafka the producer's librdkafka properties ({@code LibrdkafkaConfig#producerProperties})
     * @param maxBlockMs how long a send waits for room in librdkafka's queue, and Flink's
     *     partitioner for the topic's partitions
     * @param partitioner Flink's fixed partitioner, or {@code null} for librdkafka's (murmur2 of
     *     the key, as kafka-clients)
     */
    public NativeRungSink(
            Map<String, String> librdkafka,
            long maxBlockMs,
            String topic,
            String format,
            Map<String, String> formatOptions,
            RecordLayout layout,
            KafkaPartitioner<RowData> partitioner,
            DeliveryGuarantee deliveryGuarantee) {
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            throw new IllegalArgumentException("exactly-once delivery runs through Kafka transactions of kafka-clients");
        }
        if (!librdkafka.containsKey("message.timeout.ms")) {
            throw new IllegalArgumentException("the producer's properties lack message.timeout.ms");
        }
        this.librdkafka = new TreeMap<>(librdkafka);
        this.maxBlockMs = maxBlockMs;
        this.topic = topic;
        this.format = format;
        this.formatOptions = new HashMap<>(formatOptions);
        this.layout = layout;
        this.partitioner = partitioner;
        this.deliveryGuarantee = deliveryGuarantee;
    }

    @Override
    public SinkWriter<RowData> createWriter(WriterInitContext context) {
        return writer(context, context.isObjectReuseEnabled() ? context.createInputSerializer() : null);
    }

    /**
     * The same sink for the operator island's batches: each one encoded from its Arrow columns and
     * sent as it comes, with the same producer, flushes and delivery guarantee as rows.
     */
    public Sink<ArrowBatch> batches() {
        return new Batches(this);
    }

    private NativeRungWriter writer(WriterInitContext context, TypeSerializer<RowData> copier) {
        if (partitioner != null) {
            partitioner.open(
                    context.getTaskInfo().getIndexOfThisSubtask(), context.getTaskInfo().getNumberOfParallelSubtasks());
        }
        // A flush waits as long as a record may take to be delivered, and a little more.
        long flushTimeoutMs = Long.parseLong(librdkafka.get("message.timeout.ms")) + 5_000;
        return new NativeRungWriter(
                librdkafka,
                maxBlockMs,
                topic,
                format,
                formatOptions,
                layout,
                partitioner,
                deliveryGuarantee,
                flushTimeoutMs,
                copier,
                context.metricGroup(),
                context.getProcessingTimeService());
    }

    /** {@link #batches()}. */
    private static final class Batches implements Sink<ArrowBatch> {

        private static final long serialVersionUID = 1L;

        private final NativeRungSink rows;

        Batches(NativeRungSink rows) {
            this.rows = rows;
        }

        @Override
        public SinkWriter<ArrowBatch> createWriter(WriterInitContext context) {
            NativeRungWriter writer = rows.writer(context, null);
            return new SinkWriter<>() {
                @Override
                public void write(ArrowBatch batch, Context ignored) throws IOException {
                    try {
                        writer.sendBatch(batch.root());
                    } finally {
                        // A batch received across an exchange is the consumer's to free.
                        batch.release();
                    }
                }

                @Override
                public void flush(boolean endOfInput) throws IOException {
                    writer.flush(endOfInput);
                }

                @Override
                public void close() {
                    writer.close();
                }
            };
        }
    }
}
