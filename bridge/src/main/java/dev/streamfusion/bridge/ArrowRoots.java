package dev.streamfusion.bridge;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.ArrayList;
import java.util.List;

/** Moving batches out of roots that the next import reuses; checking a batch's layout. */
@Internal
public final class ArrowRoots {

    private ArrowRoots() {}

    /**
     * A root of its own holding {@code batch}'s buffers, accounted to {@code allocator}; {@code
     * batch} is left empty. The caller closes the returned root.
     */
    public static VectorSchemaRoot moveTo(VectorSchemaRoot batch, BufferAllocator allocator) {
        List<FieldVector> vectors = new ArrayList<>(batch.getFieldVectors().size());
        for (FieldVector vector : batch.getFieldVectors()) {
            var transfer = vector.getTransferPair(allocator);
            transfer.transfer();
            vectors.add((FieldVector) transfer.getTo());
        }
        return new VectorSchemaRoot(batch.getSchema(), vectors, batch.getRowCount());
    }

    /**
     * A root of its own holding {@code batch}'s rows from {@code from} on (all of them, moved, when
     * {@code from} is 0; else copied out of a slice), accounted to {@code allocator}. The caller
     * closes the returned root.
     */
    public static VectorSchemaRoot moveTo(VectorSchemaRoot batch, int from, BufferAllocator allocator) {
        if (from == 0) {
            return moveTo(batch, allocator);
        }
        try (VectorSchemaRoot slice = batch.slice(from)) {
            return moveTo(slice, allocator);
        }
    }

    /**
     * Checks that {@code batch} has the column types of {@code expected} (names aside), as native
     * code reads an exported batch by the schema it was created with: a batch of another layout
     * would be read out of its buffers' bounds.
     *
     * @throws IllegalArgumentException naming {@code reader} and the first column that differs
     */
    public static void checkLayout(Schema expected, VectorSchemaRoot batch, String reader) {
        List<Field> want = expected.getFields();
        List<Field> got = batch.getSchema().getFields();
        String difference = difference(want, got, "");
        if (difference != null) {
            throw new IllegalArgumentException(
                    "The batch handed to the " + reader + " does not have its schema: " + difference
                            + " (expected " + expected + ", got " + batch.getSchema() + ")");
        }
    }

    private static String difference(List<Field> want, List<Field> got, String path) {
        if (want.size() != got.size()) {
            return (path.isEmpty() ? "the batch" : path) + " has " + got.size() + " children, not " + want.size();
        }
        for (int i = 0; i < want.size(); i++) {
            Field expected = want.get(i);
            Field actual = got.get(i);
            String column = path.isEmpty() ? "column " + i : path + "." + i;
            if (!expected.getType().equals(actual.getType())) {
                return column + " is " + actual.getType() + ", not " + expected.getType();
            }
            String nested = difference(expected.getChildren(), actual.getChildren(), column);
            if (nested != null) {
                return nested;
            }
        }
        return null;
    }
}
