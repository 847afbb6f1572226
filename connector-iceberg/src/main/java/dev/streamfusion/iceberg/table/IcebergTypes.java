package dev.streamfusion.iceberg.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.VariantType;

import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Flink types of Iceberg schemas, and Iceberg schemas of Flink row types, as iceberg-flink maps
 * them (so a table reads with the same column types through either connector).
 */
@Internal
public final class IcebergTypes {

    private IcebergTypes() {}

    /** The row type of an Iceberg schema: required fields NOT NULL. */
    public static RowType toRowType(Schema schema) {
        return (RowType) toFlink(schema.asStruct(), true);
    }

    private static LogicalType toFlink(Type type, boolean nullable) {
        switch (type.typeId()) {
            case BOOLEAN:
                return new BooleanType(nullable);
            case INTEGER:
                return new IntType(nullable);
            case LONG:
                return new BigIntType(nullable);
            case FLOAT:
                return new FloatType(nullable);
            case DOUBLE:
                return new DoubleType(nullable);
            case DATE:
                return new DateType(nullable);
            case TIME:
                return new TimeType(nullable, 0);
            case TIMESTAMP:
                return ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? new LocalZonedTimestampType(nullable, 6)
                        : new TimestampType(nullable, 6);
            case TIMESTAMP_NANO:
                return ((Types.TimestampNanoType) type).shouldAdjustToUTC()
                        ? new LocalZonedTimestampType(nullable, 9)
                        : new TimestampType(nullable, 9);
            case STRING:
                return new VarCharType(nullable, VarCharType.MAX_LENGTH);
            case UUID:
                return new BinaryType(nullable, 16);
            case FIXED:
                return new BinaryType(nullable, ((Types.FixedType) type).length());
            case BINARY:
                return new VarBinaryType(nullable, VarBinaryType.MAX_LENGTH);
            case DECIMAL:
                Types.DecimalType decimal = (Types.DecimalType) type;
                return new DecimalType(nullable, decimal.precision(), decimal.scale());
            case STRUCT:
                List<RowType.RowField> fields = new ArrayList<>();
                for (Types.NestedField field : type.asStructType().fields()) {
                    fields.add(new RowType.RowField(field.name(), toFlink(field.type(), field.isOptional()), field.doc()));
                }
                return new RowType(nullable, fields);
            case LIST:
                Types.ListType list = type.asListType();
                return new ArrayType(nullable, toFlink(list.elementType(), list.isElementOptional()));
            case MAP:
                Types.MapType map = type.asMapType();
                return new MapType(nullable, toFlink(map.keyType(), false), toFlink(map.valueType(), map.isValueOptional()));
            case VARIANT:
                return new VariantType(nullable);
            default:
                throw new UnsupportedOperationException("Iceberg type " + type + " has no Flink type");
        }
    }

    /**
     * The Iceberg schema of a Flink row type, fields numbered from 1 depth-first; {@code
     * identifierFields} (a primary key's columns) become the schema's identifier fields.
     */
    public static Schema toSchema(RowType rowType, List<String> identifierFields) {
        AtomicInteger ids = new AtomicInteger(rowType.getFieldCount());
        List<Types.NestedField> fields = new ArrayList<>();
        int id = 0;
        for (RowType.RowField field : rowType.getFields()) {
            id++;
            boolean required = !field.getType().isNullable() || identifierFields.contains(field.getName());
            fields.add(field(id, !required, field.getName(), toIceberg(field.getType(), ids), field));
        }
        Schema schema = new Schema(fields);
        if (identifierFields.isEmpty()) {
            return schema;
        }
        List<Integer> identifierIds = new ArrayList<>();
        for (String name : identifierFields) {
            identifierIds.add(schema.findField(name).fieldId());
        }
        return new Schema(fields, new java.util.HashSet<>(identifierIds));
    }

    /** A field of {@code flink}'s description as its doc, as iceberg-flink keeps column comments. */
    private static Types.NestedField field(int id, boolean optional, String name, Type type, RowType.RowField flink) {
        String doc = flink.getDescription().orElse(null);
        return optional ? Types.NestedField.optional(id, name, type, doc) : Types.NestedField.required(id, name, type, doc);
    }

    /**
     * The physical columns of {@code schema} as a row type, each column's comment its field's
     * description (which {@link #toSchema} keeps as the field's doc).
     */
    public static RowType physicalRowType(ResolvedSchema schema) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (Column column : schema.getColumns()) {
            if (column.isPhysical()) {
                fields.add(new RowType.RowField(
                        column.getName(), column.getDataType().getLogicalType(), column.getComment().orElse(null)));
            }
        }
        return new RowType(false, fields);
    }

    private static Type toIceberg(LogicalType type, AtomicInteger ids) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return Types.BooleanType.get();
            case TINYINT:
            case SMALLINT:
            case INTEGER:
                return Types.IntegerType.get();
            case BIGINT:
                return Types.LongType.get();
            case FLOAT:
                return Types.FloatType.get();
            case DOUBLE:
                return Types.DoubleType.get();
            case DATE:
                return Types.DateType.get();
            case TIME_WITHOUT_TIME_ZONE:
                return Types.TimeType.get();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return ((TimestampType) type).getPrecision() > 6
                        ? Types.TimestampNanoType.withoutZone()
                        : Types.TimestampType.withoutZone();
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return ((LocalZonedTimestampType) type).getPrecision() > 6
                        ? Types.TimestampNanoType.withZone()
                        : Types.TimestampType.withZone();
            case CHAR:
            case VARCHAR:
                return Types.StringType.get();
            case BINARY:
                return Types.FixedType.ofLength(((BinaryType) type).getLength());
            case VARBINARY:
                return Types.BinaryType.get();
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                return Types.DecimalType.of(decimal.getPrecision(), decimal.getScale());
            case ROW:
                List<Types.NestedField> fields = new ArrayList<>();
                for (RowType.RowField field : ((RowType) type).getFields()) {
                    fields.add(field(
                            ids.incrementAndGet(), field.getType().isNullable(), field.getName(), toIceberg(field.getType(), ids), field));
                }
                return Types.StructType.of(fields);
            case ARRAY:
                LogicalType element = ((ArrayType) type).getElementType();
                int elementId = ids.incrementAndGet();
                Type elementType = toIceberg(element, ids);
                return element.isNullable()
                        ? Types.ListType.ofOptional(elementId, elementType)
                        : Types.ListType.ofRequired(elementId, elementType);
            case MAP:
                MapType map = (MapType) type;
                int keyId = ids.incrementAndGet();
                int valueId = ids.incrementAndGet();
                Type keyType = toIceberg(map.getKeyType(), ids);
                Type valueType = toIceberg(map.getValueType(), ids);
                return map.getValueType().isNullable()
                        ? Types.MapType.ofOptional(keyId, valueId, keyType, valueType)
                        : Types.MapType.ofRequired(keyId, valueId, keyType, valueType);
            case MULTISET:
                // As iceberg-flink keeps a multiset: each element and its count, read back as a map.
                int elementKeyId = ids.incrementAndGet();
                int countId = ids.incrementAndGet();
                return Types.MapType.ofRequired(elementKeyId, countId,
                        toIceberg(((MultisetType) type).getElementType(), ids), Types.IntegerType.get());
            case VARIANT:
                return Types.VariantType.get();
            default:
                throw new UnsupportedOperationException("Flink type " + type + " has no Iceberg type");
        }
    }
}
