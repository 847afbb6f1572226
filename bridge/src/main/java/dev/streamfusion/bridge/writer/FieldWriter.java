package dev.streamfusion.bridge.writer;

import dev.streamfusion.bridge.types.ArrowTypes;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.variant.BinaryVariant;
import org.apache.flink.types.variant.Variant;

import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalYearVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;

import java.time.LocalDateTime;

/**
 * Writes one Flink value into one Arrow vector slot. There is one writer per Flink type; nested
 * types (ARRAY, MAP, MULTISET, ROW) hold writers for their children. Writers append in index
 * order and grow their vectors as needed; {@link RowDataArrowWriter} pre-sizes the top level.
 */
@Internal
abstract class FieldWriter {

    final String name;
    final ValueAccess access;

    FieldWriter(String name, ValueAccess access) {
        this.name = name;
        this.access = access;
    }

    abstract ValueVector vector();

    /** Writes the value at {@code index} of {@code container} (a RowData or ArrayData) to slot {@code out}. */
    final void write(int out, Object container, int index) {
        if (access.isNull(container, index)) {
            writeNull(out);
        } else {
            writeValue(out, container, index);
        }
    }

    abstract void writeValue(int out, Object container, int index);

    abstract void writeNull(int out);

    /** Bytes a var-width value at {@code index} will take; 0 for fixed-width types. */
    int variableBytes(Object container, int index) {
        return 0;
    }

