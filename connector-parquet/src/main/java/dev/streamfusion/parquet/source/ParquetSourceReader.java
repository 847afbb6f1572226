package dev.streamfusion.parquet.source;

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
 * Reads the row groups it is given, asking the enumerator for the next when it runs out. Rows go
 * downstream as views over native batches, or the batches go whole (to the operator island); a
 * checkpoint records how many rows of each split were emitted.
 *
 * @param <T> what it emits: {@link RowData} or {@link ArrowBatch}
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class ParquetSourceReader<T> extends ArrowSourceReader<ParquetBatch.Row, T, RowGroupSplit, RowGroupSplitState> {

    ParquetSourceReader(
            Supplier<SplitReader<ParquetBatch.Row, RowGroupSplit>> splitReaders,
            Configuration configuration,
            SourceReaderContext context,
            FetchedBatches fetched,
            RecordEmitter<ParquetBatch.Row, T, RowGroupSplitState> emitter) {
        super(
                splitReaders,
                emitter,
                configuration,
                context,
                fetched,
                SplitStates.of(RowGroupSplitState::new, RowGroupSplitState::toSplit));
    }

    @Override
    public void start() {
        context.sendSplitRequest();
    }

    @Override
    protected void onSplitFinished(Map<String, RowGroupSplitState> finished) {
        context.sendSplitRequest();
    }

    private static Counter rowsEmitted(SourceReaderContext context) {
        return context.metricGroup().addGroup("streamfusion").counter("rowsEmitted");
    }

    /**
     * Emits one row (with its file's partition values and metadata, if the table reads any) and
     * counts it against its split, and in the reader's {@code streamfusion} metric group ({@code
     * rowsEmitted}).
     */
    static RecordEmitter<ParquetBatch.Row, RowData, RowGroupSplitState> rowEmitter(
            SourceReaderContext context, FileColumns columns) {
        Counter rowsEmitted = rowsEmitted(context);
        FileColumns.Assembler assembler = columns.allRead() ? null : columns.new Assembler();
        return (ParquetBatch.Row row, SourceOutput<RowData> output, RowGroupSplitState split) -> {
            RowData read = row.rows.row(row.index);
            if (assembler == null) {
                output.collect(read);
            } else {
                if (split.constants == null) {
                    split.constants = columns.constants(split.split);
                }
                output.collect(assembler.assemble(read, split.constants));
            }
            split.emitted++;
            rowsEmitted.inc();
        };
    }

    /**
     * Emits a whole batch (every column read from the file: {@link FileColumns#allRead()}) and
     * counts its rows as emitted, as {@link #rowEmitter} does row by row.
     */
    static RecordEmitter<ParquetBatch.Row, ArrowBatch, RowGroupSplitState> batchEmitter(SourceReaderContext context) {
        Counter rowsEmitted = rowsEmitted(context);
        ArrowBatch batch = new ArrowBatch();
        return (ParquetBatch.Row row, SourceOutput<ArrowBatch> output, RowGroupSplitState split) -> {
            int rows = row.root.getRowCount();
            output.collect(batch.of(row.root));
            split.emitted += rows;
            rowsEmitted.inc(rows);
        };
    }
}
