package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RawValueData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.apache.fluss.row.Decimal;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.row.TimestampLtz;
import org.apache.fluss.row.TimestampNtz;

/**
 * A Fluss row seen as a Flink row while it is transposed into Arrow: valid only until the view is
 * pointed at the next row (the Fluss row is a view over the fetched batch). Columns are the
 * projected top-level scalar columns of {@code rowType}.
 */
@Internal
public final class FlussRowAsFlink implements RowData {

    private final boolean[] localZone;
    /** The length of each fixed-length BINARY column, 0 for the others. */
    private final int[] binaryLength;
    private InternalRow row;

    public FlussRowAsFlink(RowType rowType) {
        this.localZone = new boolean[rowType.getFieldCount()];
        this.binaryLength = new int[localZone.length];
        for (int i = 0; i < localZone.length; i++) {
            LogicalType type = rowType.getTypeAt(i);
            localZone[i] = type.getTypeRoot() == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE;
            if (type.getTypeRoot() == LogicalTypeRoot.BINARY) {
                binaryLength[i] = ((BinaryType) type).getLength();
            }
        }
    }

    /** This view, over {@code row} from now on. */
    public FlussRowAsFlink wrap(InternalRow row) {
        this.row = row;
        return this;
    }

    @Override
    public int getArity() {
        return localZone.length;
    }

    @Override
    public RowKind getRowKind() {
        return RowKind.INSERT;
    }

    @Override
    public void setRowKind(RowKind kind) {
        throw new UnsupportedOperationException("a view over a Fluss row is read-only");
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
        return StringData.fromBytes(row.getString(pos).toBytes());
    }

    @Override
    public DecimalData getDecimal(int pos, int precision, int scale) {
        Decimal value = row.getDecimal(pos, precision, scale);
        return value.isCompact()
                ? DecimalData.fromUnscaledLong(value.toUnscaledLong(), precision, scale)
                : DecimalData.fromUnscaledBytes(value.toUnscaledBytes(), precision, scale);
    }

    @Override
    public TimestampData getTimestamp(int pos, int precision) {
        if (localZone[pos]) {
            TimestampLtz value = row.getTimestampLtz(pos, precision);
            return TimestampData.fromEpochMillis(value.getEpochMillisecond(), value.getNanoOfMillisecond());
        }
        TimestampNtz value = row.getTimestampNtz(pos, precision);
        return TimestampData.fromEpochMillis(value.getMillisecond(), value.getNanoOfMillisecond());
    }

    @Override
    public <T> RawValueData<T> getRawValue(int pos) {
        throw new UnsupportedOperationException("Fluss has no RAW type");
    }

    @Override
    public byte[] getBinary(int pos) {
        return binaryLength[pos] > 0 ? row.getBinary(pos, binaryLength[pos]) : row.getBytes(pos);
    }

    @Override
    public ArrayData getArray(int pos) {
        throw new UnsupportedOperationException("ARRAY columns are not read from Fluss natively yet");
    }

    @Override
    public MapData getMap(int pos) {
        throw new UnsupportedOperationException("MAP columns are not read from Fluss natively yet");
    }

    @Override
    public org.apache.flink.types.variant.Variant getVariant(int pos) {
        throw new UnsupportedOperationException("Fluss has no VARIANT type");
    }

    @Override
    public RowData getRow(int pos, int numFields) {
        throw new UnsupportedOperationException("ROW columns are not read from Fluss natively yet");
    }
}
