package dev.streamfusion.bridge.batch;

import dev.streamfusion.bridge.types.ArrowTypes;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.java.typeutils.runtime.DataInputViewStream;
import org.apache.flink.api.java.typeutils.runtime.DataOutputViewStream;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Serializes an {@link ArrowBatch} in one of two framings:
 *
 * <ul>
 *   <li>A batch whose schema is the one of the stream's row type ({@link ArrowTypes#toArrowSchema}),
 *       or that one with every column nullable, is written as a negative header telling which and
 *       its Arrow IPC record batch message alone, straight to the target: the receiver knows the
 *       schema from the type, and the message its own lengths.
 *   <li>Any other batch, or any batch when the row type is not known (a serializer restored from a
 *       snapshot), is written as its length and a whole Arrow IPC stream (schema and batch).
 * </ul>
 *
 * <p>Copies share the batch: a batch is immutable while it is carried, and valid only during the
 * call that carries it (see {@link ArrowBatch}). Deserialized batches are {@linkplain
 * ArrowBatch#received received}: allocated from this class loader's receiving allocator and freed
 * by the operator that consumes them.
 */
@Internal
public final class ArrowBatchSerializer extends TypeSerializer<ArrowBatch> {

    private static final long serialVersionUID = 2L;

    private static final BufferAllocator RECEIVING = new RootAllocator();

    /**
     * The header of a batch written as its record batch message alone, of each schema the
     * receiver derives from the row type: {@code -1 - i} for {@code knownSchemas()[i]}. Any other
     * header is the length of a whole stream.
     */
    private static final int RECORD_BATCH = -1;

    /** The row type of the stream's batches, or {@code null} when it is not known. */
    private final RowType rowType;

    /**
     * The schemas a batch of {@link #rowType} is written without, derived on first use: Arrow's
     * schema of the row type, and the same with every column nullable (as the native calc
     * declares its columns).
     */
    private transient Schema[] knownSchemas;

    /** A serializer that writes every batch with its schema. */
    public ArrowBatchSerializer() {
        this(null);
    }

    /** A serializer of batches of {@code rowType}, which are written without their schema. */
    public ArrowBatchSerializer(RowType rowType) {
        this.rowType = rowType;
    }

    /** Bytes of received batches not yet released, in this class loader. */
    public static long receivedBytes() {
        return RECEIVING.getAllocatedMemory();
    }

    private Schema[] knownSchemas() {
        if (knownSchemas == null) {
            if (rowType == null) {
                knownSchemas = new Schema[0];
            } else {
                List<RowType.RowField> nullable = new ArrayList<>();
                for (RowType.RowField field : rowType.getFields()) {
                    nullable.add(new RowType.RowField(field.getName(), field.getType().copy(true)));
                }
                knownSchemas = new Schema[] {
                    ArrowTypes.toArrowSchema(rowType), ArrowTypes.toArrowSchema(new RowType(nullable))
                };
            }
        }
        return knownSchemas;
    }

    /** The header of a batch of {@code schema}: a record batch header, or 0 for a whole stream. */
    private int header(Schema schema) {
        Schema[] known = knownSchemas();
        for (int i = 0; i < known.length; i++) {
            if (known[i].equals(schema)) {
                return RECORD_BATCH - i;
            }
        }
        return 0;
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
        VectorSchemaRoot root = record.root();
        int header = header(root.getSchema());
        if (header != 0) {
            // The IPC message holds its own lengths: it is written straight to the target.
            target.writeInt(header);
            try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
                MessageSerializer.serialize(new WriteChannel(Channels.newChannel(new DataOutputViewStream(target))), batch);
            }
            return;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
            writer.start();
            writer.writeBatch();
            writer.end();
        }
        target.writeInt(bytes.size());
        bytes.writeTo(new DataOutputViewStream(target));
    }

    @Override
    public ArrowBatch deserialize(DataInputView source) throws IOException {
        int header = source.readInt();
        if (header < 0) {
            return readRecordBatch(header, source);
        }
        byte[] bytes = new byte[header];
        source.readFully(bytes);
        return readStream(bytes);
    }

    private ArrowBatch readRecordBatch(int header, DataInputView source) throws IOException {
        Schema[] schemas = knownSchemas();
        int index = RECORD_BATCH - header;
        if (index >= schemas.length) {
            throw new IOException(
                    rowType == null
                            ? "a batch written without its schema reached a serializer that does not know its row type"
                            : "a batch's header " + header + " names no schema of its row type");
        }
        Schema known = schemas[index];
        ReadChannel channel = new ReadChannel(Channels.newChannel(new DataInputViewStream(source)));
        try (ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(channel, RECEIVING)) {
            if (batch == null) {
                throw new IOException("a serialized Arrow batch ends before its record batch message");
            }
            VectorSchemaRoot own = VectorSchemaRoot.create(known, RECEIVING);
            try {
                new VectorLoader(own).load(batch);
            } catch (RuntimeException e) {
                own.close();
                throw new IOException("a serialized Arrow batch does not fit the schema of its row type", e);
            }
            return ArrowBatch.received(own);
        }
    }

    private static ArrowBatch readStream(byte[] bytes) throws IOException {
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
        int header = source.readInt();
        if (header < 0) {
            // Only the message itself knows its length: read it, and write it again.
            ArrowBatch batch = readRecordBatch(header, source);
            try {
                serialize(batch, target);
            } finally {
                batch.release();
            }
            return;
        }
        byte[] bytes = new byte[header];
        source.readFully(bytes);
        target.writeInt(header);
        target.write(bytes);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof ArrowBatchSerializer && Objects.equals(rowType, ((ArrowBatchSerializer) obj).rowType);
    }

    @Override
    public int hashCode() {
        return Objects.hash(ArrowBatchSerializer.class, rowType);
    }

    @Override
    public TypeSerializerSnapshot<ArrowBatch> snapshotConfiguration() {
        return new Snapshot();
    }

    /**
     * The snapshot keeps no row type: the serializer it restores reads batches written with their
     * schema, and the stream's type supplies the row type to the serializers of a running job.
     */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<ArrowBatch> {
        public Snapshot() {
            super(ArrowBatchSerializer::new);
        }
    }
}
