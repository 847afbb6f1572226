package dev.streamfusion.kafka.table;

import dev.streamfusion.bridge.table.PlannerExtension;
import dev.streamfusion.bridge.table.StockCounterpart;
import dev.streamfusion.kafka.internal.LoginModules;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.streaming.connectors.kafka.config.BoundedMode;
import org.apache.flink.streaming.connectors.kafka.config.StartupMode;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSource;
import org.apache.flink.streaming.connectors.kafka.table.SinkBufferFlushMode;
import org.apache.flink.streaming.connectors.kafka.table.UpsertKafkaDynamicTableFactory;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code 'connector' = 'streamfusion-upsert-kafka'} factory: every option of Flink's
 * upsert-kafka connector, read and validated by Flink's own factory (a primary key, key and value
 * formats, buffering), plus StreamFusion's table options. The source reads the topic as a
 * changelog (a record is an upsert of its key, a tombstone a delete) with values and keys decoded
 * natively; the sink writes upserts and tombstones encoded natively, reduced by key as Flink's
 * sink reduces them when {@code sink.buffer-flush.*} is set.
 *
 * <p>Flink's upsert-kafka factory builds its source and sink without hooks, and keeps what it
 * resolved in their fields: StreamFusion's source and sink are built from those fields, read from
 * the pinned flink-connector-kafka's classes.
 */
@Internal
public class StreamFusionUpsertKafkaTableFactory extends UpsertKafkaDynamicTableFactory
        implements StockCounterpart.SameOptions {

    public static final String IDENTIFIER = "streamfusion-upsert-kafka";

    private static final Logger LOG = LoggerFactory.getLogger(StreamFusionUpsertKafkaTableFactory.class);

    @Override
    public String stockIdentifier() {
        return "upsert-kafka";
    }

    @Override
    public Sample sample(Map<String, String> options, long rows) {
        return KafkaSamples.sample(this, true, options, rows);
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return StreamFusionKafkaTableFactory.withOwnOptions(super.optionalOptions());
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        PlannerExtension.tablePlanned(context.getConfiguration(), context.getClassLoader());
        ReadPlan plan = ReadPlan.of(context);
        KafkaDynamicSource flinks =
                (KafkaDynamicSource)
                        super.createDynamicTableSource(StreamFusionKafkaTableFactory.withoutOwnPrefixes(context));
        Resolved<KafkaDynamicSource> resolved = new Resolved<>(flinks, KafkaDynamicSource.class);
        KafkaDynamicSource source =
                StockReadKafkaTableSource.planned(
                        new StockReadKafkaTableSource(
                                resolved.<DataType>get("physicalDataType"),
                                resolved.<DecodingFormat<DeserializationSchema<RowData>>>get("keyDecodingFormat"),
                                resolved.<DecodingFormat<DeserializationSchema<RowData>>>get("valueDecodingFormat"),
                                resolved.<int[]>get("keyProjection"),
                                resolved.<int[]>get("valueProjection"),
                                resolved.<String>get("keyPrefix"),
                                resolved.<List<String>>get("topics"),
                                resolved.<Pattern>get("topicPattern"),
                                LoginModules.rewritten(resolved.<Properties>get("properties")),
                                resolved.<StartupMode>get("startupMode"),
                                resolved.<Map<TopicPartition, Long>>get("specificStartupOffsets"),
                                resolved.<Long>get("startupTimestampMillis"),
                                resolved.<BoundedMode>get("boundedMode"),
                                resolved.<Map<TopicPartition, Long>>get("specificBoundedOffsets"),
                                resolved.<Long>get("boundedTimestampMillis"),
                                resolved.<String>get("tableIdentifier"),
                                resolved.<Integer>get("parallelism"),
                                true,
                                plan));
        LOG.info("{} table {}: {}", IDENTIFIER, context.getObjectIdentifier(), source.asSummaryString());
        return source;
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        PlannerExtension.tablePlanned(context.getConfiguration(), context.getClassLoader());
        WriteContext writing = WriteContext.of(context);
        KafkaDynamicSink flinks =
                (KafkaDynamicSink) super.createDynamicTableSink(StreamFusionKafkaTableFactory.withoutOwnPrefixes(context));
        Resolved<KafkaDynamicSink> resolved = new Resolved<>(flinks, KafkaDynamicSink.class);
        StreamFusionKafkaTableSink sink =
                new StreamFusionKafkaTableSink(
                        resolved.<DataType>get("physicalDataType"),
                        resolved.<EncodingFormat<SerializationSchema<RowData>>>get("keyEncodingFormat"),
                        resolved.<EncodingFormat<SerializationSchema<RowData>>>get("valueEncodingFormat"),
                        resolved.<int[]>get("keyProjection"),
                        resolved.<int[]>get("valueProjection"),
                        resolved.<String>get("keyPrefix"),
                        resolved.<List<String>>get("topics"),
                        resolved.<Pattern>get("topicPattern"),
                        LoginModules.rewritten(resolved.<Properties>get("properties")),
                        resolved.<KafkaPartitioner<RowData>>get("partitioner"),
                        resolved.<DeliveryGuarantee>get("deliveryGuarantee"),
                        resolved.<Integer>get("parallelism"),
                        resolved.<String>get("transactionalIdPrefix"),
                        resolved.<TransactionNamingStrategy>get("transactionNamingStrategy"),
                        true,
                        resolved.<SinkBufferFlushMode>get("flushMode"),
                        writing);
        LOG.info("{} table {}: {}", IDENTIFIER, writing.table, sink.asSummaryString());
        return sink;
    }

    /** The fields of a source or sink Flink's factory built, by name. */
    private static final class Resolved<T> {
        private final T built;
        private final Class<T> type;

        Resolved(T built, Class<T> type) {
            this.built = built;
            this.type = type;
        }

        @SuppressWarnings("unchecked")
        <V> V get(String name) {
            try {
                Field field = type.getDeclaredField(name);
                field.setAccessible(true);
                return (V) field.get(built);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalStateException(
                        "this flink-connector-kafka does not keep what its upsert-kafka factory resolved where "
                                + "StreamFusion expects it (" + type.getSimpleName() + "." + name
                                + "); use the version StreamFusion is built with",
                        e);
            }
        }
    }
}
