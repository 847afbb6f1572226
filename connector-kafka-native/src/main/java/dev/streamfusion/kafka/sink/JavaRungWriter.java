package dev.streamfusion.kafka.sink;

import dev.streamfusion.formats.NativeFormatEncoder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.TwoPhaseCommittingStatefulSink.PrecommittingStatefulSinkWriter;
import org.apache.flink.table.data.RowData;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.io.IOException;
import java.util.ArrayList;
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

    /** Rows per native encode call. */
    static final int BATCH = 1024;

    private final PrecommittingStatefulSinkWriter<EncodedRecord, KafkaWriterState, KafkaCommittable> kafka;
    private final RecordLayout layout;
    private final TypeSerializer<RowData> copier;
    private final BufferAllocator allocator;
    private final NativeFormatEncoder encoder;
    /** The key encoder, or {@code null} when the table writes no key. */
    private final NativeFormatEncoder keyEncoder;
    private final List<RowData> pending = new ArrayList<>(BATCH);

    /** @param copier copies incoming rows when the job reuses objects; {@code null} otherwise */
    JavaRungWriter(
            PrecommittingStatefulSinkWriter<EncodedRecord, KafkaWriterState, KafkaCommittable> kafka,
            String format,
            Map<String, String> formatOptions,
            RecordLayout layout,
            TypeSerializer<RowData> copier) {
        this.kafka = kafka;
        this.layout = layout;
        this.copier = copier;
        this.allocator = new RootAllocator();
        NativeFormatEncoder opened = null;
        try {
            opened = NativeFormatEncoder.create(allocator, format, formatOptions, layout.valueType);
            this.keyEncoder =
                    layout.keyFormat == null
                            ? null
                            : NativeFormatEncoder.create(allocator, layout.keyFormat, layout.keyFormatOptions, layout.keyType);
        } catch (RuntimeException e) {
            if (opened != null) {
                opened.close();
            }
            allocator.close();
            throw e;
        }
        this.encoder = opened;
    }

    @Override
    public void write(RowData row, Context context) throws IOException, InterruptedException {
        pending.add(copier == null ? row : copier.copy(row));
        if (pending.size() >= BATCH) {
            sendPending(context);
        }
    }

    private void sendPending(Context context) throws IOException, InterruptedException {
        if (pending.isEmpty()) {
            return;
        }
        List<byte[]> values = encoder.encode(layout.values(pending));
        List<byte[]> keys = keyEncoder == null ? null : keyEncoder.encode(layout.keys(pending));
        for (int i = 0; i < values.size(); i++) {
            RowData row = pending.get(i);
            kafka.write(
                    new EncodedRecord(
                            row, keys == null ? null : keys.get(i), values.get(i), layout.timestamp(row), layout.headers(row)),
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
            encoder.close();
            if (keyEncoder != null) {
                keyEncoder.close();
            }
            allocator.close();
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
