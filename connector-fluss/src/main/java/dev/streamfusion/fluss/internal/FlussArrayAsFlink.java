package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RawValueData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LogicalType;

import org.apache.fluss.row.InternalArray;

/** A Fluss array seen as a Flink array, as valid as the row it came from; elements of {@code elementType}. */
@Internal
final class FlussArrayAsFlink implements ArrayData {

    private final LogicalType elementType;
    private InternalArray array;

    FlussArrayAsFlink(LogicalType elementType) {
        this.elementType = elementType;
    }

    FlussArrayAsFlink wrap(InternalArray array) {
        this.array = array;
        return this;
    }

    @Override
    public int size() {
        return array.size();
    }

    @Override
    public boolean isNullAt(int pos) {
        return array.isNullAt(pos);
    }

    @Override
    public boolean getBoolean(int pos) {
        return array.getBoolean(pos);
    }

    @Override
    public byte getByte(int pos) {
        return array.getByte(pos);
    }

    @Override
    public short getShort(int pos) {
        return array.getShort(pos);
    }

    @Override
    public int getInt(int pos) {
        return array.getInt(pos);
    }

    @Override
    public long getLong(int pos) {
        return array.getLong(pos);
    }

    @Override
    public float getFloat(int pos) {
        return array.getFloat(pos);
    }

    @Override
    public double getDouble(int pos) {
        return array.getDouble(pos);
    }

    @Override
    public StringData getString(int pos) {
        return FlussValues.string(array, pos, elementType);
    }

    @Override
    public DecimalData getDecimal(int pos, int precision, int scale) {
        return FlussValues.decimal(array, pos, precision, scale);
    }

    @Override
    public TimestampData getTimestamp(int pos, int precision) {
        return FlussValues.timestamp(array, pos, elementType, precision);
    }

    @Override
    public <T> RawValueData<T> getRawValue(int pos) {
        throw new UnsupportedOperationException("Fluss has no RAW type");
    }

    @Override
    public org.apache.flink.types.variant.Variant getVariant(int pos) {
        throw new UnsupportedOperationException("Fluss has no VARIANT type");
    }

    @Override
    public byte[] getBinary(int pos) {
        return FlussValues.binary(array, pos, elementType);
    }

    @Override
    public ArrayData getArray(int pos) {
        return FlussValues.array(array, pos, elementType);
    }

    @Override
    public MapData getMap(int pos) {
        return FlussValues.map(array, pos, elementType);
    }

    @Override
    public RowData getRow(int pos, int numFields) {
        return FlussValues.row(array, pos, elementType, numFields);
    }

    @Override
    public boolean[] toBooleanArray() {
        return array.toBooleanArray();
    }

    @Override
    public byte[] toByteArray() {
        return array.toByteArray();
    }

    @Override
    public short[] toShortArray() {
        return array.toShortArray();
    }

    @Override
    public int[] toIntArray() {
        return array.toIntArray();
    }

    @Override
    public long[] toLongArray() {
        return array.toLongArray();
    }

    @Override
    public float[] toFloatArray() {
        return array.toFloatArray();
    }

    @Override
    public double[] toDoubleArray() {
        return array.toDoubleArray();
    }
}
