package dev.streamfusion.formats;

import dev.streamfusion.bridge.ArrowBatchExporter;
import dev.streamfusion.bridge.ArrowBatchImporter;
import dev.streamfusion.bridge.NativeHandle;
import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.types.ArrowTypes;
import dev.streamfusion.formats.registry.HttpSchemaRegistryClient;
import dev.streamfusion.formats.registry.SchemaRegistryClient;
import dev.streamfusion.formats.registry.SchemaRegistryException;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A native decoder of one Flink format ({@code json}, ...) producing rows of a fixed row type:
 * the columns the query reads, so unread fields are skipped while parsing and never built.
 *
 * <p>Messages cross to Rust many at a time, as one Arrow binary column, and the rows come back as
 * one Arrow batch: one JNI call per batch, none per message. A message that cannot be decoded
 * fails the call with a {@link dev.streamfusion.bridge.NativeDecodeException} whose position is
 * the message's index in the batch, unless the format's ignore-parse-errors option is set, in
 * which case it is skipped and counted ({@link #skipped()}). A deferring decoder instead hands
 * such a message back: it gives no rows and is listed by {@link #deferred()}, for the caller to
 * decode with Flink's own format ({@link StockMessageDecoder}), which then decides what it means.
 */
@Internal
public final class NativeFormatDecoder extends NativeHandle {

    private static final Schema MESSAGES =
            new Schema(List.of(Field.nullable("message", ArrowType.Binary.INSTANCE)));

    private final BufferAllocator allocator;
    private final RowType rowType;
    private final VectorSchemaRoot messages;
    private final ArrowBatchImporter rows;
    /** For formats whose messages name their writer schema (avro-confluent); else null. */
    private final SchemaRegistryClient registry;
    private final Set<Integer> knownSchemaIds = new HashSet<>();
    /**
     * Whether messages the decoder cannot decode are handed back: then a writer schema the
     * registry does not give is left to Flink's format (which asks the registry itself and fails
     * naming the record), instead of failing the batch here.
     */
    private final boolean defers;

    private NativeFormatDecoder(
            BufferAllocator allocator,
            RowType rowType,
            long address,
            ArrowBatchImporter rows,
            SchemaRegistryClient registry,
            boolean defers) {
        super("format decoder", address, NativeFormatDecoder::free0);
        this.defers = defers;
        this.allocator = allocator;
        this.rowType = rowType;
        this.rows = rows;
        this.registry = registry;
        this.messages = VectorSchemaRoot.create(MESSAGES, allocator);
    }

    /**
     * A decoder of {@code format} with its options (keys without the format prefix, e.g. {@code
     * ignore-parse-errors}) producing rows of {@code rowType}.
     *
     * @throws dev.streamfusion.bridge.NativeConfigException if an option, or a type of {@code
     *     rowType}, is not supported by the format
     */
    public static NativeFormatDecoder create(
            BufferAllocator allocator, String format, Map<String, String> options, RowType rowType) {
        return create(allocator, format, options, rowType, rowType);
    }

    /**
     * A decoder of messages holding the table's {@code physical} columns, producing the {@code
     * produced} ones (a subset by name, in any order: the columns the query reads). Formats that
     * address values by position (CSV) need the physical columns; the others use names.
     */
    public static NativeFormatDecoder create(
            BufferAllocator allocator,
            String format,
            Map<String, String> options,
            RowType physical,
            RowType rowType) {
        return create(allocator, format, options, physical, rowType, false);
    }

    /**
     * {@link #create(BufferAllocator, String, Map, RowType, RowType)}, deferring: a message the
     * native decoder cannot decode as Flink's format would is handed back ({@link #deferred()})
     * instead of failing the batch or being skipped, whatever the format's ignore-parse-errors
     * option says; the caller's {@link StockMessageDecoder} applies that option.
     */
    public static NativeFormatDecoder createDeferring(
            BufferAllocator allocator,
            String format,
            Map<String, String> options,
            RowType physical,
            RowType rowType) {
        Map<String, String> strict = new HashMap<>(options);
        strict.remove(IGNORE_PARSE_ERRORS);
        return create(allocator, format, strict, physical, rowType, true);
    }

    /**
     * Checks that the native decoder takes {@code format} with {@code options} for these row
     * types, as {@link #create(BufferAllocator, String, Map, RowType, RowType)} would, and frees
     * what it built: for planning, so that nothing is first refused on a task manager.
     *
     * @throws RuntimeException what creating the decoder throws (a {@link
     *     dev.streamfusion.bridge.NativeConfigException} naming the option or type, or an error
     *     loading the native library)
     */
    public static void check(String format, Map<String, String> options, RowType physical, RowType rowType) {
        try (BufferAllocator allocator = new org.apache.arrow.memory.RootAllocator();
                NativeFormatDecoder decoder = createDeferring(allocator, format, options, physical, rowType)) {
            decoder.rowType();
        }
    }

    /** The option of the formats that have one to skip messages they cannot decode. */
    public static final String IGNORE_PARSE_ERRORS = "ignore-parse-errors";

    private static NativeFormatDecoder create(
            BufferAllocator allocator,
            String format,
            Map<String, String> options,
            RowType physical,
            RowType rowType,
            boolean defer) {
        NativeLibrary.load();
        FormatOptionArrays arrays = new FormatOptionArrays(options);
        Schema rowSchema = ArrowTypes.toNativeSchema(rowType);
        Schema physicalSchema = ArrowTypes.toNativeSchema(physical);
        ProtobufDescriptors protobuf =
                "protobuf".equals(format) ? ProtobufDescriptors.fromOptions(options) : null;
        byte[] descriptors = protobuf == null ? null : protobuf.fileDescriptorSet();
        String message = protobuf == null ? null : protobuf.messageName();
        long[] address = {0};
        try {
            ArrowBatchImporter rows =
                    ArrowBatchImporter.importSchema(
                            allocator,
                            out ->
                                    address[0] =
                                            ArrowBatchExporter.exportSchema(
                                                    allocator,
                                                    MESSAGES,
                                                    messageSchema ->
                                                            ArrowBatchExporter.exportSchema(
                                                                    allocator,
                                                                    physicalSchema,
                                                                    physicalAddress ->
                                                                            ArrowBatchExporter.exportSchema(
                                                                                    allocator,
                                                                                    rowSchema,
                                                                                    row ->
                                                                                            create(
                                                                                                    format,
                                                                                                    arrays.keys,
                                                                                                    arrays.values,
                                                                                                    messageSchema,
                                                                                                    physicalAddress,
                                                                                                    row,
                                                                                                    out,
                                                                                                    descriptors,
                                                                                                    message,
                                                                                                    defer)))));
            SchemaRegistryClient registry =
                    "avro-confluent".equals(format) ? HttpSchemaRegistryClient.fromOptions(options) : null;
            return new NativeFormatDecoder(allocator, rowType, address[0], rows, registry, defer);
        } catch (RuntimeException e) {
            if (address[0] != 0) {
                free0(address[0]);
            }
            throw e;
        }
    }

    public RowType rowType() {
        return rowType;
    }

    /**
     * Decodes {@code batch} (a {@code null} element is a null message) into rows; the returned
     * root is reused by the next call.
     */
    public VectorSchemaRoot decode(List<byte[]> batch) {
        return decode(batch, null);
    }

    /**
     * {@link #decode(List)}, also telling which rows each message gave: message {@code i}'s rows
     * are {@code rowStarts[i]} up to {@code rowStarts[i + 1]} (none when it was skipped under
     * ignore-parse-errors). {@code rowStarts} needs {@code batch.size() + 1} elements; {@code
     * null} skips this.
     */
    public synchronized VectorSchemaRoot decode(List<byte[]> batch, int[] rowStarts) {
        long handle = address();
        if (registry != null) {
            addMissingWriterSchemas(handle, batch);
        }
        messages.clear();
        VarBinaryVector column = (VarBinaryVector) messages.getVector(0);
        long bytes = 0;
        for (byte[] message : batch) {
            bytes += message == null ? 0 : message.length;
        }
        column.allocateNew(Math.max(bytes, 1), Math.max(batch.size(), 1));
        for (int i = 0; i < batch.size(); i++) {
            byte[] message = batch.get(i);
            if (message == null) {
                column.setNull(i);
            } else {
                column.setSafe(i, message);
            }
        }
        messages.setRowCount(batch.size());
        return rows.importBatch(
                out -> ArrowBatchExporter.exportBatch(allocator, messages, in -> decode(handle, in, out, rowStarts)));
    }

    /** A native call that decodes messages native code holds with this decoder. */
    @FunctionalInterface
    public interface NativeMessages {
        /**
         * Decodes with the decoder at {@code decoderAddress} into the empty {@code ArrowArray} at
         * {@code outArrayAddress}.
         */
        void decode(long decoderAddress, long outArrayAddress);
    }

    /**
     * Decodes messages that never crossed into Java (a native Kafka poll's values, say): {@code
     * messages} runs with this decoder's handle, under its lock. The returned root is reused by
     * the next call.
     */
    public synchronized VectorSchemaRoot decode(NativeMessages messages) {
        long handle = address();
        return rows.importBatch(out -> messages.decode(handle, out));
    }

    /**
     * For avro-confluent: fetches from the schema registry the writer schema of every id in
     * {@code ids} that native code has not seen. Other formats ignore the call.
     */
    public synchronized void addWriterSchemas(int[] ids) {
        if (registry == null) {
            return;
        }
        long handle = address();
        for (int id : ids) {
            addWriterSchema(handle, id);
        }
    }

    /**
     * Fetches the writer schema of every schema id in {@code batch} that native code has not seen
     * (Confluent framing: a zero byte, then the id as four big-endian bytes). Native code does no
     * I/O; malformed headers are left for it to report with the message's position.
     */
    private void addMissingWriterSchemas(long handle, List<byte[]> batch) {
        for (byte[] message : batch) {
            if (message != null && message.length >= 5 && message[0] == 0) {
                addWriterSchema(handle, ByteBuffer.wrap(message, 1, 4).getInt());
            }
        }
    }

    private void addWriterSchema(long handle, int id) {
        if (knownSchemaIds.contains(id)) {
            return;
        }
        String schema;
        try {
            schema = registry.schemaById(id);
        } catch (SchemaRegistryException e) {
            if (!defers) {
                throw e;
            }
            // The messages of this id are handed back; it is asked again for the next batch.
            return;
        }
        addWriterSchema(handle, id, schema);
        knownSchemaIds.add(id);
    }

    /**
     * The indexes, in the last decoded batch, of the messages a deferring decoder handed back
     * (they gave no rows); empty for other decoders.
     */
    public synchronized int[] deferred() {
        return deferred(address());
    }

    /** Messages skipped under the format's ignore-parse-errors option since creation. */
    public synchronized long skipped() {
        return skipped(address());
    }


    @Override
    protected void closeJavaResources() {
        messages.close();
        rows.close();
    }

    private static native long create(
            String format,
            String[] keys,
            String[] values,
            long messagesSchemaAddress,
            long physicalSchemaAddress,
            long rowsSchemaAddress,
            long outSchemaAddress,
            byte[] descriptors,
            String message,
            boolean defer);

    private static native int decode(long handle, long messagesAddress, long outArrayAddress, int[] rowStarts);

    private static native long skipped(long handle);

    private static native int[] deferred(long handle);

    private static native void addWriterSchema(long handle, int id, String schema);

    private static native void free0(long handle);
}
