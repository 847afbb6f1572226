package dev.streamfusion.bridge.testing;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
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
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded random Flink rows of any row type, with NULLs at every nullable level and the edge values
 * each type has: empty, very long and non-ASCII strings, NaN and infinities, DECIMAL extremes,
 * timestamps before 1970 and at full precision, empty and nested collections.
 */
public final class RandomRows {

    private static final String[] SPECIAL_STRINGS = {
        "", " ", "a", "\u00e9t\u00e9", "\u4e2d\u6587\u5b57\u7b26", "\ud83d\ude80 rocket \ud83c\udf0d",
        "e\u0301 combining", "tab\tnew\nline \"quoted\" \\back", "\u0000nul inside", "\uffff"
    };

    private final Random random;
    private final double nullRate;

    public RandomRows(long seed, double nullRate) {
        this.random = new Random(seed);
        this.nullRate = nullRate;
    }

    public List<RowData> rows(RowType type, int count) {
        List<RowData> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            rows.add(row(type));
        }
        return rows;
    }

    public GenericRowData row(RowType type) {
        GenericRowData row = new GenericRowData(type.getFieldCount());
        for (int f = 0; f < type.getFieldCount(); f++) {
            row.setField(f, value(type.getTypeAt(f)));
        }
        return row;
    }

    private Object value(LogicalType type) {
        if (type.isNullable() && random.nextDouble() < nullRate) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return random.nextBoolean();
            case TINYINT:
                return (byte) pick(Byte.MIN_VALUE, Byte.MAX_VALUE, random.nextInt());
            case SMALLINT:
                return (short) pick(Short.MIN_VALUE, Short.MAX_VALUE, random.nextInt());
            case INTEGER:
                return (int) pick(Integer.MIN_VALUE, Integer.MAX_VALUE, random.nextInt());
            case BIGINT:
                return pick(Long.MIN_VALUE, Long.MAX_VALUE, random.nextLong());
            case FLOAT:
                float[] floats = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0.0f, Float.MIN_VALUE, Float.MAX_VALUE};
                return random.nextInt(4) == 0 ? floats[random.nextInt(floats.length)] : random.nextFloat() * 1e6f - 5e5f;
            case DOUBLE:
                double[] doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, Double.MIN_VALUE, Double.MAX_VALUE};
                return random.nextInt(4) == 0 ? doubles[random.nextInt(doubles.length)] : random.nextGaussian() * 1e12;
            case DECIMAL:
                return decimal((DecimalType) type);
            case CHAR:
            case VARCHAR:
                return StringData.fromString(string());
            case BINARY:
            case VARBINARY:
                byte[] bytes = new byte[random.nextInt(3) == 0 ? 0 : random.nextInt(64)];
                random.nextBytes(bytes);
                return bytes;
            case DATE:
                return random.nextInt(200_000) - 100_000;
            case TIME_WITHOUT_TIME_ZONE:
                int millis = random.nextInt(86_400_000);
                return ((TimeType) type).getPrecision() == 0 ? millis / 1000 * 1000 : millis;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return timestamp(((TimestampType) type).getPrecision());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return timestamp(((LocalZonedTimestampType) type).getPrecision());
            case INTERVAL_YEAR_MONTH:
                return random.nextInt(240_000) - 120_000;
            case INTERVAL_DAY_TIME:
                return random.nextLong() / 1000;
            case ARRAY:
                Object[] elements = new Object[size()];
                for (int i = 0; i < elements.length; i++) {
                    elements[i] = value(((ArrayType) type).getElementType());
                }
                return new GenericArrayData(elements);
            case MAP:
                MapType mapType = (MapType) type;
                return map(mapType.getKeyType(), mapType.getValueType(), false);
            case MULTISET:
                return map(((MultisetType) type).getElementType(), null, true);
            case ROW:
                return row((RowType) type);
            default:
                throw new UnsupportedOperationException(type.asSummaryString());
        }
    }

    private long pick(long min, long max, long any) {
        switch (random.nextInt(8)) {
            case 0:
                return min;
            case 1:
                return max;
            case 2:
                return 0;
            default:
                return Math.max(min, Math.min(max, any));
        }
    }

    private int size() {
        int choice = random.nextInt(6);
        return choice == 0 ? 0 : choice == 1 ? 1 + random.nextInt(40) : random.nextInt(4);
    }

    private GenericMapData map(LogicalType keyType, LogicalType valueType, boolean multiset) {
        Map<Object, Object> entries = new LinkedHashMap<>();
        int size = size();
        LogicalType key = keyType.copy(false);
        for (int i = 0; i < size; i++) {
            entries.put(mapKey(key), multiset ? 1 + random.nextInt(5) : value(valueType));
        }
        return new GenericMapData(entries);
    }

    /** Map keys: any value, but strings stay short (JSON readers cap field names at 50,000 chars). */
    private Object mapKey(LogicalType key) {
        switch (key.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return StringData.fromString(
                        random.nextInt(4) == 0
                                ? SPECIAL_STRINGS[random.nextInt(SPECIAL_STRINGS.length)]
                                : shortString());
            default:
                return value(key);
        }
    }

    private String shortString() {
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(24);
        for (int i = 0; i < length; i++) {
            s.append((char) ('a' + random.nextInt(26)));
        }
        return s.toString();
    }

    private String string() {
        switch (random.nextInt(10)) {
            case 0:
                return SPECIAL_STRINGS[random.nextInt(SPECIAL_STRINGS.length)];
            case 1:
                StringBuilder longString = new StringBuilder();
                while (longString.length() < 100_000) {
                    longString.append("long \u00fc\u4e2d\ud83d\ude80 ").append(longString.length());
                }
                return longString.toString();
            default:
                return shortString();
        }
    }

    private DecimalData decimal(DecimalType type) {
        int precision = type.getPrecision();
        BigInteger limit = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
        BigInteger unscaled;
        switch (random.nextInt(5)) {
            case 0:
                unscaled = limit;
                break;
            case 1:
                unscaled = limit.negate();
                break;
            case 2:
                unscaled = BigInteger.ZERO;
                break;
            default:
                unscaled = new BigInteger(limit.bitLength() + 8, random).mod(limit.add(BigInteger.ONE));
                if (random.nextBoolean()) {
                    unscaled = unscaled.negate();
                }
        }
        return DecimalData.fromBigDecimal(new BigDecimal(unscaled, type.getScale()), precision, type.getScale());
    }

    /** A timestamp valid for the precision; nanosecond precisions stay inside Arrow's int64 range. */
    private TimestampData timestamp(int precision) {
        long range = precision > 6 ? 9_000_000_000_000L : 250_000_000_000_000L;
        long millis = random.nextInt(6) == 0 ? -1 : (long) ((random.nextDouble() * 2 - 1) * range);
        int nanos = random.nextInt(1_000_000);
        long nanosOfSecond = Math.floorMod(millis, 1000L) * 1_000_000L + nanos;
        long unit = (long) Math.pow(10, 9 - precision);
        long truncated = nanosOfSecond - nanosOfSecond % unit;
        long secondMillis = Math.floorDiv(millis, 1000L) * 1000L;
        return TimestampData.fromEpochMillis(
                secondMillis + truncated / 1_000_000L, (int) (truncated % 1_000_000L));
    }
}
