package dev.streamfusion.bridge.columnar;

import dev.streamfusion.bridge.types.ArrowTypes;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.ColumnarArrayData;
import org.apache.flink.table.data.columnar.ColumnarMapData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.ArrayColumnVector;
import org.apache.flink.table.data.columnar.vector.BooleanColumnVector;
import org.apache.flink.table.data.columnar.vector.ByteColumnVector;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.DecimalColumnVector;
import org.apache.flink.table.data.columnar.vector.DoubleColumnVector;
import org.apache.flink.table.data.columnar.vector.FloatColumnVector;
import org.apache.flink.table.data.columnar.vector.IntColumnVector;
import org.apache.flink.table.data.columnar.vector.LongColumnVector;
import org.apache.flink.table.data.columnar.vector.MapColumnVector;
import org.apache.flink.table.data.columnar.vector.RowColumnVector;
import org.apache.flink.table.data.columnar.vector.ShortColumnVector;
import org.apache.flink.table.data.columnar.vector.TimestampColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.types.variant.BinaryVariant;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalYearVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;

/**
 * Flink {@link ColumnVector}s over Arrow vectors, so Flink reads an Arrow batch as {@code
 * ColumnarRowData} without copying it into rows.
 *
 * <p>Fixed-width values are read straight from Arrow's buffers. Strings and binaries copy the
 * vector's whole data buffer into one {@code byte[]} on first access and hand out slices of it,
 * since Flink's {@link BytesColumnVector.Bytes} must point into a heap array. The wrappers are
 * views of the vectors' current contents: create them again after the vectors are reloaded.
 */
@Internal
public final class ArrowColumnVectors {

    private ArrowColumnVectors() {}

