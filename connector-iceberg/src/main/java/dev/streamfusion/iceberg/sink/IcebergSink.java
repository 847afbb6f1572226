package dev.streamfusion.iceberg.sink;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.KeyedBatches;
import dev.streamfusion.iceberg.internal.IcebergTableRef;
import dev.streamfusion.iceberg.internal.WriterDescription;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.util.Optional;
import java.util.function.Function;

/**
 * The writing topology of an Iceberg table: rows routed to the writers as the distribution says,
 * data file writers at the input's parallelism (or the one given), then one committer.
 */
@Internal
public final class IcebergSink implements Serializable {

    private static final long serialVersionUID = 1L;

    private final IcebergTableRef table;
    private final WriterDescription description;
    private final RowType rowType;
    /** The branch commits go to, or {@code null} for the main branch. */
    private final String branch;
    /** Routes rows to the writers by a hash, or {@code null} to keep the input's distribution. */
    private final Distribution distribution;
    /** The writers' parallelism, or {@code null} for the input's. */
    private final Integer parallelism;
    private final boolean overwrite;

    public IcebergSink(
            IcebergTableRef table, WriterDescription description, RowType rowType, String branch,
            Distribution distribution, Integer parallelism, boolean overwrite) {
        this.table = table;
        this.description = description;
        this.rowType = rowType;
        this.branch = branch;
        this.distribution = distribution;
        this.parallelism = parallelism;
        this.overwrite = overwrite;
    }

    /** Appends the writers and the committer to {@code rows}; {@code uids} names their state. */
    public DataStreamSink<?> consume(DataStream<RowData> rows, Function<String, Optional<String>> uids) {
        DataStream<RowData> routed = distribution == null ? rows : rows.keyBy(distribution.rows());
        SingleOutputStreamOperator<WriteResult> written = routed.transform(
                "IcebergWriter(" + table + ")",
                TypeInformation.of(WriteResult.class),
                new DataFileWriterOperator.Rows(table, description, rowType));
        // As iceberg-flink's writers: the input's parallelism unless write-parallelism is given.
        written.setParallelism(parallelism == null ? routed.getParallelism() : parallelism);
        uids.apply("streamfusion-iceberg-writer").ifPresent(written::uid);
        return commit(written, uids);
    }

    /**
     * Why the operator island's batches cannot be written as they are (chained to the island, at
     * its parallelism); empty when they can.
     */
    public Optional<String> batchesUnsupported() {
        if (description.writesChanges()) {
            return Optional.of("a table with equality fields is written from rows (changes are routed to the writers by key)");
        }
        return Optional.empty();
    }

    /**
     * Appends the writers of whole batches (at the batches' parallelism or {@code
     * write-parallelism}, routed to them natively as the distribution says, or as Flink feeds an
     * operator of another parallelism) and the committer to {@code batches}; only when {@link
     * #batchesUnsupported()} is empty.
     */
    public DataStreamSink<?> consumeBatches(DataStream<ArrowBatch> batches) {
        DataStream<ArrowBatch> routed = distribution == null
                ? batches
                : KeyedBatches.keyBy(batches, distribution.batches(description), table.toString(), parallelism);
        SingleOutputStreamOperator<WriteResult> written = routed
                .transform(
                        "NativeSinkBatches(" + table + ")",
                        TypeInformation.of(WriteResult.class),
                        new DataFileWriterOperator.Batches(table, description, rowType))
                .setParallelism(parallelism == null ? batches.getParallelism() : parallelism);
        return commit(written, name -> Optional.empty());
    }

    private DataStreamSink<?> commit(
            SingleOutputStreamOperator<WriteResult> written, Function<String, Optional<String>> uids) {
        SingleOutputStreamOperator<Void> committed = written
                .transform("IcebergCommitter(" + table + ")", Types.VOID,
                        new CommitterOperator(table, branch, description.specId(), overwrite))
                .setParallelism(1)
                .setMaxParallelism(1)
                // Never chained to the writers, whatever their parallelism: Flink derives the ids
                // of operators without a uid from how they chain, so a committer chained to
                // writers at parallelism 1 only would get another id at 2, and a savepoint would
                // not restore at another parallelism.
                .startNewChain();
        uids.apply("streamfusion-iceberg-committer").ifPresent(committed::uid);
        return committed.sinkTo(new DiscardingSink<>()).setParallelism(1).name("IcebergCommitted(" + table + ")");
    }
}