    static FieldWriter create(
            String name, LogicalType type, ValueVector vector, ValueAccess access, NullMapKeys nullKeys) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return new BooleanWriter(name, access, (BitVector) vector);
            case TINYINT:
                return new TinyIntWriter(name, access, (TinyIntVector) vector);
            case SMALLINT:
                return new SmallIntWriter(name, access, (SmallIntVector) vector);
            case INTEGER:
                return new IntWriter(name, access, (IntVector) vector);
            case BIGINT:
                return new BigIntWriter(name, access, (BigIntVector) vector);
            case FLOAT:
                return new FloatWriter(name, access, (Float4Vector) vector);
            case DOUBLE:
                return new DoubleWriter(name, access, (Float8Vector) vector);
            case DECIMAL:
                return new DecimalWriter(name, access, (DecimalVector) vector, (DecimalType) type);
            case CHAR:
            case VARCHAR:
                return new StringWriter(name, access, (BaseVariableWidthVector) vector);
            case BINARY:
            case VARBINARY:
                return new BinaryWriter(name, access, (BaseVariableWidthVector) vector);
            case DATE:
                return new DateWriter(name, access, (DateDayVector) vector);
            case TIME_WITHOUT_TIME_ZONE:
                return new TimeWriter(name, access, vector, ((TimeType) type).getPrecision());
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return new TimestampWriter(
                        name, access, (TimeStampVector) vector, ((TimestampType) type).getPrecision());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return new TimestampWriter(
                        name,
                        access,
                        (TimeStampVector) vector,
                        ((LocalZonedTimestampType) type).getPrecision());
            case INTERVAL_YEAR_MONTH:
                return new YearMonthWriter(name, access, (IntervalYearVector) vector);
            case INTERVAL_DAY_TIME:
                return new DurationWriter(name, access, (DurationVector) vector);
            case ARRAY:
                ListVector list = (ListVector) vector;
                return new ArrayWriter(
                        name,
                        access,
                        list,
                        create(
                                name + ".element",
                                ((ArrayType) type).getElementType(),
                                list.getDataVector(),
                                ValueAccess.ARRAY_ELEMENT,
                                nullKeys));
            case MAP:
                MapType map = (MapType) type;
                return mapWriter(name, access, (MapVector) vector, map.getKeyType(), map.getValueType(), nullKeys);
            case MULTISET:
                return mapWriter(
                        name,
                        access,
                        (MapVector) vector,
                        ((MultisetType) type).getElementType(),
                        new IntType(false),
                        nullKeys);
            case ROW:
                RowType row = (RowType) type;
                StructVector struct = (StructVector) vector;
                FieldWriter[] children = new FieldWriter[row.getFieldCount()];
                for (int f = 0; f < children.length; f++) {
                    children[f] =
                            create(
                                    name + "." + row.getFieldNames().get(f),
                                    row.getTypeAt(f),
                                    struct.getChildByOrdinal(f),
                                    ValueAccess.ROW_FIELD,
                                    nullKeys);
                }
                return new RowWriter(name, access, struct, children);
            case VARIANT:
                StructVector parts = (StructVector) vector;
                return new VariantWriter(
                        name,
                        access,
                        parts,
                        (BaseVariableWidthVector) parts.getChild(ArrowTypes.VARIANT_METADATA),
                        (BaseVariableWidthVector) parts.getChild(ArrowTypes.VARIANT_VALUE));
            default:
                throw new UnsupportedOperationException(
                        "no Arrow writer for Flink type " + type.asSummaryString() + " of column " + name);
        }
    }

    private static FieldWriter mapWriter(
            String name,
            ValueAccess access,
            MapVector vector,
            LogicalType keyType,
            LogicalType valueType,
            NullMapKeys nullKeys) {
        StructVector entries = (StructVector) vector.getDataVector();
        ArrayData nullKeyReplacement = nullKeys.replacementFor(name, keyType);
        return new MapWriter(
                name,
                access,
                vector,
                entries,
                create(name + ".key", keyType, entries.getChildByOrdinal(0), ValueAccess.ARRAY_ELEMENT, nullKeys),
                create(name + ".value", valueType, entries.getChildByOrdinal(1), ValueAccess.ARRAY_ELEMENT, nullKeys),
                nullKeys,
                nullKeyReplacement);
    }

    private static final class BooleanWriter extends FieldWriter {
        private final BitVector vector;

        BooleanWriter(String name, ValueAccess access, BitVector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            vector.setSafe(out, access.getBoolean(container, index) ? 1 : 0);
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class TinyIntWriter extends FieldWriter {
        private final TinyIntVector vector;

        TinyIntWriter(String name, ValueAccess access, TinyIntVector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            vector.setSafe(out, access.getByte(container, index));
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class SmallIntWriter extends FieldWriter {
        private final SmallIntVector vector;

        SmallIntWriter(String name, ValueAccess access, SmallIntVector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            vector.setSafe(out, access.getShort(container, index));
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class IntWriter extends FieldWriter {
        private final IntVector vector;

        IntWriter(String name, ValueAccess access, IntVector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            vector.setSafe(out, access.getInt(container, index));
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class BigIntWriter extends FieldWriter {
        private final BigIntVector vector;

        BigIntWriter(String name, ValueAccess access, BigIntVector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            vector.setSafe(out, access.getLong(container, index));
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class FloatWriter extends FieldWriter {
        private final Float4Vector vector;

        FloatWriter(String name, ValueAccess access, Float4Vector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            vector.setSafe(out, access.getFloat(container, index));
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class DoubleWriter extends FieldWriter {
        private final Float8Vector vector;

        DoubleWriter(String name, ValueAccess access, Float8Vector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            vector.setSafe(out, access.getDouble(container, index));
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class DecimalWriter extends FieldWriter {
        private final DecimalVector vector;
        private final int precision;
        private final int scale;

        DecimalWriter(String name, ValueAccess access, DecimalVector vector, DecimalType type) {
            super(name, access);
            this.vector = vector;
            this.precision = type.getPrecision();
            this.scale = type.getScale();
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            DecimalData value = access.getDecimal(container, index, precision, scale);
            if (value.isCompact()) {
                vector.setSafe(out, value.toUnscaledLong());
            } else {
                vector.setSafe(out, value.toBigDecimal());
            }
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class StringWriter extends FieldWriter {
        private final BaseVariableWidthVector vector;

        StringWriter(String name, ValueAccess access, BaseVariableWidthVector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            byte[] bytes = access.getString(container, index).toBytes();
            vector.setSafe(out, bytes, 0, bytes.length);
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }

        @Override
        int variableBytes(Object container, int index) {
            return access.isNull(container, index)
                    ? 0
                    : ((BinaryStringData) access.getString(container, index)).getSizeInBytes();
        }
    }

    private static final class BinaryWriter extends FieldWriter {
        private final BaseVariableWidthVector vector;

        BinaryWriter(String name, ValueAccess access, BaseVariableWidthVector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            byte[] bytes = access.getBinary(container, index);
            vector.setSafe(out, bytes, 0, bytes.length);
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class DateWriter extends FieldWriter {
        private final DateDayVector vector;

        DateWriter(String name, ValueAccess access, DateDayVector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            vector.setSafe(out, access.getInt(container, index));
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    /** Flink's milliseconds of the day, in the unit of the column's precision. */
    private static final class TimeWriter extends FieldWriter {
        private final ValueVector vector;
        private final TimeUnit unit;

        TimeWriter(String name, ValueAccess access, ValueVector vector, int precision) {
            super(name, access);
            this.vector = vector;
            this.unit = dev.streamfusion.bridge.types.ArrowTypes.unitFor(precision);
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            int millis = access.getInt(container, index);
            switch (unit) {
                case MILLISECOND:
                    ((TimeMilliVector) vector).setSafe(out, millis);
                    break;
                case MICROSECOND:
                    ((TimeMicroVector) vector).setSafe(out, millis * 1_000L);
                    break;
                default:
                    ((TimeNanoVector) vector).setSafe(out, millis * 1_000_000L);
            }
        }

        @Override
        void writeNull(int out) {
            switch (unit) {
                case MILLISECOND:
                    ((TimeMilliVector) vector).setNull(out);
                    break;
                case MICROSECOND:
                    ((TimeMicroVector) vector).setNull(out);
                    break;
                default:
                    ((TimeNanoVector) vector).setNull(out);
            }
        }
    }

    private static final class TimestampWriter extends FieldWriter {
        private final TimeStampVector vector;
        private final int precision;
        private final TimeUnit unit;

        TimestampWriter(String name, ValueAccess access, TimeStampVector vector, int precision) {
            super(name, access);
            this.vector = vector;
            this.precision = precision;
            this.unit = dev.streamfusion.bridge.types.ArrowTypes.unitFor(precision);
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            TimestampData value = access.getTimestamp(container, index, precision);
            long millis = value.getMillisecond();
            int nanos = value.getNanoOfMillisecond();
            long encoded;
            switch (unit) {
                case MILLISECOND:
                    encoded = millis;
                    break;
                case MICROSECOND:
                    encoded = millis * 1_000L + nanos / 1_000;
                    break;
                default:
                    try {
                        encoded = Math.addExact(Math.multiplyExact(millis, 1_000_000L), nanos);
                    } catch (ArithmeticException e) {
                        LocalDateTime time = value.toLocalDateTime();
                        throw new IllegalArgumentException(
                                "column "
                                        + name
                                        + ": the TIMESTAMP("
                                        + precision
                                        + ") value "
                                        + time
                                        + " is outside the range of Arrow nanosecond timestamps"
                                        + " (1677-09-21T00:12:43.145224192 to 2262-04-11T23:47:16.854775807)",
                                e);
                    }
            }
            vector.setSafe(out, encoded);
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class YearMonthWriter extends FieldWriter {
        private final IntervalYearVector vector;

        YearMonthWriter(String name, ValueAccess access, IntervalYearVector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            vector.setSafe(out, access.getInt(container, index));
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class DurationWriter extends FieldWriter {
        private final DurationVector vector;

        DurationWriter(String name, ValueAccess access, DurationVector vector) {
            super(name, access);
            this.vector = vector;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            vector.setSafe(out, access.getLong(container, index));
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class ArrayWriter extends FieldWriter {
        private final ListVector vector;
        private final FieldWriter elements;

        ArrayWriter(String name, ValueAccess access, ListVector vector, FieldWriter elements) {
            super(name, access);
            this.vector = vector;
            this.elements = elements;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            ArrayData array = access.getArray(container, index);
            int start = vector.startNewValue(out);
            int size = array.size();
            for (int k = 0; k < size; k++) {
                elements.write(start + k, array, k);
            }
            vector.endValue(out, size);
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class MapWriter extends FieldWriter {
        private final MapVector vector;
        private final StructVector entries;
        private final FieldWriter keys;
        private final FieldWriter values;
        private final NullMapKeys nullKeys;
        private final ArrayData nullKeyReplacement;

        MapWriter(
                String name,
                ValueAccess access,
                MapVector vector,
                StructVector entries,
                FieldWriter keys,
                FieldWriter values,
                NullMapKeys nullKeys,
                ArrayData nullKeyReplacement) {
            super(name, access);
            this.vector = vector;
            this.entries = entries;
            this.keys = keys;
            this.values = values;
            this.nullKeys = nullKeys;
            this.nullKeyReplacement = nullKeyReplacement;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            MapData map = access.getMap(container, index);
            ArrayData keyArray = map.keyArray();
            ArrayData valueArray = map.valueArray();
            int start = vector.startNewValue(out);
            int written = 0;
            for (int k = 0; k < map.size(); k++) {
                int slot = start + written;
                if (keyArray.isNullAt(k)) {
                    if (nullKeys.drops()) {
                        continue;
                    }
                    if (nullKeyReplacement == null) {
                        throw new IllegalArgumentException(
                                "column " + name + ": a MAP key is NULL, which Arrow maps cannot hold");
                    }
                    keys.write(slot, nullKeyReplacement, 0);
                } else {
                    keys.write(slot, keyArray, k);
                }
                entries.setIndexDefined(slot);
                values.write(slot, valueArray, k);
                written++;
            }
            vector.endValue(out, written);
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
        }
    }

    private static final class RowWriter extends FieldWriter {
        private final StructVector vector;
        private final FieldWriter[] fields;

        RowWriter(String name, ValueAccess access, StructVector vector, FieldWriter[] fields) {
            super(name, access);
            this.vector = vector;
            this.fields = fields;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            RowData row = access.getRow(container, index, fields.length);
            vector.setIndexDefined(out);
            for (int f = 0; f < fields.length; f++) {
                fields[f].write(out, row, f);
            }
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
            for (FieldWriter field : fields) {
                field.writeNull(out);
            }
        }
    }

    /** A VARIANT as its metadata's and value's bytes (Flink's {@link BinaryVariant} keeps both). */
    private static final class VariantWriter extends FieldWriter {
        private static final byte[] EMPTY = new byte[0];

        private final StructVector vector;
        private final BaseVariableWidthVector metadata;
        private final BaseVariableWidthVector value;

        VariantWriter(
                String name,
                ValueAccess access,
                StructVector vector,
                BaseVariableWidthVector metadata,
                BaseVariableWidthVector value) {
            super(name, access);
            this.vector = vector;
            this.metadata = metadata;
            this.value = value;
        }

        @Override
        ValueVector vector() {
            return vector;
        }

        @Override
        void writeValue(int out, Object container, int index) {
            Variant variant = access.getVariant(container, index);
            if (!(variant instanceof BinaryVariant)) {
                throw new IllegalArgumentException(
                        "column " + name + " holds a variant of " + variant.getClass().getName()
                                + ", not Flink's BinaryVariant");
            }
            BinaryVariant binary = (BinaryVariant) variant;
            vector.setIndexDefined(out);
            byte[] metadataBytes = binary.getMetadata();
            byte[] valueBytes = binary.getValue();
            metadata.setSafe(out, metadataBytes, 0, metadataBytes.length);
            value.setSafe(out, valueBytes, 0, valueBytes.length);
        }

        @Override
        void writeNull(int out) {
            vector.setNull(out);
            // The parts are NOT NULL: a NULL variant's are empty.
            metadata.setSafe(out, EMPTY, 0, 0);
            value.setSafe(out, EMPTY, 0, 0);
        }
    }
}
