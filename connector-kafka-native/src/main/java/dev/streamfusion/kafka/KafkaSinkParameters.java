package dev.streamfusion.kafka;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * What Flink's Kafka table factory resolved from a table's options for a sink, carried whole so
 * that StreamFusion's sinks are built (and copied) from exactly the stock connector's reading.
 */
@Internal
final class KafkaSinkParameters {

    final DataType physicalDataType;
    final EncodingFormat<SerializationSchema<RowData>> keyEncodingFormat;
    final EncodingFormat<SerializationSchema<RowData>> valueEncodingFormat;
    final int[] keyProjection;
    final int[] valueProjection;
    final String keyPrefix;
    final List<String> topics;
    final Pattern topicPattern;
    final Properties properties;
    final KafkaPartitioner<RowData> partitioner;
    final DeliveryGuarantee deliveryGuarantee;
    final Integer parallelism;
    final String transactionalIdPrefix;
    final TransactionNamingStrategy transactionNamingStrategy;

    KafkaSinkParameters(
            DataType physicalDataType,
            EncodingFormat<SerializationSchema<RowData>> keyEncodingFormat,
            EncodingFormat<SerializationSchema<RowData>> valueEncodingFormat,
            int[] keyProjection,
            int[] valueProjection,
            String keyPrefix,
            List<String> topics,
            Pattern topicPattern,
            Properties properties,
            KafkaPartitioner<RowData> partitioner,
            DeliveryGuarantee deliveryGuarantee,
            Integer parallelism,
            String transactionalIdPrefix,
            TransactionNamingStrategy transactionNamingStrategy) {
        this.physicalDataType = physicalDataType;
        this.keyEncodingFormat = keyEncodingFormat;
        this.valueEncodingFormat = valueEncodingFormat;
        this.keyProjection = keyProjection;
        this.valueProjection = valueProjection;
        this.keyPrefix = keyPrefix;
        this.topics = topics;
        this.topicPattern = topicPattern;
        this.properties = properties;
        this.partitioner = partitioner;
        this.deliveryGuarantee = deliveryGuarantee;
        this.parallelism = parallelism;
        this.transactionalIdPrefix = transactionalIdPrefix;
        this.transactionNamingStrategy = transactionNamingStrategy;
    }
}
