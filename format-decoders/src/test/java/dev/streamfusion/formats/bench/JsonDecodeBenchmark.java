package dev.streamfusion.formats.bench;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.formats.NativeFormatDecoder;
import dev.streamfusion.testkit.nexmark.NexmarkBids;

import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalType;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.apache.flink.table.api.DataTypes.FIELD;

/**
 * JSON decode on the JVM, same bytes, same run: Flink's default JSON deserializer producing
 * {@code RowData} per message versus the native decoder producing {@code ColumnarRowData} per
 * batch of {@value #MESSAGES} messages. Both read every field of every row once, as a query that
 * selects all columns would. Rows per second.
 *
 * <p>Run on a release native build: {@code ./bin/bench-decode json}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx2g"})
public class JsonDecodeBenchmark {

    static final int MESSAGES = 4096;

    /** {@code bid}: a Nexmark bid event; {@code wide}: 30 columns of mixed scalar types. */
    @Param({"bid", "wide"})
    public String shape;

    private BufferAllocator allocator;
    private RowType rowType;
    private List<byte[]> messages;
    private JsonParserRowDataDeserializationSchema flink;
    private List<RowData> flinkRows;
    private ListCollector<RowData> collector;
    private NativeFormatDecoder decoder;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        NativeLibrary.requireRelease("JsonDecodeBenchmark");
        allocator = new RootAllocator();
        rowType = "bid".equals(shape) ? NexmarkBids.BID_TYPE : wideType();
        List<RowData> rows = "bid".equals(shape) ? bids(MESSAGES) : wide(MESSAGES);
        JsonRowDataSerializationSchema serializer =
                new JsonRowDataSerializationSchema(
                        rowType, TimestampFormat.SQL, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
        serializer.open(null);
        messages = new ArrayList<>(MESSAGES);
        for (RowData row : rows) {
            messages.add(serializer.serialize(row));
        }
        flink = new JsonParserRowDataDeserializationSchema(
                rowType, InternalTypeInfo.of(rowType), false, false, TimestampFormat.SQL);
        flink.open(null);
        flinkRows = new ArrayList<>(MESSAGES);
        collector = new ListCollector<>(flinkRows);
        decoder = NativeFormatDecoder.create(allocator, "json", Map.of(), rowType);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        decoder.close();
        allocator.close();
    }

    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public void flinkJson(Blackhole blackhole) throws Exception {
        flinkRows.clear();
        for (byte[] message : messages) {
            flink.deserialize(message, collector);
        }
        for (RowData row : flinkRows) {
            readAll(row, rowType, blackhole);
        }
    }

    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public void nativeJson(Blackhole blackhole) {
        ArrowColumnarBatch batch = ArrowColumnarBatch.of(decoder.decode(messages), rowType);
        for (int r = 0; r < batch.rowCount(); r++) {
            readAll(batch.row(r), rowType, blackhole);
        }
    }

    /** Reads every field of {@code row}, as a query selecting all columns would. */
    static void readAll(RowData row, RowType rowType, Blackhole blackhole) {
        for (int f = 0; f < rowType.getFieldCount(); f++) {
            if (row.isNullAt(f)) {
                continue;
            }
            LogicalType type = rowType.getTypeAt(f);
            switch (type.getTypeRoot()) {
                case BOOLEAN:
                    blackhole.consume(row.getBoolean(f));
                    break;
                case INTEGER:
                case DATE:
                    blackhole.consume(row.getInt(f));
                    break;
                case BIGINT:
                    blackhole.consume(row.getLong(f));
                    break;
                case DOUBLE:
                    blackhole.consume(row.getDouble(f));
                    break;
                case DECIMAL:
                    blackhole.consume(row.getDecimal(f, 18, 4));
                    break;
                case VARCHAR:
                    blackhole.consume(row.getString(f));
                    break;
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                    blackhole.consume(row.getTimestamp(f, 3));
                    break;
                case ARRAY:
                    blackhole.consume(row.getArray(f).size());
                    break;
                default:
                    throw new IllegalStateException(type.asSummaryString());
            }
        }
    }

    static RowType wideType() {
        List<DataTypes.Field> fields = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            fields.add(FIELD("id" + i, DataTypes.BIGINT()));
            fields.add(FIELD("n" + i, DataTypes.INT()));
            fields.add(FIELD("x" + i, DataTypes.DOUBLE()));
            fields.add(FIELD("s" + i, DataTypes.STRING()));
            fields.add(FIELD("t" + i, DataTypes.TIMESTAMP(3)));
            fields.add(FIELD("d" + i, DataTypes.DECIMAL(18, 4)));
        }
        return (RowType) DataTypes.ROW(fields.toArray(new DataTypes.Field[0])).notNull().getLogicalType();
    }

    static List<RowData> wide(int count) {
        SplittableRandom random = new SplittableRandom(11);
        List<RowData> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            GenericRowData row = new GenericRowData(30);
            for (int c = 0; c < 5; c++) {
                row.setField(c * 6, random.nextLong());
                row.setField(c * 6 + 1, random.nextInt());
                row.setField(c * 6 + 2, random.nextDouble() * 1e6);
                row.setField(c * 6 + 3, StringData.fromString("value-" + random.nextInt(1 << 24) + "-abcdefghijkl"));
                row.setField(c * 6 + 4, TimestampData.fromEpochMillis(1_700_000_000_000L + random.nextInt(1 << 30)));
                row.setField(
                        c * 6 + 5,
                        DecimalData.fromUnscaledLong(random.nextLong(1_000_000_000_000L), 18, 4));
            }
            rows.add(row);
        }
        return rows;
    }

    /** The first {@code count} Nexmark bids of seed 7. */
    static List<RowData> bids(int count) {
        return new NexmarkBids(7).next(count);
    }
}
