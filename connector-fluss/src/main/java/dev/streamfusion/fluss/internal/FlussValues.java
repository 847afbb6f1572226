package dev.streamfusion.fluss.internal;

import dev.streamfusion.bridge.columnar.ArraysMapData;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.DataGetters;
import org.apache.fluss.row.Decimal;
import org.apache.fluss.row.InternalMap;
import org.apache.fluss.row.TimestampLtz;
import org.apache.fluss.row.TimestampNtz;

/**
 * Values at a position of a Fluss row or array as Flink's internal values (and back), shared by the
 * views of either side: the scalar conversions and the views over nested values.
 */
@Internal
final class FlussValues {

    private FlussValues() {}

    /**
     * The text at {@code pos}, of type {@code type}: a CHAR through {@code getChar}, which drops the
     * padding a fixed-length row format ({@code 'table.kv.format' = 'indexed'}) stores, as
     * fluss-flink reads it.
     */
    static StringData string(DataGetters data, int pos, LogicalType type) {
        BinaryString value = type.getTypeRoot() == LogicalTypeRoot.CHAR
                ? data.getChar(pos, ((CharType) type).getLength())
                : data.getString(pos);
        return StringData.fromBytes(value.toBytes());
    }

    static DecimalData decimal(DataGetters data, int pos, int precision, int scale) {
        Decimal value = data.getDecimal(pos, precision, scale);
        return value.isCompact()
                ? DecimalData.fromUnscaledLong(value.toUnscaledLong(), precision, scale)
                : DecimalData.fromUnscaledBytes(value.toUnscaledBytes(), precision, scale);
    }

    static TimestampData timestamp(DataGetters data, int pos, LogicalType type, int precision) {
        if (type.getTypeRoot() == LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE) {
            TimestampLtz value = data.getTimestampLtz(pos, precision);
            return TimestampData.fromEpochMillis(value.getEpochMillisecond(), value.getNanoOfMillisecond());
        }
        TimestampNtz value = data.getTimestampNtz(pos, precision);
        return TimestampData.fromEpochMillis(value.getMillisecond(), value.getNanoOfMillisecond());
    }

    static byte[] binary(DataGetters data, int pos, LogicalType type) {
        return type.getTypeRoot() == LogicalTypeRoot.BINARY
                ? data.getBinary(pos, ((BinaryType) type).getLength())
                : data.getBytes(pos);
    }

    static FlussArrayAsFlink array(DataGetters data, int pos, LogicalType type) {
        return new FlussArrayAsFlink(((ArrayType) type).getElementType()).wrap(data.getArray(pos));
    }

    /** A Fluss map seen as a Flink map: its key and value arrays as views. */
    static ArraysMapData map(DataGetters data, int pos, LogicalType type) {
        MapType map = (MapType) type;
        InternalMap fluss = data.getMap(pos);
        return new ArraysMapData(
                new FlussArrayAsFlink(map.getKeyType()).wrap(fluss.keyArray()),
                new FlussArrayAsFlink(map.getValueType()).wrap(fluss.valueArray()));
    }

    static FlussRowAsFlink row(DataGetters data, int pos, LogicalType type, int fields) {
        return new FlussRowAsFlink((RowType) type).wrap(data.getRow(pos, fields));
    }

    // Flink's values as Fluss's.

    static BinaryString string(StringData value) {
        return BinaryString.fromBytes(value.toBytes());
    }

    static Decimal decimal(DecimalData value, int precision, int scale) {
        return value.isCompact()
                ? Decimal.fromUnscaledLong(value.toUnscaledLong(), precision, scale)
                : Decimal.fromUnscaledBytes(value.toUnscaledBytes(), precision, scale);
    }

    static TimestampNtz timestampNtz(TimestampData value) {
        return TimestampNtz.fromMillis(value.getMillisecond(), value.getNanoOfMillisecond());
    }

    static TimestampLtz timestampLtz(TimestampData value) {
        return TimestampLtz.fromEpochMillis(value.getMillisecond(), value.getNanoOfMillisecond());
    }
}
