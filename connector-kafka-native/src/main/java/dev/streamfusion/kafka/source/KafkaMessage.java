package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;

/**
 * One Kafka record of a decoded poll, as the reader emits it: the rows its value gave (none when
 * it was skipped as malformed) and its key gave (when the table reads keys), its offset, its
 * timestamp and the metadata columns the table reads. One instance is moved along a poll.
 */
@Internal
final class KafkaMessage {

    private DecodedPart values;
    private DecodedPart keys;
    private int record;
    /** How many records from {@link #record} the message is: 1, or a partition's run of a poll. */
    private int count;
    private long offset;
    private long timestamp;
    private RowData metadata;
    private boolean tombstone;

    void moveTo(
            DecodedPart values,
            DecodedPart keys,
            int record,
            long offset,
            long timestamp,
            RowData metadata,
            boolean tombstone) {
        this.values = values;
        this.keys = keys;
        this.record = record;
        this.count = 1;
        this.offset = offset;
        this.timestamp = timestamp;
        this.metadata = metadata;
        this.tombstone = tombstone;
    }

    /**
     * Moves to {@code count} records of one partition from {@code first}, the last at {@code
     * lastOffset}, read for their values alone (no keys, no metadata, no timestamp).
     */
    void moveToRun(DecodedPart values, int first, int count, long lastOffset) {
        this.values = values;
        this.keys = null;
        this.record = first;
        this.count = count;
        this.offset = lastOffset;
        this.timestamp = Long.MIN_VALUE;
        this.metadata = null;
        this.tombstone = false;
    }

    /** How many records the message is: 1, or a run's ({@link #moveToRun}). */
    int count() {
        return count;
    }

    DecodedPart values() {
        return values;
    }

    /** The poll's decoded keys, or {@code null} when the table reads none. */
    DecodedPart keys() {
        return keys;
    }

    /** The record's index in its poll's batches (a run's first). */
    int record() {
        return record;
    }

    /** The record's offset (a run's last record's). */
    long offset() {
        return offset;
    }

    long timestamp() {
        return timestamp;
    }

    /** Whether the record is a tombstone of an upsert table (its value is null). */
    boolean tombstone() {
        return tombstone;
    }

    /** The record's metadata columns, or {@code null} when the table reads none. */
    RowData metadata() {
        return metadata;
    }
}
