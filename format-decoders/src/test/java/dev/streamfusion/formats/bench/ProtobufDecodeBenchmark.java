package dev.streamfusion.formats.bench;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.formats.NativeFormatDecoder;
import dev.streamfusion.testkit.nexmark.NexmarkBids;
import dev.streamfusion.testkit.nexmark.proto.Bid;

import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.formats.protobuf.PbFormatConfig;
import org.apache.flink.formats.protobuf.deserialize.PbRowDataDeserializationSchema;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Protobuf decode on the JVM, same bytes, same run: Flink's protobuf deserializer producing
 * {@code RowData} per message versus the native decoder producing {@code ColumnarRowData} per
 * batch of {@value #MESSAGES} Nexmark bids. Both read every field of every row once. Rows per
 * second.
 *
 * <p>Run on a release native build: {@code ./bin/bench-decode protobuf}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx2g"})
public class ProtobufDecodeBenchmark {

    static final int MESSAGES = 4096;

    private BufferAllocator allocator;
    private RowType rowType;
    private List<byte[]> messages;
    private PbRowDataDeserializationSchema flink;
    private List<RowData> flinkRows;
    private ListCollector<RowData> collector;
    private NativeFormatDecoder decoder;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        NativeLibrary.requireRelease("ProtobufDecodeBenchmark");
        allocator = new RootAllocator();
        rowType = NexmarkBids.PROTOBUF_BID_TYPE;
        messages = bids(MESSAGES);
        flink =
                new PbRowDataDeserializationSchema(
                        rowType, InternalTypeInfo.of(rowType), new PbFormatConfig(Bid.class.getName(), false, false, ""));
        flink.open(null);
        flinkRows = new ArrayList<>(MESSAGES);
        collector = new ListCollector<>(flinkRows);
        decoder =
                NativeFormatDecoder.create(
                        allocator, "protobuf", Map.of("message-class-name", Bid.class.getName()), rowType);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        decoder.close();
        allocator.close();
    }

    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public void flinkProtobuf(Blackhole blackhole) throws Exception {
        flinkRows.clear();
        for (byte[] message : messages) {
            flink.deserialize(message, collector);
        }
        for (RowData row : flinkRows) {
            JsonDecodeBenchmark.readAll(row, rowType, blackhole);
        }
    }

    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public void nativeProtobuf(Blackhole blackhole) {
        ArrowColumnarBatch batch = ArrowColumnarBatch.of(decoder.decode(messages), rowType);
        for (int r = 0; r < batch.rowCount(); r++) {
            JsonDecodeBenchmark.readAll(batch.row(r), rowType, blackhole);
        }
    }

    /** The JSON benchmark's bids, as protobuf messages (the timestamp as epoch milliseconds). */
    static List<byte[]> bids(int count) {
        List<byte[]> out = new ArrayList<>(count);
        for (RowData row : JsonDecodeBenchmark.bids(count)) {
            out.add(
                    Bid.newBuilder()
                            .setAuction(row.getLong(0))
                            .setBidder(row.getLong(1))
                            .setPrice(row.getLong(2))
                            .setChannel(row.getString(3).toString())
                            .setUrl(row.getString(4).toString())
                            .setDateTime(row.getTimestamp(5, 3).getMillisecond())
                            .setExtra(row.getString(6).toString())
                            .build()
                            .toByteArray());
        }
        return out;
    }
}
