package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;

import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.Decimal;
import org.apache.fluss.row.InternalArray;
import org.apache.fluss.row.InternalMap;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.row.TimestampLtz;
import org.apache.fluss.row.TimestampNtz;

/**
 * A Flink row seen as a Fluss row, without copying it: the Fluss client encodes the row into its
 * batch while {@code append} runs, so the view may be pointed at the next row afterwards. ARRAY,
 * MAP and ROW values are views too.
 */
@Internal
public final class FlinkRowAsFluss implements InternalRow {

    /** The fields the view shows at least: those past the row's are NULL. */
    private final int width;
    private RowData row;

    /** A view of each row's own fields. */
    public FlinkRowAsFluss() {
        this(0);
    }

    /**
     * A view of at least {@code width} fields, those past a row's own NULL: a table's columns
     * added after the job was planned (Fluss adds a column last), as fluss-flink's sink writes
     * them.
     */
    public FlinkRowAsFluss(int width) {
        this.width = width;
    }

    /** This view, over {@code row} from now on. */
    public FlinkRowAsFluss wrap(RowData row) {
        this.row = row;
        return this;
    }

    @Override
    public int getFieldCount() {
        return Math.max(row.getArity(), width);
    }

    @Override
    public boolean isNullAt(int pos) {
        return pos >= row.getArity() || row.isNullAt(pos);
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
        return FlussValues.string(row.getString(pos));
    }

    @Override
    public Decimal getDecimal(int pos, int precision, int scale) {
        return FlussValues.decimal(row.getDecimal(pos, precision, scale), precision, scale);
    }

    @Override
    public TimestampNtz getTimestampNtz(int pos, int precision) {
        return FlussValues.timestampNtz(row.getTimestamp(pos, precision));
    }

    @Override
    public TimestampLtz getTimestampLtz(int pos, int precision) {
        return FlussValues.timestampLtz(row.getTimestamp(pos, precision));
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
        return new FlinkArrayAsFluss().wrap(row.getArray(pos));
    }

    @Override
    public InternalMap getMap(int pos) {
        return new FlinkMapAsFluss(row.getMap(pos));
    }

    @Override
    public InternalRow getRow(int pos, int numFields) {
        return new FlinkRowAsFluss().wrap(row.getRow(pos, numFields));
    }
}
