package dev.streamfusion.kafka.sink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.TwoPhaseCommittingStatefulSink.PrecommittingStatefulSinkWriter;
import org.apache.flink.table.data.RowData;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Collects rows into batches, encodes each batch's values (and keys) natively in one call each,
 * and hands the encoded records to Flink's Kafka writer, which sends, flushes and (for
 * exactly-once) runs the transactions. Before every flush and snapshot the pending rows go out,
 * so a checkpoint covers every row written before it.
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class JavaRungWriter implements PrecommittingStatefulSinkWriter<RowData, KafkaWriterState, KafkaCommittable> {

    private final PrecommittingStatefulSinkWriter<EncodedRecord, KafkaWriterState, KafkaCommittable> kafka;
    private final RecordLayout layout;
    private final PendingRecords pending;

    /**
     * @param copier copies incoming rows when the job reuses objects; {@code null} otherwise
     * @param time the task's processing time, for the timed sends of reduced rows
     */
    JavaRungWriter(
            PrecommittingStatefulSinkWriter<EncodedRecord, KafkaWriterState, KafkaCommittable> kafka,
            String format,
            Map<String, String> formatOptions,
            RecordLayout layout,
            TypeSerializer<RowData> copier,
            ProcessingTimeService time) {
        this.kafka = kafka;
        this.layout = layout;
        this.pending = new PendingRecords(format, formatOptions, layout, copier);
        pending.sendEvery(time, () -> sendPending(NO_CONTEXT));
    }

    @Override
    public void write(RowData row, Context context) throws IOException, InterruptedException {
        if (pending.add(row)) {
            sendPending(context);
        }
    }

    private void sendPending(Context context) throws IOException, InterruptedException {
        if (pending.isEmpty()) {
            return;
        }
        List<RowData> rows = pending.rows();
        boolean[] tombstones = layout.tombstones(rows);
        List<byte[]> values = pending.values.encode(layout.values(RecordLayout.valued(rows, tombstones)));
        List<byte[]> keys = pending.keys == null ? null : pending.keys.encode(layout.keys(rows));
        int value = 0;
        for (int i = 0; i < rows.size(); i++) {
            RowData row = rows.get(i);
            boolean tombstone = tombstones != null && tombstones[i];
            kafka.write(
                    new EncodedRecord(
                            row,
                            keys == null ? null : keys.get(i),
                            tombstone ? null : values.get(value++),
                            layout.timestamp(row),
                            layout.headers(row)),
                    context);
        }
        pending.clear();
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        sendPending(NO_CONTEXT);
        kafka.flush(endOfInput);
    }

    @Override
    public Collection<KafkaCommittable> prepareCommit() throws IOException, InterruptedException {
        sendPending(NO_CONTEXT);
        return kafka.prepareCommit();
    }

    @Override
    public List<KafkaWriterState> snapshotState(long checkpointId) throws IOException {
        if (!pending.isEmpty()) {
            throw new IllegalStateException("rows left unsent at a snapshot: the writer was not flushed first");
        }
        return kafka.snapshotState(checkpointId);
    }

    @Override
    public void writeWatermark(Watermark watermark) throws IOException, InterruptedException {
        kafka.writeWatermark(watermark);
    }

    @Override
    public void close() throws Exception {
        try {
            kafka.close();
        } finally {
            pending.close();
        }
    }

    /**
     * The context of records sent at a flush: Flink's Kafka writer takes the timestamp from the
     * record itself, so no row's context is needed.
     */
    private static final Context NO_CONTEXT =
            new Context() {
                @Override
                public long currentWatermark() {
                    return Long.MIN_VALUE;
                }

                @Override
                public Long timestamp() {
                    return null;
                }
            };
}
