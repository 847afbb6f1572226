package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;

import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.Decimal;
import org.apache.fluss.row.InternalArray;
import org.apache.fluss.row.InternalMap;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.row.TimestampLtz;
import org.apache.fluss.row.TimestampNtz;

/**
 * A Flink row seen as a Fluss row, without copying it: the Fluss client encodes the row into its
 * batch while {@code append} runs, so the view may be pointed at the next row afterwards. Columns
 * are the table's top-level scalar columns (nested ones are refused when the job is planned).
 */
@Internal
public final class FlinkRowAsFluss implements InternalRow {

    private RowData row;

    /** This view, over {@code row} from now on. */
    public FlinkRowAsFluss wrap(RowData row) {
        this.row = row;
        return this;
    }

    @Override
    public int getFieldCount() {
        return row.getArity();
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
    public BinaryString getChar(int pos, int length) {
        return getString(pos);
    }

    @Override
    public BinaryString getString(int pos) {
        return BinaryString.fromBytes(row.getString(pos).toBytes());
    }

    @Override
    public Decimal getDecimal(int pos, int precision, int scale) {
        DecimalData value = row.getDecimal(pos, precision, scale);
        return value.isCompact()
                ? Decimal.fromUnscaledLong(value.toUnscaledLong(), precision, scale)
                : Decimal.fromUnscaledBytes(value.toUnscaledBytes(), precision, scale);
    }

    @Override
    public TimestampNtz getTimestampNtz(int pos, int precision) {
        TimestampData value = row.getTimestamp(pos, precision);
        return TimestampNtz.fromMillis(value.getMillisecond(), value.getNanoOfMillisecond());
    }

    @Override
    public TimestampLtz getTimestampLtz(int pos, int precision) {
        TimestampData value = row.getTimestamp(pos, precision);
        return TimestampLtz.fromEpochMillis(value.getMillisecond(), value.getNanoOfMillisecond());
    }

    @Override
    public byte[] getBinary(int pos, int length) {
        return row.getBinary(pos);
    }

    @Override
    public byte[] getBytes(int pos) {
        return row.getBinary(pos);
    }

    @Override
    public InternalArray getArray(int pos) {
        throw new UnsupportedOperationException("ARRAY columns are not written to Fluss natively yet");
    }

    @Override
    public InternalMap getMap(int pos) {
        throw new UnsupportedOperationException("MAP columns are not written to Fluss natively yet");
    }

    @Override
    public InternalRow getRow(int pos, int numFields) {
        throw new UnsupportedOperationException("ROW columns are not written to Fluss natively yet");
    }
}
