package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplitState;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.List;

/**
 * Emits a partition's records of a poll as one Arrow batch (for the operator island), then moves
 * the partition's position past them: a checkpoint falls between two polls' runs, never inside
 * one. The run's rows are the decoded batch's own rows (the whole batch, or a slice of it); where
 * Flink's format decoded some of the run's records, the run's rows are written into a batch of
 * their own, in record order.
 */
@Internal
final class KafkaBatchEmitter implements RecordEmitter<KafkaMessage, ArrowBatch, KafkaPartitionSplitState> {

    private final RowType rowType;
    /** For each produced column, the decoded batch's column holding it; null when they are the same. */
    private final int[] columns;
    private final BufferAllocator allocator;
    private final ArrowBatch batch = new ArrowBatch();

    /**
     * @param rowType the values' row type (the table's produced type)
     * @param columns for each produced column, the decoded batch's column that holds it
     * @param allocator the reader's, for the rare run Flink's format decoded part of
     */
    KafkaBatchEmitter(RowType rowType, int[] columns, BufferAllocator allocator) {
        this.rowType = rowType;
        boolean same = true;
        for (int c = 0; c < columns.length; c++) {
            same &= columns[c] == c;
        }
        this.columns = same ? null : columns.clone();
        this.allocator = allocator;
    }

    /**
     * {@code decoded}'s columns in the produced order: the same vectors, owned by {@code decoded}
     * (the view is not to be closed).
     */
    private VectorSchemaRoot produced(VectorSchemaRoot decoded) {
        if (columns == null) {
            return decoded;
        }
        List<FieldVector> vectors = new ArrayList<>(columns.length);
        for (int column : columns) {
            vectors.add(decoded.getVector(column));
        }
        VectorSchemaRoot view = new VectorSchemaRoot(vectors);
        view.setRowCount(decoded.getRowCount());
        return view;
    }

    @Override
    public void emitRecord(KafkaMessage run, SourceOutput<ArrowBatch> output, KafkaPartitionSplitState split) {
        DecodedPart values = run.values();
        int first = run.record();
        int count = run.count();
        if (values.nativeOnly(first, count)) {
            int from = values.rowStarts[first];
            int to = values.rowStarts[first + count];
            VectorSchemaRoot root = values.root;
            // A run without rows (tombstones, skipped records) emits no batch, as rows would emit none.
            if (to > from && from == 0 && to == root.getRowCount()) {
                output.collect(batch.of(produced(root)));
            } else if (to > from) {
                try (VectorSchemaRoot slice = root.slice(from, to - from)) {
                    output.collect(batch.of(produced(slice)));
                }
            }
        } else {
            try (RowDataArrowWriter rows = RowDataArrowWriter.create(rowType, allocator)) {
                for (int r = first; r < first + count; r++) {
                    for (int k = 0; k < values.rowCount(r); k++) {
                        rows.append(values.row(r, k));
                    }
                }
                if (rows.appended() > 0) {
                    output.collect(batch.of(rows.finishBatch()));
                }
            }
        }
        split.setCurrentOffset(run.offset() + 1);
    }
}
