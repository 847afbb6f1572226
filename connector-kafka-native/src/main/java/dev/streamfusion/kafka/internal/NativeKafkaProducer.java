package dev.streamfusion.kafka.internal;

import dev.streamfusion.bridge.NativeHandle;
import dev.streamfusion.bridge.NativeLibrary;

import org.apache.flink.annotation.Internal;

import java.util.Map;

/**
 * A librdkafka producer of one topic that encodes rows with format encoders and sends them
 * without the bytes entering the JVM. Used by one writer thread.
 */
@Internal
public final class NativeKafkaProducer extends NativeHandle {

    /** A producer that waits at most {@code maxBlockMs} for room in librdkafka's queue. */
    public NativeKafkaProducer(Map<String, String> properties, String topic, long maxBlockMs) {
        super("Kafka producer", open(properties, topic, maxBlockMs), NativeKafkaProducer::free0);
    }

    private static long open(Map<String, String> properties, String topic, long maxBlockMs) {
        NativeLibrary.load();
        String[][] keysAndValues = LibrdkafkaConfig.keysAndValues(properties);
        return create(keysAndValues[0], keysAndValues[1], topic, maxBlockMs);
    }

    /**
     * Encodes and sends one record per row: the value rows (and key rows, unless {@code
     * keyEncoder} is 0) are exported Arrow batches of their encoders' row types. The value rows
     * are those of the records that are not tombstones, in order; the key rows one per record.
     *
     * @param partitions per row, or {@code null} for librdkafka's partitioner
     * @param timestamps per row ({@code Long.MIN_VALUE} for the time of sending), or {@code null}
     * @param headerCounts per row, or {@code null} for no headers; {@code headers} holds them as
     *     UTF-8 key bytes then value bytes
     * @param tombstones per row whether it is sent with a null value (an upsert table's delete),
     *     or {@code null} for none
     * @return bytes of the encoded keys and values
     */
    public synchronized long send(
            long valueEncoder,
            long valueRows,
            long keyEncoder,
            long keyRows,
            int[] partitions,
            long[] timestamps,
            int[] headerCounts,
            byte[][] headers,
            boolean[] tombstones) {
        return send(
                address(), valueEncoder, valueRows, keyEncoder, keyRows, partitions, timestamps, headerCounts, headers, tombstones);
    }

    /** Waits until every record sent is delivered; fails with the first delivery error. */
    public synchronized void flush(long timeoutMs) {
        flush(address(), timeoutMs);
    }

    /**
     * Serves the delivery reports waiting, without waiting for the records in flight; fails with
     * the first delivery error so far.
     */
    public synchronized void checkDeliveries() {
        checkDeliveries(address());
    }

    /** What librdkafka said since the last call (see {@link dev.streamfusion.kafka.LibrdkafkaLog}). */
    public synchronized String[] logs() {
        return logs(address());
    }

    /**
     * The topic's partition count, asking the cluster again while its metadata has none (a topic
     * being created) for up to {@code timeoutMs}.
     */
    public synchronized int partitions(long timeoutMs) {
        return partitions(address(), timeoutMs);
    }

    private static native long create(String[] keys, String[] values, String topic, long maxBlockMs);

    private static native long send(
            long handle,
            long valueEncoder,
            long valueRows,
            long keyEncoder,
            long keyRows,
            int[] partitions,
            long[] timestamps,
            int[] headerCounts,
            byte[][] headers,
            boolean[] tombstones);

    private static native void flush(long handle, long timeoutMs);

    private static native void checkDeliveries(long handle);

    private static native String[] logs(long handle);

    private static native int partitions(long handle, long timeoutMs);

    private static native void free0(long handle);
}
