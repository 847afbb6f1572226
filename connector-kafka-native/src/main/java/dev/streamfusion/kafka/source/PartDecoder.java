package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.formats.NativeFormatDecoder;
import dev.streamfusion.formats.StockMessageDecoder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.IOException;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Decodes one part of a poll's records (values, or keys) into a batch of its own, with the
 * failing record named by topic, partition and offset; shared by both rungs. Records the native
 * decoder hands back (malformed or unusual input) are decoded by Flink's own format instead, so
 * they mean exactly what they mean to the stock connector: a failure, a skip under the format's
 * ignore-parse-errors option, or the rows Flink makes of them.
 */
@Internal
final class PartDecoder implements AutoCloseable {

    /** One native decode call of the part's messages. */
    @FunctionalInterface
    interface Call {
        VectorSchemaRoot decode(NativeFormatDecoder decoder, int[] rowStarts);
    }

    private final FormatDecoding decoding;
    private final String part;
    private final NativeFormatDecoder decoder;
    private final BufferAllocator allocator;
    private final ReaderMetrics metrics;
    private final StockMessageDecoder stock;
    private final boolean keyPart;

    PartDecoder(
            FormatDecoding decoding,
            String part,
            BufferAllocator allocator,
            ReaderMetrics metrics,
            DeserializationSchema.InitializationContext context) {
        this.decoding = decoding;
        this.part = part;
        this.allocator = allocator;
        this.metrics = metrics;
        this.stock = decoding.stock();
        this.keyPart = part.equals("key");
        try {
            stock.open(context);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot open Flink's " + decoding.format() + " deserializer", e);
        }
        this.decoder = decoding.openDecoder(allocator);
    }

    String format() {
        return decoding.format();
    }

    NativeFormatDecoder decoder() {
        return decoder;
    }

    /**
     * Decodes {@code records} messages with {@code call}.
     *
     * @param message the bytes of the call's message at a position, for Flink's format
     * @param recordName names the record at a position of the call's messages in errors
     */
    DecodedPart decode(int records, Call call, IntFunction<byte[]> message, IntFunction<String> recordName)
            throws IOException {
        int[] rowStarts = new int[records + 1];
        VectorSchemaRoot decoded;
        long started = System.nanoTime();
        int[] deferred;
        try {
            decoded = call.decode(decoder, rowStarts);
            deferred = decoder.deferred();
        } catch (NativeDecodeException e) {
            String record = e.position() >= 0 && e.position() < records ? recordName.apply((int) e.position()) : "a record";
            throw new IOException(
                    "Failed to decode the " + part + " of " + record + " (" + decoding.format() + "): " + e.getMessage(),
                    e);
        }
        // The decoder reuses its root: the batch moves to one of its own, which the reader frees
        // once every row is emitted.
        VectorSchemaRoot root = ArrowRoots.moveTo(decoded, allocator);
        try {
            RowData[][] stockRows = deferred.length == 0 ? null : stockRows(records, deferred, message, recordName);
            long skipped = 0;
            for (int d : deferred) {
                skipped += stockRows[d].length == 0 ? 1 : 0;
            }
            metrics.decoded(System.nanoTime() - started, skipped);
            return new DecodedPart(root, decoding.rows(root), rowStarts, stockRows);
        } catch (IOException | RuntimeException e) {
            root.close();
            throw e;
        }
    }

    private RowData[][] stockRows(
            int records, int[] deferred, IntFunction<byte[]> message, IntFunction<String> recordName)
            throws IOException {
        RowData[][] rows = new RowData[records][];
        for (int d : deferred) {
            List<RowData> decoded;
            try {
                // Keys are buffered before they pair with values, NULL rows too.
                decoded = keyPart ? stock.decodeBuffered(message.apply(d)) : stock.decode(message.apply(d));
            } catch (IOException | RuntimeException e) {
                throw new IOException(
                        "Failed to decode the " + part + " of " + recordName.apply(d) + " (" + decoding.format() + "): "
                                + e.getMessage(),
                        e);
            }
            rows[d] = decoded.toArray(new RowData[0]);
        }
        return rows;
    }

    @Override
    public void close() {
        decoder.close();
    }
}
