package dev.streamfusion.iceberg.sink;

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
 * The writing topology of an Iceberg table: data file writers at the input's parallelism, then
 * one committer.
 */
@Internal
public final class IcebergSink implements Serializable {

    private static final long serialVersionUID = 1L;

    private final IcebergTableRef table;
    private final WriterDescription description;
    private final RowType rowType;
    /** The branch commits go to, or {@code null} for the main branch. */
    private final String branch;

    public IcebergSink(IcebergTableRef table, WriterDescription description, RowType rowType, String branch) {
        this.table = table;
        this.description = description;
        this.rowType = rowType;
        this.branch = branch;
    }

    /** Appends the writers and the committer to {@code rows}; {@code uids} names their state. */
    public DataStreamSink<?> consume(DataStream<RowData> rows, Function<String, Optional<String>> uids) {
        SingleOutputStreamOperator<WriteResult> written = rows.transform(
                "IcebergWriter(" + table + ")",
                TypeInformation.of(WriteResult.class),
                new DataFileWriterOperator(table.toString(), description, rowType));
        uids.apply("streamfusion-iceberg-writer").ifPresent(written::uid);
        SingleOutputStreamOperator<Void> committed = written
                .transform("IcebergCommitter(" + table + ")", Types.VOID, new CommitterOperator(table, branch, description.specId()))
                .setParallelism(1)
                .setMaxParallelism(1);
        uids.apply("streamfusion-iceberg-committer").ifPresent(committed::uid);
        return committed.sinkTo(new DiscardingSink<>()).setParallelism(1).name("IcebergCommitted(" + table + ")");
    }
}