    /** A Flink column vector over {@code vector}, read as {@code type}. */
    public static ColumnVector create(ValueVector vector, LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return new BooleanVector((BitVector) vector);
            case TINYINT:
                return new TinyIntColumn((TinyIntVector) vector);
            case SMALLINT:
                return new SmallIntColumn((SmallIntVector) vector);
            case INTEGER:
                return new IntColumn((IntVector) vector);
            case BIGINT:
                return new BigIntColumn((BigIntVector) vector);
            case FLOAT:
                return new FloatColumn((Float4Vector) vector);
            case DOUBLE:
                return new DoubleColumn((Float8Vector) vector);
            case DECIMAL:
                return new DecimalColumn((DecimalVector) vector);
            case CHAR:
            case VARCHAR:
            case BINARY:
            case VARBINARY:
                return vector instanceof FixedSizeBinaryVector
                        ? new FixedBytesColumn((FixedSizeBinaryVector) vector)
                        : new BytesColumn((BaseVariableWidthVector) vector);
            case DATE:
                return new DateColumn((DateDayVector) vector);
            case TIME_WITHOUT_TIME_ZONE:
                return new TimeColumn(vector);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return new TimestampColumn((TimeStampVector) vector);
            case INTERVAL_YEAR_MONTH:
                return new YearMonthColumn((IntervalYearVector) vector);
            case INTERVAL_DAY_TIME:
                return new DurationColumn((DurationVector) vector);
            case ARRAY:
                ListVector list = (ListVector) vector;
                return new ArrayColumn(list, create(list.getDataVector(), ((ArrayType) type).getElementType()));
            case MAP:
                MapType map = (MapType) type;
                return mapColumn((MapVector) vector, map.getKeyType(), map.getValueType());
            case MULTISET:
                return mapColumn(
                        (MapVector) vector, ((MultisetType) type).getElementType(), new IntType(false));
            case ROW:
                return new RowColumn((StructVector) vector, (RowType) type);
            case VARIANT:
                return new VariantColumn((StructVector) vector);
            default:
                throw new UnsupportedOperationException(
                        "no Arrow column vector for Flink type " + type.asSummaryString());
        }
    }

    /** A batch of Flink column vectors over the given Arrow vectors, one per field of {@code rowType}. */
    public static VectorizedColumnBatch createBatch(List<FieldVector> vectors, RowType rowType, int rowCount) {
        ColumnVector[] columns = new ColumnVector[vectors.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = create(vectors.get(i), rowType.getTypeAt(i));
        }
        VectorizedColumnBatch batch = new VectorizedColumnBatch(columns);
        batch.setNumRows(rowCount);
        return batch;
    }

    /**
     * Field {@code field} of a ROW column as a column of its own: NULL wherever the row is NULL
     * (Arrow keeps a struct's children unmasked).
     */
    static ColumnVector rowField(ColumnVector row, int field) {
        ColumnVector rows = row instanceof MaskedColumn ? ((MaskedColumn) row).unmasked() : row;
        return new MaskedColumn(row, ((RowColumn) rows).fields.columns[field]);
    }

    private static MapColumn mapColumn(MapVector vector, LogicalType keyType, LogicalType valueType) {
        StructVector entries = (StructVector) vector.getDataVector();
        return new MapColumn(
                vector,
                create(entries.getChildByOrdinal(0), keyType),
                create(entries.getChildByOrdinal(1), valueType));
    }

    /** Shared null check: Arrow's validity bitmap. */
    private abstract static class Column implements ColumnVector {
        private final ValueVector vector;

        Column(ValueVector vector) {
            this.vector = vector;
        }

        @Override
        public final boolean isNullAt(int i) {
            return vector.isNull(i);
        }
    }

    private static final class BooleanVector extends Column implements BooleanColumnVector {
        private final BitVector vector;

        BooleanVector(BitVector vector) {
            super(vector);
            this.vector = vector;
        }

        @Override
        public boolean getBoolean(int i) {
            return vector.get(i) != 0;
        }
    }

    private static final class TinyIntColumn extends Column implements ByteColumnVector {
        private final ArrowBuf data;

        TinyIntColumn(TinyIntVector vector) {
            super(vector);
            this.data = vector.getDataBuffer();
        }

        @Override
        public byte getByte(int i) {
            return data.getByte(i);
        }
    }

    private static final class SmallIntColumn extends Column implements ShortColumnVector {
        private final ArrowBuf data;

        SmallIntColumn(SmallIntVector vector) {
            super(vector);
            this.data = vector.getDataBuffer();
        }

        @Override
        public short getShort(int i) {
            return data.getShort((long) i * Short.BYTES);
        }
    }

    private static final class IntColumn extends Column implements IntColumnVector {
        private final ArrowBuf data;

        IntColumn(IntVector vector) {
            super(vector);
            this.data = vector.getDataBuffer();
        }

        @Override
        public int getInt(int i) {
            return data.getInt((long) i * Integer.BYTES);
        }
    }

    private static final class BigIntColumn extends Column implements LongColumnVector {
        private final ArrowBuf data;

        BigIntColumn(BigIntVector vector) {
            super(vector);
            this.data = vector.getDataBuffer();
        }

        @Override
        public long getLong(int i) {
            return data.getLong((long) i * Long.BYTES);
        }
    }

    private static final class FloatColumn extends Column implements FloatColumnVector {
        private final ArrowBuf data;

        FloatColumn(Float4Vector vector) {
            super(vector);
            this.data = vector.getDataBuffer();
        }

        @Override
        public float getFloat(int i) {
            return data.getFloat((long) i * Float.BYTES);
        }
    }

    private static final class DoubleColumn extends Column implements DoubleColumnVector {
        private final ArrowBuf data;

        DoubleColumn(Float8Vector vector) {
            super(vector);
            this.data = vector.getDataBuffer();
        }

        @Override
        public double getDouble(int i) {
            return data.getDouble((long) i * Double.BYTES);
        }
    }

    private static final class DecimalColumn extends Column implements DecimalColumnVector {
        private final ArrowBuf data;

        DecimalColumn(DecimalVector vector) {
            super(vector);
            this.data = vector.getDataBuffer();
        }

        @Override
        public DecimalData getDecimal(int i, int precision, int scale) {
            long offset = (long) i * DecimalVector.TYPE_WIDTH;
            long low = data.getLong(offset);
            long high = data.getLong(offset + Long.BYTES);
            if (DecimalData.isCompact(precision)) {
                // A compact decimal fits in the low word; the high word is its sign extension.
                return DecimalData.fromUnscaledLong(low, precision, scale);
            }
            BigInteger unscaled =
                    BigInteger.valueOf(high).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(low)));
            return DecimalData.fromBigDecimal(new BigDecimal(unscaled, scale), precision, scale);
        }
    }

    /** UTF-8 or binary values: slices of one heap copy of the data buffer, made on first use. */
    private static final class BytesColumn extends Column implements BytesColumnVector {
        private final BaseVariableWidthVector vector;
        private byte[] heap;

        BytesColumn(BaseVariableWidthVector vector) {
            super(vector);
            this.vector = vector;
        }

        @Override
        public Bytes getBytes(int i) {
            if (heap == null) {
                ArrowBuf offsets = vector.getOffsetBuffer();
                int end = vector.getValueCount() == 0 ? 0 : offsets.getInt((long) vector.getValueCount() * 4);
                heap = new byte[end];
                vector.getDataBuffer().getBytes(0, heap, 0, end);
            }
            int start = vector.getStartOffset(i);
            int end = vector.getOffsetBuffer().getInt((long) (i + 1) * 4);
            return new Bytes(heap, start, end - start);
        }
    }

    private static final class FixedBytesColumn extends Column implements BytesColumnVector {
        private final FixedSizeBinaryVector vector;

        FixedBytesColumn(FixedSizeBinaryVector vector) {
            super(vector);
            this.vector = vector;
        }

        @Override
        public Bytes getBytes(int i) {
            byte[] value = vector.get(i);
            return new Bytes(value, 0, value.length);
        }
    }

    private static final class DateColumn extends Column implements IntColumnVector {
        private final ArrowBuf data;

        DateColumn(DateDayVector vector) {
            super(vector);
            this.data = vector.getDataBuffer();
        }

        @Override
        public int getInt(int i) {
            return data.getInt((long) i * Integer.BYTES);
        }
    }

    /** TIME in any Arrow unit, read as Flink's milliseconds of the day. */
    private static final class TimeColumn extends Column implements IntColumnVector {
        private final ArrowBuf data;
        private final TimeUnit unit;

        TimeColumn(ValueVector vector) {
            super(vector);
            if (vector instanceof TimeSecVector) {
                unit = TimeUnit.SECOND;
            } else if (vector instanceof TimeMilliVector) {
                unit = TimeUnit.MILLISECOND;
            } else if (vector instanceof TimeMicroVector) {
                unit = TimeUnit.MICROSECOND;
            } else if (vector instanceof TimeNanoVector) {
                unit = TimeUnit.NANOSECOND;
            } else {
                throw new UnsupportedOperationException("not an Arrow time vector: " + vector.getField());
            }
            this.data = vector.getDataBuffer();
        }

        @Override
        public int getInt(int i) {
            switch (unit) {
                case SECOND:
                    return data.getInt((long) i * 4) * 1000;
                case MILLISECOND:
                    return data.getInt((long) i * 4);
                case MICROSECOND:
                    return (int) Math.floorDiv(data.getLong((long) i * 8), 1_000L);
                default:
                    return (int) Math.floorDiv(data.getLong((long) i * 8), 1_000_000L);
            }
        }
    }

    /** TIMESTAMP / TIMESTAMP_LTZ in any Arrow unit, with or without zone. */
    private static final class TimestampColumn extends Column implements TimestampColumnVector {
        private final ArrowBuf data;
        private final TimeUnit unit;

        TimestampColumn(TimeStampVector vector) {
            super(vector);
            this.data = vector.getDataBuffer();
            this.unit = ((ArrowType.Timestamp) vector.getField().getType()).getUnit();
        }

        @Override
        public TimestampData getTimestamp(int i, int precision) {
            long value = data.getLong((long) i * 8);
            switch (unit) {
                case SECOND:
                    return TimestampData.fromEpochMillis(value * 1000L);
                case MILLISECOND:
                    return TimestampData.fromEpochMillis(value);
                case MICROSECOND:
                    return TimestampData.fromEpochMillis(
                            Math.floorDiv(value, 1_000L), (int) Math.floorMod(value, 1_000L) * 1_000);
                default:
                    return TimestampData.fromEpochMillis(
                            Math.floorDiv(value, 1_000_000L), (int) Math.floorMod(value, 1_000_000L));
            }
        }
    }

    private static final class YearMonthColumn extends Column implements IntColumnVector {
        private final ArrowBuf data;

        YearMonthColumn(IntervalYearVector vector) {
            super(vector);
            this.data = vector.getDataBuffer();
        }

        @Override
        public int getInt(int i) {
            return data.getInt((long) i * 4);
        }
    }

    private static final class DurationColumn extends Column implements LongColumnVector {
        private final ArrowBuf data;

        DurationColumn(DurationVector vector) {
            super(vector);
            this.data = vector.getDataBuffer();
        }

        @Override
        public long getLong(int i) {
            return data.getLong((long) i * 8);
        }
    }

    private static final class ArrayColumn extends Column implements ArrayColumnVector {
        private final ArrowBuf offsets;
        private final ColumnVector elements;

        ArrayColumn(ListVector vector, ColumnVector elements) {
            super(vector);
            this.offsets = vector.getOffsetBuffer();
            this.elements = elements;
        }

        @Override
        public ArrayData getArray(int i) {
            int start = offsets.getInt((long) i * 4);
            int end = offsets.getInt((long) (i + 1) * 4);
            return elements(elements, start, end - start);
        }
    }

    private static final class MapColumn extends Column implements MapColumnVector {
        private final ArrowBuf offsets;
        private final ColumnVector keys;
        private final ColumnVector values;

        MapColumn(MapVector vector, ColumnVector keys, ColumnVector values) {
            super(vector);
            this.offsets = vector.getOffsetBuffer();
            this.keys = keys;
            this.values = values;
        }

        @Override
        public MapData getMap(int i) {
            int start = offsets.getInt((long) i * 4);
            int end = offsets.getInt((long) (i + 1) * 4);
            if (keys instanceof VariantColumn || values instanceof VariantColumn) {
                // Flink's columnar arrays read no variants.
                return new ArraysMapData(elements(keys, start, end - start), elements(values, start, end - start));
            }
            return new ColumnarMapData(keys, values, start, end - start);
        }
    }

    /**
     * Elements {@code start} to {@code start + length} of {@code elements} as an array: a view,
     * but for variants, which Flink's columnar arrays do not read, copied into an array of them.
     */
    private static ArrayData elements(ColumnVector elements, int start, int length) {
        if (elements instanceof VariantColumn) {
            VariantColumn variants = (VariantColumn) elements;
            Object[] copied = new Object[length];
            for (int e = 0; e < length; e++) {
                copied[e] = variants.isNullAt(start + e) ? null : variants.variant(start + e);
            }
            return new GenericArrayData(copied);
        }
        return new ColumnarArrayData(elements, start, length);
    }

    /** A column read through a mask: NULL where the mask is NULL, else the column's value. */
    private static final class MaskedColumn
            implements BooleanColumnVector,
                    ByteColumnVector,
                    ShortColumnVector,
                    IntColumnVector,
                    LongColumnVector,
                    FloatColumnVector,
                    DoubleColumnVector,
                    DecimalColumnVector,
                    BytesColumnVector,
                    TimestampColumnVector,
                    ArrayColumnVector,
                    MapColumnVector,
                    RowColumnVector {
        private final ColumnVector mask;
        private final ColumnVector column;

        MaskedColumn(ColumnVector mask, ColumnVector column) {
            this.mask = mask;
            this.column = column;
        }

        ColumnVector unmasked() {
            return column;
        }

        @Override
        public boolean isNullAt(int i) {
            return mask.isNullAt(i) || column.isNullAt(i);
        }

        @Override
        public boolean getBoolean(int i) {
            return ((BooleanColumnVector) column).getBoolean(i);
        }

        @Override
        public byte getByte(int i) {
            return ((ByteColumnVector) column).getByte(i);
        }

        @Override
        public short getShort(int i) {
            return ((ShortColumnVector) column).getShort(i);
        }

        @Override
        public int getInt(int i) {
            return ((IntColumnVector) column).getInt(i);
        }

        @Override
        public long getLong(int i) {
            return ((LongColumnVector) column).getLong(i);
        }

        @Override
        public float getFloat(int i) {
            return ((FloatColumnVector) column).getFloat(i);
        }

        @Override
        public double getDouble(int i) {
            return ((DoubleColumnVector) column).getDouble(i);
        }

        @Override
        public DecimalData getDecimal(int i, int precision, int scale) {
            return ((DecimalColumnVector) column).getDecimal(i, precision, scale);
        }

        @Override
        public Bytes getBytes(int i) {
            return ((BytesColumnVector) column).getBytes(i);
        }

        @Override
        public TimestampData getTimestamp(int i, int precision) {
            return ((TimestampColumnVector) column).getTimestamp(i, precision);
        }

        @Override
        public ArrayData getArray(int i) {
            return ((ArrayColumnVector) column).getArray(i);
        }

        @Override
        public MapData getMap(int i) {
            return ((MapColumnVector) column).getMap(i);
        }

        @Override
        public ColumnarRowData getRow(int i) {
            return ((RowColumnVector) column).getRow(i);
        }
    }

    /**
     * A VARIANT column (a struct of its metadata and value bytes) as Flink reads one from a columnar
     * row: a row of the value's bytes, then the metadata's.
     */
    private static final class VariantColumn extends Column implements RowColumnVector {
        private final VectorizedColumnBatch parts;

        VariantColumn(StructVector vector) {
            super(vector);
            this.parts = new VectorizedColumnBatch(new ColumnVector[] {
                new BytesColumn((BaseVariableWidthVector) vector.getChild(ArrowTypes.VARIANT_VALUE)),
                new BytesColumn((BaseVariableWidthVector) vector.getChild(ArrowTypes.VARIANT_METADATA))
            });
            this.parts.setNumRows(vector.getValueCount());
        }

        @Override
        public ColumnarRowData getRow(int i) {
            return new ColumnarRowData(parts, i);
        }

        BinaryVariant variant(int i) {
            ColumnarRowData row = getRow(i);
            return new BinaryVariant(row.getBinary(0), row.getBinary(1));
        }
    }

    private static final class RowColumn extends Column implements RowColumnVector {
        private final VectorizedColumnBatch fields;

        RowColumn(StructVector vector, RowType type) {
            super(vector);
            ColumnVector[] children = new ColumnVector[type.getFieldCount()];
            for (int f = 0; f < children.length; f++) {
                children[f] = create(vector.getChildByOrdinal(f), type.getTypeAt(f));
            }
            this.fields = new VectorizedColumnBatch(children);
            this.fields.setNumRows(vector.getValueCount());
        }

        @Override
        public ColumnarRowData getRow(int i) {
            return new ColumnarRowData(fields, i);
        }
    }
}
