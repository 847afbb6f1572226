package dev.streamfusion.bridge.writer;

import dev.streamfusion.bridge.columnar.ArrowColumnVectors;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.ColumnarRowData;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.variant.Variant;
import org.apache.flink.types.variant.VariantBuilder;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
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
    void variantsAreWrittenAsTheirBytesAndReadBackByColumnarRows() {
        RowType type = rowType(
                DataTypes.FIELD("v", DataTypes.VARIANT()),
                DataTypes.FIELD("r", DataTypes.ROW(DataTypes.FIELD("id", DataTypes.INT()), DataTypes.FIELD("w", DataTypes.VARIANT()))),
                DataTypes.FIELD("a", DataTypes.ARRAY(DataTypes.VARIANT())),
                DataTypes.FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.VARIANT())));
        VariantBuilder builder = Variant.newBuilder();
        Variant object = builder.object()
                .add("name", builder.of("flink"))
                .add("tags", builder.array().add(builder.of(1)).add(builder.ofNull()).build())
                .add("price", builder.of(new BigDecimal("12.50")))
                .build();
        Variant number = builder.of(42L);
        Variant json = builder.ofNull();
        Map<Object, Object> named = new HashMap<>();
        named.put(StringData.fromString("n"), number);
        named.put(StringData.fromString("none"), null);
        List<GenericRowData> rows = List.of(
                GenericRowData.of(object, GenericRowData.of(1, number), new GenericArrayData(new Object[] {number, null, object}),
                        new GenericMapData(named)),
                GenericRowData.of(null, GenericRowData.of(2, null), null, null),
                GenericRowData.of(json, null, new GenericArrayData(new Object[0]), null));
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter writer = RowDataArrowWriter.create(type, allocator)) {
            VectorSchemaRoot root = writer.write(rows);
            VectorizedColumnBatch batch = ArrowColumnVectors.createBatch(root.getFieldVectors(), type, root.getRowCount());
            ColumnarRowData first = new ColumnarRowData(batch, 0);
            assertThat(first.getVariant(0)).isEqualTo(object);
            assertThat(first.getVariant(0).toJson()).isEqualTo(object.toJson());
            assertThat(first.getVariant(0).getField("tags").getElement(0).getInt()).isEqualTo(1);
            assertThat(first.getRow(1, 2).getVariant(1)).isEqualTo(number);
            // Flink's columnar arrays read no variants: arrays and maps of them are copied out.
            ArrayData array = first.getArray(2);
            assertThat(array.size()).isEqualTo(3);
            assertThat(array.getVariant(0)).isEqualTo(number);
            assertThat(array.isNullAt(1)).isTrue();
            assertThat(array.getVariant(2)).isEqualTo(object);
            MapData map = first.getMap(3);
            Map<String, Variant> read = new HashMap<>();
            for (int e = 0; e < map.size(); e++) {
                read.put(map.keyArray().getString(e).toString(),
                        map.valueArray().isNullAt(e) ? null : map.valueArray().getVariant(e));
            }
            assertThat(read).containsOnlyKeys("n", "none").containsEntry("n", number).containsEntry("none", null);
            ColumnarRowData second = new ColumnarRowData(batch, 1);
            assertThat(second.isNullAt(0)).isTrue();
            assertThat(second.getRow(1, 2).isNullAt(1)).isTrue();
            ColumnarRowData third = new ColumnarRowData(batch, 2);
            assertThat(third.isNullAt(0)).as("a variant holding JSON null is not a NULL variant").isFalse();
            assertThat(third.getVariant(0).isNull()).isTrue();
            assertThat(third.isNullAt(1)).isTrue();
            assertThat(third.getArray(2).size()).isZero();
            assertThat(second.isNullAt(2)).isTrue();
            assertThat(second.isNullAt(3)).isTrue();
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
