package dev.streamfusion.kafka.table;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchSinkTarget;
import dev.streamfusion.kafka.internal.LibrdkafkaConfig;
import dev.streamfusion.kafka.sink.JavaRungSink;
import dev.streamfusion.kafka.sink.NativeRungSink;
import dev.streamfusion.kafka.sink.RecordLayout;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.connectors.kafka.partitioner.FlinkFixedPartitioner;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink;
import org.apache.flink.streaming.connectors.kafka.table.SinkBufferFlushMode;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.DataTypeUtils;

import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * A streamfusion-kafka table written to: values and keys encoded natively a batch at a time
 * where the table allows it ({@code none} or {@code at-least-once} delivery, natively encoded
 * formats, writable metadata limited to {@code headers} and {@code timestamp}, one topic),
 * otherwise Flink's own Kafka sink. Which one, and why, is in the summary.
 */
@Internal
final class StreamFusionKafkaTableSink extends KafkaDynamicSink implements BatchSinkTarget {

    private final WriteContext writing;
    // Kept for copies: Flink's sink holds these privately.
    private final DeliveryGuarantee deliveryGuarantee;
    private final String transactionalIdPrefix;
    private final TransactionNamingStrategy transactionNamingStrategy;
    /** Why Flink's own sink writes the table, or {@code null} when it is written natively. */
    private final String stockReason;
    /** Why kafka-clients produces, or {@code null} when librdkafka does. */
    private final String kafkaClientsReason;

