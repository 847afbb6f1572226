package dev.streamfusion.bridge.batch;

import dev.streamfusion.bridge.types.ArrowTypes;

import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Batches cross an exchange whole, and received ones are freed by their consumer. */
class ArrowBatchSerializerTest {

    @Test
    void aBatchRoundTripsAndTheReceivedCopyIsFreedByRelease() throws Exception {
        ArrowBatchSerializer serializer = new ArrowBatchSerializer();
        long receivedBefore = ArrowBatchSerializer.receivedBytes();
        try (BufferAllocator allocator = new RootAllocator();
                BigIntVector ids = new BigIntVector("id", allocator);
                VarCharVector names = new VarCharVector("name", allocator)) {
            ids.allocateNew(3);
            names.allocateNew(3);
            ids.set(0, Long.MIN_VALUE);
            ids.setNull(1);
            ids.set(2, 42);
            names.setSafe(0, "ä".getBytes(StandardCharsets.UTF_8));
            names.setSafe(1, new byte[0]);
            names.setNull(2);
            VectorSchemaRoot root = new VectorSchemaRoot(List.of(ids, names));
            root.setRowCount(3);

            DataOutputSerializer out = new DataOutputSerializer(64);
            serializer.serialize(new ArrowBatch().of(root), out);
            byte[] bytes = out.getCopyOfBuffer();

            ArrowBatch received = serializer.deserialize(new DataInputDeserializer(bytes));
            assertThat(received.root().contentToTSVString()).isEqualTo(root.contentToTSVString());
            assertThat(ArrowBatchSerializer.receivedBytes()).isGreaterThan(receivedBefore);
            received.release();
            received.release();
            assertThat(ArrowBatchSerializer.receivedBytes()).isEqualTo(receivedBefore);
            assertThatThrownBy(received::root).hasMessage("the batch was released");

            // Copying the serialized form copies its bytes exactly.
            DataOutputSerializer copied = new DataOutputSerializer(64);
            serializer.copy(new DataInputDeserializer(bytes), copied);
            assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);
        }
    }

    private static final RowType ROW =
            (RowType) DataTypes.ROW(
                            DataTypes.FIELD("id", DataTypes.BIGINT().notNull()),
                            DataTypes.FIELD("name", DataTypes.STRING()),
                            DataTypes.FIELD("price", DataTypes.DECIMAL(12, 2)),
                            DataTypes.FIELD("bids", DataTypes.ARRAY(DataTypes.INT())))
                    .getLogicalType();

    /** {@link #ROW} with every column nullable. */
    private static final RowType NULLABLE_ROW =
            (RowType) DataTypes.ROW(
                            DataTypes.FIELD("id", DataTypes.BIGINT()),
                            DataTypes.FIELD("name", DataTypes.STRING()),
                            DataTypes.FIELD("price", DataTypes.DECIMAL(12, 2)),
                            DataTypes.FIELD("bids", DataTypes.ARRAY(DataTypes.INT())))
                    .getLogicalType();

    /** Three rows of {@code rowType} ({@link #ROW} or {@link #NULLABLE_ROW}), with NULLs at every level. */
    private static VectorSchemaRoot rows(BufferAllocator allocator, RowType rowType) {
        VectorSchemaRoot root = VectorSchemaRoot.create(ArrowTypes.toArrowSchema(rowType), allocator);
        root.allocateNew();
        ((BigIntVector) root.getVector(0)).setSafe(0, 1);
        ((BigIntVector) root.getVector(0)).setSafe(1, 2);
        ((BigIntVector) root.getVector(0)).setSafe(2, 3);
        VarCharVector names = (VarCharVector) root.getVector(1);
        names.setSafe(0, "ä".getBytes(StandardCharsets.UTF_8));
        names.setNull(1);
        names.setSafe(2, new byte[0]);
        DecimalVector prices = (DecimalVector) root.getVector(2);
        prices.setSafe(0, new BigDecimal("-12.34"));
        prices.setSafe(1, new BigDecimal("9999999999.99"));
        prices.setNull(2);
        UnionListWriter bids = ((ListVector) root.getVector(3)).getWriter();
        bids.setPosition(0);
        bids.startList();
        bids.writeInt(7);
        bids.writeNull();
        bids.endList();
        bids.setPosition(2);
        bids.startList();
        bids.endList();
        bids.setValueCount(3);
        root.setRowCount(3);
        return root;
    }

    private static byte[] serialized(ArrowBatchSerializer serializer, VectorSchemaRoot root) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        serializer.serialize(new ArrowBatch().of(root), out);
        return out.getCopyOfBuffer();
    }

    /** Asserts that a batch read back equals {@code root}, and frees it. */
    private static void assertReadBack(ArrowBatch received, VectorSchemaRoot root) {
        assertThat(received.root().getSchema()).isEqualTo(root.getSchema());
        assertThat(received.root().contentToTSVString()).isEqualTo(root.contentToTSVString());
        received.release();
    }

    /**
     * Writes {@code root} with a serializer of {@link #ROW} and checks the record batch framing:
     * its {@code header}, two batches in a row each read to its end, a byte-exact copy, a truncated
     * batch refused, and every received byte freed. Returns the serialized batch.
     */
    private static byte[] assertRecordBatchFraming(VectorSchemaRoot root, int header) throws IOException {
        ArrowBatchSerializer lean = new ArrowBatchSerializer(ROW);
        long receivedBefore = ArrowBatchSerializer.receivedBytes();
        byte[] bytes = serialized(lean, root);
        assertThat(new DataInputDeserializer(bytes).readInt()).isEqualTo(header);
        byte[] twice = new byte[bytes.length * 2];
        System.arraycopy(bytes, 0, twice, 0, bytes.length);
        System.arraycopy(bytes, 0, twice, bytes.length, bytes.length);
        DataInputDeserializer in = new DataInputDeserializer(twice);
        assertReadBack(lean.deserialize(in), root);
        assertReadBack(lean.deserialize(in), root);
        assertThat(in.available()).isZero();

        DataOutputSerializer copied = new DataOutputSerializer(64);
        lean.copy(new DataInputDeserializer(bytes), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);

        // A truncated batch is an error, not a partial batch.
        assertThatThrownBy(() -> lean.deserialize(new DataInputDeserializer(bytes, 0, bytes.length - 9)))
                .isInstanceOf(IOException.class);
        assertThat(ArrowBatchSerializer.receivedBytes()).isEqualTo(receivedBefore);
        return bytes;
    }

    @Test
    void aBatchOfItsRowTypeIsWrittenWithoutItsSchemaAndReadBackWhole() throws Exception {
        ArrowBatchSerializer lean = new ArrowBatchSerializer(ROW);
        long receivedBefore = ArrowBatchSerializer.receivedBytes();
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = rows(allocator, ROW)) {
            byte[] bytes = assertRecordBatchFraming(root, -1);

            // The same batch as a whole stream: its length first, and the schema is what the
            // record batch framing saves. A serializer of the row type reads both.
            byte[] withSchema = serialized(new ArrowBatchSerializer(), root);
            assertThat(new DataInputDeserializer(withSchema).readInt()).isEqualTo(withSchema.length - 4);
            assertThat(bytes.length).isLessThan(withSchema.length);
            assertReadBack(lean.deserialize(new DataInputDeserializer(withSchema)), root);
            DataOutputSerializer copied = new DataOutputSerializer(64);
            lean.copy(new DataInputDeserializer(withSchema), copied);
            assertThat(copied.getCopyOfBuffer()).isEqualTo(withSchema);

            // A serializer that does not know the row type cannot read the record batch framing:
            // it says so, and allocates nothing.
            assertThatThrownBy(() -> new ArrowBatchSerializer().deserialize(new DataInputDeserializer(bytes)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("does not know its row type");
            assertThat(ArrowBatchSerializer.receivedBytes()).isEqualTo(receivedBefore);
        }
    }

    @Test
    void aBatchOfTheRowTypeWithNullableColumnsIsWrittenWithoutItsSchemaToo() throws Exception {
        // What the native calc produces: the row type's columns, each declared nullable.
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = rows(allocator, NULLABLE_ROW)) {
            byte[] bytes = assertRecordBatchFraming(root, -2);

            // A header naming no schema the row type gives is refused.
            byte[] unknown = bytes.clone();
            unknown[3] = -3;
            assertThatThrownBy(() -> new ArrowBatchSerializer(ROW).deserialize(new DataInputDeserializer(unknown)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("names no schema");
        }
    }

    @Test
    void aBatchOfAnotherSchemaIsWrittenWithIt() throws Exception {
        ArrowBatchSerializer lean = new ArrowBatchSerializer(ROW);
        try (BufferAllocator allocator = new RootAllocator();
                IntVector other = new IntVector("other", allocator)) {
            other.allocateNew(2);
            other.set(0, 5);
            other.setNull(1);
            VectorSchemaRoot root = new VectorSchemaRoot(List.of(other));
            root.setRowCount(2);
            byte[] bytes = serialized(lean, root);
            assertThat(new DataInputDeserializer(bytes).readInt()).isEqualTo(bytes.length - 4);
            ArrowBatch received = lean.deserialize(new DataInputDeserializer(bytes));
            assertThat(received.root().contentToTSVString()).isEqualTo(root.contentToTSVString());
            received.release();
        }
    }

    @Test
    void copiesShareTheBatchAndOnlyReceivedBatchesAreFreedByTheirConsumer() {
        ArrowBatchSerializer serializer = new ArrowBatchSerializer();
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.of(new BigIntVector("id", allocator))) {
            ArrowBatch produced = new ArrowBatch().of(root);
            assertThat(serializer.copy(produced)).isSameAs(produced);
            produced.release();
            assertThat(produced.root()).isSameAs(root);
            assertThatThrownBy(() -> ArrowBatch.received(root).of(root)).isInstanceOf(IllegalStateException.class);
        }
    }
}
