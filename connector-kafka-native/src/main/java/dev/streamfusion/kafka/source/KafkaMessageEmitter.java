package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplitState;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;

/**
 * Emits a record's rows (each value row with each key row when the table reads keys, followed by
 * the record's metadata columns if it reads any) with the record's timestamp, then moves the
 * partition's position past the record, as Flink's Kafka reader does: a checkpoint taken between
 * two records resumes at the second, and never falls inside a record's rows.
 */
@Internal
final class KafkaMessageEmitter implements RecordEmitter<KafkaMessage, RowData, KafkaPartitionSplitState> {

    /** The key-value view, or {@code null} for tables that read values only. */
    private final KeyValueRowData keyValue;

    KafkaMessageEmitter(KeyDecoding keyDecoding) {
        this.keyValue = keyDecoding == null ? null : keyDecoding.newRow();
    }

    @Override
    public void emitRecord(KafkaMessage message, SourceOutput<RowData> output, KafkaPartitionSplitState split) {
        DecodedPart values = message.values();
        DecodedPart keys = message.keys();
        int record = message.record();
        RowData metadata = message.metadata();
        for (int v = values.rowStarts[record]; v < values.rowStarts[record + 1]; v++) {
            if (keys == null) {
                emit(values.rows.row(v), metadata, output, message.timestamp());
                continue;
            }
            RowData value = values.rows.row(v);
            for (int k = keys.rowStarts[record]; k < keys.rowStarts[record + 1]; k++) {
                emit(keyValue.of(keys.rows.row(k), value), metadata, output, message.timestamp());
            }
        }
        split.setCurrentOffset(message.offset() + 1);
    }

    private static void emit(RowData physical, RowData metadata, SourceOutput<RowData> output, long timestamp) {
        output.collect(metadata == null ? physical : new JoinedRowData(physical, metadata), timestamp);
    }
}
