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
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.DataTypeUtils;

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

    /**
     * A source of what Flink's factory resolved from the table's options.
     *
     * @param upsert whether the table is an upsert table (streamfusion-upsert-kafka): a record
     *     with a null value is a delete of its key
     */
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
            boolean upsert,
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
                upsert,
                tableIdentifier,
                parallelism);
        this.plan = plan;
    }

    /**
     * {@code resolved} (a table as Flink's factory resolved it, with its unchecked plan) read
     * natively, or, when the native decoders refuse the formats' options or the rows' types, by
     * Flink's own reader (or an error naming the reason, for a forced rung).
     */
    static KafkaDynamicSource planned(StockReadKafkaTableSource resolved) {
        RowType physical = (RowType) DataTypeUtils.removeTimeAttribute(resolved.physicalDataType).getLogicalType();
        ReadPlan checked =
                resolved.plan.checkedFor(
                        FormatRows.project(physical, resolved.valueProjection, null),
                        resolved.keyDecodingFormat == null
                                ? null
                                : FormatRows.project(physical, resolved.keyProjection, resolved.keyPrefix));
        StockReadKafkaTableSource source = checked == resolved.plan ? resolved : new StockReadKafkaTableSource(resolved, checked);
        return checked.stockReason == null ? new NativeReadKafkaTableSource(source) : source;
    }

    /** A source of the same table as {@code other}, without what was pushed into it. */
    StockReadKafkaTableSource(StockReadKafkaTableSource other) {
        this(other, other.plan);
    }

    /** A source of the same table as {@code other} with {@code plan}, without what was pushed into it. */
    private StockReadKafkaTableSource(StockReadKafkaTableSource other, ReadPlan plan) {
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
                other.upsertMode,
                plan);
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
        return "StreamFusion " + (upsertMode ? "upsert " : "") + "Kafka table source (" + plan.describe() + ")";
    }
}
