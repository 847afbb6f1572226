package dev.streamfusion.iceberg.source;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.source.ArrowSourceReader;
import dev.streamfusion.bridge.source.FetchedBatches;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.metrics.Counter;
import org.apache.flink.table.data.RowData;

import java.util.Map;
import java.util.function.Supplier;

/**
 * Reads the splits it is given, asking the enumerator for the next when it runs out. Rows go
 * downstream as views over native batches, or the batches go whole (to the operator island); a
 * checkpoint records, per split, the file task being read and how many of its rows were emitted.
 *
 * @param <T> what it emits: {@link RowData} or {@link ArrowBatch}
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class IcebergSourceReader<T> extends ArrowSourceReader<TaskBatch.Row, T, TaskSplit, TaskSplitState> {

    IcebergSourceReader(
            Supplier<SplitReader<TaskBatch.Row, TaskSplit>> splitReaders,
            SourceReaderContext context,
            FetchedBatches fetched,
            RecordEmitter<TaskBatch.Row, T, TaskSplitState> emitter) {
        super(
                splitReaders,
                emitter,
                new Configuration(),
                context,
                fetched,
                SplitStates.of(TaskSplitState::new, TaskSplitState::toSplit));
    }

    @Override
    public void start() {
        context.sendSplitRequest();
    }

    @Override
    protected void onSplitFinished(Map<String, TaskSplitState> finished) {
        context.sendSplitRequest();
    }

    private static Counter rowsEmitted(SourceReaderContext context) {
        return context.metricGroup().addGroup("streamfusion").counter("rowsEmitted");
    }

    /** Emits one row and moves its split's position past it. */
    static RecordEmitter<TaskBatch.Row, RowData, TaskSplitState> rowEmitter(SourceReaderContext context) {
        Counter rowsEmitted = rowsEmitted(context);
        return (TaskBatch.Row row, SourceOutput<RowData> output, TaskSplitState split) -> {
            output.collect(row.rows.row(row.index));
            split.task = row.task;
            split.emitted = row.position + 1;
            rowsEmitted.inc();
        };
    }

    /** Emits a whole batch and moves its split's position past its rows, as {@link #rowEmitter} does row by row. */
    static RecordEmitter<TaskBatch.Row, ArrowBatch, TaskSplitState> batchEmitter(SourceReaderContext context) {
        Counter rowsEmitted = rowsEmitted(context);
        ArrowBatch batch = new ArrowBatch();
        return (TaskBatch.Row row, SourceOutput<ArrowBatch> output, TaskSplitState split) -> {
            int rows = row.root.getRowCount();
            output.collect(batch.of(row.root));
            split.task = row.task;
            split.emitted = row.position + rows;
            rowsEmitted.inc(rows);
        };
    }
}
