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

import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

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
    /** Whether each partition's records of a poll go out as one batch (to the operator island). */
    private final boolean wholeRuns;
    /** The dead-letter producer, under {@code 'streamfusion.errors' = 'DEAD_LETTER'}; else {@code null}. */
    final DeadLetters deadLetters;
    /** Whether the table is an upsert table, whose records with a null value are deletes. */
    final boolean upsert;

    DecodingSplitReader(
            SourceReaderContext context,
            FormatDecoding decoding,
            KeyDecoding keyDecoding,
            KafkaMetadata metadata,
            FetchedBatches fetched,
            ReaderMetrics readerMetrics,
            boolean wholeRuns,
            DeadLetters deadLetters) {
        this.metadata = metadata;
        this.deadLetters = deadLetters;
        this.fetched = fetched;
        this.wholeRuns = wholeRuns;
        this.upsert = keyDecoding != null && keyDecoding.upsert();
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
        this.values = new PartDecoder(decoding, "value", allocator, readerMetrics, formats, upsert);
        try {
            this.keys =
                    keyDecoding == null
                            ? null
                            : new PartDecoder(keyDecoding.key(), "key", allocator, readerMetrics, formats, false);
        } catch (RuntimeException e) {
            values.close();
            throw e;
        }
    }

    /**
     * The records of one poll skipped under the error policy, by position, with their reasons (a
     * record whose key and value were both skipped has both).
     */
    static final class Skipped implements PartDecoder.Skips {
        final SortedMap<Integer, String> reasons = new TreeMap<>();

        @Override
        public void skipped(int position, String reason) {
            reasons.merge(position, reason, (value, key) -> value + "; " + key);
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

    /** A poll's decoded records, tracked by the reader's {@link FetchedBatches}. */
    final DecodedPoll decoded(List<DecodedPoll.SplitBatch> batches, List<DecodedPart> parts, Set<String> finished) {
        return fetched.track(new DecodedPoll(batches, parts, finished, wholeRuns));
    }
}
