package dev.streamfusion.bridge.writer;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RowDataArrowWriterTest {

    private static RowType rowType(DataTypes.Field... fields) {
        return (RowType) DataTypes.ROW(fields).notNull().getLogicalType();
    }

    @Test
    void writesColumnsAndReusesTheRootAcrossBatches() {
        RowType type = rowType(DataTypes.FIELD("i", DataTypes.INT()), DataTypes.FIELD("s", DataTypes.STRING()));
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter writer = RowDataArrowWriter.create(type, allocator)) {
            VectorSchemaRoot first =
                    writer.write(
                            List.of(
                                    GenericRowData.of(1, StringData.fromString("one")),
                                    GenericRowData.of(null, StringData.fromString(""))));
            assertThat(first.getRowCount()).isEqualTo(2);
            assertThat(((IntVector) first.getVector("i")).get(0)).isEqualTo(1);
            assertThat(first.getVector("i").isNull(1)).isTrue();
            assertThat(((VarCharVector) first.getVector("s")).getObject(1).toString()).isEmpty();

            VectorSchemaRoot second = writer.write(List.of(GenericRowData.of(7, null)));
            assertThat(second).isSameAs(first);
            assertThat(second.getRowCount()).isEqualTo(1);
            assertThat(((IntVector) second.getVector("i")).get(0)).isEqualTo(7);
            assertThat(second.getVector("s").isNull(0)).isTrue();
        }
    }

    @Test
    void nullMapKeyIsRejectedNamingTheColumn() {
        RowType type = rowType(DataTypes.FIELD("attributes", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())));
        Map<Object, Object> map = new HashMap<>();
        map.put(null, 1);
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter writer = RowDataArrowWriter.create(type, allocator)) {
            assertThatThrownBy(() -> writer.write(List.of(GenericRowData.of(new GenericMapData(map)))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("column attributes")
                    .hasMessageContaining("MAP key is NULL");
        }
    }

    @Test
    void nanosecondTimestampOutsideArrowRangeIsRejected() {
        RowType type = rowType(DataTypes.FIELD("ts", DataTypes.TIMESTAMP(9)));
        TimestampData year2500 = TimestampData.fromEpochMillis(16_725_225_600_000L);
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter writer = RowDataArrowWriter.create(type, allocator)) {
            assertThatThrownBy(() -> writer.write(List.of(GenericRowData.of(year2500))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("column ts")
                    .hasMessageContaining("2500-01-01T00:00")
                    .hasMessageContaining("outside the range of Arrow nanosecond timestamps");
        }
    }
}
