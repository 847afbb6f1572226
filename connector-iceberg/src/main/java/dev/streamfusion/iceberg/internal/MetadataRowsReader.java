package dev.streamfusion.iceberg.internal;

import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A metadata table's task ({@code t$snapshots}, {@code t$files}, ...; {@link
 * TaskDescription#isMetadata()}): the rows Iceberg Java makes of the table's metadata, their values
 * in Iceberg's internal form (timestamps as microseconds, strings as character sequences, structs,
 * lists and maps of such), turned into Flink's values as iceberg-flink reads them and written into
 * Arrow batches of the row type.
 */
@Internal
final class MetadataRowsReader extends ConvertedRowsReader<StructLike> {

    private MetadataRowsReader(
            String path,
            CloseableIterable<StructLike> rows,
            RowDataArrowWriter writer,
            int batchSize,
            int[] positions,
            List<Function<Object, Object>> converters) {
        super(path, rows, writer, batchSize, positions, converters);
    }

    /** A reader of {@code task} into batches of {@code rowType}, {@code batchSize} rows a batch at most. */
    static MetadataRowsReader open(BufferAllocator allocator, TaskDescription task, RowType rowType, int batchSize)
            throws IOException {
        CloseableIterable<StructLike> rows;
        List<Function<Object, Object>> converters = new ArrayList<>(rowType.getFieldCount());
        try {
            for (LogicalType type : rowType.getChildren()) {
                converters.add(converter(type));
            }
            FileScanTask parsed = ScanTaskParser.fromJson(task.json(), task.caseSensitive());
            rows = parsed.asDataTask().rows();
        } catch (RuntimeException e) {
            throw new IOException("Cannot read the metadata rows of " + task.path() + ": " + e.getMessage(), e);
        }
        RowDataArrowWriter writer;
        try {
            writer = RowDataArrowWriter.create(rowType, allocator);
        } catch (RuntimeException e) {
            try {
                rows.close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return new MetadataRowsReader(task.path(), rows, writer, batchSize, task.rowPositions(), converters);
    }

    /**
     * Iceberg's internal value (never {@code null}) of a column Flink reads as {@code type} to
     * Flink's internal one; the Java forms Iceberg's generic rows hold (dates, times, timestamps)
     * are taken too.
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
            default:
                throw new UnsupportedOperationException("A metadata table's column of type " + type + " is not read");
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
}
