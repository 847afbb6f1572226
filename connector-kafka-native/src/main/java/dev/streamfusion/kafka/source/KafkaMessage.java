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
    private long offset;
    private long timestamp;
    private RowData metadata;

    void moveTo(DecodedPart values, DecodedPart keys, int record, long offset, long timestamp, RowData metadata) {
        this.values = values;
        this.keys = keys;
        this.record = record;
        this.offset = offset;
        this.timestamp = timestamp;
        this.metadata = metadata;
    }

    DecodedPart values() {
        return values;
    }

    /** The poll's decoded keys, or {@code null} when the table reads none. */
    DecodedPart keys() {
        return keys;
    }

    /** The record's index in its poll's batches. */
    int record() {
        return record;
    }

    long offset() {
        return offset;
    }

    long timestamp() {
        return timestamp;
    }

    /** The record's metadata columns, or {@code null} when the table reads none. */
    RowData metadata() {
        return metadata;
    }
}
