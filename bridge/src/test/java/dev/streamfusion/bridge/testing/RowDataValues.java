package dev.streamfusion.bridge.testing;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.IntType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns Flink internal data (any RowData/ArrayData/MapData implementation) into plain Java values
 * that compare with {@code equals}: rows and arrays become lists, maps become insertion-ordered
 * maps, strings {@code String}, decimals their exact text, timestamps millis plus nanos, binaries
 * hex, floats and doubles their raw bits (so NaN equals NaN and -0.0 differs from 0.0).
 */
public final class RowDataValues {

    private RowDataValues() {}

    public static List<Object> ofRow(RowData row, RowType type) {
        List<Object> values = new ArrayList<>(type.getFieldCount());
        for (int f = 0; f < type.getFieldCount(); f++) {
            values.add(row.isNullAt(f) ? null : ofField(row, f, type.getTypeAt(f)));
        }
        return values;
    }

    /**
     * Asserts two row lists are equal, reporting the first differing row and field with values
     * cut to a readable length (a whole-list diff of 100,000-character strings would not fit).
     */
    public static void assertSameRows(List<List<Object>> actual, List<List<Object>> expected) {
        if (actual.size() != expected.size()) {
            throw new AssertionError("expected " + expected.size() + " rows but got " + actual.size());
        }
        for (int r = 0; r < expected.size(); r++) {
            List<Object> a = actual.get(r);
            List<Object> e = expected.get(r);
            for (int f = 0; f < e.size(); f++) {
                if (!java.util.Objects.equals(a.get(f), e.get(f))) {
                    throw new AssertionError(
                            "row " + r + ", field " + f + ": expected " + cut(e.get(f)) + " but got " + cut(a.get(f)));
                }
            }
            if (a.size() != e.size()) {
                throw new AssertionError("row " + r + ": expected " + e.size() + " fields but got " + a.size());
            }
        }
    }

    private static String cut(Object value) {
        String text = String.valueOf(value);
        return text.length() <= 300 ? text : text.substring(0, 300) + "...(" + text.length() + " chars)";
    }

    public static List<List<Object>> ofRows(List<? extends RowData> rows, RowType type) {
        List<List<Object>> values = new ArrayList<>(rows.size());
        for (RowData row : rows) {
            values.add(ofRow(row, type));
        }
        return values;
    }

    private static Object ofField(RowData row, int f, LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return row.getBoolean(f);
            case TINYINT:
                return row.getByte(f);
            case SMALLINT:
                return row.getShort(f);
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
            case INTERVAL_YEAR_MONTH:
                return row.getInt(f);
            case BIGINT:
            case INTERVAL_DAY_TIME:
                return row.getLong(f);
            case FLOAT:
                return "f:" + Integer.toHexString(Float.floatToRawIntBits(row.getFloat(f)));
            case DOUBLE:
                return "d:" + Long.toHexString(Double.doubleToRawLongBits(row.getDouble(f)));
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                return ofDecimal(row.getDecimal(f, decimal.getPrecision(), decimal.getScale()));
            case CHAR:
            case VARCHAR:
                return ofString(row.getString(f));
            case BINARY:
            case VARBINARY:
                return HexFormat.of().formatHex(row.getBinary(f));
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return ofTimestamp(row.getTimestamp(f, ((TimestampType) type).getPrecision()));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return ofTimestamp(row.getTimestamp(f, ((LocalZonedTimestampType) type).getPrecision()));
            case ARRAY:
                return ofArray(row.getArray(f), ((ArrayType) type).getElementType());
            case MAP:
                MapType map = (MapType) type;
                return ofMap(row.getMap(f), map.getKeyType(), map.getValueType());
            case MULTISET:
                return ofMap(row.getMap(f), ((MultisetType) type).getElementType(), new IntType(false));
            case ROW:
                RowType rowType = (RowType) type;
                return ofRow(row.getRow(f, rowType.getFieldCount()), rowType);
            default:
                throw new UnsupportedOperationException(type.asSummaryString());
        }
    }

    private static List<Object> ofArray(ArrayData array, LogicalType elementType) {
        List<Object> values = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            values.add(array.isNullAt(i) ? null : ofElement(array, i, elementType));
        }
        return values;
    }

    private static Map<Object, Object> ofMap(MapData map, LogicalType keyType, LogicalType valueType) {
        List<Object> keys = ofArray(map.keyArray(), keyType);
        List<Object> values = ofArray(map.valueArray(), valueType);
        Map<Object, Object> result = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            result.put(keys.get(i), values.get(i));
        }
        return result;
    }

    private static Object ofElement(ArrayData array, int i, LogicalType type) {
        // One-field rows reuse the row conversion for every element type.
        return ofField(new ArrayElementRow(array, i), 0, type);
    }

    private static String ofDecimal(DecimalData decimal) {
        return decimal.toBigDecimal().toPlainString();
    }

    private static String ofString(StringData string) {
        return string.toString();
    }

    private static String ofTimestamp(TimestampData ts) {
        return ts.getMillisecond() + "ms+" + ts.getNanoOfMillisecond() + "ns";
    }

    /** Views one array element as field 0 of a row. */
    private static final class ArrayElementRow implements RowData {
        private final ArrayData array;
        private final int index;

        ArrayElementRow(ArrayData array, int index) {
            this.array = array;
            this.index = index;
        }

        @Override
        public int getArity() {
            return 1;
        }

        @Override
        public org.apache.flink.types.RowKind getRowKind() {
            return org.apache.flink.types.RowKind.INSERT;
        }

        @Override
        public void setRowKind(org.apache.flink.types.RowKind kind) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isNullAt(int pos) {
            return array.isNullAt(index);
        }

        @Override
        public boolean getBoolean(int pos) {
            return array.getBoolean(index);
        }

        @Override
        public byte getByte(int pos) {
            return array.getByte(index);
        }

        @Override
        public short getShort(int pos) {
            return array.getShort(index);
        }

        @Override
        public int getInt(int pos) {
            return array.getInt(index);
        }

        @Override
        public long getLong(int pos) {
            return array.getLong(index);
        }

        @Override
        public float getFloat(int pos) {
            return array.getFloat(index);
        }

        @Override
        public double getDouble(int pos) {
            return array.getDouble(index);
        }

        @Override
        public StringData getString(int pos) {
            return array.getString(index);
        }

        @Override
        public DecimalData getDecimal(int pos, int precision, int scale) {
            return array.getDecimal(index, precision, scale);
        }

        @Override
        public TimestampData getTimestamp(int pos, int precision) {
            return array.getTimestamp(index, precision);
        }

        @Override
        public <T> org.apache.flink.table.data.RawValueData<T> getRawValue(int pos) {
            return array.getRawValue(index);
        }

        @Override
        public byte[] getBinary(int pos) {
            return array.getBinary(index);
        }

        @Override
        public ArrayData getArray(int pos) {
            return array.getArray(index);
        }

        @Override
        public MapData getMap(int pos) {
            return array.getMap(index);
        }

        @Override
        public RowData getRow(int pos, int numFields) {
            return array.getRow(index, numFields);
        }

        @Override
        public org.apache.flink.types.variant.Variant getVariant(int pos) {
            return array.getVariant(index);
        }

        @Override
        public String toString() {
            return Arrays.asList(array, index).toString();
        }
    }
}
