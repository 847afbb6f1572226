package dev.streamfusion.kafka.sink;

import dev.streamfusion.bridge.sink.EncoderResources;
import dev.streamfusion.formats.NativeFormatEncoder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.RowData;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a writer of either rung holds between sends: the rows of the batch being collected (copied
 * when the job reuses objects), the native encoders of their values and keys, and the allocator
 * those encoders transpose into. Closed last, after whatever sends the encoded records.
 */
@Internal
final class PendingRecords implements AutoCloseable {

    /** Rows per native encode call. */
    static final int BATCH = 1024;

    /**
     * How long a row waits for more to share its encode call (kafka-clients' default {@code
     * linger.ms}): a stream slower than a batch's worth of rows in that time still reaches the
     * topic within it, as Flink's writer hands each row to its producer at once.
     */
    static final long LINGER_MS = 5;

    /** The value encoder. */
    final NativeFormatEncoder values;
    /** The key encoder, or {@code null} when the table writes no key. */
    final NativeFormatEncoder keys;
    private final EncoderResources held = new EncoderResources();
    private final TypeSerializer<RowData> copier;
    private final List<RowData> rows = new ArrayList<>(BATCH);
    private final RecordLayout layout;
    /**
     * Under reduction ({@link RecordLayout#reduces()}): the latest row of each key since the last
     * send, in the order keys first came; else {@code null}.
     */
    private final Map<RowData, RowData> latest;
    /** The timed sends of reduced rows ({@link #sendEvery}), or {@code null}. */
    private IntervalSends intervalSends;
    /** Where rows that are not reduced wait at most {@link #LINGER_MS}: the task's timers, or {@code null}. */
    private ProcessingTimeService lingerTime;
    private IntervalSends.Send lingerSend;
    /** Whether a linger timer is registered. */
    private boolean lingering;
    private boolean closed;

    /** @param copier copies incoming rows when the job reuses objects; {@code null} otherwise */
    PendingRecords(String format, Map<String, String> formatOptions, RecordLayout layout, TypeSerializer<RowData> copier) {
        this.copier = copier;
        this.layout = layout;
        this.latest = layout.reduces() ? new LinkedHashMap<>() : null;
        this.values = held.open(allocator -> NativeFormatEncoder.create(allocator, format, formatOptions, layout.valueType));
        this.keys =
                layout.keyFormat == null
                        ? null
                        : held.open(allocator ->
                                NativeFormatEncoder.create(allocator, layout.keyFormat, layout.keyFormatOptions, layout.keyType));
    }

    /**
     * Adds a row; returns whether the batch is full: {@value #BATCH} rows, or under reduction as
     * many keys as the table's {@code sink.buffer-flush.max-rows} (a key's row replaces the one
     * before it).
     */
    boolean add(RowData row) {
        RowData owned = copier == null ? row : copier.copy(row);
        if (latest != null) {
            latest.put(layout.reduceKey(owned), owned);
            return latest.size() >= layout.reduceRows;
        }
        rows.add(owned);
        if (lingerTime != null && !lingering) {
            lingering = true;
            lingerTime.registerTimer(lingerTime.getCurrentProcessingTime() + LINGER_MS, now -> {
                lingering = false;
                if (!closed && !isEmpty()) {
                    lingerSend.send();
                }
            });
        }
        return rows.size() >= BATCH;
    }

    /** The rows to send: those collected since the last {@link #clear()}. */
    List<RowData> rows() {
        if (latest != null) {
            rows.clear();
            rows.addAll(latest.values());
        }
        return rows;
    }

    boolean isEmpty() {
        return latest != null ? latest.isEmpty() : rows.isEmpty();
    }

    /**
     * Has {@code send} (the writer's send of these rows) called on the task's thread: under
     * reduction with an interval ({@code sink.buffer-flush.interval}) once rows have waited the
     * interval without a send; without reduction once a row has waited {@link #LINGER_MS}.
     */
    void sendEvery(ProcessingTimeService time, IntervalSends.Send send) {
        if (latest == null) {
            lingerTime = time;
            lingerSend = send;
        } else if (layout.reduceIntervalMs > 0) {
            intervalSends = IntervalSends.start(time, layout.reduceIntervalMs, send);
        }
    }

    /** Forgets the rows, once they are sent. */
    void clear() {
        if (intervalSends != null) {
            intervalSends.sent();
        }
        rows.clear();
        if (latest != null) {
            latest.clear();
        }
    }

    @Override
    public void close() {
        closed = true;
        if (intervalSends != null) {
            intervalSends.close();
        }
        held.close();
    }
}
