package dev.streamfusion.kafka;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.streaming.connectors.kafka.config.BoundedMode;
import org.apache.flink.streaming.connectors.kafka.config.StartupMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

import org.apache.kafka.common.TopicPartition;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * What Flink's Kafka table factory resolved from a table's options, as it hands them to a table
 * source; carried whole so that StreamFusion's sources are built (and copied) from exactly the
 * stock connector's reading of the options.
 */
@Internal
final class KafkaTableParameters {

    final DataType physicalDataType;
    final DecodingFormat<DeserializationSchema<RowData>> keyDecodingFormat;
    final DecodingFormat<DeserializationSchema<RowData>> valueDecodingFormat;
    final int[] keyProjection;
    final int[] valueProjection;
    final String keyPrefix;
    final List<String> topics;
    final Pattern topicPattern;
    final Properties properties;
    final StartupMode startupMode;
    final Map<TopicPartition, Long> specificStartupOffsets;
    final long startupTimestampMillis;
    final BoundedMode boundedMode;
    final Map<TopicPartition, Long> specificBoundedOffsets;
    final long boundedTimestampMillis;
    final String tableIdentifier;
    final Integer parallelism;

    KafkaTableParameters(
            DataType physicalDataType,
            DecodingFormat<DeserializationSchema<RowData>> keyDecodingFormat,
            DecodingFormat<DeserializationSchema<RowData>> valueDecodingFormat,
            int[] keyProjection,
            int[] valueProjection,
            String keyPrefix,
            List<String> topics,
            Pattern topicPattern,
            Properties properties,
            StartupMode startupMode,
            Map<TopicPartition, Long> specificStartupOffsets,
            long startupTimestampMillis,
            BoundedMode boundedMode,
            Map<TopicPartition, Long> specificBoundedOffsets,
            long boundedTimestampMillis,
            String tableIdentifier,
            Integer parallelism) {
        this.physicalDataType = physicalDataType;
        this.keyDecodingFormat = keyDecodingFormat;
        this.valueDecodingFormat = valueDecodingFormat;
        this.keyProjection = keyProjection;
        this.valueProjection = valueProjection;
        this.keyPrefix = keyPrefix;
        this.topics = topics;
        this.topicPattern = topicPattern;
        this.properties = properties;
        this.startupMode = startupMode;
        this.specificStartupOffsets = specificStartupOffsets;
        this.startupTimestampMillis = startupTimestampMillis;
        this.boundedMode = boundedMode;
        this.specificBoundedOffsets = specificBoundedOffsets;
        this.boundedTimestampMillis = boundedTimestampMillis;
        this.tableIdentifier = tableIdentifier;
        this.parallelism = parallelism;
    }
}
