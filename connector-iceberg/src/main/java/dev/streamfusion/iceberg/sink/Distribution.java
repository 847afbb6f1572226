package dev.streamfusion.iceberg.sink;

import dev.streamfusion.bridge.batch.NativeBatchRouter;
import dev.streamfusion.iceberg.internal.WriterDescription;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.SerializableFunction;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * How rows reach the writers, as iceberg-flink distributes them: by the hash of their equality
 * fields (so every change of a key goes through one writer, in order) or of their partition (so a
 * partition's rows are written by one writer). The key is only a routing hash: rows of different
 * keys may share a writer, and no state is kept by it. The operator island's batches are routed by
 * the same key, split natively ({@link NativeBatchRouter}), with a hash of their own.
 */
@Internal
public final class Distribution implements Serializable {

    private static final long serialVersionUID = 1L;

    private final KeySelector<RowData, Integer> rows;
    /** The columns batches are routed by, or {@code null} for their partition. */
    private final int[] batchColumns;

    private Distribution(KeySelector<RowData, Integer> rows, int[] batchColumns) {
        this.rows = rows;
        this.batchColumns = batchColumns;
    }

    /** The key rows are routed by. */
    public KeySelector<RowData, Integer> rows() {
        return rows;
    }

    /** The key batches of the table {@code description} describes are routed by. */
    public NativeBatchRouter.Keys batches(WriterDescription description) {
        return batchColumns == null ? description.partitionKeys() : NativeBatchRouter.Keys.columns(batchColumns);
    }

    /** Routes rows by the values of the top-level columns {@code columns}. */
    public static Distribution byColumns(RowType rowType, int[] columns) {
        return new Distribution(new ColumnKeys(rowType, columns), columns.clone());
    }

    /**
     * Routes rows by their partition in {@code spec}: the transforms of the spec applied to the
     * columns of {@code rowType} (the table's top-level columns, in order).
     *
     * @throws UnsupportedOperationException when a partition's source is a nested field
     */
    public static Distribution byPartition(RowType rowType, Schema schema, PartitionSpec spec) {
        List<Types.NestedField> columns = schema.columns();
        int[] sources = new int[spec.fields().size()];
        for (int i = 0; i < sources.length; i++) {
            PartitionField field = spec.fields().get(i);
            int source = -1;
            for (int c = 0; c < columns.size(); c++) {
                if (columns.get(c).fieldId() == field.sourceId()) {
                    source = c;
                }
            }
            if (source < 0) {
                throw new UnsupportedOperationException("The partition field '" + field.name()
                        + "' has a nested source column, and writers are hash-distributed by top-level columns only");
            }
            sources[i] = source;
        }
        return new Distribution(new PartitionKeys(rowType, schema, spec, sources), null);
    }

    /** A column's value read from a row. */
    private static RowData.FieldGetter[] getters(RowType rowType, int[] columns) {
        RowData.FieldGetter[] getters = new RowData.FieldGetter[columns.length];
        for (int i = 0; i < columns.length; i++) {
            getters[i] = RowData.createFieldGetter(rowType.getTypeAt(columns[i]), columns[i]);
        }
        return getters;
    }

    private static final class ColumnKeys implements KeySelector<RowData, Integer> {

        private static final long serialVersionUID = 1L;

        private final RowData.FieldGetter[] getters;

        ColumnKeys(RowType rowType, int[] columns) {
            this.getters = getters(rowType, columns);
        }

        @Override
        public Integer getKey(RowData row) {
            int hash = 1;
            for (RowData.FieldGetter getter : getters) {
                Object value = getter.getFieldOrNull(row);
                hash = 31 * hash + (value instanceof byte[] ? Arrays.hashCode((byte[]) value) : Objects.hashCode(value));
            }
            return hash;
        }
    }

    private static final class PartitionKeys implements KeySelector<RowData, Integer> {

        private static final long serialVersionUID = 1L;

        private final RowData.FieldGetter[] getters;
        private final Type[] icebergTypes;
        private final PartitionSpec spec;
        private transient List<SerializableFunction<Object, Object>> transforms;

        PartitionKeys(RowType rowType, Schema schema, PartitionSpec spec, int[] sources) {
            this.getters = getters(rowType, sources);
            this.icebergTypes = new Type[sources.length];
            for (int i = 0; i < sources.length; i++) {
                icebergTypes[i] = schema.columns().get(sources[i]).type();
            }
            this.spec = spec;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Integer getKey(RowData row) {
            if (transforms == null) {
                List<SerializableFunction<Object, Object>> bound = new ArrayList<>(getters.length);
                for (int i = 0; i < getters.length; i++) {
                    Transform<Object, Object> transform = (Transform<Object, Object>) spec.fields().get(i).transform();
                    bound.add(transform.bind(icebergTypes[i]));
                }
                transforms = bound;
            }
            int hash = 1;
            for (int i = 0; i < getters.length; i++) {
                Object value = icebergValue(getters[i].getFieldOrNull(row), icebergTypes[i]);
                hash = 31 * hash + Objects.hashCode(value == null ? null : transforms.get(i).apply(value));
            }
            return hash;
        }

        /** A Flink value in the Java form Iceberg's transforms take for {@code type}. */
        private static Object icebergValue(Object value, Type type) {
            if (value == null) {
                return null;
            }
            switch (type.typeId()) {
                case INTEGER:
                    return ((Number) value).intValue();
                case TIME:
                    return ((Integer) value) * 1000L;
                case TIMESTAMP:
                    TimestampData micros = (TimestampData) value;
                    return Math.addExact(Math.multiplyExact(micros.getMillisecond(), 1000L), micros.getNanoOfMillisecond() / 1000);
                case TIMESTAMP_NANO:
                    TimestampData nanos = (TimestampData) value;
                    return Math.addExact(Math.multiplyExact(nanos.getMillisecond(), 1_000_000L), nanos.getNanoOfMillisecond());
                case STRING:
                    return value.toString();
                case UUID:
                    ByteBuffer uuid = ByteBuffer.wrap((byte[]) value);
                    return new UUID(uuid.getLong(), uuid.getLong());
                case FIXED:
                case BINARY:
                    return ByteBuffer.wrap((byte[]) value);
                case DECIMAL:
                    return ((DecimalData) value).toBigDecimal();
                default:
                    // Booleans, longs, floats, doubles and dates are the same objects in both.
                    return value;
            }
        }
    }
}
