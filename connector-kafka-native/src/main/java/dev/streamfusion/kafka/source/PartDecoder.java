package dev.streamfusion.kafka.source;

import dev.streamfusion.bridge.ArrowRoots;
import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.bridge.columnar.RowViews;
import dev.streamfusion.bridge.table.ErrorPolicy;
import dev.streamfusion.formats.NativeFormatDecoder;
import dev.streamfusion.formats.StockMessageDecoder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.data.RowData;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Decodes one part of a poll's records (values, or keys) into a batch of its own, with the
 * failing record named by topic, partition and offset; shared by both rungs. Records the native
 * decoder hands back (malformed or unusual input) are decoded by Flink's own format instead, so
 * they mean exactly what they mean to the stock connector: a failure, a skip under the format's
 * ignore-parse-errors option, or the rows Flink makes of them. Under {@code 'streamfusion.errors'}
 * = {@code 'SKIP'} (or {@code 'DEAD_LETTER'}) a record Flink's format fails on is skipped instead
 * of failing the job: it gives no rows (a record whose key is skipped gives none at all), and it
 * is counted, logged and handed to the caller (for the dead-letter topic); a failure to reach a
 * service the format needs (a schema registry) still fails the job.
 */
@Internal
final class PartDecoder implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PartDecoder.class);

    /** Skipped records logged one by one; after that, every {@value #LOG_EVERY}th. */
    private static final int LOG_FIRST = 10;

    private static final int LOG_EVERY = 1_000;

    /** Where the records skipped under the error policy go, by position, with the reason. */
    @FunctionalInterface
    interface Skips {
        void skipped(int position, String reason);
    }

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
    /** Whether a null message is an upsert table's delete, not a value to decode. */
    private final boolean nullIsDelete;
    /** The rows of a record whose null value is a delete: none, and none skipped. */
    private static final RowData[] DELETE = new RowData[0];
    /** Records skipped under {@code 'streamfusion.errors' = 'SKIP'}. */
    private long skippedUndecodable;
    private final RowViews rows;

    PartDecoder(
            FormatDecoding decoding,
            String part,
            BufferAllocator allocator,
            ReaderMetrics metrics,
            DeserializationSchema.InitializationContext context,
            boolean nullIsDelete) {
        this.decoding = decoding;
        this.part = part;
        this.allocator = allocator;
        this.metrics = metrics;
        this.stock = decoding.stock();
        this.keyPart = part.equals("key");
        this.nullIsDelete = nullIsDelete && !keyPart;
        try {
            stock.open(context);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot open Flink's " + decoding.format() + " deserializer", e);
        }
        this.decoder = decoding.openDecoder(allocator);
        this.rows = decoding.rowViews(allocator);
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
     * @param recordSplit the split (topic and partition) of the record at a position
     * @param skips told of each record skipped under the error policy
     */
    DecodedPart decode(
            int records,
            Call call,
            IntFunction<byte[]> message,
            IntFunction<String> recordName,
            IntFunction<String> recordSplit,
            Skips skips)
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
            throw new IOException(failure(record, e.getMessage()), e);
        }
        // The decoder reuses its root: the batch moves to one of its own, which the reader frees
        // once every row is emitted.
        VectorSchemaRoot root = ArrowRoots.moveTo(decoded, allocator);
        try {
            RowData[][] stockRows = deferred.length == 0 ? null : stockRows(records, deferred, message, recordName, skips);
            long skipped = 0;
            for (int d : deferred) {
                if (stockRows[d].length == 0 && stockRows[d] != DELETE) {
                    skipped++;
                    metrics.skipped(recordSplit.apply(d));
                }
            }
            metrics.decoded(System.nanoTime() - started, skipped);
            return new DecodedPart(root, rows.rows(root), rowStarts, stockRows);
        } catch (IOException | RuntimeException e) {
            root.close();
            throw e;
        }
    }

    private RowData[][] stockRows(
            int records, int[] deferred, IntFunction<byte[]> message, IntFunction<String> recordName, Skips skips)
            throws IOException {
        RowData[][] rows = new RowData[records][];
        for (int d : deferred) {
            byte[] bytes = message.apply(d);
            if (bytes == null && nullIsDelete) {
                rows[d] = DELETE;
                continue;
            }
            List<RowData> decoded;
            String failure = null;
            try {
                // Keys are buffered before they pair with values, NULL rows too; an upsert table's
                // NULL value row is a delete of its key, as a tombstone is.
                decoded = keyPart || nullIsDelete ? stock.decodeBuffered(bytes) : stock.decode(bytes);
            } catch (IOException | RuntimeException e) {
                failure = failure(recordName.apply(d), e.getMessage());
                // A record is skipped for what it holds, never because a service the format
                // needs (a schema registry) cannot be reached.
                if (!decoding.skipsUndecodable() || unreachable(e)) {
                    throw new IOException(failure, e);
                }
                decoded = null;
            }
            if (decoding.skipsUndecodable() && !nullIsDelete && decoded != null && decoded.contains(null)) {
                // A NULL row (of a value, or of a key the format ignores errors in) fails Flink's
                // connector downstream: under the policy, the record is skipped instead.
                failure = failure(recordName.apply(d), "Flink's format makes a NULL row of it");
            }
            if (failure != null) {
                skippedUndecodable++;
                if (skippedUndecodable <= LOG_FIRST || skippedUndecodable % LOG_EVERY == 0) {
                    LOG.warn(
                            "{}; skipped under '{}' ({} {}s skipped by this reader)",
                            failure,
                            ErrorPolicy.KEY,
                            skippedUndecodable,
                            part);
                }
                skips.skipped(d, failure);
                rows[d] = new RowData[0];
                continue;
            }
            rows[d] = decoded.toArray(new RowData[0]);
        }
        return rows;
    }

    /** Whether {@code failure} was caused by a service that could not be reached. */
    private static boolean unreachable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SocketException
                    || cause instanceof SocketTimeoutException
                    || cause instanceof UnknownHostException
                    || cause instanceof HttpTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private String failure(String record, String reason) {
        return "Failed to decode the " + part + " of " + record + " (" + decoding.format() + "): " + reason;
    }

    @Override
    public void close() {
        try {
            decoder.close();
        } finally {
            rows.close();
        }
    }
}
