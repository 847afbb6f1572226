package dev.streamfusion.kafka;

import dev.streamfusion.kafka.sink.RecordLayout;
import dev.streamfusion.kafka.sink.StreamFusionKafkaSink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink;
import org.apache.flink.streaming.connectors.kafka.table.SinkBufferFlushMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.DataTypeUtils;


/**
 * A streamfusion-kafka table written to: values and keys encoded natively a batch at a time
 * where the table allows it ({@code none} or {@code at-least-once} delivery, natively encoded
 * formats, writable metadata limited to {@code headers} and {@code timestamp}, one topic),
 * otherwise Flink's own Kafka sink. Which one, and why, is in the summary.
 */
@Internal
final class StreamFusionKafkaTableSink extends KafkaDynamicSink {

    private final KafkaSinkParameters parameters;
    private final WriteContext writing;
    /** Why Flink's own sink writes the table, or {@code null} when it is written natively. */
    private final String stockReason;

    StreamFusionKafkaTableSink(KafkaSinkParameters p, WriteContext writing) {
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
        this.writing = writing;
        this.stockReason = stockReason(p, writing);
    }

    /** Why Flink's own sink must write a table with these parameters, or {@code null}. */
    private static String stockReason(KafkaSinkParameters p, WriteContext writing) {
        String formats = writing.formats.notNative("encoded");
        if (formats != null) {
            return formats;
        }
        if (writing.unsupportedMetadata != null) {
            return "the metadata column '" + writing.unsupportedMetadata + "' is not written natively";
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
        RowType physical = (RowType) DataTypeUtils.removeTimeAttribute(physicalDataType).getLogicalType();
        int physicalArity = physical.getFieldCount();
        RecordLayout layout =
                new RecordLayout(
                        physicalArity + metadataKeys.size(),
                        FormatRows.project(physical, valueProjection, null),
                        valueProjection,
                        writing.formats.keyFormat,
                        writing.formats.keyFormatOptions,
                        writing.formats.keyFormat == null ? null : FormatRows.project(physical, keyProjection, keyPrefix),
                        writing.formats.keyFormat == null ? null : keyProjection,
                        metadataKeys.contains("headers") ? physicalArity + metadataKeys.indexOf("headers") : -1,
                        metadataKeys.contains("timestamp") ? physicalArity + metadataKeys.indexOf("timestamp") : -1);
        StreamFusionKafkaSink sink =
                new StreamFusionKafkaSink(
                        parameters.properties,
                        parameters.topics.get(0),
                        writing.formats.format,
                        writing.formats.formatOptions,
                        layout,
                        parameters.partitioner,
                        parameters.deliveryGuarantee);
        return SinkV2Provider.of(sink, parameters.parallelism);
    }

    @Override
    public DynamicTableSink copy() {
        StreamFusionKafkaTableSink copy = new StreamFusionKafkaTableSink(parameters, writing);
        copy.metadataKeys = metadataKeys;
        copy.consumedDataType = consumedDataType;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "StreamFusion Kafka table sink ("
                + (stockReason == null
                        ? writing.formats.describe() + "encoded natively per batch, " + parameters.deliveryGuarantee
                        : "Flink's own sink: " + stockReason)
                + ")";
    }
}
