package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RawValueData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;
import org.apache.flink.types.variant.Variant;

/**
 * A produced row made of a key row and a value row: each column reads from one of them, at a
 * fixed position. {@link #of} repoints the view; nothing is copied.
 */
@Internal
final class KeyValueRowData implements RowData {

    private final boolean[] fromKey;
    private final int[] column;
    private RowData key;
    private RowData value;
    private RowKind kind = RowKind.INSERT;

    KeyValueRowData(boolean[] fromKey, int[] column) {
        this.fromKey = fromKey;
        this.column = column;
    }

    KeyValueRowData of(RowData key, RowData value) {
        this.key = key;
        this.value = value;
        return this;
    }

    private RowData part(int pos) {
        return fromKey[pos] ? key : value;
    }

    @Override
    public int getArity() {
        return column.length;
    }

    @Override
    public RowKind getRowKind() {
        return kind;
    }

    @Override
    public void setRowKind(RowKind kind) {
        this.kind = kind;
    }

    @Override
    public boolean isNullAt(int pos) {
        return part(pos).isNullAt(column[pos]);
    }

    @Override
    public boolean getBoolean(int pos) {
        return part(pos).getBoolean(column[pos]);
    }

    @Override
    public byte getByte(int pos) {
        return part(pos).getByte(column[pos]);
    }

    @Override
    public short getShort(int pos) {
        return part(pos).getShort(column[pos]);
    }

    @Override
    public int getInt(int pos) {
        return part(pos).getInt(column[pos]);
    }

    @Override
    public long getLong(int pos) {
        return part(pos).getLong(column[pos]);
    }

    @Override
    public float getFloat(int pos) {
        return part(pos).getFloat(column[pos]);
    }

    @Override
    public double getDouble(int pos) {
        return part(pos).getDouble(column[pos]);
    }

    @Override
    public StringData getString(int pos) {
        return part(pos).getString(column[pos]);
    }

    @Override
    public DecimalData getDecimal(int pos, int precision, int scale) {
        return part(pos).getDecimal(column[pos], precision, scale);
    }

    @Override
    public TimestampData getTimestamp(int pos, int precision) {
        return part(pos).getTimestamp(column[pos], precision);
    }

    @Override
    public <T> RawValueData<T> getRawValue(int pos) {
        return part(pos).getRawValue(column[pos]);
    }

    @Override
    public byte[] getBinary(int pos) {
        return part(pos).getBinary(column[pos]);
    }

    @Override
    public ArrayData getArray(int pos) {
        return part(pos).getArray(column[pos]);
    }

    @Override
    public MapData getMap(int pos) {
        return part(pos).getMap(column[pos]);
    }

    @Override
    public RowData getRow(int pos, int numFields) {
        return part(pos).getRow(column[pos], numFields);
    }

    @Override
    public Variant getVariant(int pos) {
        return part(pos).getVariant(column[pos]);
    }
}
