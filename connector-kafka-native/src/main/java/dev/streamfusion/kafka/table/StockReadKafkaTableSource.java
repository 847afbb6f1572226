package dev.streamfusion.kafka.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.streaming.connectors.kafka.config.BoundedMode;
import org.apache.flink.streaming.connectors.kafka.config.StartupMode;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSource;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

import org.apache.kafka.common.TopicPartition;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * A streamfusion-kafka table source built from what Flink's factory resolved. As it is, it reads
 * with Flink's own Kafka reader, exactly as the kafka connector would (for tables that ask for
 * something the native reader does not do), and says why in its description;
 * {@link NativeReadKafkaTableSource} reads natively.
 */
@Internal
class StockReadKafkaTableSource extends KafkaDynamicSource {

    final ReadPlan plan;

    /** A source of what Flink's factory resolved from the table's options. */
    StockReadKafkaTableSource(
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
            Integer parallelism,
            ReadPlan plan) {
        super(
                physicalDataType,
                keyDecodingFormat,
                valueDecodingFormat,
                keyProjection,
                valueProjection,
                keyPrefix,
                topics,
                topicPattern,
                properties,
                startupMode,
                specificStartupOffsets,
                startupTimestampMillis,
                boundedMode,
                specificBoundedOffsets,
                boundedTimestampMillis,
                false,
                tableIdentifier,
                parallelism);
        this.plan = plan;
    }

    /** A source of the same table as {@code other}, without what was pushed into it. */
    StockReadKafkaTableSource(StockReadKafkaTableSource other) {
        this(
                other.physicalDataType,
                other.keyDecodingFormat,
                other.valueDecodingFormat,
                other.keyProjection,
                other.valueProjection,
                other.keyPrefix,
                other.topics,
                other.topicPattern,
                other.properties,
                other.startupMode,
                other.specificStartupOffsets,
                other.startupTimestampMillis,
                other.boundedMode,
                other.specificBoundedOffsets,
                other.boundedTimestampMillis,
                other.tableIdentifier,
                other.parallelism,
                other.plan);
    }

    /** A new source of the same table and kind, without what was pushed into this one. */
    StockReadKafkaTableSource fresh() {
        return new StockReadKafkaTableSource(this);
    }

    @Override
    public DynamicTableSource copy() {
        StockReadKafkaTableSource copy = fresh();
        copy.producedDataType = producedDataType;
        copy.metadataKeys = metadataKeys;
        copy.watermarkStrategy = watermarkStrategy;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "StreamFusion Kafka table source (" + plan.describe() + ")";
    }
}
