package dev.streamfusion.bridge.columnar;

import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;

class NestedProjectionTest {

    private static final RowType PHYSICAL =
            (RowType)
                    DataTypes.ROW(
                                    FIELD("a", DataTypes.INT()),
                                    FIELD(
                                            "r",
                                            DataTypes.ROW(
                                                    FIELD("x", DataTypes.INT()),
                                                    FIELD("y", DataTypes.STRING()),
                                                    FIELD("z", DataTypes.ROW(FIELD("q", DataTypes.DOUBLE()), FIELD("w", DataTypes.INT()))))),
                                    FIELD("b", DataTypes.STRING()))
                            .notNull()
                            .getLogicalType();

    @Test
    void prunesToTheReachedFieldsAndNamesColumnsLikeFlink() {
        NestedProjection projection = NestedProjection.of(PHYSICAL, new int[][] {{1, 2, 0}, {2}, {1, 1}});
        assertThat(projection.prunedType().asSummaryString())
                .isEqualTo("ROW<`r` ROW<`y` STRING, `z` ROW<`q` DOUBLE>>, `b` STRING> NOT NULL");
        assertThat(projection.producedType().getFieldNames()).containsExactly("r_z_q", "b", "r_y");
        // A path ending on a row keeps the whole row, whatever else reaches into it.
        NestedProjection whole = NestedProjection.of(PHYSICAL, new int[][] {{1, 2, 0}, {1}});
        assertThat(whole.prunedType().asSummaryString())
                .isEqualTo("ROW<`r` " + PHYSICAL.getTypeAt(1).asSummaryString() + "> NOT NULL");
    }

    @Test
    void nestedFieldsAreNullWhereTheirRowIsNull() {
        NestedProjection projection = NestedProjection.of(PHYSICAL, new int[][] {{1, 2, 0}, {2}});
        RowType pruned = projection.prunedType();
        List<GenericRowData> rows =
                List.of(
                        GenericRowData.of(GenericRowData.of(GenericRowData.of(1.5)), StringData.fromString("b0")),
                        GenericRowData.of(null, StringData.fromString("b1")),
                        GenericRowData.of(GenericRowData.of((Object) null), null));
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter writer = RowDataArrowWriter.create(pruned, allocator)) {
            ArrowColumnarBatch batch = ArrowColumnarBatch.of(writer.write(rows), projection);
            ColumnarRowData first = batch.newRow(0);
            assertThat(first.getDouble(0)).isEqualTo(1.5);
            assertThat(first.getString(1).toString()).isEqualTo("b0");
            assertThat(batch.row(1).isNullAt(0)).as("r is NULL, so r.z.q is").isTrue();
            assertThat(batch.row(1).getString(1).toString()).isEqualTo("b1");
            assertThat(batch.row(2).isNullAt(0)).as("r.z is NULL, so r.z.q is").isTrue();
            assertThat(batch.row(2).isNullAt(1)).isTrue();
        }
    }
}
