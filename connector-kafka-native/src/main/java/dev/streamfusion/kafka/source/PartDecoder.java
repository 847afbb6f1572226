package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.formats.NativeFormatDecoder;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.io.IOException;
import java.util.function.IntFunction;

/**
 * Decodes one part of a poll's records (values, or keys) into a batch of its own, with the
 * failing record named by topic, partition and offset; shared by both rungs.
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

    PartDecoder(FormatDecoding decoding, String part, BufferAllocator allocator, ReaderMetrics metrics) {
        this.decoding = decoding;
        this.part = part;
        this.allocator = allocator;
        this.metrics = metrics;
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
     * @param recordName names the record at a position of the call's messages in errors
     */
    DecodedPart decode(int records, Call call, IntFunction<String> recordName) throws IOException {
        int[] rowStarts = new int[records + 1];
        VectorSchemaRoot decoded;
        long started = System.nanoTime();
        long skippedBefore = decoder.skipped();
        try {
            decoded = call.decode(decoder, rowStarts);
            metrics.decoded(System.nanoTime() - started, decoder.skipped() - skippedBefore);
        } catch (NativeDecodeException e) {
            String record = e.position() >= 0 && e.position() < records ? recordName.apply((int) e.position()) : "a record";
            throw new IOException(
                    "Failed to decode the " + part + " of " + record + " (" + decoding.format() + "): " + e.getMessage(),
                    e);
        }
        // The decoder reuses its root: the batch moves to one of its own, which the reader frees
        // once every row is emitted.
        VectorSchemaRoot root = ArrowRoots.moveTo(decoded, allocator);
        return new DecodedPart(root, decoding.rows(root), rowStarts);
    }

    @Override
    public void close() {
        decoder.close();
    }
}