    /**
     * A sink of what Flink's factory resolved from the table's options.
     *
     * @param upsert whether the table is an upsert table (streamfusion-upsert-kafka): deletes are
     *     written as tombstones
     * @param flushMode an upsert table's buffering ({@code sink.buffer-flush.*})
     */
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
            boolean upsert,
            SinkBufferFlushMode flushMode,
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
                upsert,
                flushMode,
                parallelism,
                transactionalIdPrefix,
                transactionNamingStrategy);
        this.writing = writing;
        this.deliveryGuarantee = deliveryGuarantee;
        this.transactionalIdPrefix = transactionalIdPrefix;
        this.transactionNamingStrategy = transactionNamingStrategy;
        this.stockReason = stockReason();
        this.kafkaClientsReason = stockReason == null ? kafkaClientsReason() : null;
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
        if (topics == null || topics.size() != 1) {
            return "the native sink writes one fixed topic";
        }
        RowType physical = physicalType();
        String encoders =
                writing.formats.notEncodable(
                        FormatRows.project(physical, valueProjection, null),
                        writing.formats.keyFormat == null ? null : FormatRows.project(physical, keyProjection, keyPrefix));
        if (encoders != null && writing.rung != StreamFusionKafkaOptions.Rung.AUTO) {
            throw new ValidationException(
                    "'" + StreamFusionKafkaOptions.RUNG.key() + "' = '" + writing.rung + "', but " + encoders);
        }
        return encoders;
    }

    /** Why kafka-clients must produce this natively encoded table, or {@code null}. */
    private String kafkaClientsReason() {
        String forced = "'" + StreamFusionKafkaOptions.RUNG.key() + "' = '" + writing.rung + "'";
        if (deliveryGuarantee == DeliveryGuarantee.EXACTLY_ONCE) {
            return "exactly-once runs in Kafka transactions";
        }
        if (writing.rung == StreamFusionKafkaOptions.Rung.JAVA) {
            return "chosen by " + forced;
        }
        List<String> untranslatable = LibrdkafkaConfig.producer(properties).producerProblems();
        String reason = null;
        if (!untranslatable.isEmpty()) {
            reason = "librdkafka cannot take " + String.join("; ", untranslatable);
        } else if (partitioner != null && partitioner.getClass() != FlinkFixedPartitioner.class) {
            // Flink's own fixed partitioner reads neither the row nor the bytes; a subclass of it
            // may read any of them, as any other class may.
            reason = "the partitioner " + partitioner.getClass().getName() + " may read the encoded bytes";
        }
        if (reason != null && writing.rung == StreamFusionKafkaOptions.Rung.NATIVE) {
            throw new ValidationException(forced + ", but " + reason);
        }
        return reason;
    }

    @Override
    public Optional<String> batchesUnsupported(RowType input, boolean streaming) {
        if (stockReason != null) {
            return Optional.of("Flink's own Kafka sink writes the table: " + stockReason);
        }
        if (kafkaClientsReason != null) {
            return Optional.of("kafka-clients produces the table: " + kafkaClientsReason);
        }
        if (!metadataKeys.isEmpty()) {
            return Optional.of("metadata columns are written from rows");
        }
        if (parallelism != null && upsertMode) {
            return Optional.of("with a primary key and 'sink.parallelism', Flink routes the rows to the writers by key");
        }
        if (flushMode.isEnabled()) {
            return Optional.of("'sink.buffer-flush.*' reduces rows by key");
        }
        return BatchSinkTarget.columnsDiffer(input, physicalType());
    }

    @Override
    public DataStreamSink<?> consumeBatches(DataStream<ArrowBatch> batches) {
        // At 'sink.parallelism', the batches cross the exchange as Flink's rows would (rebalanced).
        return batches.sinkTo(nativeRungSink(layout()).batches())
                .setParallelism(parallelism == null ? batches.getParallelism() : parallelism)
                .name("NativeSinkBatches");
    }

    private RowType physicalType() {
        return (RowType) DataTypeUtils.removeTimeAttribute(physicalDataType).getLogicalType();
    }

    /** Where each part of a record comes from in the rows this sink is given. */
    private RecordLayout layout() {
        RowType physical = physicalType();
        int physicalArity = physical.getFieldCount();
        RecordLayout layout = new RecordLayout(
                        physicalArity + metadataKeys.size(),
                        FormatRows.project(physical, valueProjection, null),
                        valueProjection,
                        writing.formats.keyFormat,
                        writing.formats.keyFormatOptions,
                        writing.formats.keyFormat == null ? null : FormatRows.project(physical, keyProjection, keyPrefix),
                        writing.formats.keyFormat == null ? null : keyProjection,
                        metadataKeys.contains("headers") ? physicalArity + metadataKeys.indexOf("headers") : -1,
                        metadataKeys.contains("timestamp") ? physicalArity + metadataKeys.indexOf("timestamp") : -1);
        return upsertMode ? layout.upserting(flushMode.getBatchSize(), flushMode.getBatchIntervalMs()) : layout;
    }

    private NativeRungSink nativeRungSink(RecordLayout layout) {
        return new NativeRungSink(
                LibrdkafkaConfig.producer(properties).producerProperties(),
                LibrdkafkaConfig.maxBlockMs(properties),
                topics.get(0),
                writing.formats.format,
                writing.formats.formatOptions,
                layout,
                partitioner,
                deliveryGuarantee);
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        if (stockReason != null) {
            return super.getSinkRuntimeProvider(context);
        }
        RecordLayout layout = layout();
        Sink<RowData> sink =
                kafkaClientsReason == null
                        ? nativeRungSink(layout)
                        : new JavaRungSink(
                                properties,
                                topics.get(0),
                                writing.formats.format,
                                writing.formats.formatOptions,
                                layout,
                                partitioner,
                                deliveryGuarantee,
                                transactionalIdPrefix,
                                transactionNamingStrategy);
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
                        upsertMode,
                        flushMode,
                        writing);
        copy.metadataKeys = metadataKeys;
        copy.consumedDataType = consumedDataType;
        return copy;
    }

    @Override
    public String asSummaryString() {
        String upserts =
                !upsertMode
                        ? ""
                        : flushMode.isEnabled()
                                ? "upserts and tombstones reduced by key (up to " + flushMode.getBatchSize() + " keys or "
                                        + flushMode.getBatchIntervalMs() + " ms), "
                                : "upserts and tombstones, ";
        return "StreamFusion " + (upsertMode ? "upsert " : "") + "Kafka table sink ("
                + upserts
                + (stockReason == null
                        ? writing.formats.describe() + "encoded natively per batch, "
                                + (kafkaClientsReason == null
                                        ? "produced by librdkafka, "
                                        : "produced by kafka-clients (" + kafkaClientsReason + "), ")
                                + deliveryGuarantee
                        : "Flink's own sink: " + stockReason)
                + ")";
    }
}
