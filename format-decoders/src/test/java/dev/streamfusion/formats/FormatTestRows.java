package dev.streamfusion.formats;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.testing.RowDataValues;

import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.List;

/** Row types and row values shared by the format parity tests. */
final class FormatTestRows {

    private FormatTestRows() {}

    /** The columns {@code names} of {@code type}, in that order (a query's projection). */
    static RowType project(RowType type, String... names) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (String name : names) {
            fields.add(type.getFields().get(type.getFieldIndex(name)));
        }
        return new RowType(false, fields);
    }

    /** The values of {@code rows} (of type {@code physical}) in the columns of {@code produced}. */
    static List<List<Object>> project(List<List<Object>> rows, RowType physical, RowType produced) {
        List<List<Object>> projected = new ArrayList<>();
        for (List<Object> row : rows) {
            List<Object> values = new ArrayList<>();
            for (String name : produced.getFieldNames()) {
                values.add(row.get(physical.getFieldIndex(name)));
            }
            projected.add(values);
        }
        return projected;
    }

    /** The values of every row of a decoded batch, read through {@code ColumnarRowData}. */
    static List<List<Object>> rows(VectorSchemaRoot root, RowType type) {
        ArrowColumnarBatch batch = ArrowColumnarBatch.of(root, type);
        List<List<Object>> rows = new ArrayList<>();
        for (int r = 0; r < batch.rowCount(); r++) {
            rows.add(RowDataValues.ofRow(batch.row(r), type));
        }
        return rows;
    }
}
