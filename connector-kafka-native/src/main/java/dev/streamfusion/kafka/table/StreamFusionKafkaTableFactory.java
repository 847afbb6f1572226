package dev.streamfusion.kafka.table;

import dev.streamfusion.bridge.table.ErrorPolicy;
import dev.streamfusion.bridge.table.PlannerExtension;
import dev.streamfusion.bridge.table.RowLayout;
import dev.streamfusion.bridge.table.StockCounterpart;
import dev.streamfusion.kafka.internal.LoginModules;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaPartitioner;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.streaming.connectors.kafka.config.BoundedMode;
import org.apache.flink.streaming.connectors.kafka.config.StartupMode;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSource;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicTableFactory;
import org.apache.flink.streaming.connectors.kafka.table.SinkBufferFlushMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.format.EncodingFormat;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;

import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code 'connector' = 'streamfusion-kafka'} factory: every option of Flink's kafka connector,
 * read and validated by Flink's own factory, plus {@code streamfusion.rung}. Sources decode values
 * natively where the table allows it and sinks encode natively where it allows that; each says
 * which reader or writer it uses in its description.
 */
@Internal
public class StreamFusionKafkaTableFactory extends KafkaDynamicTableFactory
        implements StockCounterpart.SameOptions {

    public static final String IDENTIFIER = "streamfusion-kafka";

    private static final Logger LOG = LoggerFactory.getLogger(StreamFusionKafkaTableFactory.class);

    /** The plan of the table being created, from its context to the source built for it. */
    private ReadPlan plan;
    /** The table being written to, from its context to the sink built for it. */
    private WriteContext writing;

    @Override
    public String stockIdentifier() {
        return "kafka";
    }

    @Override
    public Sample sample(Map<String, String> options, long rows) {
        return KafkaSamples.sample(this, false, options, rows);
    }

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return withOwnOptions(super.optionalOptions());
    }

    /** {@code flinks} (a Flink factory's optional options) and StreamFusion's table options. */
    static Set<ConfigOption<?>> withOwnOptions(Set<ConfigOption<?>> flinks) {
        Set<ConfigOption<?>> options = new HashSet<>(flinks);
        options.add(StreamFusionKafkaOptions.RUNG);
        options.add(StreamFusionKafkaOptions.PREFETCH_KBYTES);
        options.add(ErrorPolicy.OPTION);
        options.add(RowLayout.OPTION);
        options.add(StreamFusionKafkaOptions.ERRORS_TOPIC);
        return options;
    }

    /**
     * {@code context} without the options only StreamFusion reads under a prefix ({@code
     * streamfusion.errors.properties.*}), which Flink's validation, allowing {@code properties.*}
     * alone, would refuse; they are read from the original context.
     */
    static Context withoutOwnPrefixes(Context context) {
        Map<String, String> options = new HashMap<>(context.getCatalogTable().getOptions());
        if (!options.keySet().removeIf(key -> key.startsWith(StreamFusionKafkaOptions.ERRORS_PROPERTIES_PREFIX))) {
            return context;
        }
        return new FactoryUtil.DefaultDynamicTableContext(
                context.getObjectIdentifier(),
                context.getCatalogTable().copy(options),
                context.getEnrichmentOptions(),
                context.getConfiguration(),
                context.getClassLoader(),
                context.isTemporary());
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        PlannerExtension.tablePlanned(context.getConfiguration(), context.getClassLoader());
        plan = ReadPlan.of(context);
        try {
            DynamicTableSource source = super.createDynamicTableSource(withoutOwnPrefixes(context));
            LOG.info("streamfusion-kafka table {}: {}", context.getObjectIdentifier(), source.asSummaryString());
            return source;
        } finally {
            plan = null;
        }
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        PlannerExtension.tablePlanned(context.getConfiguration(), context.getClassLoader());
        writing = WriteContext.of(context);
        try {
            return super.createDynamicTableSink(withoutOwnPrefixes(context));
        } finally {
            writing = null;
        }
    }

    @Override
    protected KafkaDynamicSink createKafkaTableSink(
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
            TransactionNamingStrategy transactionNamingStrategy) {
        if (writing == null) {
            throw new IllegalStateException("a streamfusion-kafka sink is built only from a table's options");
        }
        StreamFusionKafkaTableSink sink =
                new StreamFusionKafkaTableSink(
                        physicalDataType,
                        keyEncodingFormat,
                        valueEncodingFormat,
                        keyProjection,
                        valueProjection,
                        keyPrefix,
                        topics,
                        topicPattern,
                        LoginModules.rewritten(properties),
                        partitioner,
                        deliveryGuarantee,
                        parallelism,
                        transactionalIdPrefix,
                        transactionNamingStrategy,
                        false,
                        SinkBufferFlushMode.DISABLED,
                        writing);
        LOG.info("streamfusion-kafka table {}: {}", writing.table, sink.asSummaryString());
        return sink;
    }

    @Override
    protected KafkaDynamicSource createKafkaTableSource(
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
            Map<TopicPartition, Long> specificEndOffsets,
            long endTimestampMillis,
            String tableIdentifier,
            Integer parallelism) {
        if (plan == null) {
            throw new IllegalStateException("a streamfusion-kafka source is built only from a table's options");
        }
        return StockReadKafkaTableSource.planned(
                new StockReadKafkaTableSource(
                        physicalDataType,
                        keyDecodingFormat,
                        valueDecodingFormat,
                        keyProjection,
                        valueProjection,
                        keyPrefix,
                        topics,
                        topicPattern,
                        LoginModules.rewritten(properties),
                        startupMode,
                        specificStartupOffsets,
                        startupTimestampMillis,
                        boundedMode,
                        specificEndOffsets,
                        endTimestampMillis,
                        tableIdentifier,
                        parallelism,
                        false,
                        plan));
    }
}
