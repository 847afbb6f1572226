package dev.streamfusion.operators.runtime;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The island's NOT NULL check names the column Flink's sink constraint enforcer names. */
class NotNullCheckOperatorTest {

    /**
     * Flink's enforcer checks row by row, each row's NOT NULL columns in the table's order: the
     * column it names is the first NULL of the first row holding one, not the first column that
     * is NULL anywhere in the batch.
     */
    @Test
    void theColumnNamedIsTheFirstNullOfTheFirstRowHoldingOne() {
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = batch(allocator, new Integer[][] {
                    // a, b, c, d
                    {1, 1, 1, 1},
                    {1, null, 1, null},
                    {null, 1, 1, 1},
                    {1, 1, null, 1},
                })) {
            int[] all = {0, 1, 2, 3};
            // Row 1 is the first with a NULL, b the first NULL in it; a is NULL only in row 2.
            assertThat(NotNullCheckOperator.firstNull(root, all)).isEqualTo(1);
            // Checked in another order (the table's), d comes before b in row 1.
            assertThat(NotNullCheckOperator.firstNull(root, new int[] {3, 0, 1})).isEqualTo(0);
            // Without b and d, row 2's a is first; c (row 3) comes later.
            assertThat(NotNullCheckOperator.firstNull(root, new int[] {2, 0})).isEqualTo(1);
            assertThat(NotNullCheckOperator.firstNull(root, new int[] {2})).isEqualTo(0);
            assertThat(NotNullCheckOperator.firstNull(root, new int[] {})).isEqualTo(-1);
        }
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = batch(allocator, new Integer[][] {{1, 2}, {3, 4}})) {
            assertThat(NotNullCheckOperator.firstNull(root, new int[] {0, 1})).isEqualTo(-1);
        }
    }

    private static VectorSchemaRoot batch(BufferAllocator allocator, Integer[][] rows) {
        int columns = rows[0].length;
        List<IntVector> vectors = new ArrayList<>();
        for (int c = 0; c < columns; c++) {
            IntVector vector = new IntVector("c" + c, allocator);
            vector.allocateNew(rows.length);
            for (int r = 0; r < rows.length; r++) {
                if (rows[r][c] == null) {
                    vector.setNull(r);
                } else {
                    vector.set(r, rows[r][c]);
                }
            }
            vector.setValueCount(rows.length);
            vectors.add(vector);
        }
        return new VectorSchemaRoot(List.copyOf(vectors));
    }
}
