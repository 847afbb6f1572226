package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;

import org.apache.flink.annotation.Internal;

/**
 * One Kafka record of a decoded poll, as the reader emits it: the rows its value gave (none when
 * it was skipped as malformed), its offset and its timestamp. One instance is moved along a poll.
 */
@Internal
final class KafkaMessage {

    private ArrowColumnarBatch rows;
    private int firstRow;
    private int endRow;
    private long offset;
    private long timestamp;

    void moveTo(ArrowColumnarBatch rows, int firstRow, int endRow, long offset, long timestamp) {
        this.rows = rows;
        this.firstRow = firstRow;
        this.endRow = endRow;
        this.offset = offset;
        this.timestamp = timestamp;
    }

    ArrowColumnarBatch rows() {
        return rows;
    }

    int firstRow() {
        return firstRow;
    }

    int endRow() {
        return endRow;
    }

    long offset() {
        return offset;
    }

    long timestamp() {
        return timestamp;
    }
}
