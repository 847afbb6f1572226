package dev.streamfusion.bridge;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.RowDataValues;
import dev.streamfusion.bridge.testing.TestSchemas;
import dev.streamfusion.bridge.types.ArrowTypes;
import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RowData -> Arrow (Java) -> Rust (import, full validation, projection) -> Java ->
 * ColumnarRowData, for every type, equal to the input field by field.
 */
class NativeRoundTripTest {

    private static final RowType ALL_TYPES = TestSchemas.allTypes();

    private BufferAllocator allocator;

    @BeforeEach
    void openAllocator() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void closeAllocator() {
        // Throws if any buffer is still outstanding.
        allocator.close();
    }

    @Test
    void everyTypeRoundTripsThroughRust() {
        List<RowData> rows = new RandomRows(42, 0.2).rows(ALL_TYPES, 500);
        int[] all = IntStream.range(0, ALL_TYPES.getFieldCount()).toArray();

        RowDataValues.assertSameRows(roundTrip(rows, all, 0, -1), RowDataValues.ofRows(rows, ALL_TYPES));
    }

    @Test
    void allNullRowsAndEmptyBatchesRoundTrip() {
        List<RowData> rows = new RandomRows(7, 1.0).rows(ALL_TYPES, 50);
        int[] all = IntStream.range(0, ALL_TYPES.getFieldCount()).toArray();

        RowDataValues.assertSameRows(roundTrip(rows, all, 0, -1), RowDataValues.ofRows(rows, ALL_TYPES));
        assertThat(roundTrip(List.of(), all, 0, -1)).isEmpty();
    }

    @Test
    void projectionReordersAndDropsColumns() {
        List<RowData> rows = new RandomRows(3, 0.3).rows(ALL_TYPES, 200);
        int[] columns = {ALL_TYPES.getFieldCount() - 1, 16, 0, 12, 3};

        List<List<Object>> expected = new ArrayList<>();
        for (List<Object> row : RowDataValues.ofRows(rows, ALL_TYPES)) {
            List<Object> projected = new ArrayList<>();
            for (int c : columns) {
                projected.add(row.get(c));
            }
            expected.add(projected);
        }
        RowDataValues.assertSameRows(roundTrip(rows, columns, 0, -1), expected);
    }

    @Test
    void slicesComeBackWithTheirOwnOffsets() {
        List<RowData> rows = new RandomRows(11, 0.25).rows(ALL_TYPES, 300);
        int[] all = IntStream.range(0, ALL_TYPES.getFieldCount()).toArray();
        List<List<Object>> expected = RowDataValues.ofRows(rows, ALL_TYPES);

        RowDataValues.assertSameRows(roundTrip(rows, all, 17, 101), expected.subList(17, 118));
        RowDataValues.assertSameRows(roundTrip(rows, all, 299, 1), expected.subList(299, 300));
        assertThat(roundTrip(rows, all, 300, 0)).isEmpty();
    }

    @Test
    void manyBatchesReuseOneHandleWithoutLeaking() {
        long nativeBefore = NativeLibrary.nativeAllocatedBytes();
        RandomRows random = new RandomRows(5, 0.1);
        int[] all = IntStream.range(0, ALL_TYPES.getFieldCount()).toArray();
        try (RowDataArrowWriter writer = RowDataArrowWriter.create(ALL_TYPES, allocator);
                NativeProjection projection =
                        NativeProjection.create(allocator, ArrowTypes.toArrowSchema(ALL_TYPES), all)) {
            for (int batch = 0; batch < 20; batch++) {
                List<RowData> rows = random.rows(ALL_TYPES, 64);
                VectorSchemaRoot out = projection.project(writer.write(rows));
                RowDataValues.assertSameRows(read(out, ALL_TYPES), RowDataValues.ofRows(rows, ALL_TYPES));
            }
        }
        assertThat(NativeLibrary.nativeAllocatedBytes()).isEqualTo(nativeBefore);
    }

    private List<List<Object>> roundTrip(List<RowData> rows, int[] columns, int offset, int length) {
        RowType projectedType = project(ALL_TYPES, columns);
        try (RowDataArrowWriter writer = RowDataArrowWriter.create(ALL_TYPES, allocator);
                NativeProjection projection =
                        NativeProjection.create(
                                allocator, ArrowTypes.toArrowSchema(ALL_TYPES), columns)) {
            assertThat(projection.outputSchema()).isEqualTo(ArrowTypes.toArrowSchema(projectedType));
            VectorSchemaRoot out = projection.project(writer.write(rows), offset, length);
            return read(out, projectedType);
        }
    }

    private static List<List<Object>> read(VectorSchemaRoot root, RowType type) {
        ArrowColumnarBatch batch = ArrowColumnarBatch.of(root, type);
        List<List<Object>> values = new ArrayList<>();
        for (int r = 0; r < batch.rowCount(); r++) {
            values.add(RowDataValues.ofRow(batch.row(r), type));
        }
        return values;
    }

    private static RowType project(RowType type, int[] columns) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (int c : columns) {
            fields.add(type.getFields().get(c));
        }
        return new RowType(false, fields);
    }
}
