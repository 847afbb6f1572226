package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.source.FetchedBatches;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.UserCodeClassLoader;

import org.apache.arrow.memory.BufferAllocator;

/**
 * What both rungs' split readers share: the native decoders of values and keys, the metadata the
 * table reads, the polls not yet emitted, and closing it all after the consumer.
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
abstract class DecodingSplitReader implements SplitReader<KafkaMessage, KafkaPartitionSplit>, OffsetCommitter {

    final PartDecoder values;
    /** The key's decoder, or {@code null} when the table reads no key. */
    final PartDecoder keys;
    final KafkaMetadata metadata;
    final FetchedBatches fetched;

    DecodingSplitReader(
            SourceReaderContext context,
            FormatDecoding decoding,
            KeyDecoding keyDecoding,
            KafkaMetadata metadata,
            FetchedBatches fetched,
            ReaderMetrics readerMetrics) {
        this.metadata = metadata;
        this.fetched = fetched;
        BufferAllocator allocator = fetched.allocator();
        // Flink's deserializers open as Flink's Kafka source opens its own.
        DeserializationSchema.InitializationContext formats =
                new DeserializationSchema.InitializationContext() {
                    @Override
                    public MetricGroup getMetricGroup() {
                        return context.metricGroup().addGroup("deserializer");
                    }

                    @Override
                    public UserCodeClassLoader getUserCodeClassLoader() {
                        return context.getUserCodeClassLoader();
                    }
                };
        this.values = new PartDecoder(decoding, "value", allocator, readerMetrics, formats);
        try {
            this.keys =
                    keyDecoding == null
                            ? null
                            : new PartDecoder(keyDecoding.key(), "key", allocator, readerMetrics, formats);
        } catch (RuntimeException e) {
            values.close();
            throw e;
        }
    }

    /** Closes the rung's consumer. */
    abstract void closeConsumer() throws Exception;

    /** Frees the decoders; for a subclass whose consumer failed to open. */
    final void closeDecoders() {
        try {
            values.close();
        } finally {
            if (keys != null) {
                keys.close();
            }
        }
    }

    @Override
    public final void close() throws Exception {
        try {
            closeConsumer();
        } finally {
            closeDecoders();
        }
    }
}
