package dev.streamfusion.kafka;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSource;
import org.apache.flink.table.connector.source.DynamicTableSource;

/**
 * A streamfusion-kafka table that asks for something the native reader does not do yet: it reads
 * with Flink's own Kafka reader, exactly as the kafka connector would, and says why in its
 * description.
 */
@Internal
final class StockReadKafkaTableSource extends KafkaDynamicSource {

    private final KafkaTableParameters parameters;
    private final ReadPlan plan;

    StockReadKafkaTableSource(KafkaTableParameters p, ReadPlan plan) {
        super(
                p.physicalDataType,
                p.keyDecodingFormat,
                p.valueDecodingFormat,
                p.keyProjection,
                p.valueProjection,
                p.keyPrefix,
                p.topics,
                p.topicPattern,
                p.properties,
                p.startupMode,
                p.specificStartupOffsets,
                p.startupTimestampMillis,
                p.boundedMode,
                p.specificBoundedOffsets,
                p.boundedTimestampMillis,
                false,
                p.tableIdentifier,
                p.parallelism);
        this.parameters = p;
        this.plan = plan;
    }

    @Override
    public DynamicTableSource copy() {
        StockReadKafkaTableSource copy = new StockReadKafkaTableSource(parameters, plan);
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
