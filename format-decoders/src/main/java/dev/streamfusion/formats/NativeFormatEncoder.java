package dev.streamfusion.formats;

import dev.streamfusion.bridge.ArrowBatchExporter;
import dev.streamfusion.bridge.ArrowBatchImporter;
import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.NativeHandle;
import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.bridge.types.ArrowTypes;
import dev.streamfusion.bridge.writer.NullMapKeys;
import dev.streamfusion.formats.registry.HttpSchemaRegistryClient;
import dev.streamfusion.formats.registry.SchemaRegistryException;
import dev.streamfusion.bridge.writer.SinkRows;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A native encoder of one Flink format ({@code json}, ...) for rows of a fixed row type, as sinks
 * use it: rows are transposed to Arrow once per batch (natively where they are Flink's binary rows:
 * {@link SinkRows}), cross to Rust in one call, and come back
 * as one message per row.
 *
 * <p>An encoding failure is a {@link dev.streamfusion.bridge.NativeDecodeException} whose
 * position is the row's index in the batch.
 */
@Internal
public final class NativeFormatEncoder extends NativeHandle {

    private final BufferAllocator allocator;
    private final SinkRows writer;
    /** The schema of the rows the native encoder reads. */
    private final Schema rowSchema;
    private final ArrowBatchImporter messages;

    private NativeFormatEncoder(
            BufferAllocator allocator,
            SinkRows writer,
            long address,
            Schema rowSchema,
            ArrowBatchImporter messages) {
        super("format encoder", address, NativeFormatEncoder::free0);
        this.allocator = allocator;
        this.writer = writer;
        this.rowSchema = rowSchema;
        this.messages = messages;
    }

    /**
     * An encoder of {@code format} with its options (keys without the format prefix) for rows of
     * {@code rowType}.
     *
     * @throws dev.streamfusion.bridge.NativeConfigException if an option, or a type of {@code
     *     rowType}, is not supported by the format
     */
    public static NativeFormatEncoder create(
            BufferAllocator allocator, String format, Map<String, String> options, RowType rowType) {
        NativeFormatEncoder encoder = createUnregistered(allocator, format, options, rowType);
        // From here the handle owns the native encoder: closing it frees everything once.
        try {
            encoder.registerWriterSchema(format, options);
        } catch (RuntimeException e) {
            encoder.close();
            throw e;
        }
        return encoder;
    }

    /**
     * Checks that the native encoder takes {@code format} with {@code options} for rows of {@code
     * rowType}, as {@link #create} would (without registering a writer schema), and frees what it
     * built: for planning, so that nothing is first refused on a task manager.
     *
     * @throws RuntimeException what creating the encoder throws (a {@link
     *     dev.streamfusion.bridge.NativeConfigException} naming the option or type, or an error
     *     loading the native library)
     */
    public static void check(String format, Map<String, String> options, RowType rowType) {
        try (BufferAllocator allocator = new org.apache.arrow.memory.RootAllocator();
                NativeFormatEncoder encoder = createUnregistered(allocator, format, options, rowType)) {
            encoder.address();
        }
    }

    private static NativeFormatEncoder createUnregistered(
            BufferAllocator allocator, String format, Map<String, String> options, RowType rowType) {
        NativeLibrary.load();
        FormatOptionArrays arrays = new FormatOptionArrays(options);
        ProtobufDescriptors protobuf =
                "protobuf".equals(format) ? ProtobufDescriptors.fromOptions(options) : null;
        byte[] descriptors = protobuf == null ? null : protobuf.fileDescriptorSet();
        String message = protobuf == null ? null : protobuf.messageName();
        long[] address = {0};
        Schema rowSchema = ArrowTypes.toNativeSchema(rowType);
        ArrowBatchImporter messages = null;
        try {
            messages =
                    ArrowBatchImporter.importSchema(
                            allocator,
                            out ->
                                    address[0] =
                                            ArrowBatchExporter.exportSchema(
                                                    allocator,
                                                    rowSchema,
                                                    in ->
                                                            create(
                                                                    format,
                                                                    arrays.keys,
                                                                    arrays.values,
                                                                    in,
                                                                    out,
                                                                    descriptors,
                                                                    message)));
            // The rows' native reader makes of text that is not UTF-8 what the encoder does.
            SinkRows writer =
                    SinkRows.forFormat(rowType, allocator, nullMapKeys(format, options), readsTextAsJava(address[0]));
            return new NativeFormatEncoder(allocator, writer, address[0], rowSchema, messages);
        } catch (RuntimeException e) {
            if (address[0] != 0) {
                free0(address[0]);
            }
            if (messages != null) {
                messages.close();
            }
            throw e;
        }
    }

