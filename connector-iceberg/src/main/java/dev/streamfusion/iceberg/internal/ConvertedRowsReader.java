package dev.streamfusion.iceberg.internal;

import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.util.ByteBuffers;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * A task read by Iceberg Java into rows of Iceberg's values, each projected column's value turned
 * into Flink's by its converter and the rows written into Arrow batches of the row type; with the
 * conversions of nested and binary values both kinds of reader share.
 */
@Internal
abstract class ConvertedRowsReader<T extends StructLike> implements IcebergTaskReader {

    private final String path;
    private final CloseableIterable<T> rows;
    private final CloseableIterator<T> iterator;
    private final RowDataArrowWriter writer;
    private final int batchSize;
    /** For each column of the row type, its position in the rows read. */
    private final int[] positions;
    /** For each column of the row type, Iceberg's value to Flink's. */
    private final List<Function<Object, Object>> converters;
    private final GenericRowData row;

    ConvertedRowsReader(
            String path,
            CloseableIterable<T> rows,
            RowDataArrowWriter writer,
            int batchSize,
            int[] positions,
            List<Function<Object, Object>> converters) {
        this.path = path;
        this.rows = rows;
        this.iterator = rows.iterator();
        this.writer = writer;
        this.batchSize = batchSize;
        this.positions = positions;
        this.converters = converters;
        this.row = new GenericRowData(positions.length);
    }

    @Override
    public VectorSchemaRoot next() throws IOException {
        try {
            while (writer.appended() < batchSize && iterator.hasNext()) {
                T record = iterator.next();
                for (int c = 0; c < positions.length; c++) {
                    Object value = record.get(positions[c], Object.class);
                    row.setField(c, value == null ? null : converters.get(c).apply(value));
                }
                writer.append(row);
            }
        } catch (RuntimeException e) {
            throw new IOException("Cannot read " + path + ": " + e.getMessage(), e);
        }
        return writer.appended() == 0 ? null : writer.finishBatch();
    }

    /** A struct's fields, each by its converter ({@code null} kept), as Flink's row. */
    static Function<Object, Object> struct(List<Function<Object, Object>> fields) {
        return v -> {
            StructLike struct = (StructLike) v;
            GenericRowData out = new GenericRowData(fields.size());
            for (int i = 0; i < fields.size(); i++) {
                Object field = struct.get(i, Object.class);
                out.setField(i, field == null ? null : fields.get(i).apply(field));
            }
            return out;
        };
    }

    /** A list's elements by {@code element} ({@code null} kept), as Flink's array. */
    static Function<Object, Object> list(Function<Object, Object> element) {
        return v -> {
            List<?> list = (List<?>) v;
            Object[] out = new Object[list.size()];
            for (int i = 0; i < out.length; i++) {
                Object item = list.get(i);
                out[i] = item == null ? null : element.apply(item);
            }
            return new GenericArrayData(out);
        };
    }

    /** A map's keys and values by {@code key} and {@code value} ({@code null} values kept), as Flink's map. */
    static Function<Object, Object> map(Function<Object, Object> key, Function<Object, Object> value) {
        return v -> {
            Map<?, ?> map = (Map<?, ?>) v;
            Map<Object, Object> out = new LinkedHashMap<>(map.size() * 2);
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                out.put(key.apply(entry.getKey()), entry.getValue() == null ? null : value.apply(entry.getValue()));
            }
            return new GenericMapData(out);
        };
    }

    /** Binary, fixed or UUID bytes (a buffer, an array or a UUID's 16 bytes, big-endian), as a new array. */
    static byte[] bytes(Object v) {
        if (v instanceof ByteBuffer) {
            return ByteBuffers.toByteArray((ByteBuffer) v);
        }
        if (v instanceof UUID) {
            UUID uuid = (UUID) v;
            return ByteBuffer.allocate(16)
                    .putLong(uuid.getMostSignificantBits())
                    .putLong(uuid.getLeastSignificantBits())
                    .array();
        }
        return ((byte[]) v).clone();
    }

    @Override
    public void close() throws IOException {
        try {
            iterator.close();
        } finally {
            try {
                rows.close();
            } finally {
                writer.close();
            }
        }
    }
}
