package dev.streamfusion.iceberg.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.iceberg.util.UUIDUtil;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows a read's {@code limit} option counts where the query filters the table: iceberg-flink's
 * readers drop the rows Iceberg's {@link Evaluator} finds failing the filters it converted before
 * they are counted, so its limit is of rows those filters keep. This tells those rows the same way
 * (the same expressions, {@code IcebergFilters#asIcebergFlinkReads}, over the same values); the
 * rows it does not keep are still handed on, and Flink's filter decides them as in every other
 * read of this source.
 */
@Internal
public final class LimitFilter implements Serializable {

    private static final long serialVersionUID = 1L;

    private final Types.StructType struct;
    private final RowType rowType;
    private final Expression filter;
    private final boolean caseSensitive;
    private transient Evaluator evaluator;
    private transient RowStruct row;

    private LimitFilter(Types.StructType struct, RowType rowType, Expression filter, boolean caseSensitive) {
        this.struct = struct;
        this.rowType = rowType;
        this.filter = filter;
        this.caseSensitive = caseSensitive;
    }

    /**
     * The filter over rows of {@code rowType}, columns of {@code schema} by name, or {@code null}
     * where it keeps every row; refused naming {@code table} where Iceberg cannot bind it to those
     * columns (iceberg-flink's readers then fail to open).
     */
    public static LimitFilter of(String table, Schema schema, RowType rowType, Expression filter, boolean caseSensitive) {
        if (filter.op() == Expression.Operation.TRUE) {
            return null;
        }
        List<Types.NestedField> fields = new ArrayList<>();
        for (String name : rowType.getFieldNames()) {
            Types.NestedField field = caseSensitive ? schema.findField(name) : schema.caseInsensitiveFindField(name);
            if (field == null) {
                throw new IllegalArgumentException("Table " + table + " has no column '" + name + "'");
            }
            fields.add(field);
        }
        LimitFilter limitFilter = new LimitFilter(Types.StructType.of(fields), rowType, filter, caseSensitive);
        try {
            limitFilter.evaluator();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("Table " + table + ": the 'limit' option counts the rows the filter "
                    + filter + " keeps, which Iceberg cannot evaluate over the columns read: " + e.getMessage(), e);
        }
        return limitFilter;
    }

    /** Whether the limit counts {@code value}, a row of the read's columns. */
    boolean keeps(RowData value) {
        return evaluator().eval(row.of(value));
    }

    private Evaluator evaluator() {
        if (evaluator == null) {
            evaluator = new Evaluator(struct, filter, caseSensitive);
            row = new RowStruct(rowType, struct);
        }
        return evaluator;
    }

    /** How one column's value is read as Iceberg holds it. */
    private interface Getter {
        Object get(RowData row, int pos);
    }

    /** A Flink row seen as Iceberg's {@link StructLike}, each value as iceberg-flink hands it on. */
    private static final class RowStruct implements StructLike {
        private static final Object PRESENT = new Object();

        private final Getter[] getters;
        private RowData row;

        RowStruct(RowType rowType, Types.StructType struct) {
            getters = new Getter[rowType.getFieldCount()];
            for (int i = 0; i < getters.length; i++) {
                getters[i] = getter(rowType.getTypeAt(i), struct.fields().get(i).type());
            }
        }

        RowStruct of(RowData value) {
            row = value;
            return this;
        }

        @Override
        public int size() {
            return getters.length;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T get(int pos, Class<T> javaClass) {
            if (row.isNullAt(pos)) {
                return null;
            }
            // A column without a getter is only checked for NULL: present, its value is not read.
            return getters[pos] == null ? (T) PRESENT : javaClass.cast(getters[pos].get(row, pos));
        }

        @Override
        public <T> void set(int pos, T value) {
            throw new UnsupportedOperationException("a row read is not written");
        }
    }

    private static Getter getter(LogicalType flink, Type iceberg) {
        switch (iceberg.typeId()) {
            case BOOLEAN:
                return RowData::getBoolean;
            case INTEGER:
                if (flink.getTypeRoot() == LogicalTypeRoot.TINYINT) {
                    return (row, pos) -> (int) row.getByte(pos);
                }
                return flink.getTypeRoot() == LogicalTypeRoot.SMALLINT ? (row, pos) -> (int) row.getShort(pos) : RowData::getInt;
            case LONG:
                return RowData::getLong;
            case FLOAT:
                return RowData::getFloat;
            case DOUBLE:
                return RowData::getDouble;
            case DATE:
                return RowData::getInt;
            case TIME:
                // Flink holds milliseconds, Iceberg microseconds.
                return (row, pos) -> row.getInt(pos) * 1_000L;
            case TIMESTAMP:
            case TIMESTAMP_NANO:
                return timestamp(flink, iceberg);
            case STRING:
                return (row, pos) -> row.getString(pos).toString();
            case UUID:
                return (row, pos) -> UUIDUtil.convert(row.getBinary(pos));
            case FIXED:
            case BINARY:
                return (row, pos) -> ByteBuffer.wrap(row.getBinary(pos));
            case DECIMAL:
                DecimalType decimal = (DecimalType) flink;
                return (row, pos) -> row.getDecimal(pos, decimal.getPrecision(), decimal.getScale()).toBigDecimal();
            default:
                // A struct, list, map or variant column: only a null check binds to it.
                return null;
        }
    }

    private static Getter timestamp(LogicalType flink, Type iceberg) {
        int precision = LogicalTypeChecks.getPrecision(flink);
        boolean nanos = iceberg.typeId() == Type.TypeID.TIMESTAMP_NANO;
        if (flink.getTypeRoot() == LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE) {
            return nanos
                    ? (row, pos) -> DateTimeUtil.nanosFromTimestamp(row.getTimestamp(pos, precision).toLocalDateTime())
                    : (row, pos) -> DateTimeUtil.microsFromTimestamp(row.getTimestamp(pos, precision).toLocalDateTime());
        }
        return (row, pos) -> {
            TimestampData t = row.getTimestamp(pos, precision);
            return nanos
                    ? t.getMillisecond() * 1_000_000L + t.getNanoOfMillisecond()
                    : t.getMillisecond() * 1_000L + t.getNanoOfMillisecond() / 1_000;
        };
    }
}
