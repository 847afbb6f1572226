package dev.streamfusion.iceberg.internal;

import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.variant.BinaryVariant;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.util.ByteBuffers;
import org.apache.iceberg.variants.Variant;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
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

    /** For each column of {@code rowType}, its {@link #converter}. */
    static List<Function<Object, Object>> converters(RowType rowType) {
        List<Function<Object, Object>> converters = new ArrayList<>(rowType.getFieldCount());
        for (LogicalType type : rowType.getChildren()) {
            converters.add(converter(type));
        }
        return converters;
    }

    /**
     * Iceberg's value (never {@code null}) of a column Flink reads as {@code type} to Flink's
     * internal one, as iceberg-flink reads it: in Iceberg's internal form (a metadata table's rows:
     * timestamps as microseconds, times as microseconds of the day) or in the Java form of its
     * generic records (dates, times and timestamps as {@code java.time} values).
     */
    static Function<Object, Object> converter(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
            case INTEGER:
            case BIGINT:
            case FLOAT:
            case DOUBLE:
                return Function.identity();
            case TINYINT:
                return v -> ((Number) v).byteValue();
            case SMALLINT:
                return v -> ((Number) v).shortValue();
            case DATE:
                return v -> v instanceof LocalDate ? (int) ((LocalDate) v).toEpochDay() : v;
            case TIME_WITHOUT_TIME_ZONE:
                // Flink's TIME holds milliseconds of the day; Iceberg's, microseconds.
                return v -> v instanceof LocalTime
                        ? (int) (((LocalTime) v).toNanoOfDay() / 1_000_000L)
                        : (int) ((Long) v / 1000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return timestamp(((TimestampType) type).getPrecision() > 6);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return timestamp(((LocalZonedTimestampType) type).getPrecision() > 6);
            case CHAR:
            case VARCHAR:
                return v -> StringData.fromString(v.toString());
            case BINARY:
            case VARBINARY:
                return ConvertedRowsReader::bytes;
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                return v -> DecimalData.fromBigDecimal((BigDecimal) v, decimal.getPrecision(), decimal.getScale());
            case ROW:
                List<Function<Object, Object>> fields = new ArrayList<>();
                for (LogicalType field : type.getChildren()) {
                    fields.add(converter(field));
                }
                return struct(fields);
            case ARRAY:
                return list(converter(((ArrayType) type).getElementType()));
            case MAP:
                return map(converter(((MapType) type).getKeyType()), converter(((MapType) type).getValueType()));
            case VARIANT:
                return ConvertedRowsReader::variant;
            default:
                throw new UnsupportedOperationException("A column of type " + type + " is not read from Iceberg");
        }
    }

    /** Microseconds (nanoseconds where {@code nanos}) since the epoch, or a Java date-time, to Flink's timestamp. */
    private static Function<Object, Object> timestamp(boolean nanos) {
        return v -> {
            if (v instanceof OffsetDateTime) {
                return TimestampData.fromInstant(((OffsetDateTime) v).toInstant());
            }
            if (v instanceof LocalDateTime) {
                return TimestampData.fromLocalDateTime((LocalDateTime) v);
            }
            long units = (Long) v;
            return nanos
                    ? TimestampData.fromEpochMillis(Math.floorDiv(units, 1_000_000L), (int) Math.floorMod(units, 1_000_000L))
                    : TimestampData.fromEpochMillis(Math.floorDiv(units, 1000L), (int) Math.floorMod(units, 1000L) * 1000);
        };
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

    /** Iceberg's variant as Flink's: its metadata's and value's bytes, as iceberg-flink reads it. */
    private static BinaryVariant variant(Object v) {
        Variant variant = (Variant) v;
        return new BinaryVariant(serialized(variant.value()::writeTo, variant.value().sizeInBytes()),
                serialized(variant.metadata()::writeTo, variant.metadata().sizeInBytes()));
    }

    private static byte[] serialized(BiConsumer<ByteBuffer, Integer> writeTo, int size) {
        byte[] bytes = new byte[size];
        writeTo.accept(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN), 0);
        return bytes;
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
