package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalSerializers;
import org.apache.flink.table.types.logical.RowType;

import org.apache.fluss.row.InternalRow;

import java.util.ArrayList;
import java.util.List;

/**
 * Copies some columns of the client's rows out of the client's memory into Flink rows of their
 * own, for rows that outlive the call that fetched them (looked up, or collected by a bounded
 * query).
 */
@Internal
public final class FlussRowCopier {

    private final FlussRowAsFlink view;
    private final RowData.FieldGetter[] columns;
    private final List<TypeSerializer<Object>> copiers;

    /** Copies {@code columns} (in their order) of rows of {@code rowType}. */
    public FlussRowCopier(RowType rowType, int[] columns) {
        this.view = new FlussRowAsFlink(rowType);
        this.columns = new RowData.FieldGetter[columns.length];
        this.copiers = new ArrayList<>(columns.length);
        for (int i = 0; i < columns.length; i++) {
            this.columns[i] = RowData.createFieldGetter(rowType.getTypeAt(columns[i]), columns[i]);
            copiers.add(InternalSerializers.create(rowType.getTypeAt(columns[i])));
        }
    }

    /** Copies every column of rows of {@code rowType}. */
    public static FlussRowCopier of(RowType rowType) {
        return new FlussRowCopier(rowType, java.util.stream.IntStream.range(0, rowType.getFieldCount()).toArray());
    }

    public GenericRowData copy(InternalRow row) {
        view.wrap(row);
        GenericRowData copied = new GenericRowData(columns.length);
        for (int i = 0; i < columns.length; i++) {
            Object value = columns[i].getFieldOrNull(view);
            copied.setField(i, value == null ? null : copiers.get(i).copy(value));
        }
        return copied;
    }
}
