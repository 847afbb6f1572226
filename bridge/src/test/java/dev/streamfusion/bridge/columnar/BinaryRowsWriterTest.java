package dev.streamfusion.bridge.columnar;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.TestSchemas;
import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BinaryRowsWriterTest {

    /** Every field of {@link TestSchemas#allTypes()} with a native binary layout: all of them. */
    private static RowType nativeLayoutTypes() {
        RowType all = TestSchemas.allTypes();
        List<RowType.RowField> flat = new ArrayList<>();
        for (RowType.RowField field : all.getFields()) {
            if (BinaryRowsWriter.supports(new RowType(List.of(field)))) {
                flat.add(field);
            }
        }
        return new RowType(false, flat);
    }

    private static byte[] bytes(BinaryRowData row) {
        return BinarySegmentUtils.copyToBytes(row.getSegments(), row.getOffset(), row.getSizeInBytes());
    }

    @Test
    void rowsHoldTheBytesFlinksSerializerWritesForEveryType() {
        RowType type = nativeLayoutTypes();
        assertThat(type.getFieldCount()).isEqualTo(TestSchemas.allTypes().getFieldCount());
        List<RowData> rows = new RandomRows(7, 0.2).rows(type, 500);
        long nativeBefore = NativeLibrary.nativeAllocatedBytes();
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter arrow = RowDataArrowWriter.create(type, allocator)) {
            VectorSchemaRoot root = arrow.write(rows);
            RowDataSerializer serializer = new RowDataSerializer(type);
            try (BinaryRowsWriter writer = BinaryRowsWriter.create(allocator, root.getSchema(), type);
                    ArrowColumnarBatch columnar = ArrowColumnarBatch.of(root, type);
                    ArrowColumnarBatch binary = ArrowColumnarBatch.of(root, type).writeBinaryRows(writer, root)) {
                assertThat(binary.binary()).isTrue();
                int nulls = 0;
                for (int r = 0; r < rows.size(); r++) {
                    // What Flink's copy of the columnar view is, when it goes over the network.
                    byte[] expected = bytes(serializer.toBinaryRow(columnar.row(r)));
                    BinaryRowData actual = (BinaryRowData) binary.row(r);
                    assertThat(bytes(actual)).as("row %d", r).isEqualTo(expected);
                    for (int f = 0; f < type.getFieldCount(); f++) {
                        nulls += actual.isNullAt(f) ? 1 : 0;
                    }
                }
                assertThat(nulls).as("NULLs written").isGreaterThan(rows.size());
            }
        }
        assertThat(NativeLibrary.nativeAllocatedBytes()).isEqualTo(nativeBefore);
    }

    @Test
    void rowsCopiedByFlinkReadBackTheirValues() {
        RowType type =
                (RowType)
                        DataTypes.ROW(FIELD("id", DataTypes.BIGINT()), FIELD("name", DataTypes.STRING()))
                                .notNull()
                                .getLogicalType();
        List<RowData> rows =
                List.of(
                        GenericRowData.of(1L, StringData.fromString("short")),
                        GenericRowData.of(null, StringData.fromString("longer than seven bytes")),
                        GenericRowData.of(3L, null));
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter arrow = RowDataArrowWriter.create(type, allocator)) {
            VectorSchemaRoot root = arrow.write(rows);
            RowDataSerializer serializer = new RowDataSerializer(type);
            List<RowData> copies = new ArrayList<>();
            try (BinaryRowsWriter writer = BinaryRowsWriter.create(allocator, root.getSchema(), type);
                    ArrowColumnarBatch batch = ArrowColumnarBatch.of(root, type).writeBinaryRows(writer, root)) {
                for (int r = 0; r < rows.size(); r++) {
                    copies.add(serializer.copy(batch.row(r)));
                }
            }
            // The copies outlive the native buffer.
            assertThat(copies.get(0).getLong(0)).isEqualTo(1L);
            assertThat(copies.get(0).getString(1).toString()).isEqualTo("short");
            assertThat(copies.get(1).isNullAt(0)).isTrue();
            assertThat(copies.get(1).getString(1).toString()).isEqualTo("longer than seven bytes");
            assertThat(copies.get(2).getLong(0)).isEqualTo(3L);
            assertThat(copies.get(2).isNullAt(1)).isTrue();
        }
    }

    @Test
    void nestedFieldsReadAsColumnsAreNullWhereTheirRowIsNull() {
        RowType physical =
                (RowType)
                        DataTypes.ROW(
                                        FIELD("a", DataTypes.INT()),
                                        FIELD("r", DataTypes.ROW(FIELD("x", DataTypes.STRING()), FIELD("y", DataTypes.DOUBLE()))))
                                .notNull()
                                .getLogicalType();
        NestedProjection projection = NestedProjection.of(physical, new int[][] {{1, 0}, {0}, {1, 1}});
        List<RowData> rows =
                List.of(
                        GenericRowData.of(1, GenericRowData.of(StringData.fromString("x0 is long enough"), 0.5)),
                        GenericRowData.of(2, null),
                        GenericRowData.of(null, GenericRowData.of(null, 2.5)));
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter arrow = RowDataArrowWriter.create(projection.prunedType(), allocator)) {
            VectorSchemaRoot root = arrow.write(rows);
            RowDataSerializer serializer = new RowDataSerializer(projection.producedType());
            try (BinaryRowsWriter writer = BinaryRowsWriter.create(allocator, root.getSchema(), projection);
                    ArrowColumnarBatch columnar = ArrowColumnarBatch.of(root, projection);
                    ArrowColumnarBatch binary = ArrowColumnarBatch.of(root, projection).writeBinaryRows(writer, root)) {
                for (int r = 0; r < rows.size(); r++) {
                    assertThat(bytes((BinaryRowData) binary.row(r)))
                            .isEqualTo(bytes(serializer.toBinaryRow(columnar.row(r))));
                }
                assertThat(binary.row(1).isNullAt(0)).isTrue();
                assertThat(binary.row(1).isNullAt(2)).isTrue();
                assertThat(binary.row(1).getInt(1)).isEqualTo(2);
            }
        }
    }

    @Test
    void typesWithoutANativeLayoutStayColumnar() {
        LogicalType raw = DataTypes.RAW(Integer.class, IntSerializer.INSTANCE).getLogicalType();
        RowType withRaw = RowType.of(new IntType(), new ArrayType(raw));
        assertThat(BinaryRowsWriter.supports(withRaw)).isFalse();
        RowType ints = RowType.of(new IntType());
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter arrow = RowDataArrowWriter.create(ints, allocator)) {
            VectorSchemaRoot root = arrow.write(List.of());
            assertThat(BinaryRowsWriter.create(allocator, root.getSchema(), withRaw)).isNull();
            ArrowColumnarBatch batch = ArrowColumnarBatch.of(root, ints).writeBinaryRows(null, root);
            assertThat(batch.binary()).isFalse();
        }
    }

    @Test
    void aBatchOfAnotherSchemaIsRefusedAndAnEmptyBatchHasNoRows() {
        RowType ints = (RowType) DataTypes.ROW(FIELD("i", DataTypes.INT())).notNull().getLogicalType();
        RowType strings = (RowType) DataTypes.ROW(FIELD("s", DataTypes.STRING())).notNull().getLogicalType();
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter intRows = RowDataArrowWriter.create(ints, allocator);
                RowDataArrowWriter stringRows = RowDataArrowWriter.create(strings, allocator)) {
            VectorSchemaRoot empty = intRows.write(List.of());
            VectorSchemaRoot other = stringRows.write(List.of(GenericRowData.of(StringData.fromString("s"))));
            try (BinaryRowsWriter writer = BinaryRowsWriter.create(allocator, empty.getSchema(), ints)) {
                try (BinaryRowsWriter.Rows none = writer.write(empty)) {
                    assertThat(none.rowCount()).isZero();
                }
                assertThatThrownBy(() -> writer.write(other)).isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    /** A value read from a row and held past the rows' close fails when read, never reads freed memory. */
    @Test
    void aValueHeldPastTheRowsCloseFailsWhenRead() {
        RowType strings = (RowType) DataTypes.ROW(FIELD("s", DataTypes.STRING())).notNull().getLogicalType();
        try (BufferAllocator allocator = new RootAllocator();
                RowDataArrowWriter stringRows = RowDataArrowWriter.create(strings, allocator)) {
            VectorSchemaRoot root = stringRows.write(List.of(GenericRowData.of(StringData.fromString("a string of some length"))));
            try (BinaryRowsWriter writer = BinaryRowsWriter.create(allocator, root.getSchema(), strings)) {
                StringData held;
                try (BinaryRowsWriter.Rows rows = writer.write(root)) {
                    held = rows.row(0).getString(0);
                    assertThat(held.toString()).isEqualTo("a string of some length");
                }
                assertThatThrownBy(held::toBytes).isInstanceOf(IllegalStateException.class);
            }
        }
    }
}
