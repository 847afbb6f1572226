package dev.streamfusion.kafka.internal;

import dev.streamfusion.bridge.NativeHandle;
import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.formats.NativeFormatDecoder;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.Map;

/**
 * A librdkafka consumer of a reader's splits (partitions assigned explicitly, never rebalanced).
 * A {@link #poll} keeps the records natively, grouped by split; the other calls read the last
 * poll. Used by the reader's fetcher thread only.
 */
@Internal
public final class NativeKafkaConsumer extends NativeHandle {

    /**
     * @param properties librdkafka properties ({@link LibrdkafkaConfig})
     * @param apiTimeoutMs how long offset lookups (latest, committed) may take
     */
    public NativeKafkaConsumer(Map<String, String> properties, boolean readKeys, boolean readHeaders, long apiTimeoutMs) {
        super("Kafka consumer", open(properties, readKeys, readHeaders, apiTimeoutMs), NativeKafkaConsumer::free0);
    }

    private static long open(Map<String, String> properties, boolean readKeys, boolean readHeaders, long apiTimeoutMs) {
        NativeLibrary.load();
        String[][] keysAndValues = LibrdkafkaConfig.keysAndValues(properties);
        return create(keysAndValues[0], keysAndValues[1], readKeys, readHeaders, apiTimeoutMs);
    }

    /**
     * Assigns a partition from {@code start} (an offset, or Flink's earliest/latest/committed
     * marker) to {@code stop} (exclusive; a marker, or {@code Long.MIN_VALUE} for none).
     *
     * @return the split's id in the other calls
     */
    public synchronized int addSplit(String topic, int partition, long start, long stop) {
        return addSplit(address(), topic, partition, start, stop);
    }

    /**
     * Polls up to {@code maxRecords}, waiting up to {@code timeoutMs} for the first.
     *
     * @return how many runs of one split's records the poll holds: run {@code r} is {@code
     *     runCounts[r]} records of split {@code runSplits[r]}
     */
    public synchronized int poll(int maxRecords, long timeoutMs, int[] runSplits, int[] runCounts) {
        return poll(address(), maxRecords, timeoutMs, runSplits, runCounts);
    }

    /**
     * The last poll's offsets and timestamps, and timestamp types ({@code TimestampType} ids, 2
     * for none) and leader epochs (-1 for none) where those arrays are not null.
     *
     * @return bytes of the poll's values and keys
     */
    public synchronized long records(long[] offsets, long[] timestamps, byte[] timestampTypes, int[] leaderEpochs) {
        return records(address(), offsets, timestamps, timestampTypes, leaderEpochs);
    }

    /**
     * The last poll's headers: {@code counts[i]} for record {@code i}, in the returned array as
     * key bytes (UTF-8) then value bytes ({@code null} for a null value).
     */
    public synchronized byte[][] headers(int[] counts) {
        return (byte[][]) headers(address(), counts);
    }

    /**
     * Marks in {@code out} the last poll's records whose value is null (tombstones).
     *
     * @return how many there are
     */
    public synchronized int nullValues(boolean[] out) {
        return nullValues(address(), out);
    }

    /** Distinct Confluent schema ids among the last poll's values or keys. */
    public synchronized int[] schemaIds(boolean keys) {
        return schemaIds(address(), keys);
    }

    /** Decodes the last poll's values or keys with {@code decoder}; the root is the decoder's. */
    public synchronized VectorSchemaRoot decode(boolean keys, NativeFormatDecoder decoder, int[] rowStarts) {
        long handle = address();
        return decoder.decode((decoderAddress, out) -> decode(handle, keys, decoderAddress, out, rowStarts));
    }

    /** The value (or key) of record {@code index} of the last poll, or {@code null} for a null one. */
    public synchronized byte[] message(boolean keys, int index) {
        return message(address(), keys, index);
    }

    /** The ids of splits that reached their stopping offset since the last call. */
    public synchronized int[] finished() {
        return finished(address());
    }

    public synchronized void pause(int[] ids, boolean pause) {
        pause(address(), ids, pause);
    }

    /** Commits offsets for monitoring; does nothing without a configured {@code group.id}. */
    public synchronized void commit(String[] topics, int[] partitions, long[] offsets) {
        commit(address(), topics, partitions, offsets);
    }

    /** Records behind the cached high watermarks of the assigned partitions. */
    /** What librdkafka said since the last call (see {@link dev.streamfusion.kafka.LibrdkafkaLog}). */
    public synchronized String[] logs() {
        return logs(address());
    }

    public synchronized long lag() {
        return lag(address());
    }

    private static native long create(
            String[] keys, String[] values, boolean readKeys, boolean readHeaders, long apiTimeoutMs);

    private static native int addSplit(long handle, String topic, int partition, long start, long stop);

    private static native int poll(long handle, int maxRecords, long timeoutMs, int[] runSplits, int[] runCounts);

    private static native long records(
            long handle, long[] offsets, long[] timestamps, byte[] timestampTypes, int[] leaderEpochs);

    private static native Object[] headers(long handle, int[] counts);

    private static native int[] schemaIds(long handle, boolean keys);

    private static native int nullValues(long handle, boolean[] out);

    private static native int decode(long handle, boolean keys, long decoder, long outArrayAddress, int[] rowStarts);

    private static native byte[] message(long handle, boolean keys, int index);

    private static native int[] finished(long handle);

    private static native void pause(long handle, int[] ids, boolean pause);

    private static native void commit(long handle, String[] topics, int[] partitions, long[] offsets);

    private static native long lag(long handle);

    private static native String[] logs(long handle);

    private static native void free0(long handle);
}
