package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.ArrayData;

import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.Decimal;
import org.apache.fluss.row.InternalArray;
import org.apache.fluss.row.InternalMap;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.row.TimestampLtz;
import org.apache.fluss.row.TimestampNtz;

/** A Flink array seen as a Fluss array, as valid as the row it came from (see {@link FlinkRowAsFluss}). */
@Internal
final class FlinkArrayAsFluss implements InternalArray {

    private ArrayData array;

    FlinkArrayAsFluss wrap(ArrayData array) {
        this.array = array;
        return this;
    }

    @Override
    public int size() {
        return array.size();
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
    public BinaryString getChar(int pos, int length) {
        return getString(pos);
    }

    @Override
    public BinaryString getString(int pos) {
        return FlussValues.string(array.getString(pos));
    }

    @Override
    public Decimal getDecimal(int pos, int precision, int scale) {
        return FlussValues.decimal(array.getDecimal(pos, precision, scale), precision, scale);
    }

    @Override
    public TimestampNtz getTimestampNtz(int pos, int precision) {
        return FlussValues.timestampNtz(array.getTimestamp(pos, precision));
    }

    @Override
    public TimestampLtz getTimestampLtz(int pos, int precision) {
        return FlussValues.timestampLtz(array.getTimestamp(pos, precision));
    }

    @Override
    public byte[] getBinary(int pos, int length) {
        return array.getBinary(pos);
    }

    @Override
    public byte[] getBytes(int pos) {
        return array.getBinary(pos);
    }

    @Override
    public InternalArray getArray(int pos) {
        return new FlinkArrayAsFluss().wrap(array.getArray(pos));
    }

    @Override
    public InternalMap getMap(int pos) {
        return new FlinkMapAsFluss(array.getMap(pos));
    }

    @Override
    public InternalRow getRow(int pos, int numFields) {
        return new FlinkRowAsFluss().wrap(array.getRow(pos, numFields));
    }
}
