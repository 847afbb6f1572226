package dev.streamfusion.iceberg.internal;

import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ByteBuffers;
import org.apache.iceberg.util.PartitionUtil;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A file task the native reader cannot read correctly (an Avro or ORC data file, a deletion vector, an
 * equality delete on a nested field), read by Iceberg Java's generic reader: the data file's
 * records of the projected columns (identity partition values as constants), every delete file
 * applied by Iceberg's {@link GenericDeleteFilter}, turned into Flink's values as iceberg-flink
 * reads them and written into Arrow batches of the same layout as the native reader's.
 */
@Internal
final class JavaIcebergReader implements IcebergTaskReader {

    private final String path;
    private final CloseableIterable<Record> records;
    private final CloseableIterator<Record> iterator;
    private final RowDataArrowWriter writer;
    private final int batchSize;
    /** For each column of the row type, its position in the records read. */
    private final int[] positions;
    /** For each column of the row type, Iceberg's generic value to Flink's. */
    private final List<Function<Object, Object>> converters;
    private final GenericRowData row;

    private JavaIcebergReader(
            String path,
            CloseableIterable<Record> records,
            RowDataArrowWriter writer,
            int batchSize,
            int[] positions,
            List<Function<Object, Object>> converters) {
        this.path = path;
        this.records = records;
        this.iterator = records.iterator();
        this.writer = writer;
        this.batchSize = batchSize;
        this.positions = positions;
        this.converters = converters;
        this.row = new GenericRowData(positions.length);
    }

    /**
     * A reader of {@code task} (one for Iceberg Java, {@link TaskDescription#readByJava()}) through
     * the table's {@code io} (built here, so that a failure to build it names the file too).
     */
    static JavaIcebergReader open(
            BufferAllocator allocator, TaskDescription task, RowType rowType, int batchSize, Supplier<FileIO> io)
            throws IOException {
        try {
            return create(allocator, task, rowType, batchSize, io.get());
        } catch (RuntimeException e) {
            throw new IOException("Cannot read " + task.path() + ": " + e.getMessage(), e);
        }
    }

