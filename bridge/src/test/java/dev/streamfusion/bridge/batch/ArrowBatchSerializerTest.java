package dev.streamfusion.bridge.batch;

import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

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
