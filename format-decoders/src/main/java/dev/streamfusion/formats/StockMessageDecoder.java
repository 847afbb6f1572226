package dev.streamfusion.formats;

import dev.streamfusion.bridge.columnar.NestedProjection;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * Flink's own deserializer of a format, for the messages a deferring {@link NativeFormatDecoder}
 * hands back: malformed or unusual input, whose meaning (an error, a skip under the format's
 * ignore-parse-errors option, rows with NULL fields, ...) is whatever Flink's format gives it, so
 * it is decided by that format and nothing else. Rows come out as the native decoder's would:
 * the projected columns of the rows Flink's source would emit.
 */
@Internal
public final class StockMessageDecoder implements Serializable {

    private static final long serialVersionUID = 1L;

    private final DeserializationSchema<RowData> deserializer;
    private final RowType physicalType;
    private final int[][] projection;
    private transient NestedProjection projected;
    private transient List<RowData> decoded;
    private transient Collector<RowData> collector;
    private transient Collector<RowData> buffer;

    /**
     * @param deserializer the runtime decoder Flink's format makes for {@code physicalType}, as
     *     the stock connector would create it
     * @param projection the paths of the physical fields the native decoder produces
     */
    public StockMessageDecoder(DeserializationSchema<RowData> deserializer, RowType physicalType, int[][] projection) {
        this.deserializer = deserializer;
        this.physicalType = physicalType;
        this.projection = projection;
    }

    /** Opens the deserializer, as Flink's source opens its own. */
    public void open(DeserializationSchema.InitializationContext context) throws Exception {
        deserializer.open(context);
        projected = NestedProjection.of(physicalType, projection);
        decoded = new ArrayList<>();
        collector = new RowsOnly(decoded);
        buffer = new ListCollector<>(decoded);
    }

    /**
     * The rows Flink's source would emit of {@code message}, projected.
     *
     * @throws IOException Flink's format's own failure
     */
    public List<RowData> decode(byte[] message) throws IOException {
        return decode(message, collector);
    }

    /**
     * The rows Flink's format makes of {@code message}, projected, collected into a buffer as
     * Flink's Kafka deserializer collects a record's key rows before pairing them with its value
     * rows: a NULL row (of malformed input under ignore-parse-errors) is kept as {@code null}.
     *
     * @throws IOException Flink's format's own failure
     */
    public List<RowData> decodeBuffered(byte[] message) throws IOException {
        return decode(message, buffer);
    }

    private List<RowData> decode(byte[] message, Collector<RowData> output) throws IOException {
        decoded.clear();
        deserializer.deserialize(message, output);
        List<RowData> rows = new ArrayList<>(decoded.size());
        for (RowData row : decoded) {
            rows.add(row == null ? null : projected.project(row));
        }
        return rows;
    }

    /**
     * Collects rows as a Flink source's output does. Formats make a NULL row of some malformed
     * input under their ignore-parse-errors option (JSON does, of a message malformed inside its
     * top-level object); a source's output fails on it at once (Flink's Kafka deserializer, or
     * the serializer copying the row to the next operator), within the format's call, and the
     * format's own error handling then decides: it drops the row and the rest of the message
     * when it ignores parse errors, and fails otherwise.
     */
    private static final class RowsOnly implements Collector<RowData> {
        private final List<RowData> rows;

        RowsOnly(List<RowData> rows) {
            this.rows = rows;
        }

        @Override
        public void collect(RowData row) {
            if (row == null) {
                throw new NullPointerException("a NULL row, which a source cannot emit");
            }
            rows.add(row);
        }

        @Override
        public void close() {}
    }
}
