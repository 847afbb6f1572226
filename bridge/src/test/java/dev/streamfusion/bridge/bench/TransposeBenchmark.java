package dev.streamfusion.bridge.bench;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.NativeProjection;
import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.ArrowBatchSerializer;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.columnar.BinaryRowsWriter;
import dev.streamfusion.bridge.types.ArrowTypes;
import dev.streamfusion.bridge.writer.RowDataArrowWriter;
import dev.streamfusion.bridge.writer.SinkRows;

import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
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

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.IntStream;

import static org.apache.flink.table.api.DataTypes.FIELD;

/**
 * Throughput of the bridge's two transposes, in rows per second, over batches of {@value #ROWS}
 * rows:
 *
 * <ul>
 *   <li>{@code rowsToArrow}: Flink {@code RowData} to Arrow vectors (what a sink does per batch);
 *   <li>{@code arrowToRows}: Arrow vectors read by Flink as {@code ColumnarRowData}, every field of
 *       every row (what a source's downstream does);
 *   <li>{@code rustRoundTrip}: an Arrow batch exported to Rust, checked and exported back;
 *   <li>{@code columnarRowsCopied}: each {@code ColumnarRowData} view copied by Flink's {@code
 *       RowDataSerializer}, as Flink copies a source's rows into the next chained operator when
 *       the job does not reuse objects;
 *   <li>{@code binaryRowsCopied}: the batch written natively in Flink's binary row layout and each
 *       {@code BinaryRowData} view copied the same way;
 *   <li>{@code binaryRowsToArrowInJava}: rows in Flink's binary layout (what a sink gets from the
 *       network or from a source's binary rows) to Arrow by the Java writer, a getter per value;
 *   <li>{@code binaryRowsToArrow}: the same rows through {@code SinkRows}: their bytes copied and
 *       transposed natively, nested values included;
 *   <li>{@code exchangeWithSchema} and {@code exchangeRecordBatchOnly}: the batch across a network
 *       exchange ({@code ArrowBatchSerializer} writes it and reads it back, and the received copy
 *       is freed), framed as a whole Arrow IPC stream, or as its record batch message alone (the
 *       receiver knowing the schema from the stream's type).
 * </ul>
 *
 * <p>Run against a release native build: {@code ./bin/bench-transpose} (it builds with {@code
 * -Prelease} and refuses a debug library).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx2g"})
public class TransposeBenchmark {

    static final int ROWS = 4096;

    @Param({"narrow_ints", "wide_strings", "nested"})
    public String schema;

    private BufferAllocator allocator;
    private RowType rowType;
    private List<RowData> rows;
    private RowDataArrowWriter writer;
    private RowDataArrowWriter batchWriter;
    private VectorSchemaRoot batch;
    private NativeProjection identity;
    private BinaryRowsWriter binaryRows;
    private RowDataSerializer serializer;
    private List<RowData> binaryRowList;
    private SinkRows sinkRows;
    private ArrowBatchSerializer withSchema;
    private ArrowBatchSerializer recordBatchOnly;
    private DataOutputSerializer exchanged;

    @Setup(Level.Trial)
    public void setUp() {
        NativeLibrary.requireRelease("TransposeBenchmark");
        allocator = new RootAllocator();
        rowType = rowType(schema);
        rows = generate(rowType, schema, ROWS);
        writer = RowDataArrowWriter.create(rowType, allocator);
        // A second writer owns the batch the read benchmarks use, apart from the one under test.
        batchWriter = RowDataArrowWriter.create(rowType, allocator);
        batch = batchWriter.write(rows);
        identity =
                NativeProjection.create(
                        allocator,
                        ArrowTypes.toArrowSchema(rowType),
                        IntStream.range(0, rowType.getFieldCount()).toArray());
        binaryRows = BinaryRowsWriter.create(allocator, batch.getSchema(), rowType);
        serializer = new RowDataSerializer(rowType);
        binaryRowList = new ArrayList<>();
        for (RowData row : rows) {
            binaryRowList.add(serializer.toBinaryRow(row).copy());
        }
        sinkRows = SinkRows.create(rowType, allocator);
        withSchema = new ArrowBatchSerializer();
        recordBatchOnly = new ArrowBatchSerializer(rowType);
        exchanged = new DataOutputSerializer(1 << 20);
        if (!batch.getSchema().equals(ArrowTypes.toArrowSchema(rowType))) {
            throw new IllegalStateException("the batch's schema is not its row type's: the lean framing would not apply");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        identity.close();
        sinkRows.close();
        if (binaryRows != null) {
            binaryRows.close();
        }
        batchWriter.close();
        writer.close();
        allocator.close();
    }

    private int exchange(ArrowBatchSerializer serializer) throws IOException {
        exchanged.clear();
        serializer.serialize(new ArrowBatch().of(batch), exchanged);
        ArrowBatch received =
                serializer.deserialize(new DataInputDeserializer(exchanged.getSharedBuffer(), 0, exchanged.length()));
        int rowCount = received.root().getRowCount();
        received.release();
        return rowCount;
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int exchangeWithSchema() throws IOException {
        return exchange(withSchema);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int exchangeRecordBatchOnly() throws IOException {
        return exchange(recordBatchOnly);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public VectorSchemaRoot rowsToArrow() {
        return writer.write(rows);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public VectorSchemaRoot binaryRowsToArrowInJava() {
        return writer.write(binaryRowList);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public VectorSchemaRoot binaryRowsToArrow() {
        for (RowData row : binaryRowList) {
            sinkRows.add(row);
        }
        return sinkRows.finishBatch();
    }

    /** A source's row views handed straight to a sink, each read through its getters. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public VectorSchemaRoot columnarViewsToArrowInJava() {
        viewsInto(writer::append);
        return writer.finishBatch();
    }

    /** The same views into {@code SinkRows}, which copies their text and bytes from the batch. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public VectorSchemaRoot columnarViewsToArrow() {
        viewsInto(sinkRows::add);
        return sinkRows.finishBatch();
    }

    private void viewsInto(Consumer<RowData> sink) {
        try (ArrowColumnarBatch views = ArrowColumnarBatch.of(batch, rowType)) {
            for (int r = 0; r < views.rowCount(); r++) {
                sink.accept(views.row(r));
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void arrowToRows(Blackhole blackhole) {
        readAll(ArrowColumnarBatch.of(batch, rowType), blackhole);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void rustRoundTrip(Blackhole blackhole) {
        blackhole.consume(identity.project(batch).getRowCount());
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void columnarRowsCopied(Blackhole blackhole) {
        copyAll(ArrowColumnarBatch.of(batch, rowType), blackhole);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void binaryRowsCopied(Blackhole blackhole) {
        try (ArrowColumnarBatch rows = ArrowColumnarBatch.of(batch, rowType).writeBinaryRows(binaryRows, batch)) {
            copyAll(rows, blackhole);
        }
    }

    private void copyAll(ArrowColumnarBatch rows, Blackhole blackhole) {
        for (int r = 0; r < rows.rowCount(); r++) {
            blackhole.consume(serializer.copy(rows.row(r)));
        }
    }

    private void readAll(ArrowColumnarBatch columns, Blackhole blackhole) {
        int fields = rowType.getFieldCount();
        for (int r = 0; r < columns.rowCount(); r++) {
            RowData row = columns.row(r);
            for (int f = 0; f < fields; f++) {
                if (row.isNullAt(f)) {
                    continue;
                }
                switch (rowType.getTypeAt(f).getTypeRoot()) {
                    case INTEGER:
                        blackhole.consume(row.getInt(f));
                        break;
                    case BIGINT:
                        blackhole.consume(row.getLong(f));
                        break;
                    case VARCHAR:
                        blackhole.consume(row.getString(f));
                        break;
                    case TIMESTAMP_WITHOUT_TIME_ZONE:
                        blackhole.consume(row.getTimestamp(f, 3));
                        break;
                    case ARRAY:
                        blackhole.consume(row.getArray(f).getInt(0));
                        break;
                    case MAP:
                        blackhole.consume(row.getMap(f).keyArray().getString(0));
                        break;
                    case ROW:
                        blackhole.consume(row.getRow(f, 2).getLong(0));
                        break;
                    default:
                        throw new IllegalStateException(rowType.getTypeAt(f).asSummaryString());
                }
            }
        }
    }

    static RowType rowType(String schema) {
        List<DataTypes.Field> fields = new ArrayList<>();
        switch (schema) {
            case "narrow_ints":
                fields.add(FIELD("a", DataTypes.INT()));
                fields.add(FIELD("b", DataTypes.BIGINT()));
                fields.add(FIELD("c", DataTypes.INT()));
                fields.add(FIELD("d", DataTypes.BIGINT()));
                break;
            case "wide_strings":
                for (int i = 0; i < 20; i++) {
                    fields.add(FIELD("s" + i, DataTypes.STRING()));
                }
                break;
            case "nested":
                fields.add(FIELD("id", DataTypes.BIGINT()));
                fields.add(FIELD("ts", DataTypes.TIMESTAMP(3)));
                fields.add(FIELD("tags", DataTypes.ARRAY(DataTypes.INT())));
                fields.add(FIELD("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.BIGINT())));
                fields.add(
                        FIELD(
                                "bid",
                                DataTypes.ROW(
                                        FIELD("price", DataTypes.BIGINT()),
                                        FIELD("channel", DataTypes.STRING()))));
                break;
            default:
                throw new IllegalArgumentException(schema);
        }
        return (RowType) DataTypes.ROW(fields.toArray(new DataTypes.Field[0])).notNull().getLogicalType();
    }

    static List<RowData> generate(RowType type, String schema, int count) {
        Random random = new Random(17);
        List<RowData> rows = new ArrayList<>(count);
        for (int r = 0; r < count; r++) {
            GenericRowData row = new GenericRowData(type.getFieldCount());
            for (int f = 0; f < type.getFieldCount(); f++) {
                switch (type.getTypeAt(f).getTypeRoot()) {
                    case INTEGER:
                        row.setField(f, random.nextInt());
                        break;
                    case BIGINT:
                        row.setField(f, random.nextLong());
                        break;
                    case VARCHAR:
                        row.setField(f, StringData.fromString(word(random, 16 + random.nextInt(17))));
                        break;
                    case TIMESTAMP_WITHOUT_TIME_ZONE:
                        row.setField(f, TimestampData.fromEpochMillis(1_700_000_000_000L + r));
                        break;
                    case ARRAY:
                        Integer[] tags = new Integer[1 + random.nextInt(4)];
                        for (int i = 0; i < tags.length; i++) {
                            tags[i] = random.nextInt(100);
                        }
                        row.setField(f, new GenericArrayData(tags));
                        break;
                    case MAP:
                        Map<Object, Object> attrs = new HashMap<>();
                        int size = 1 + random.nextInt(3);
                        for (int i = 0; i < size; i++) {
                            attrs.put(StringData.fromString("k" + i), random.nextLong());
                        }
                        row.setField(f, new GenericMapData(attrs));
                        break;
                    case ROW:
                        row.setField(
                                f,
                                GenericRowData.of(
                                        random.nextLong(), StringData.fromString(word(random, 8))));
                        break;
                    default:
                        throw new IllegalStateException(schema);
                }
            }
            rows.add(row);
        }
        return rows;
    }

    private static String word(Random random, int length) {
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            s.append((char) ('a' + random.nextInt(26)));
        }
        return s.toString();
    }
}
