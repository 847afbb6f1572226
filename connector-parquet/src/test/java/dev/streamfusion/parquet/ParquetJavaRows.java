package dev.streamfusion.parquet;

import org.apache.flink.types.Row;

import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of a Parquet file as parquet-java's own record reader reads them (its example {@link
 * Group}s), as Flink rows of the types Flink's reader gives the file's columns ({@code
 * StreamFusionParquetCorpusITCase#columns}), printed as a collected Flink row prints: an
 * independent reading of files Flink's reader cannot read.
 */
final class ParquetJavaRows {

    private ParquetJavaRows() {}

    static List<String> read(Path file) throws Exception {
        List<String> rows = new ArrayList<>();
        try (ParquetReader<Group> reader =
                ParquetReader.builder(new GroupReadSupport(), new org.apache.hadoop.fs.Path(file.toUri()))
                        .withConf(new Configuration())
                        .build()) {
            for (Group group = reader.read(); group != null; group = reader.read()) {
                rows.add(struct(group, group.getType()).toString());
            }
        }
        return rows;
    }

    private static Row struct(Group group, GroupType type) {
        Row row = new Row(type.getFieldCount());
        for (int i = 0; i < type.getFieldCount(); i++) {
            row.setField(i, field(group, i, type.getType(i)));
        }
        return row;
    }

    /** A field of a group: NULL when absent, an array of its values when repeated. */
    private static Object field(Group group, int index, Type type) {
        int count = group.getFieldRepetitionCount(index);
        if (type.isRepetition(Type.Repetition.REPEATED)) {
            Object[] values = new Object[count];
            for (int i = 0; i < count; i++) {
                values[i] = value(group, index, i, type);
            }
            return values;
        }
        return count == 0 ? null : value(group, index, 0, type);
    }

    private static Object value(Group group, int index, int i, Type type) {
        if (type.isPrimitive()) {
            return primitive(group, index, i, type.asPrimitiveType());
        }
        GroupType groupType = type.asGroupType();
        Group child = group.getGroup(index, i);
        LogicalTypeAnnotation annotation = groupType.getLogicalTypeAnnotation();
        if (annotation instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation && groupType.getFieldCount() == 1) {
            Type repeated = groupType.getType(0);
            boolean threeLevel =
                    !repeated.isPrimitive()
                            && repeated.asGroupType().getFieldCount() == 1
                            && repeated.asGroupType().getLogicalTypeAnnotation() == null;
            Object[] elements = new Object[child.getFieldRepetitionCount(0)];
            for (int e = 0; e < elements.length; e++) {
                if (threeLevel) {
                    Group wrapper = child.getGroup(0, e);
                    elements[e] = field(wrapper, 0, repeated.asGroupType().getType(0));
                } else {
                    elements[e] = value(child, 0, e, repeated);
                }
            }
            return elements;
        }
        if (annotation instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation && groupType.getFieldCount() == 1) {
            GroupType entries = groupType.getType(0).asGroupType();
            Map<Object, Object> map = new HashMap<>();
            for (int e = 0; e < child.getFieldRepetitionCount(0); e++) {
                Group entry = child.getGroup(0, e);
                map.put(field(entry, 0, entries.getType(0)), field(entry, 1, entries.getType(1)));
            }
            return map;
        }
        return struct(child, groupType);
    }

    private static Object primitive(Group group, int index, int i, PrimitiveType type) {
        LogicalTypeAnnotation annotation = type.getLogicalTypeAnnotation();
        if (annotation instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) {
            int scale = ((LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) annotation).getScale();
            switch (type.getPrimitiveTypeName()) {
                case INT32:
                    return BigDecimal.valueOf(group.getInteger(index, i), scale);
                case INT64:
                    return BigDecimal.valueOf(group.getLong(index, i), scale);
                default:
                    return new BigDecimal(new BigInteger(group.getBinary(index, i).getBytes()), scale);
            }
        }
        switch (type.getPrimitiveTypeName()) {
            case BOOLEAN:
                return group.getBoolean(index, i);
            case INT32:
                int integer = group.getInteger(index, i);
                if (annotation instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
                    return LocalDate.ofEpochDay(integer);
                }
                if (annotation instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation) {
                    return LocalTime.ofNanoOfDay(integer * 1_000_000L);
                }
                if (annotation instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation) {
                    int width = ((LogicalTypeAnnotation.IntLogicalTypeAnnotation) annotation).getBitWidth();
                    return width == 8 ? (Object) (byte) integer : width == 16 ? (Object) (short) integer : integer;
                }
                return integer;
            case INT64:
                long value = group.getLong(index, i);
                if (annotation instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) {
                    Instant instant;
                    switch (((LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) annotation).getUnit()) {
                        case MILLIS:
                            instant = Instant.ofEpochMilli(value);
                            break;
                        case MICROS:
                            instant = Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000L), Math.floorMod(value, 1_000_000L) * 1_000);
                            break;
                        default:
                            instant = Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000_000L), Math.floorMod(value, 1_000_000_000L));
                    }
                    return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
                }
                return value;
            case FLOAT:
                return group.getFloat(index, i);
            case DOUBLE:
                return group.getDouble(index, i);
            case BINARY:
                if (annotation == null) {
                    return group.getBinary(index, i).getBytes();
                }
                return group.getBinary(index, i).toStringUsingUTF8();
            case FIXED_LEN_BYTE_ARRAY:
                return group.getBinary(index, i).getBytes();
            default:
                throw new UnsupportedOperationException(type + " is not compared");
        }
    }
}
