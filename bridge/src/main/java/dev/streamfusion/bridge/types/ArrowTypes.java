package dev.streamfusion.bridge.types;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DayTimeIntervalType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.VariantType;
import org.apache.flink.table.types.logical.YearMonthIntervalType;

import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The one mapping between Flink logical types and Arrow fields.
 *
 * <table>
 *   <tr><th>Flink</th><th>Arrow</th></tr>
 *   <tr><td>BOOLEAN</td><td>Bool</td></tr>
 *   <tr><td>TINYINT / SMALLINT / INT / BIGINT</td><td>Int(8/16/32/64, signed)</td></tr>
 *   <tr><td>FLOAT / DOUBLE</td><td>FloatingPoint(SINGLE / DOUBLE)</td></tr>
 *   <tr><td>DECIMAL(p, s)</td><td>Decimal(p, s, 128)</td></tr>
 *   <tr><td>CHAR / VARCHAR / STRING</td><td>Utf8</td></tr>
 *   <tr><td>BINARY / VARBINARY / BYTES</td><td>Binary</td></tr>
 *   <tr><td>DATE</td><td>Date(DAY)</td></tr>
 *   <tr><td>TIME(p)</td><td>Time(MILLISECOND, 32) for p &le; 3, Time(MICROSECOND, 64) for p &le; 6,
 *       Time(NANOSECOND, 64) above; field metadata {@value #FLINK_TYPE_KEY} = TIME(p)</td></tr>
 *   <tr><td>TIMESTAMP(p)</td><td>Timestamp(unit, no zone): MILLISECOND for p &le; 3, MICROSECOND for
 *       p &le; 6, NANOSECOND above</td></tr>
 *   <tr><td>TIMESTAMP_LTZ(p)</td><td>Timestamp(unit as above, "UTC")</td></tr>
 *   <tr><td>INTERVAL YEAR TO MONTH / DAY TO SECOND</td><td>Interval(YEAR_MONTH) /
 *       Duration(MILLISECOND)</td></tr>
 *   <tr><td>ARRAY&lt;T&gt;</td><td>List&lt;element: T&gt;</td></tr>
 *   <tr><td>MAP&lt;K, V&gt;</td><td>Map&lt;entries: Struct&lt;key: K not null, value: V&gt;&gt;</td></tr>
 *   <tr><td>MULTISET&lt;T&gt;</td><td>Map&lt;entries: Struct&lt;key: T not null, value: Int32 not
 *       null&gt;&gt;, field metadata {@value #FLINK_TYPE_KEY} = MULTISET</td></tr>
 *   <tr><td>ROW&lt;...&gt;</td><td>Struct&lt;...&gt;</td></tr>
 *   <tr><td>VARIANT</td><td>Struct&lt;metadata: Binary not null, value: Binary not null&gt; (the
 *       Parquet variant's unshredded form), field metadata {@value #FLINK_TYPE_KEY} = VARIANT</td></tr>
 * </table>
 *
 * <p>Nullability carries over field by field. Time units grow with precision so that no digit a
 * Flink value holds is lost (Flink keeps TIME in milliseconds and TIMESTAMP in milliseconds plus
 * nanoseconds of the millisecond). Arrow requires map keys to be non-null, so a map key column is
 * always declared NOT NULL and a NULL key is rejected when written. Types Flink cannot hold in a
 * column (RAW, NULL, SYMBOL, structured and distinct types, TIMESTAMP WITH TIME ZONE) are rejected
 * with an error naming the type. VARIANT columns are exchanged between Java readers and Flink only:
 * {@link #toNativeSchema} refuses them for native code, which has no variant kernels yet.
 *
 * <p>The reverse direction ({@link #toLogicalType(Field)}) gives the canonical Flink type of an
 * Arrow field: Utf8 becomes STRING, Binary becomes BYTES, and a time unit becomes the largest
 * precision it holds.
 *
 * @since 0.1
 */
@PublicEvolving
public final class ArrowTypes {

    /** Field metadata key that marks Flink types Arrow has no own type for. */
    public static final String FLINK_TYPE_KEY = "flink.type";

    /** A VARIANT column's first child: its metadata's bytes (the Parquet variant's order). */
    public static final String VARIANT_METADATA = "metadata";

    /** A VARIANT column's second child: its value's bytes. */
    public static final String VARIANT_VALUE = "value";

    private static final String MULTISET = "MULTISET";
    private static final String VARIANT = "VARIANT";
    private static final String UTC = "UTC";

    private ArrowTypes() {}

    /** The Arrow schema of a Flink row type. */
    public static Schema toArrowSchema(RowType rowType) {
        List<Field> fields = new ArrayList<>(rowType.getFieldCount());
        for (RowType.RowField field : rowType.getFields()) {
            fields.add(toArrowField(field.getName(), field.getType()));
        }
        return new Schema(fields);
    }

    /**
     * The Arrow schema of a Flink row type that native code reads or writes: as {@link
     * #toArrowSchema}, refusing a VARIANT column (at any depth) with an error naming it.
     */
    public static Schema toNativeSchema(RowType rowType) {
        for (RowType.RowField field : rowType.getFields()) {
            if (holdsVariant(field.getType())) {
                throw new ValidationException(
                        "StreamFusion does not read or write the VARIANT column '"
                                + field.getName()
                                + "' ("
                                + field.getType().asSummaryString()
                                + ") natively");
            }
        }
        return toArrowSchema(rowType);
    }

    /** Whether {@code type} is or holds a VARIANT. */
    public static boolean holdsVariant(LogicalType type) {
        return type.is(LogicalTypeRoot.VARIANT) || type.getChildren().stream().anyMatch(ArrowTypes::holdsVariant);
    }

    /** The Arrow field of a Flink type, with its nullability and children. */
    public static Field toArrowField(String name, LogicalType type) {
        boolean nullable = type.isNullable();
        switch (type.getTypeRoot()) {
            case ARRAY:
                return new Field(
                        name,
                        new FieldType(nullable, ArrowType.List.INSTANCE, null),
                        Collections.singletonList(
                                toArrowField("element", ((ArrayType) type).getElementType())));
            case MAP:
                MapType map = (MapType) type;
                return mapField(name, nullable, map.getKeyType(), map.getValueType(), null);
            case MULTISET:
                return mapField(
                        name,
                        nullable,
                        ((MultisetType) type).getElementType(),
                        new IntType(false),
                        Collections.singletonMap(FLINK_TYPE_KEY, MULTISET));
            case ROW:
                RowType row = (RowType) type;
                List<Field> children = new ArrayList<>(row.getFieldCount());
                for (RowType.RowField field : row.getFields()) {
                    children.add(toArrowField(field.getName(), field.getType()));
                }
                return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
            case VARIANT:
                return new Field(
                        name,
                        new FieldType(
                                nullable,
                                ArrowType.Struct.INSTANCE,
                                null,
                                Collections.singletonMap(FLINK_TYPE_KEY, VARIANT)),
                        List.of(
                                new Field(VARIANT_METADATA, FieldType.notNullable(ArrowType.Binary.INSTANCE), null),
                                new Field(VARIANT_VALUE, FieldType.notNullable(ArrowType.Binary.INSTANCE), null)));
            case TIME_WITHOUT_TIME_ZONE:
                // Arrow's units do not carry TIME's precision, which text formats round to.
                return new Field(
                        name,
                        new FieldType(
                                nullable,
                                toArrowType(type),
                                null,
                                Collections.singletonMap(
                                        FLINK_TYPE_KEY, "TIME(" + ((TimeType) type).getPrecision() + ")")),
                        null);
            default:
                return new Field(name, new FieldType(nullable, toArrowType(type), null), null);
        }
    }

    private static Field mapField(
            String name, boolean nullable, LogicalType key, LogicalType value, Map<String, String> metadata) {
        Field entries =
                new Field(
                        "entries",
                        FieldType.notNullable(ArrowType.Struct.INSTANCE),
                        List.of(toArrowField("key", key.copy(false)), toArrowField("value", value)));
        return new Field(
                name,
                new FieldType(nullable, new ArrowType.Map(false), null, metadata),
                Collections.singletonList(entries));
    }

    /** The Arrow type of a Flink scalar type (not ARRAY, MAP, MULTISET, ROW or VARIANT). */
    public static ArrowType toArrowType(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return ArrowType.Bool.INSTANCE;
            case TINYINT:
                return new ArrowType.Int(8, true);
            case SMALLINT:
                return new ArrowType.Int(16, true);
            case INTEGER:
                return new ArrowType.Int(32, true);
            case BIGINT:
                return new ArrowType.Int(64, true);
            case FLOAT:
                return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case DOUBLE:
                return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                return new ArrowType.Decimal(decimal.getPrecision(), decimal.getScale(), 128);
            case CHAR:
            case VARCHAR:
                return ArrowType.Utf8.INSTANCE;
            case BINARY:
            case VARBINARY:
                return ArrowType.Binary.INSTANCE;
            case DATE:
                return new ArrowType.Date(DateUnit.DAY);
            case TIME_WITHOUT_TIME_ZONE:
                TimeUnit timeUnit = unitFor(((TimeType) type).getPrecision());
                return new ArrowType.Time(timeUnit, timeUnit == TimeUnit.MILLISECOND ? 32 : 64);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return new ArrowType.Timestamp(unitFor(((TimestampType) type).getPrecision()), null);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return new ArrowType.Timestamp(
                        unitFor(((LocalZonedTimestampType) type).getPrecision()), UTC);
            case INTERVAL_YEAR_MONTH:
                return new ArrowType.Interval(IntervalUnit.YEAR_MONTH);
            case INTERVAL_DAY_TIME:
                return new ArrowType.Duration(TimeUnit.MILLISECOND);
            default:
                throw unsupported(type);
        }
    }

    /** The time unit that holds every digit of a Flink TIME/TIMESTAMP of this precision. */
    public static TimeUnit unitFor(int precision) {
        if (precision <= 3) {
            return TimeUnit.MILLISECOND;
        }
        return precision <= 6 ? TimeUnit.MICROSECOND : TimeUnit.NANOSECOND;
    }

    /** The canonical Flink row type of an Arrow schema. */
    public static RowType toRowType(Schema schema) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (Field field : schema.getFields()) {
            fields.add(new RowType.RowField(field.getName(), toLogicalType(field)));
        }
        return new RowType(false, fields);
    }

    /** The canonical Flink type of an Arrow field. */
    public static LogicalType toLogicalType(Field field) {
        boolean nullable = field.isNullable();
        ArrowType type = field.getType();
        switch (type.getTypeID()) {
            case Bool:
                return new BooleanType(nullable);
            case Int:
                ArrowType.Int integer = (ArrowType.Int) type;
                if (!integer.getIsSigned()) {
                    break;
                }
                switch (integer.getBitWidth()) {
                    case 8:
                        return new TinyIntType(nullable);
                    case 16:
                        return new SmallIntType(nullable);
                    case 32:
                        return new IntType(nullable);
                    case 64:
                        return new BigIntType(nullable);
                    default:
                        break;
                }
                break;
            case FloatingPoint:
                switch (((ArrowType.FloatingPoint) type).getPrecision()) {
                    case SINGLE:
                        return new FloatType(nullable);
                    case DOUBLE:
                        return new DoubleType(nullable);
                    default:
                        break;
                }
                break;
            case Decimal:
                ArrowType.Decimal decimal = (ArrowType.Decimal) type;
                if (decimal.getBitWidth() == 128 && decimal.getPrecision() <= DecimalType.MAX_PRECISION) {
                    return new DecimalType(nullable, decimal.getPrecision(), decimal.getScale());
                }
                break;
            case Utf8:
                return new VarCharType(nullable, VarCharType.MAX_LENGTH);
            case Binary:
                return new VarBinaryType(nullable, VarBinaryType.MAX_LENGTH);
            case FixedSizeBinary:
                return new BinaryType(nullable, ((ArrowType.FixedSizeBinary) type).getByteWidth());
            case Date:
                if (((ArrowType.Date) type).getUnit() == DateUnit.DAY) {
                    return new DateType(nullable);
                }
                break;
            case Time:
                return new TimeType(nullable, precisionOf(((ArrowType.Time) type).getUnit()));
            case Timestamp:
                ArrowType.Timestamp ts = (ArrowType.Timestamp) type;
                int precision = precisionOf(ts.getUnit());
                return ts.getTimezone() == null
                        ? new TimestampType(nullable, precision)
                        : new LocalZonedTimestampType(nullable, precision);
            case Interval:
                if (((ArrowType.Interval) type).getUnit() == IntervalUnit.YEAR_MONTH) {
                    return new YearMonthIntervalType(
                            nullable,
                            YearMonthIntervalType.YearMonthResolution.YEAR_TO_MONTH,
                            YearMonthIntervalType.DEFAULT_PRECISION);
                }
                break;
            case Duration:
                if (((ArrowType.Duration) type).getUnit() == TimeUnit.MILLISECOND) {
                    return new DayTimeIntervalType(
                            nullable, DayTimeIntervalType.DayTimeResolution.DAY_TO_SECOND, 3, 3);
                }
                break;
            case List:
                return new ArrayType(nullable, toLogicalType(field.getChildren().get(0)));
            case Map:
                List<Field> entry = field.getChildren().get(0).getChildren();
                LogicalType key = toLogicalType(entry.get(0));
                if (MULTISET.equals(field.getMetadata().get(FLINK_TYPE_KEY))) {
                    return new MultisetType(nullable, key);
                }
                return new MapType(nullable, key, toLogicalType(entry.get(1)));
            case Struct:
                if (VARIANT.equals(field.getMetadata().get(FLINK_TYPE_KEY))) {
                    return new VariantType(nullable);
                }
                List<RowType.RowField> children = new ArrayList<>();
                for (Field child : field.getChildren()) {
                    children.add(new RowType.RowField(child.getName(), toLogicalType(child)));
                }
                return new RowType(nullable, children);
            default:
                break;
        }
        throw new ValidationException(
                "StreamFusion cannot map the Arrow type " + type + " of field '" + field.getName() + "' to a Flink type");
    }

    private static int precisionOf(TimeUnit unit) {
        switch (unit) {
            case SECOND:
                return 0;
            case MILLISECOND:
                return 3;
            case MICROSECOND:
                return 6;
            default:
                return 9;
        }
    }

    private static ValidationException unsupported(LogicalType type) {
        return new ValidationException(
                "StreamFusion does not support the Flink type "
                        + type.asSummaryString()
                        + " in a column it exchanges with native code");
    }
}
