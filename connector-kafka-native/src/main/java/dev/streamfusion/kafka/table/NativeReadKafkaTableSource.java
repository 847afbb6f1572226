package dev.streamfusion.kafka.table;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchScan;
import dev.streamfusion.bridge.batch.RowWatermarks;
import dev.streamfusion.bridge.table.ErrorPolicy;
import dev.streamfusion.kafka.internal.LibrdkafkaConfig;
import dev.streamfusion.kafka.source.FormatDecoding;
import dev.streamfusion.kafka.source.KafkaMetadata;
import dev.streamfusion.kafka.source.KeyDecoding;
import dev.streamfusion.kafka.source.StreamFusionKafkaSource;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.connectors.kafka.table.TableDataTypeUtils;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.Projection;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.DataTypeUtils;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * A streamfusion-kafka table read natively: Flink's Kafka source enumerates partitions and keeps
 * offsets, and a StreamFusion reader decodes each poll's values in one native call into Arrow,
 * building only the (possibly nested) fields the query reads.
 */
@Internal
final class NativeReadKafkaTableSource extends StockReadKafkaTableSource
        implements SupportsProjectionPushDown, BatchScan {

    /** Formats whose decoders read nested fields by name, so a nested projection prunes them. */
    private static final Set<String> NESTED_PROJECTION_FORMATS = Set.of("json", "protobuf");

    /** The paths the query reads (every column until a projection is pushed). */
    private int[][] projection;
    /** What the source produces: the projected value fields, then the metadata columns. */
    private DataType projectedDataType;

    /** A native source of {@code table}'s table, whose plan reads natively. */
    NativeReadKafkaTableSource(StockReadKafkaTableSource table) {
        super(table);
        int columns = DataType.getFieldCount(physicalDataType);
        this.projection = new int[columns][];
        for (int c = 0; c < columns; c++) {
            projection[c] = new int[] {c};
        }
        this.projectedDataType = physicalDataType;
    }

    @Override
    public boolean supportsNestedProjection() {
        return NESTED_PROJECTION_FORMATS.contains(plan.formats.format)
                && (plan.formats.keyFormat == null || NESTED_PROJECTION_FORMATS.contains(plan.formats.keyFormat));
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        this.projection = projectedFields;
        this.projectedDataType = producedDataType;
    }

    @Override
    public void applyReadableMetadata(List<String> metadataKeys, DataType producedDataType) {
        super.applyReadableMetadata(metadataKeys, producedDataType);
        this.projectedDataType = producedDataType;
    }

    @Override
    public Optional<String> batchesUnsupported() {
        if (plan.formats.keyFormat != null) {
            return Optional.of("tables with a key format are read row by row");
        }
        if (!metadataKeys.isEmpty()) {
            return Optional.of("metadata columns are read row by row");
        }
        if (watermarkStrategy != null && plan.watermarksOnEvent) {
            return Optional.of("watermarks emitted on every event ('scan.watermark.emit.strategy' = 'on-event') "
                    + "are generated row by row");
        }
        if (Arrays.stream(projection).anyMatch(path -> path.length > 1)) {
            return Optional.of("nested fields read as columns are read row by row");
        }
        if (parallelism != null) {
            return Optional.of("'scan.parallelism' is applied to the row source");
        }
        return Optional.empty();
    }

    @Override
    public Source<ArrowBatch, ?, ?> createBatchSource(ScanContext context) {
        return source(context, false).batches();
    }

    /** The watermark Flink pushed into the scan, generated over each batch's rows as over rows. */
    @Override
    public WatermarkStrategy<ArrowBatch> batchWatermarks() {
        return watermarkStrategy == null
                ? WatermarkStrategy.noWatermarks()
                : new RowWatermarks(watermarkStrategy, (RowType) projectedDataType.getLogicalType());
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        // Rows go on in the binary layout only where each is a value row as decoded: with a key
        // format or metadata columns, Flink copies the joined row field by field anyway.
        boolean binaryRows = plan.binaryRows && plan.formats.keyFormat == null && metadataKeys.isEmpty();
        StreamFusionKafkaSource source = source(context, binaryRows);
        WatermarkStrategy<RowData> watermarks =
                watermarkStrategy == null ? WatermarkStrategy.noWatermarks() : watermarkStrategy;
        // Flink's Kafka table source's name and uid: a compiled plan or savepoint of a `kafka`
        // table maps onto this one (the splits and enumerator state are Flink's too).
        String name = "KafkaSource-" + tableIdentifier;
        Integer parallelism = this.parallelism;
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(
                    ProviderContext providerContext, StreamExecutionEnvironment execEnv) {
                DataStreamSource<RowData> stream = execEnv.fromSource(source, watermarks, name);
                providerContext.generateUid("kafka").ifPresent(stream::uid);
                if (parallelism != null) {
                    stream.setParallelism(parallelism);
                }
                return stream;
            }

            @Override
            public boolean isBounded() {
                return source.getBoundedness() == Boundedness.BOUNDED;
            }

            @Override
            public Optional<Integer> getParallelism() {
                return Optional.ofNullable(parallelism);
            }
        };
    }

    /**
     * The source of the table's rows as planned, its value rows written in Flink's binary layout
     * when {@code binaryRows}.
     */
    private StreamFusionKafkaSource source(ScanContext context, boolean binaryRows) {
        TypeInformation<RowData> producedType = context.createTypeInformation(projectedDataType);
        // Flink's upsert source insists on a key deserializer too.
        KafkaSource<RowData> enumeration =
                createKafkaSource(
                        upsertMode ? new UnusedDeserializer(producedType) : null,
                        new UnusedDeserializer(producedType),
                        producedType);
        RowType physical = (RowType) DataTypeUtils.removeTimeAttribute(physicalDataType).getLogicalType();
        // Each projected column is read from the value or, if the value format does not carry
        // it, from the key (Flink's connector lets the value win when both do). An upsert
        // table's tombstones take every column the key carries from the key.
        List<int[]> valuePaths = new ArrayList<>();
        List<int[]> keyPaths = new ArrayList<>();
        boolean[] fromKey = new boolean[projection.length];
        int[] column = new int[projection.length];
        int[] deleteKeyColumn = upsertMode ? new int[projection.length] : null;
        for (int c = 0; c < projection.length; c++) {
            int[] path = projection[c].clone();
            int inValue = indexOf(valueProjection, path[0]);
            int inKey = indexOf(keyProjection, path[0]);
            fromKey[c] = inValue < 0;
            path[0] = fromKey[c] ? inKey : inValue;
            List<int[]> paths = fromKey[c] ? keyPaths : valuePaths;
            column[c] = paths.size();
            paths.add(path);
            if (deleteKeyColumn != null) {
                if (inKey < 0 || fromKey[c]) {
                    deleteKeyColumn[c] = fromKey[c] ? column[c] : -1;
                } else {
                    int[] keyPath = projection[c].clone();
                    keyPath[0] = inKey;
                    deleteKeyColumn[c] = keyPaths.size();
                    keyPaths.add(keyPath);
                }
            }
        }
        boolean skips = plan.errors != ErrorPolicy.FAIL;
        FormatDecoding decoding =
                new FormatDecoding(
                        plan.formats.format,
                        plan.formats.formatOptions,
                        FormatRows.project(physical, valueProjection, null),
                        valuePaths.toArray(new int[0][]),
                        stockDecoder(context, valueDecodingFormat, valueProjection, null),
                        skips,
                        binaryRows);
        KeyDecoding keys = null;
        if (plan.formats.keyFormat != null) {
            FormatDecoding keyDecoding =
                    new FormatDecoding(
                            plan.formats.keyFormat,
                            plan.formats.keyFormatOptions,
                            FormatRows.project(physical, keyProjection, keyPrefix),
                            keyPaths.toArray(new int[0][]),
                            stockDecoder(context, keyDecodingFormat, keyProjection, keyPrefix),
                            skips,
                            false);
            keys =
                    deleteKeyColumn == null
                            ? new KeyDecoding(keyDecoding, fromKey, column)
                            : KeyDecoding.upsert(keyDecoding, fromKey, column, deleteKeyColumn, valuePaths.size());
        }
        Properties consumer = consumerProperties(enumeration);
        if (plan.nativeRung()) {
            consumer.setProperty(LibrdkafkaConfig.PREFETCH, String.valueOf(plan.prefetchKbytes));
        }
        return new StreamFusionKafkaSource(
                enumeration,
                consumer,
                decoding,
                keys,
                new KafkaMetadata(metadataKeys),
                producedType,
                (RowType) projectedDataType.getLogicalType(),
                plan.nativeRung(),
                plan.deadLetters);
    }

    /**
     * Flink's own runtime decoder of a value or key format, created exactly as the stock source
     * creates it: for the messages the native decoder hands back.
     */
    private DeserializationSchema<RowData> stockDecoder(
            ScanContext context, DecodingFormat<DeserializationSchema<RowData>> format, int[] fields, String prefix) {
        DataType formatType = Projection.of(fields).project(physicalDataType);
        if (prefix != null) {
            formatType = TableDataTypeUtils.stripRowPrefix(formatType, prefix);
        }
        return format.createRuntimeDecoder(context, formatType);
    }

    private static int indexOf(int[] fields, int field) {
        for (int i = 0; i < fields.length; i++) {
            if (fields[i] == field) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The consumer properties Flink's source gives its readers (its builder fills in the
     * deserializers, auto-commit, the offset reset strategy and the client id prefix). Read from
     * the pinned flink-connector-kafka's {@code KafkaSource}, which keeps them private.
     */
    private static Properties consumerProperties(KafkaSource<RowData> source) {
        try {
            Field props = KafkaSource.class.getDeclaredField("props");
            props.setAccessible(true);
            Properties copy = new Properties();
            copy.putAll((Properties) props.get(source));
            return copy;
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException(
                    "this flink-connector-kafka does not keep its consumer properties where StreamFusion expects "
                            + "them; use the version StreamFusion is built with",
                    e);
        }
    }

    @Override
    StockReadKafkaTableSource fresh() {
        NativeReadKafkaTableSource copy = new NativeReadKafkaTableSource(this);
        copy.projection = projection;
        copy.projectedDataType = projectedDataType;
        return copy;
    }

    @Override
    public boolean equals(Object o) {
        if (!super.equals(o)) {
            return false;
        }
        NativeReadKafkaTableSource that = (NativeReadKafkaTableSource) o;
        return Arrays.deepEquals(projection, that.projection)
                && Objects.equals(projectedDataType, that.projectedDataType)
                && plan.formats.format.equals(that.plan.formats.format)
                && plan.formats.formatOptions.equals(that.plan.formats.formatOptions);
    }

    @Override
    public int hashCode() {
        return 31 * super.hashCode() + Arrays.deepHashCode(projection);
    }

    /**
     * Flink's source needs a value deserializer (and an upsert source a key deserializer) to be
     * built; the native reader never calls them.
     */
    private static final class UnusedDeserializer implements DeserializationSchema<RowData> {
        private static final long serialVersionUID = 1L;

        private final TypeInformation<RowData> producedType;

        UnusedDeserializer(TypeInformation<RowData> producedType) {
            this.producedType = producedType;
        }

        @Override
        public RowData deserialize(byte[] message) {
            throw new IllegalStateException("keys and values of a streamfusion-kafka table are decoded natively");
        }

        @Override
        public boolean isEndOfStream(RowData nextElement) {
            return false;
        }

        @Override
        public TypeInformation<RowData> getProducedType() {
            return producedType;
        }
    }
}