    /**
     * Formats whose messages name their writer schema (avro-confluent) register it with the
     * schema registry under {@code avro-confluent.subject} once, when the encoder is created.
     */
    private synchronized void registerWriterSchema(String format, Map<String, String> options) {
        String schema = writerSchema(address());
        if (schema == null) {
            return;
        }
        String subject = options.get("subject");
        if (subject == null) {
            throw new SchemaRegistryException(
                    "Option '" + format + ".subject' is required to register the writer schema of a " + format + " sink");
        }
        setSchemaId(address(), HttpSchemaRegistryClient.fromOptions(options).register(subject, schema));
    }

    /**
     * Arrow maps cannot hold a NULL key, so formats that write something for one do it while rows
     * are transposed: JSON's {@code map-null-key.mode} DROP and LITERAL, and protobuf's type
     * defaults (strings as {@code write-null-string-literal}). JSON's FAIL, and every other
     * format, reject the row. The native encoder validates the options itself, so only their
     * legal spellings matter here.
     */
    private static NullMapKeys nullMapKeys(String format, Map<String, String> options) {
        if ("protobuf".equals(format)) {
            return NullMapKeys.typeDefaults(options.getOrDefault("write-null-string-literal", ""));
        }
        if (!"json".equals(format)) {
            return NullMapKeys.REJECT;
        }
        String mode = options.getOrDefault("map-null-key.mode", "FAIL").toUpperCase(java.util.Locale.ROOT);
        switch (mode) {
            case "DROP":
                return NullMapKeys.DROP;
            case "LITERAL":
                return NullMapKeys.replaceWith(options.getOrDefault("map-null-key.literal", "null"));
            default:
                return NullMapKeys.REJECT;
        }
    }

    /** One message per row of {@code rows}, in order ({@code null} where the format writes none). */
    public List<byte[]> encode(List<? extends RowData> rows) {
        VarBinaryVector encoded = (VarBinaryVector) encode(writer.write(rows)).getVector(0);
        List<byte[]> out = new ArrayList<>(encoded.getValueCount());
        for (int i = 0; i < encoded.getValueCount(); i++) {
            out.add(encoded.isNull(i) ? null : encoded.get(i));
        }
        return out;
    }

    /**
     * Encodes a batch already in Arrow (of this encoder's row type); the returned root (one binary
     * column) is reused by the next call.
     *
     * @throws IllegalArgumentException if {@code batch} does not have the encoder's row type
     */
    public synchronized VectorSchemaRoot encode(VectorSchemaRoot batch) {
        long handle = address();
        ArrowRoots.checkLayout(rowSchema, batch, "format encoder");
        return messages.importBatch(
                out -> ArrowBatchExporter.exportBatch(allocator, batch, in -> encode(handle, in, out)));
    }

    /** A native call that encodes, with this encoder, rows exported to native code. */
    @FunctionalInterface
    public interface NativeRows {
        /**
         * Runs with the encoder at {@code encoderAddress} and the rows as an exported {@code
         * ArrowArray} at {@code rowsAddress} (of this encoder's row type).
         */
        void encode(long encoderAddress, long rowsAddress);
    }

    /**
     * Hands {@code rows}, transposed to Arrow, to a native call that encodes them with this
     * encoder and keeps the messages native (a Kafka producer, say).
     */
    public synchronized void encode(List<? extends RowData> rows, NativeRows call) {
        export(writer.write(rows), call);
    }

    /**
     * Hands {@code batch}, already in Arrow (of this encoder's row type, whatever its column
     * names), to a native call as {@link #encode(List, NativeRows)} hands rows.
     *
     * @throws IllegalArgumentException if {@code batch} does not have the encoder's row type
     */
    public synchronized void encode(VectorSchemaRoot batch, NativeRows call) {
        ArrowRoots.checkLayout(rowSchema, batch, "format encoder");
        export(batch, call);
    }

    private void export(VectorSchemaRoot rows, NativeRows call) {
        long handle = address();
        ArrowBatchExporter.exportBatch(allocator, rows, in -> {
            call.encode(handle, in);
            return null;
        });
    }


    @Override
    protected void closeJavaResources() {
        messages.close();
        writer.close();
    }

    private static native long create(
            String format,
            String[] keys,
            String[] values,
            long rowsSchemaAddress,
            long outSchemaAddress,
            byte[] descriptors,
            String message);

    private static native int encode(long handle, long rowsAddress, long outArrayAddress);

    /**
     * Whether the encoder reads text whose bytes are not UTF-8 as Java does, as Flink's format
     * writes {@code StringData.toString()}; else (raw in UTF-8, which Flink writes with the bytes
     * as they are) it refuses such text, naming the column.
     */
    private static native boolean readsTextAsJava(long handle);

    private static native void free0(long handle);

    private static native String writerSchema(long handle);

    private static native void setSchemaId(long handle, int id);
}
