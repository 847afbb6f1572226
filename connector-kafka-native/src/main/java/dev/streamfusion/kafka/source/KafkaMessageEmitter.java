package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplitState;
import org.apache.flink.table.data.RowData;

/**
 * Emits a record's rows with the record's timestamp, then moves the partition's position past the
 * record, as Flink's Kafka reader does: a checkpoint taken between two records resumes at the
 * second, and never falls inside a record's rows.
 */
@Internal
final class KafkaMessageEmitter implements RecordEmitter<KafkaMessage, RowData, KafkaPartitionSplitState> {

    @Override
    public void emitRecord(KafkaMessage message, SourceOutput<RowData> output, KafkaPartitionSplitState split) {
        for (int row = message.firstRow(); row < message.endRow(); row++) {
            output.collect(message.rows().row(row), message.timestamp());
        }
        split.setCurrentOffset(message.offset() + 1);
    }
}
