package dev.streamfusion.bridge;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.List;

/** Moving batches out of roots that the next import reuses. */
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
}
