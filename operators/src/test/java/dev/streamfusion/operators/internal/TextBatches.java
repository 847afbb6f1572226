package dev.streamfusion.operators.internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** Batches of one text column {@code s}, for the native casts' tests. */
final class TextBatches {

    private TextBatches() {}

    static VectorSchemaRoot of(BufferAllocator allocator, List<String> texts) {
        VarCharVector vector = new VarCharVector("s", allocator);
        vector.allocateNew(texts.size());
        for (int i = 0; i < texts.size(); i++) {
            vector.setSafe(i, texts.get(i).getBytes(StandardCharsets.UTF_8));
        }
        VectorSchemaRoot root = VectorSchemaRoot.of(vector);
        root.setRowCount(texts.size());
        return root;
    }
}
