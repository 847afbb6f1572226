package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplitState;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.types.RowKind;

import java.io.IOException;

/**
 * Emits a record's rows (each value row with each key row when the table reads keys, followed by
 * the record's metadata columns if it reads any) with the record's timestamp, then moves the
 * partition's position past the record, as Flink's Kafka reader does: a checkpoint taken between
 * two records resumes at the second, and never falls inside a record's rows. An upsert table's
 * tombstone gives one DELETE row per key row ({@link KeyDecoding#upsert}).
 */
@Internal
final class KafkaMessageEmitter implements RecordEmitter<KafkaMessage, RowData, KafkaPartitionSplitState> {

    /** The key-value view, or {@code null} for tables that read values only. */
    private final KeyValueRowData keyValue;
    /** Whether Flink's value format drops a message whose row fails downstream (JSON, ignoring errors). */
    private final boolean valueDropsFailedMessages;
    /** The view of a tombstone's DELETE rows, or {@code null} for tables other than upsert ones. */
    private final KeyValueRowData delete;
    /** The NULL value row a DELETE row reads its non-key columns from. */
    private final RowData nullValue;

    KafkaMessageEmitter(KeyDecoding keyDecoding, boolean valueDropsFailedMessages) {
        this.keyValue = keyDecoding == null ? null : keyDecoding.newRow();
        this.valueDropsFailedMessages = valueDropsFailedMessages;
        boolean upsert = keyDecoding != null && keyDecoding.upsert();
        this.delete = upsert ? keyDecoding.newDeleteRow() : null;
        this.nullValue = upsert ? keyDecoding.nullValue() : null;
    }

    @Override
    public void emitRecord(KafkaMessage message, SourceOutput<RowData> output, KafkaPartitionSplitState split)
            throws IOException {
        DecodedPart values = message.values();
        DecodedPart keys = message.keys();
        int record = message.record();
        RowData metadata = message.metadata();
        if (delete != null && message.tombstone()) {
            emitDeletes(message, keys, metadata, output, split);
            return;
        }
        int valueRows = values.rowCount(record);
        for (int v = 0; v < valueRows; v++) {
            RowData value = values.row(record, v);
            if (keys == null) {
                emit(value, metadata, output, message.timestamp());
                continue;
            }
            int keyRows = keys.rowCount(record);
            for (int k = 0; k < keyRows; k++) {
                RowData key = keys.row(record, k);
                if (key == null) {
                    // Flink's key format made a NULL row of a malformed key. Flink's connector
                    // fails pairing it with the value row, within the value format's call: the
                    // JSON format drops the rest of the record if it ignores parse errors; else,
                    // and with any other format, the job fails.
                    if (valueDropsFailedMessages) {
                        split.setCurrentOffset(message.offset() + 1);
                        return;
                    }
                    throw nullKeyRow("record", message, split);
                }
                if (value == null) {
                    // An upsert table's value that Flink's format makes a NULL row of: Flink's
                    // connector deletes its key, as for a tombstone.
                    emitDelete(key, metadata, output, message.timestamp());
                    continue;
                }
                emit(keyValue.of(key, value), metadata, output, message.timestamp());
            }
        }
        split.setCurrentOffset(message.offset() + 1);
    }

    /** Emits a tombstone's DELETE rows, one per key row (none for a key that gives no rows). */
    private void emitDeletes(
            KafkaMessage message,
            DecodedPart keys,
            RowData metadata,
            SourceOutput<RowData> output,
            KafkaPartitionSplitState split)
            throws IOException {
        int record = message.record();
        int keyRows = keys.rowCount(record);
        for (int k = 0; k < keyRows; k++) {
            RowData key = keys.row(record, k);
            if (key == null) {
                // Flink's connector fails on a NULL key row of a tombstone, whatever the value
                // format's options.
                throw nullKeyRow("tombstone", message, split);
            }
            emitDelete(key, metadata, output, message.timestamp());
        }
        split.setCurrentOffset(message.offset() + 1);
    }

    /** Emits the DELETE of an upsert table's {@code key}: its key columns, the others NULL. */
    private void emitDelete(RowData key, RowData metadata, SourceOutput<RowData> output, long timestamp) {
        RowData row = delete.of(key, nullValue);
        output.collect(metadata == null ? row : new JoinedRowData(RowKind.DELETE, row, metadata), timestamp);
    }

    /** The failure of a record ({@code what}) whose key Flink's key format makes a NULL row of. */
    private static IOException nullKeyRow(String what, KafkaMessage message, KafkaPartitionSplitState split) {
        return new IOException(
                "Failed to decode the key of the Kafka " + what + " at offset " + message.offset() + " of "
                        + split.splitId() + ": Flink's key format makes a NULL row of it");
    }

    private static void emit(RowData physical, RowData metadata, SourceOutput<RowData> output, long timestamp) {
        output.collect(metadata == null ? physical : new JoinedRowData(physical, metadata), timestamp);
    }
}
