package dev.streamfusion.iceberg.source;

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
 * downstream as views over native batches; a checkpoint records, per split, the file task being
 * read and how many of its rows were emitted.
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class IcebergSourceReader extends ArrowSourceReader<TaskBatch.Row, RowData, TaskSplit, TaskSplitState> {

    IcebergSourceReader(
            Supplier<SplitReader<TaskBatch.Row, TaskSplit>> splitReaders,
            SourceReaderContext context,
            FetchedBatches fetched) {
        super(
                splitReaders,
                new Emitter(context.metricGroup().addGroup("streamfusion").counter("rowsEmitted")),
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

    /** Emits one row and moves its split's position past it. */
    private static final class Emitter implements RecordEmitter<TaskBatch.Row, RowData, TaskSplitState> {

        private final Counter rowsEmitted;

        Emitter(Counter rowsEmitted) {
            this.rowsEmitted = rowsEmitted;
        }

        @Override
        public void emitRecord(TaskBatch.Row row, SourceOutput<RowData> output, TaskSplitState split) {
            output.collect(row.rows.row(row.index));
            split.task = row.task;
            split.emitted = row.position + 1;
            rowsEmitted.inc();
        }
    }
}
