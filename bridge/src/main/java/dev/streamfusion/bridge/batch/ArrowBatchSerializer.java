package dev.streamfusion.bridge.batch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.runtime.DataOutputViewStream;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;

/**
 * Serializes an {@link ArrowBatch} as one Arrow IPC stream (schema and batch), length-prefixed.
 *
 * <p>Copies share the batch: a batch is immutable while it is carried, and valid only during the
 * call that carries it (see {@link ArrowBatch}). Deserialized batches are {@linkplain
 * ArrowBatch#received received}: allocated from this class loader's receiving allocator and freed
 * by the operator that consumes them.
 */
@Internal
public final class ArrowBatchSerializer extends TypeSerializer<ArrowBatch> {

    private static final long serialVersionUID = 1L;

    private static final BufferAllocator RECEIVING = new RootAllocator();

    /** Bytes of received batches not yet released, in this class loader. */
    public static long receivedBytes() {
        return RECEIVING.getAllocatedMemory();
    }

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public TypeSerializer<ArrowBatch> duplicate() {
        return this;
    }

    @Override
    public ArrowBatch createInstance() {
        return new ArrowBatch();
    }

    @Override
    public ArrowBatch copy(ArrowBatch from) {
        return from;
    }

    @Override
    public ArrowBatch copy(ArrowBatch from, ArrowBatch reuse) {
        return from;
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(ArrowBatch record, DataOutputView target) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ArrowStreamWriter writer = new ArrowStreamWriter(record.root(), null, Channels.newChannel(bytes))) {
            writer.start();
            writer.writeBatch();
            writer.end();
        }
        target.writeInt(bytes.size());
        bytes.writeTo(new DataOutputViewStream(target));
    }

    @Override
    public ArrowBatch deserialize(DataInputView source) throws IOException {
        byte[] bytes = new byte[source.readInt()];
        source.readFully(bytes);
        try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes), RECEIVING)) {
            if (!reader.loadNextBatch()) {
                throw new IOException("a serialized Arrow batch holds no record batch");
            }
            VectorSchemaRoot read = reader.getVectorSchemaRoot();
            VectorSchemaRoot own = VectorSchemaRoot.create(read.getSchema(), RECEIVING);
            for (int i = 0; i < read.getFieldVectors().size(); i++) {
                read.getVector(i).makeTransferPair(own.getVector(i)).transfer();
            }
            own.setRowCount(read.getRowCount());
            return ArrowBatch.received(own);
        }
    }

    @Override
    public ArrowBatch deserialize(ArrowBatch reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        byte[] bytes = new byte[source.readInt()];
        source.readFully(bytes);
        target.writeInt(bytes.length);
        target.write(bytes);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof ArrowBatchSerializer;
    }

    @Override
    public int hashCode() {
        return ArrowBatchSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<ArrowBatch> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The serializer has no configuration: any version reads any batch it wrote. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<ArrowBatch> {
        public Snapshot() {
            super(ArrowBatchSerializer::new);
        }
    }
}
