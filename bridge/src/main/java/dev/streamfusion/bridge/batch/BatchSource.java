package dev.streamfusion.bridge.batch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;

import java.io.Serializable;

/**
 * A connector's source of rows turned into a source of whole Arrow batches for the operator
 * island: the enumerator, splits and checkpoints are the row source's, so a job's state does not
 * depend on which of the two reads; only the readers differ.
 *
 * @param <SplitT> the row source's split
 * @param <CheckpointT> its enumerator's checkpoint
 */
@Internal
public final class BatchSource<SplitT extends SourceSplit, CheckpointT> implements Source<ArrowBatch, SplitT, CheckpointT> {

    private static final long serialVersionUID = 1L;

    /**
     * How the connector makes a reader of batches.
     *
     * @param <SplitT> the split it reads
     */
    @FunctionalInterface
    public interface Readers<SplitT extends SourceSplit> extends Serializable {
        SourceReader<ArrowBatch, SplitT> create(SourceReaderContext context) throws Exception;
    }

    private final Source<RowData, SplitT, CheckpointT> rows;
    private final Readers<SplitT> readers;

    public BatchSource(Source<RowData, SplitT, CheckpointT> rows, Readers<SplitT> readers) {
        this.rows = rows;
        this.readers = readers;
    }

    @Override
    public Boundedness getBoundedness() {
        return rows.getBoundedness();
    }

    @Override
    public SourceReader<ArrowBatch, SplitT> createReader(SourceReaderContext context) throws Exception {
        return readers.create(context);
    }

    @Override
    public SplitEnumerator<SplitT, CheckpointT> createEnumerator(SplitEnumeratorContext<SplitT> context) throws Exception {
        return rows.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<SplitT, CheckpointT> restoreEnumerator(
            SplitEnumeratorContext<SplitT> context, CheckpointT checkpoint) throws Exception {
        return rows.restoreEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<SplitT> getSplitSerializer() {
        return rows.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<CheckpointT> getEnumeratorCheckpointSerializer() {
        return rows.getEnumeratorCheckpointSerializer();
    }
}
