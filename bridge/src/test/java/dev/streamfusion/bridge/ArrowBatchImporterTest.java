package dev.streamfusion.bridge;

import org.apache.arrow.c.ArrowArray;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ArrowBatchImporterTest {

    private static Schema ints(String... names) {
        return new Schema(
                java.util.Arrays.stream(names).map(n -> Field.nullable(n, new ArrowType.Int(32, true))).toList());
    }

    @Test
    void aBatchThatFailsToLoadIsReleasedAndLeavesNothingBehind() {
        try (BufferAllocator allocator = new RootAllocator()) {
            try (ArrowBatchImporter importer = ArrowBatchImporter.forSchema(allocator, ints("a", "b"));
                    VectorSchemaRoot wrong = VectorSchemaRoot.create(ints("a"), allocator)) {
                IntVector a = (IntVector) wrong.getVector(0);
                a.allocateNew(3);
                for (int i = 0; i < 3; i++) {
                    a.set(i, i);
                }
                wrong.setRowCount(3);
                // An export of one column into an importer of two: loading it fails.
                assertThatThrownBy(
                                () -> importer.importBatch(
                                        address -> Data.exportVectorSchemaRoot(
                                                allocator, wrong, null, ArrowArray.wrap(address))))
                        .isInstanceOf(RuntimeException.class);
                // Arrow takes the export over before loading it and releases it on failure: the
                // exported buffers are referenced by the source root only.
                assertThat(importer.schema().getFields()).hasSize(2);
                wrong.clear();
                assertThat(allocator.getAllocatedMemory()).isZero();
            }
            // Closing the allocator would fail on any buffer still held.
            assertThat(allocator.getAllocatedMemory()).isZero();
        }
    }

    @Test
    void aBatchThatLoadsIsTheImportersRoot() {
        try (BufferAllocator allocator = new RootAllocator();
                ArrowBatchImporter importer = ArrowBatchImporter.forSchema(allocator, ints("a"));
                VectorSchemaRoot source = VectorSchemaRoot.create(ints("a"), allocator)) {
            IntVector a = (IntVector) source.getVector(0);
            a.allocateNew(2);
            a.set(0, 7);
            a.setNull(1);
            source.setRowCount(2);
            VectorSchemaRoot loaded =
                    importer.importBatch(
                            address -> Data.exportVectorSchemaRoot(allocator, source, null, ArrowArray.wrap(address)));
            assertThat(loaded.getRowCount()).isEqualTo(2);
            assertThat(((IntVector) loaded.getVector(0)).get(0)).isEqualTo(7);
            assertThat(loaded.getVector(0).isNull(1)).isTrue();
            assertThat(List.of(loaded.getSchema().getFields().get(0).getName())).containsExactly("a");
        }
    }
}
