package dev.streamfusion.parquet.source;

import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The batches a reader fetched and has not emitted yet, so that closing frees them too. */
@Internal
final class LiveBatches {

    private final Set<ParquetBatch> batches = ConcurrentHashMap.newKeySet();

    ParquetBatch register(String splitId, VectorSchemaRoot root, ArrowColumnarBatch rows, Set<String> finished) {
        ParquetBatch batch = new ParquetBatch(splitId, root, rows, finished, batches::remove);
        batches.add(batch);
        return batch;
    }

    void freeAll() {
        for (ParquetBatch batch : List.copyOf(batches)) {
            batch.recycle();
        }
    }
}
