package dev.streamfusion.parquet.source;

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
 * downstream as views over native batches; a checkpoint records how many rows of each split were
 * emitted.
 */
// close() declares Exception, as the Flink interface it implements does.
@SuppressWarnings("try")
@Internal
final class ParquetSourceReader extends ArrowSourceReader<ParquetBatch.Row, RowGroupSplit, RowGroupSplitState> {

    ParquetSourceReader(
            Supplier<SplitReader<ParquetBatch.Row, RowGroupSplit>> splitReaders,
            Configuration configuration,
            SourceReaderContext context,
            FetchedBatches fetched,
            FileColumns columns) {
        super(
                splitReaders,
                new Emitter(context.metricGroup().addGroup("streamfusion").counter("rowsEmitted"), columns),
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

    /**
     * Emits one row (with its file's partition values and metadata, if the table reads any) and
     * counts it against its split, and in the reader's {@code streamfusion} metric group ({@code
     * rowsEmitted}).
     */
    private static final class Emitter implements RecordEmitter<ParquetBatch.Row, RowData, RowGroupSplitState> {

        private final Counter rowsEmitted;
        private final FileColumns columns;
        /** {@code null} when every column is read from the file. */
        private final FileColumns.Assembler assembler;

        Emitter(Counter rowsEmitted, FileColumns columns) {
            this.rowsEmitted = rowsEmitted;
            this.columns = columns;
            this.assembler = columns.allRead() ? null : columns.new Assembler();
        }

        @Override
        public void emitRecord(ParquetBatch.Row row, SourceOutput<RowData> output, RowGroupSplitState split) {
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
        }
    }
}
