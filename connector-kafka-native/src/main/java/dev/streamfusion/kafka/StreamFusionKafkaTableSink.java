package dev.streamfusion.kafka;

import dev.streamfusion.kafka.sink.RecordLayout;
import dev.streamfusion.kafka.sink.StreamFusionKafkaSink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink;
import org.apache.flink.streaming.connectors.kafka.table.SinkBufferFlushMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.DataTypeUtils;

import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * A streamfusion-kafka table written to: values and keys encoded natively a batch at a time
 * where the table allows it ({@code none} or {@code at-least-once} delivery, natively encoded
 * formats, writable metadata limited to {@code headers} and {@code timestamp}, one topic),
 * otherwise Flink's own Kafka sink. Which one, and why, is in the summary.
 */
@Internal
final class StreamFusionKafkaTableSink extends KafkaDynamicSink {

    private final WriteContext writing;
    // Kept for copies: Flink's sink holds these privately.
    private final DeliveryGuarantee deliveryGuarantee;
    private final String transactionalIdPrefix;
    private final TransactionNamingStrategy transactionNamingStrategy;
    /** Why Flink's own sink writes the table, or {@code null} when it is written natively. */
    private final String stockReason;

    /** A sink of what Flink's factory resolved from the table's options. */
    StreamFusionKafkaTableSink(
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
            TransactionNamingStrategy transactionNamingStrategy,
            WriteContext writing) {
        super(
                physicalDataType,
                physicalDataType,
                keyEncodingFormat,
                valueEncodingFormat,
                keyProjection,
                valueProjection,
                keyPrefix,
                topics,
                topicPattern,
                properties,
                partitioner,
                deliveryGuarantee,
                false,
                SinkBufferFlushMode.DISABLED,
                parallelism,
                transactionalIdPrefix,
                transactionNamingStrategy);
        this.writing = writing;
        this.deliveryGuarantee = deliveryGuarantee;
        this.transactionalIdPrefix = transactionalIdPrefix;
        this.transactionNamingStrategy = transactionNamingStrategy;
        this.stockReason = stockReason();
    }

    /** Why Flink's own sink must write this table, or {@code null}. */
    private String stockReason() {
        String formats = writing.formats.notNative("encoded");
        if (formats != null) {
            return formats;
        }
        if (writing.unsupportedMetadata != null) {
            return "the metadata column '" + writing.unsupportedMetadata + "' is not written natively";
        }
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            return "exactly-once delivery uses Flink's transactional sink";
        }
        if (topics == null || topics.size() != 1) {
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
                        properties,
                        topics.get(0),
                        writing.formats.format,
                        writing.formats.formatOptions,
                        layout,
                        partitioner,
                        deliveryGuarantee);
        return SinkV2Provider.of(sink, parallelism);
    }

    @Override
    public DynamicTableSink copy() {
        StreamFusionKafkaTableSink copy =
                new StreamFusionKafkaTableSink(
                        physicalDataType,
                        keyEncodingFormat,
                        valueEncodingFormat,
                        keyProjection,
                        valueProjection,
                        keyPrefix,
                        topics,
                        topicPattern,
                        properties,
                        partitioner,
                        deliveryGuarantee,
                        parallelism,
                        transactionalIdPrefix,
                        transactionNamingStrategy,
                        writing);
        copy.metadataKeys = metadataKeys;
        copy.consumedDataType = consumedDataType;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "StreamFusion Kafka table sink ("
                + (stockReason == null
                        ? writing.formats.describe() + "encoded natively per batch, " + deliveryGuarantee
                        : "Flink's own sink: " + stockReason)
                + ")";
    }
}
