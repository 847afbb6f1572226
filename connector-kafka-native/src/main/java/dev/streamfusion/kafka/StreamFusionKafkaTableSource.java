package dev.streamfusion.kafka;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSource;
import org.apache.flink.table.connector.source.DynamicTableSource;

/**
 * A streamfusion-kafka table source built from what Flink's factory resolved. As it is, it reads
 * with Flink's own Kafka reader, exactly as the kafka connector would (for tables that ask for
 * something the native reader does not do), and says why in its description;
 * {@link NativeReadKafkaTableSource} reads natively.
 */
@Internal
class StreamFusionKafkaTableSource extends KafkaDynamicSource {

    final KafkaTableParameters parameters;
    final ReadPlan plan;

    StreamFusionKafkaTableSource(KafkaTableParameters p, ReadPlan plan) {
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

    /** A new source of the same table and kind, without what was pushed into this one. */
    StreamFusionKafkaTableSource fresh() {
        return new StreamFusionKafkaTableSource(parameters, plan);
    }

    @Override
    public DynamicTableSource copy() {
        StreamFusionKafkaTableSource copy = fresh();
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
