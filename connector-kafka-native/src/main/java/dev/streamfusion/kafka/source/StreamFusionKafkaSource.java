package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchSource;
import dev.streamfusion.bridge.source.FetchedBatches;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.metrics.KafkaSourceReaderMetrics;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplitState;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.util.Properties;
import java.util.function.Function;

/**
 * The streamfusion-kafka source: Flink's Kafka source for everything but reading (the enumerator,
 * partition discovery, startup and stopping offsets, split and state serializers are Flink's, so
 * they behave and checkpoint exactly alike), and a reader whose records arrive natively decoded
 * a poll at a time.
 */
@Internal
public final class StreamFusionKafkaSource
        implements Source<RowData, KafkaPartitionSplit, KafkaSourceEnumState>, ResultTypeQueryable<RowData> {

    private static final long serialVersionUID = 1L;

    private final KafkaSource<RowData> enumeration;
    private final Properties consumerProperties;
    private final FormatDecoding decoding;
    private final KeyDecoding keys;
    private final KafkaMetadata metadata;
    private final TypeInformation<RowData> producedType;
    private final RowType producedRowType;
    private final boolean nativeRung;
    /** Where undecodable records go under {@code 'streamfusion.errors' = 'DEAD_LETTER'}, or {@code null}. */
    private final DeadLetterTarget deadLetters;

    /**
     * @param enumeration the stock source the table would run, for enumeration and state
     * @param consumerProperties the consumer properties the stock source's readers would use
     * @param keys how keys are decoded and placed, or {@code null} when the table reads none
     * @param metadata the metadata columns that follow the value's in each produced row
     * @param producedRowType the type of {@code producedType}
     * @param nativeRung whether librdkafka polls (else kafka-clients)
     * @param deadLetters the dead-letter topic of the table, or {@code null}
     */
    public StreamFusionKafkaSource(
            KafkaSource<RowData> enumeration,
            Properties consumerProperties,
            FormatDecoding decoding,
            KeyDecoding keys,
            KafkaMetadata metadata,
            TypeInformation<RowData> producedType,
            RowType producedRowType,
            boolean nativeRung,
            DeadLetterTarget deadLetters) {
        this.enumeration = enumeration;
        this.consumerProperties = consumerProperties;
        this.decoding = decoding;
        this.keys = keys;
        this.metadata = metadata;
        this.producedType = producedType;
        this.producedRowType = producedRowType;
        this.nativeRung = nativeRung;
        this.deadLetters = deadLetters;
    }

    @Override
    public Boundedness getBoundedness() {
        return enumeration.getBoundedness();
    }

    @Override
    public SourceReader<RowData, KafkaPartitionSplit> createReader(SourceReaderContext context) {
        return reader(context, false, fetched -> new KafkaMessageEmitter(keys, decoding.dropsMessageWhenARowFails()));
    }

    /**
     * A reader emitting each partition's records of a poll as one Arrow batch, for a table that
     * reads values alone: the same splits, offsets and checkpoints as one of rows.
     */
    SourceReader<ArrowBatch, KafkaPartitionSplit> createBatchReader(SourceReaderContext context) {
        int[] columns = decoding.batchColumns();
        if (columns == null) {
            throw new IllegalStateException("a table reading nested fields as columns is read row by row");
        }
        return reader(context, true, fetched -> new KafkaBatchEmitter(producedRowType, columns, fetched.allocator()));
    }

    /** The {@link Source} of this table's batches, with this source's enumeration and state. */
    public Source<ArrowBatch, KafkaPartitionSplit, KafkaSourceEnumState> batches() {
        return new BatchSource<>(this, this::createBatchReader);
    }

    private <T> SourceReader<T, KafkaPartitionSplit> reader(
            SourceReaderContext context,
            boolean wholeRuns,
            Function<FetchedBatches, RecordEmitter<KafkaMessage, T, KafkaPartitionSplitState>> emitter) {
        Configuration configuration = new Configuration();
        consumerProperties.stringPropertyNames()
                .forEach(key -> configuration.setString(key, consumerProperties.getProperty(key)));
        KafkaSourceReaderMetrics metrics = new KafkaSourceReaderMetrics(context.metricGroup());
        ReaderMetrics readerMetrics = new ReaderMetrics(context.metricGroup(), nativeRung ? "native" : "java");
        FetchedBatches fetched = new FetchedBatches();
        DeadLetters dead =
                deadLetters == null
                        ? null
                        : deadLetters.open("streamfusion-dead-letters-" + context.getIndexOfSubtask(), readerMetrics);
        try {
            KafkaBatchFetcherManager fetcherManager =
                    new KafkaBatchFetcherManager(
                            () ->
                                    nativeRung
                                            ? new NativeRungSplitReader(
                                                    consumerProperties,
                                                    context,
                                                    metrics,
                                                    decoding,
                                                    keys,
                                                    metadata,
                                                    fetched,
                                                    readerMetrics,
                                                    wholeRuns,
                                                    dead)
                                            : new JavaRungSplitReader(
                                                    consumerProperties,
                                                    context,
                                                    metrics,
                                                    decoding,
                                                    keys,
                                                    metadata,
                                                    fetched,
                                                    readerMetrics,
                                                    wholeRuns,
                                                    dead),
                            configuration);
            return new KafkaBatchSourceReader<>(
                    fetcherManager, emitter.apply(fetched), configuration, context, metrics, fetched, dead);
        } catch (RuntimeException e) {
            fetched.close();
            if (dead != null) {
                dead.close();
            }
            throw e;
        }
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context) {
        return enumeration.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context, KafkaSourceEnumState state) throws Exception {
        return enumeration.restoreEnumerator(context, state);
    }

    @Override
    public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
        return enumeration.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaSourceEnumState> getEnumeratorCheckpointSerializer() {
        return enumeration.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
