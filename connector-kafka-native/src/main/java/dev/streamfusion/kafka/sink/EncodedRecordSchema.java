package dev.streamfusion.kafka.sink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.DefaultKafkaDatasetIdentifier;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacet;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.table.data.RowData;

import org.apache.kafka.clients.producer.ProducerRecord;

import java.util.List;
import java.util.Optional;

/**
 * Turns an already encoded record into the producer record Flink's Kafka writer sends: the bytes
 * as they are, the partition from the table's partitioner (as Flink's table sink picks it), the
 * record's own timestamp and headers. Names its topic to Flink's sink, as the stock table sink's
 * schema does: the lineage's dataset, and the topic whose transactions the {@code POOLING}
 * transaction naming strategy looks up.
 */
@Internal
final class EncodedRecordSchema implements KafkaRecordSerializationSchema<EncodedRecord>, KafkaDatasetFacetProvider {

    private static final long serialVersionUID = 1L;

    private final String topic;
    /** The table's partitioner, or {@code null} for the producer's own. */
    private final KafkaPartitioner<RowData> partitioner;

    EncodedRecordSchema(String topic, KafkaPartitioner<RowData> partitioner) {
        this.topic = topic;
        this.partitioner = partitioner;
    }

    @Override
    public void open(SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
        if (partitioner != null) {
            partitioner.open(sinkContext.getParallelInstanceId(), sinkContext.getNumberOfParallelInstances());
        }
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(EncodedRecord record, KafkaSinkContext context, Long timestamp) {
        Integer partition =
                partitioner == null
                        ? null
                        : partitioner.partition(
                                record.row, record.key, record.value, topic, context.getPartitionsForTopic(topic));
        return new ProducerRecord<>(topic, partition, record.timestamp, record.key, record.value, record.headers);
    }

    @Override
    public Optional<KafkaDatasetFacet> getKafkaDatasetFacet() {
        // A new facet each time: Flink's sink sets its producer properties on the one it is given.
        return Optional.of(new DefaultKafkaDatasetFacet(DefaultKafkaDatasetIdentifier.ofTopics(List.of(topic))));
    }
}
