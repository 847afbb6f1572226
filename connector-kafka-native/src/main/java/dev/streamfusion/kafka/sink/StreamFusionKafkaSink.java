package dev.streamfusion.kafka.sink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.table.data.RowData;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The streamfusion-kafka sink for {@code none} and {@code at-least-once} delivery: rows are
 * collected into batches, each batch's values (and keys) are encoded natively in one call each,
 * and the records, with their headers and timestamps, go to one topic through a kafka-clients
 * producer that is flushed on every checkpoint (at-least-once) and at the end of input.
 */
@Internal
public final class StreamFusionKafkaSink implements Sink<RowData> {

    private static final long serialVersionUID = 1L;

    private final Properties producerProperties;
    private final String topic;
    private final String format;
    private final HashMap<String, String> formatOptions;
    private final RecordLayout layout;
    private final KafkaPartitioner<RowData> partitioner;
    private final DeliveryGuarantee deliveryGuarantee;

    /**
     * @param partitioner Flink's partitioner for the table ({@code sink.partitioner}), or {@code
     *     null} for the producer's own (the default, and round-robin through its properties)
     */
    public StreamFusionKafkaSink(
            Properties producerProperties,
            String topic,
            String format,
            Map<String, String> formatOptions,
            RecordLayout layout,
            KafkaPartitioner<RowData> partitioner,
            DeliveryGuarantee deliveryGuarantee) {
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            throw new IllegalArgumentException("exactly-once delivery is written by Flink's Kafka sink");
        }
        this.producerProperties = producerProperties;
        this.topic = topic;
        this.format = format;
        this.formatOptions = new HashMap<>(formatOptions);
        this.layout = layout;
        this.partitioner = partitioner;
        this.deliveryGuarantee = deliveryGuarantee;
    }

    @Override
    public SinkWriter<RowData> createWriter(WriterInitContext context) {
        if (partitioner != null) {
            partitioner.open(
                    context.getTaskInfo().getIndexOfThisSubtask(), context.getTaskInfo().getNumberOfParallelSubtasks());
        }
        return new NativeKafkaWriter(
                producerProperties,
                topic,
                format,
                formatOptions,
                layout,
                partitioner,
                deliveryGuarantee,
                context.isObjectReuseEnabled() ? context.createInputSerializer() : null);
    }
}