    private static JavaIcebergReader create(
            BufferAllocator allocator, TaskDescription task, RowType rowType, int batchSize, FileIO io) throws IOException {
        FileScanTask fileTask = ScanTaskParser.fromJson(task.json(), task.caseSensitive());
        Schema tableSchema = fileTask.schema();
        int[] ids = task.projectedIds();
        Set<Integer> idSet = new HashSet<>();
        for (int id : ids) {
            idSet.add(id);
        }
        Schema projection = TypeUtil.select(tableSchema, idSet);
        GenericDeleteFilter deletes = new GenericDeleteFilter(io, fileTask, tableSchema, projection);
        Schema required = deletes.requiredSchema();
        List<Types.NestedField> fields = required.columns();
        int[] positions = new int[ids.length];
        List<Function<Object, Object>> converters = new ArrayList<>(ids.length);
        for (int c = 0; c < ids.length; c++) {
            positions[c] = -1;
            for (int p = 0; p < fields.size(); p++) {
                if (fields.get(p).fieldId() == ids[c]) {
                    positions[c] = p;
                }
            }
            if (positions[c] < 0) {
                throw new IOException("Cannot read " + task.path() + ": its schema has no field " + ids[c]);
            }
            converters.add(converter(fields.get(positions[c]).type()));
        }
        NameMapping mapping = task.nameMapping() == null ? null : NameMappingParser.fromJson(task.nameMapping());
        CloseableIterable<Record> file = openFile(fileTask, required, mapping, task.caseSensitive(), io);
        CloseableIterable<Record> records = deletes.filter(file);
        RowDataArrowWriter writer = RowDataArrowWriter.create(rowType, allocator);
        try {
            return new JavaIcebergReader(task.path(), records, writer, batchSize, positions, converters);
        } catch (RuntimeException e) {
            writer.close();
            try {
                records.close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * The records of {@code task}'s data file (its split) of the {@code required} columns, through
     * the generic format model Iceberg registers for its format (Parquet, Avro, ORC): only Iceberg
     * types cross here, so the format libraries stay Iceberg's own, relocated or not.
     */
    private static CloseableIterable<Record> openFile(
            FileScanTask task, Schema required, NameMapping mapping, boolean caseSensitive, FileIO io) {
        InputFile input = io.newInputFile(task.file());
        ReadBuilder<Record, ?> read = FormatModelRegistry.<Record, Object>readBuilder(task.file().format(), Record.class, input)
                .project(required)
                .split(task.start(), task.length())
                .caseSensitive(caseSensitive)
                .filter(task.residual())
                .reuseContainers()
                .idToConstant(PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant));
        if (mapping != null) {
            read = read.withNameMapping(mapping);
        }
        return read.build();
    }

    @Override
    public VectorSchemaRoot next() throws IOException {
        try {
            while (writer.appended() < batchSize && iterator.hasNext()) {
                Record record = iterator.next();
                for (int c = 0; c < positions.length; c++) {
                    Object value = record.get(positions[c]);
                    row.setField(c, value == null ? null : converters.get(c).apply(value));
                }
                writer.append(row);
            }
        } catch (RuntimeException e) {
            throw new IOException("Cannot read " + path + ": " + e.getMessage(), e);
        }
        return writer.appended() == 0 ? null : writer.finishBatch();
    }

    /** Iceberg's generic value of {@code type} (never {@code null}) to Flink's internal one, as iceberg-flink reads it. */
    static Function<Object, Object> converter(Type type) {
        switch (type.typeId()) {
            case BOOLEAN:
            case INTEGER:
            case LONG:
            case FLOAT:
            case DOUBLE:
                return Function.identity();
            case DATE:
                return v -> (int) ((LocalDate) v).toEpochDay();
            case TIME:
                // Flink's TIME holds milliseconds of the day; iceberg-flink drops the rest.
                return v -> (int) (((LocalTime) v).toNanoOfDay() / 1_000_000L);
            case TIMESTAMP:
                return timestamp(((Types.TimestampType) type).shouldAdjustToUTC());
            case TIMESTAMP_NANO:
                return timestamp(((Types.TimestampNanoType) type).shouldAdjustToUTC());
            case STRING:
                return v -> StringData.fromString(v.toString());
            case UUID:
                return v -> {
                    UUID uuid = (UUID) v;
                    return ByteBuffer.allocate(16)
                            .putLong(uuid.getMostSignificantBits())
                            .putLong(uuid.getLeastSignificantBits())
                            .array();
                };
            case FIXED:
            case BINARY:
                return v -> v instanceof ByteBuffer ? ByteBuffers.toByteArray((ByteBuffer) v) : ((byte[]) v).clone();
            case DECIMAL:
                Types.DecimalType decimal = (Types.DecimalType) type;
                return v -> DecimalData.fromBigDecimal((BigDecimal) v, decimal.precision(), decimal.scale());
            case STRUCT:
                List<Types.NestedField> fields = type.asStructType().fields();
                List<Function<Object, Object>> children = new ArrayList<>(fields.size());
                for (Types.NestedField field : fields) {
                    children.add(converter(field.type()));
                }
                return v -> {
                    StructLike struct = (StructLike) v;
                    GenericRowData out = new GenericRowData(children.size());
                    for (int i = 0; i < children.size(); i++) {
                        Object child = struct.get(i, Object.class);
                        out.setField(i, child == null ? null : children.get(i).apply(child));
                    }
                    return out;
                };
            case LIST:
                Function<Object, Object> element = converter(type.asListType().elementType());
                return v -> {
                    List<?> list = (List<?>) v;
                    Object[] out = new Object[list.size()];
                    for (int i = 0; i < out.length; i++) {
                        Object item = list.get(i);
                        out[i] = item == null ? null : element.apply(item);
                    }
                    return new GenericArrayData(out);
                };
            case MAP:
                Function<Object, Object> key = converter(type.asMapType().keyType());
                Function<Object, Object> value = converter(type.asMapType().valueType());
                return v -> {
                    Map<?, ?> map = (Map<?, ?>) v;
                    Map<Object, Object> out = new LinkedHashMap<>(map.size() * 2);
                    for (Map.Entry<?, ?> entry : map.entrySet()) {
                        out.put(key.apply(entry.getKey()), entry.getValue() == null ? null : value.apply(entry.getValue()));
                    }
                    return new GenericMapData(out);
                };
            default:
                throw new UnsupportedOperationException("Iceberg type " + type + " is not read into Flink");
        }
    }

    private static Function<Object, Object> timestamp(boolean withZone) {
        return withZone
                ? v -> TimestampData.fromInstant(((OffsetDateTime) v).toInstant())
                : v -> TimestampData.fromLocalDateTime((LocalDateTime) v);
    }

    @Override
    public void close() throws IOException {
        try {
            iterator.close();
        } finally {
            try {
                records.close();
            } finally {
                writer.close();
            }
        }
    }
}
