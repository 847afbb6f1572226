package dev.streamfusion.kafka.sink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;

import org.apache.kafka.common.header.internals.RecordHeaders;

/** A row with its natively encoded key and value, on its way to Flink's Kafka writer. */
@Internal
final class EncodedRecord {

    final RowData row;
    /** The encoded key, or {@code null} when the table writes none. */
    final byte[] key;
    /** The encoded value, or {@code null} for a tombstone (an upsert table's delete). */
    final byte[] value;
    /** The record's timestamp, or {@code null} for the producer's. */
    final Long timestamp;
    /** The record's headers, or {@code null} for none. */
    final RecordHeaders headers;

    EncodedRecord(RowData row, byte[] key, byte[] value, Long timestamp, RecordHeaders headers) {
        this.row = row;
        this.key = key;
        this.value = value;
        this.timestamp = timestamp;
        this.headers = headers;
    }
}
