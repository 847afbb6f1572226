package dev.streamfusion.bridge.writer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.variant.Variant;

/**
 * Typed reads of one value from a Flink container: a field of a {@link RowData} or an element of
 * an {@link ArrayData}. Field writers read through it, so one writer per type serves top-level
 * columns, row fields and array, map and multiset elements alike.
 */
@Internal
abstract class ValueAccess {

    static final ValueAccess ROW_FIELD = new RowField();
    static final ValueAccess ARRAY_ELEMENT = new ArrayElement();

    abstract boolean isNull(Object container, int index);

    abstract boolean getBoolean(Object container, int index);

    abstract byte getByte(Object container, int index);

    abstract short getShort(Object container, int index);

    abstract int getInt(Object container, int index);

    abstract long getLong(Object container, int index);

    abstract float getFloat(Object container, int index);

    abstract double getDouble(Object container, int index);

    abstract DecimalData getDecimal(Object container, int index, int precision, int scale);

    abstract StringData getString(Object container, int index);

    abstract byte[] getBinary(Object container, int index);

    abstract TimestampData getTimestamp(Object container, int index, int precision);

    abstract ArrayData getArray(Object container, int index);

    abstract MapData getMap(Object container, int index);

    abstract RowData getRow(Object container, int index, int fieldCount);

    abstract Variant getVariant(Object container, int index);

    private static final class RowField extends ValueAccess {
        @Override
        boolean isNull(Object container, int index) {
            return ((RowData) container).isNullAt(index);
        }

        @Override
        boolean getBoolean(Object container, int index) {
            return ((RowData) container).getBoolean(index);
        }

        @Override
        byte getByte(Object container, int index) {
            return ((RowData) container).getByte(index);
        }

        @Override
        short getShort(Object container, int index) {
            return ((RowData) container).getShort(index);
        }

        @Override
        int getInt(Object container, int index) {
            return ((RowData) container).getInt(index);
        }

        @Override
        long getLong(Object container, int index) {
            return ((RowData) container).getLong(index);
        }

        @Override
        float getFloat(Object container, int index) {
            return ((RowData) container).getFloat(index);
        }

        @Override
        double getDouble(Object container, int index) {
            return ((RowData) container).getDouble(index);
        }

        @Override
        DecimalData getDecimal(Object container, int index, int precision, int scale) {
            return ((RowData) container).getDecimal(index, precision, scale);
        }

        @Override
        StringData getString(Object container, int index) {
            return ((RowData) container).getString(index);
        }

        @Override
        byte[] getBinary(Object container, int index) {
            return ((RowData) container).getBinary(index);
        }

        @Override
        TimestampData getTimestamp(Object container, int index, int precision) {
            return ((RowData) container).getTimestamp(index, precision);
        }

        @Override
        ArrayData getArray(Object container, int index) {
            return ((RowData) container).getArray(index);
        }

        @Override
        MapData getMap(Object container, int index) {
            return ((RowData) container).getMap(index);
        }

        @Override
        RowData getRow(Object container, int index, int fieldCount) {
            return ((RowData) container).getRow(index, fieldCount);
        }

        @Override
        Variant getVariant(Object container, int index) {
            return ((RowData) container).getVariant(index);
        }
    }

    private static final class ArrayElement extends ValueAccess {
        @Override
        boolean isNull(Object container, int index) {
            return ((ArrayData) container).isNullAt(index);
        }

        @Override
        boolean getBoolean(Object container, int index) {
            return ((ArrayData) container).getBoolean(index);
        }

        @Override
        byte getByte(Object container, int index) {
            return ((ArrayData) container).getByte(index);
        }

        @Override
        short getShort(Object container, int index) {
            return ((ArrayData) container).getShort(index);
        }

        @Override
        int getInt(Object container, int index) {
            return ((ArrayData) container).getInt(index);
        }

        @Override
        long getLong(Object container, int index) {
            return ((ArrayData) container).getLong(index);
        }

        @Override
        float getFloat(Object container, int index) {
            return ((ArrayData) container).getFloat(index);
        }

        @Override
        double getDouble(Object container, int index) {
            return ((ArrayData) container).getDouble(index);
        }

        @Override
        DecimalData getDecimal(Object container, int index, int precision, int scale) {
            return ((ArrayData) container).getDecimal(index, precision, scale);
        }

        @Override
        StringData getString(Object container, int index) {
            return ((ArrayData) container).getString(index);
        }

        @Override
        byte[] getBinary(Object container, int index) {
            return ((ArrayData) container).getBinary(index);
        }

        @Override
        TimestampData getTimestamp(Object container, int index, int precision) {
            return ((ArrayData) container).getTimestamp(index, precision);
        }

        @Override
        ArrayData getArray(Object container, int index) {
            return ((ArrayData) container).getArray(index);
        }

        @Override
        MapData getMap(Object container, int index) {
            return ((ArrayData) container).getMap(index);
        }

        @Override
        RowData getRow(Object container, int index, int fieldCount) {
            return ((ArrayData) container).getRow(index, fieldCount);
        }

        @Override
        Variant getVariant(Object container, int index) {
            return ((ArrayData) container).getVariant(index);
        }
    }
}
