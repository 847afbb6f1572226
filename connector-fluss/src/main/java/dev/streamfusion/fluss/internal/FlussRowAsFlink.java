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
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.apache.fluss.row.InternalRow;

/**
 * A Fluss row seen as a Flink row while it is transposed into Arrow: valid only until the view is
 * pointed at the next row (the Fluss row is a view over the fetched batch). Columns are the
 * projected top-level columns of {@code rowType}; ARRAY, MAP and ROW values are views too.
 */
@Internal
public final class FlussRowAsFlink implements RowData {

    private final LogicalType[] types;
    private InternalRow row;
    private RowKind kind = RowKind.INSERT;

    public FlussRowAsFlink(RowType rowType) {
        this.types = rowType.getChildren().toArray(new LogicalType[0]);
    }

    /** This view, over {@code row} from now on. */
    public FlussRowAsFlink wrap(InternalRow row) {
        this.row = row;
        return this;
    }

    @Override
    public int getArity() {
        return types.length;
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
        return row.isNullAt(pos);
    }

    @Override
    public boolean getBoolean(int pos) {
        return row.getBoolean(pos);
    }

    @Override
    public byte getByte(int pos) {
        return row.getByte(pos);
    }

    @Override
    public short getShort(int pos) {
        return row.getShort(pos);
    }

    @Override
    public int getInt(int pos) {
        return row.getInt(pos);
    }

    @Override
    public long getLong(int pos) {
        return row.getLong(pos);
    }

    @Override
    public float getFloat(int pos) {
        return row.getFloat(pos);
    }

    @Override
    public double getDouble(int pos) {
        return row.getDouble(pos);
    }

    @Override
    public StringData getString(int pos) {
        return FlussValues.string(row, pos, types[pos]);
    }

    @Override
    public DecimalData getDecimal(int pos, int precision, int scale) {
        return FlussValues.decimal(row, pos, precision, scale);
    }

    @Override
    public TimestampData getTimestamp(int pos, int precision) {
        return FlussValues.timestamp(row, pos, types[pos], precision);
    }

    @Override
    public <T> RawValueData<T> getRawValue(int pos) {
        throw new UnsupportedOperationException("Fluss has no RAW type");
    }

    @Override
    public byte[] getBinary(int pos) {
        return FlussValues.binary(row, pos, types[pos]);
    }

    @Override
    public ArrayData getArray(int pos) {
        return FlussValues.array(row, pos, types[pos]);
    }

    @Override
    public MapData getMap(int pos) {
        return FlussValues.map(row, pos, types[pos]);
    }

    @Override
    public org.apache.flink.types.variant.Variant getVariant(int pos) {
        throw new UnsupportedOperationException("Fluss has no VARIANT type");
    }

    @Override
    public RowData getRow(int pos, int numFields) {
        return FlussValues.row(row, pos, types[pos], numFields);
    }
}
