package dev.streamfusion.kafka;

import dev.streamfusion.kafka.sink.StreamFusionKafkaSink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink;
import org.apache.flink.streaming.connectors.kafka.table.SinkBufferFlushMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.DataTypeUtils;

import java.util.Map;
import java.util.Set;

/**
 * A streamfusion-kafka table written to: values encoded natively a batch at a time where the
 * table allows it ({@code none} or {@code at-least-once} delivery, a natively encoded value format,
 * no key format or writable metadata, one topic), otherwise Flink's own Kafka sink. Which one, and
 * why, is in the summary.
 */
@Internal
final class StreamFusionKafkaTableSink extends KafkaDynamicSink {

    /** Value formats encoded natively. */
    static final Set<String> NATIVE_FORMATS = ReadPlan.NATIVE_FORMATS;

    private final KafkaSinkParameters parameters;
    private final String format;
    private final Map<String, String> formatOptions;
    /** Why Flink's own sink writes the table, or {@code null} when it is written natively. */
    private final String stockReason;

    StreamFusionKafkaTableSink(
            KafkaSinkParameters p, String format, Map<String, String> formatOptions, String stockReason) {
        super(
                p.physicalDataType,
                p.physicalDataType,
                p.keyEncodingFormat,
                p.valueEncodingFormat,
                p.keyProjection,
                p.valueProjection,
                p.keyPrefix,
                p.topics,
                p.topicPattern,
                p.properties,
                p.partitioner,
                p.deliveryGuarantee,
                false,
                SinkBufferFlushMode.DISABLED,
                p.parallelism,
                p.transactionalIdPrefix,
                p.transactionNamingStrategy);
        this.parameters = p;
        this.format = format;
        this.formatOptions = formatOptions;
        this.stockReason = stockReason;
    }

    /** Why Flink's own sink must write a table with these parameters, or {@code null}. */
    static String stockReason(KafkaSinkParameters p, String format, boolean hasMetadataColumns) {
        if (format == null || !NATIVE_FORMATS.contains(format)) {
            return "the value format '" + format + "' is not encoded natively";
        }
        if (p.keyEncodingFormat != null) {
            return "'key.format' is not encoded natively yet";
        }
        if (hasMetadataColumns) {
            return "writable metadata columns are not written natively yet";
        }
        if (p.deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            return "exactly-once delivery uses Flink's transactional sink";
        }
        if (p.topics == null || p.topics.size() != 1) {
            return "the native sink writes one fixed topic";
        }
        return null;
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        if (stockReason != null) {
            return super.getSinkRuntimeProvider(context);
        }
        StreamFusionKafkaSink sink =
                new StreamFusionKafkaSink(
                        parameters.properties,
                        parameters.topics.get(0),
                        format,
                        formatOptions,
                        (RowType) DataTypeUtils.removeTimeAttribute(physicalDataType).getLogicalType(),
                        parameters.partitioner,
                        parameters.deliveryGuarantee);
        return SinkV2Provider.of(sink, parameters.parallelism);
    }

    @Override
    public DynamicTableSink copy() {
        StreamFusionKafkaTableSink copy = new StreamFusionKafkaTableSink(parameters, format, formatOptions, stockReason);
        copy.metadataKeys = metadataKeys;
        copy.consumedDataType = consumedDataType;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "StreamFusion Kafka table sink ("
                + (stockReason == null
                        ? "'" + format + "' encoded natively per batch, " + parameters.deliveryGuarantee
                        : "Flink's own sink: " + stockReason)
                + ")";
    }
}
