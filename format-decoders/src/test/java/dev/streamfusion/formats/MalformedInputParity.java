package dev.streamfusion.formats;

import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.columnar.NestedProjection;
import dev.streamfusion.bridge.testing.RowDataValues;
import dev.streamfusion.formats.testing.MalformedMessage;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Malformed and unusual messages through Flink's own deserializer and through StreamFusion's
 * decoding (a deferring native decoder, and Flink's format for the messages it hands back),
 * message by message, with the format's ignore-parse-errors option off and on: the outcome of
 * every message (its rows, or a failure, or a NULL row) must be the same.
 */
final class MalformedInputParity {

    private final BufferAllocator allocator;
    private final String format;
    private final Map<String, String> options;
    private final RowType physical;
    private final int[][] projection;
    /** Flink's deserializer of the physical rows, with ignore-parse-errors off or on. */
    private final Function<Boolean, DeserializationSchema<RowData>> flink;
    /** Whether a failed message leaves nothing in Flink's deserializer for the next one. */
    private final boolean stateless;

    MalformedInputParity(
            BufferAllocator allocator,
            String format,
            Map<String, String> options,
            RowType physical,
            int[][] projection,
            Function<Boolean, DeserializationSchema<RowData>> flink) {
        this(allocator, format, options, physical, projection, flink, false);
    }

    private MalformedInputParity(
            BufferAllocator allocator,
            String format,
            Map<String, String> options,
            RowType physical,
            int[][] projection,
            Function<Boolean, DeserializationSchema<RowData>> flink,
            boolean stateless) {
        this.allocator = allocator;
        this.format = format;
        this.options = options;
        this.physical = physical;
        this.projection = projection;
        this.flink = flink;
        this.stateless = stateless;
    }

    /**
     * This parity for a format whose Flink deserializer keeps nothing of a message it failed on:
     * one deserializer serves each mode, where otherwise a new one takes over after each failure,
     * as a restarted job's would. For a format whose deserializer compiles code when it opens.
     */
    MalformedInputParity ofAStatelessFormat() {
        return new MalformedInputParity(allocator, format, options, physical, projection, flink, true);
    }

    /**
     * Asserts the same outcome for every message in both modes; returns the messages the native
     * decoder handed back to Flink's format.
     */
    Set<String> assertSameOutcomes(List<MalformedMessage> corpus) throws Exception {
        Set<String> deferred = new HashSet<>();
        for (boolean ignore : new boolean[] {false, true}) {
            Map<String, String> modeOptions = new java.util.HashMap<>(options);
            modeOptions.put(NativeFormatDecoder.IGNORE_PARSE_ERRORS, String.valueOf(ignore));
            boolean mode = ignore;
            Supplier<StockMessageDecoder> stocks = stockDecoders(() -> flink.apply(mode));
            FlinkOutcomes flinkOutcomes = new FlinkOutcomes(corpus, deserializers(() -> flink.apply(mode)));
            // In batches, as a source decodes them, and so that a large corpus fits the heap. A
            // message the native decoder fails on without handing it back fails the job: Flink's
            // format must fail on it too, and both start afresh after it.
            for (int from = 0; from < corpus.size(); ) {
                int to = Math.min(corpus.size(), from + BATCH);
                List<MalformedMessage> batch = corpus.subList(from, to);
                List<String> expected = flinkOutcomes.of(from, to);
                List<String> actual;
                try {
                    actual = streamFusionOutcomes(batch, modeOptions, stocks, deferred);
                    from += batch.size();
                } catch (NativeDecodeException e) {
                    int failed = (int) e.position();
                    assertThat(expected.get(failed))
                            .as("%s, which the native decoder fails on: %s", batch.get(failed), e.getMessage())
                            .isEqualTo("fails");
                    batch = batch.subList(0, failed);
                    actual = streamFusionOutcomes(batch, modeOptions, stocks, deferred);
                    from += failed + 1;
                }
                for (int i = 0; i < batch.size(); i++) {
                    if (actual.get(i).equals(expected.get(i))) {
                        continue;
                    }
                    MalformedMessage message = batch.get(i);
                    assertThat(actual.get(i))
                            .as(
                                    "%s (%s) with ignore-parse-errors %s",
                                    message,
                                    preview(message.bytes),
                                    ignore)
                            .isEqualTo(expected.get(i));
                }
            }
        }
        return deferred;
    }

    /**
     * As {@link #assertSameOutcomes} over {@code seeds} and then {@code mutations} of them, checking
     * too that the seeds (messages Flink reads) are read natively under this projection: a decoder
     * that handed every message back to Flink's format would compare Flink with itself.
     */
    void assertSameOutcomesReadingSeedsNatively(List<MalformedMessage> seeds, List<MalformedMessage> mutations)
            throws Exception {
        List<MalformedMessage> corpus = new ArrayList<>(seeds);
        corpus.addAll(mutations);
        Set<String> deferred = assertSameOutcomes(corpus);
        for (MalformedMessage seed : seeds) {
            assertThat(deferred).as("read natively").doesNotContain(seed.name);
        }
    }

    private static final int BATCH = 500;

    /** Flink's deserializers, each opened: new ones, or one for all if the format is stateless. */
    private Supplier<DeserializationSchema<RowData>> deserializers(Supplier<DeserializationSchema<RowData>> create) {
        return opened(create, deserializer -> deserializer.open(CONTEXT));
    }

    /** The stock decoders of handed-back messages, each opened, as {@link #deserializers}. */
    private Supplier<StockMessageDecoder> stockDecoders(Supplier<DeserializationSchema<RowData>> create) {
        return opened(() -> new StockMessageDecoder(create.get(), physical, projection), stock -> stock.open(CONTEXT));
    }

    private <T> Supplier<T> opened(Supplier<T> create, ThrowingConsumer<T> open) {
        Supplier<T> fresh =
                () -> {
                    T created = create.get();
                    try {
                        open.accept(created);
                    } catch (Exception e) {
                        throw new IllegalStateException("opening Flink's " + format + " format", e);
                    }
                    return created;
                };
        if (!stateless) {
            return fresh;
        }
        T shared = fresh.get();
        return () -> shared;
    }

    private interface ThrowingConsumer<T> {
        void accept(T value) throws Exception;
    }

    /** A projection of every top-level column of {@code type}. */
    static int[][] everyColumn(RowType type) {
        int[][] all = new int[type.getFieldCount()][];
        for (int f = 0; f < all.length; f++) {
            all[f] = new int[] {f};
        }
        return all;
    }

    /** Messages made from {@code seeds} by random byte edits and cuts. */
    static List<MalformedMessage> mutations(List<MalformedMessage> seeds, int count, long seed) {
        Random random = new Random(seed);
        List<MalformedMessage> mutated = new ArrayList<>(count);
        for (int n = 0; n < count; n++) {
            MalformedMessage base = seeds.get(random.nextInt(seeds.size()));
            byte[] bytes = base.bytes.clone();
            int edits = 1 + random.nextInt(3);
            for (int e = 0; e < edits && bytes.length > 0; e++) {
                int at = random.nextInt(bytes.length);
                switch (random.nextInt(4)) {
                    case 0: // cut
                        bytes = Arrays.copyOf(bytes, at);
                        break;
                    case 1: // delete one byte
                        byte[] shorter = new byte[bytes.length - 1];
                        System.arraycopy(bytes, 0, shorter, 0, at);
                        System.arraycopy(bytes, at + 1, shorter, at, bytes.length - at - 1);
                        bytes = shorter;
                        break;
                    case 2: // replace with a byte from the message or a random one
                        bytes[at] = random.nextBoolean() ? bytes[random.nextInt(bytes.length)] : (byte) random.nextInt(256);
                        break;
                    default: // duplicate a slice
                        int end = Math.min(bytes.length, at + 1 + random.nextInt(8));
                        byte[] longer = new byte[bytes.length + end - at];
                        System.arraycopy(bytes, 0, longer, 0, end);
                        System.arraycopy(bytes, at, longer, end, bytes.length - at);
                        bytes = longer;
                }
            }
            mutated.add(new MalformedMessage(base.name + " mutation " + n, bytes));
        }
        return mutated;
    }

    /**
     * What Flink's source emits of each message: its format's rows, as far as a NULL row (which
     * a source's output fails on within the format's call, as Flink's Kafka deserializer or the
     * next operator's serializer does), or a failure. Each message is decoded once, in order: a
     * failure restarts the deserializer, so an outcome does not depend on where a batch begins.
     * Outcomes are kept from the batch being compared on only (a large corpus's rows would not
     * fit the heap).
     */
    private final class FlinkOutcomes {

        private final List<MalformedMessage> corpus;
        private final Supplier<DeserializationSchema<RowData>> deserializers;
        private final NestedProjection projected = NestedProjection.of(physical, projection);
        private final List<String> window = new ArrayList<>();
        private int windowStart;
        private DeserializationSchema<RowData> deserializer;

        FlinkOutcomes(List<MalformedMessage> corpus, Supplier<DeserializationSchema<RowData>> deserializers) {
            this.corpus = corpus;
            this.deserializers = deserializers;
            this.deserializer = deserializers.get();
        }

        /** The outcomes of messages {@code from} (never less than before) to {@code to}. */
        List<String> of(int from, int to) {
            window.subList(0, from - windowStart).clear();
            windowStart = from;
            while (windowStart + window.size() < to) {
                window.add(outcome(corpus.get(windowStart + window.size())));
            }
            return new ArrayList<>(window.subList(0, to - from));
        }

        private String outcome(MalformedMessage message) {
            List<RowData> rows = new ArrayList<>();
            Collector<RowData> output =
                    new Collector<>() {
                        @Override
                        public void collect(RowData row) {
                            rows.add(java.util.Objects.requireNonNull(row));
                        }

                        @Override
                        public void close() {}
                    };
            try {
                deserializer.deserialize(message.bytes, output);
            } catch (Exception | OutOfMemoryError e) {
                // Avro Java allocates what a length in the datum asks for before reading it: a
                // damaged length can exhaust the heap. The job fails either way, and what runs
                // after it starts with a new deserializer.
                deserializer = deserializers.get();
                return "fails";
            }
            return describe(rows, projected);
        }
    }

    private List<String> streamFusionOutcomes(
            List<MalformedMessage> corpus,
            Map<String, String> modeOptions,
            Supplier<StockMessageDecoder> stocks,
            Set<String> deferredNames)
            throws Exception {
        NestedProjection projected = NestedProjection.of(physical, projection);
        StockMessageDecoder stock = stocks.get();
        List<byte[]> batch = new ArrayList<>();
        corpus.forEach(m -> batch.add(m.bytes));
        List<String> outcomes = new ArrayList<>();
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.createDeferring(allocator, format, modeOptions, physical, projected.prunedType())) {
            int[] starts = new int[batch.size() + 1];
            VectorSchemaRoot root = decoder.decode(batch, starts);
            Set<Integer> deferred = new HashSet<>();
            for (int d : decoder.deferred()) {
                deferred.add(d);
                deferredNames.add(corpus.get(d).name);
            }
            ArrowColumnarBatch rows = ArrowColumnarBatch.of(root, projected);
            for (int i = 0; i < corpus.size(); i++) {
                if (deferred.contains(i)) {
                    assertThat(starts[i + 1]).as("rows of a handed-back message").isEqualTo(starts[i]);
                    List<RowData> stockRows;
                    try {
                        stockRows = stock.decode(corpus.get(i).bytes);
                    } catch (Exception | OutOfMemoryError e) {
                        // As on Flink's side: the job fails, and restarts with a new decoder.
                        outcomes.add("fails");
                        stock = stocks.get();
                        continue;
                    }
                    outcomes.add(describeProjected(stockRows, projected.producedType()));
                    continue;
                }
                // Row views are reused: each is read before the next.
                StringBuilder described = new StringBuilder("rows:");
                for (int r = starts[i]; r < starts[i + 1]; r++) {
                    described.append(' ').append(canonical(RowDataValues.ofRow(rows.row(r), projected.producedType())));
                }
                outcomes.add(described.toString());
            }
        }
        return outcomes;
    }

    private static String describe(List<RowData> rows, NestedProjection projected) {
        List<RowData> projectedRows = new ArrayList<>();
        for (RowData row : rows) {
            projectedRows.add(row == null ? null : projected.project(row));
        }
        return describeProjected(projectedRows, projected.producedType());
    }

    private static String describeProjected(List<RowData> rows, RowType type) {
        StringBuilder out = new StringBuilder("rows:");
        for (RowData row : rows) {
            out.append(' ').append(row == null ? "NULL-ROW" : canonical(RowDataValues.ofRow(row, type)));
        }
        return out.toString();
    }

    /** The start of a message, each byte as a character, the rest cut. */
    private static String preview(byte[] bytes) {
        String text = canonical(new String(bytes, 0, Math.min(bytes.length, 200), java.nio.charset.StandardCharsets.ISO_8859_1));
        return bytes.length <= 200 ? text : text + "... (" + bytes.length + " bytes)";
    }

    /**
     * A value's text with maps in key order (Flink's maps keep no order) and every character
     * outside printable ASCII escaped, so a lone surrogate shows as itself.
     */
    private static String canonical(Object value) {
        if (value instanceof Map) {
            java.util.TreeMap<String, String> sorted = new java.util.TreeMap<>();
            ((Map<?, ?>) value).forEach((k, v) -> sorted.put(canonical(k), canonical(v)));
            return sorted.toString();
        }
        if (value instanceof List) {
            List<String> items = new ArrayList<>();
            ((List<?>) value).forEach(item -> items.add(canonical(item)));
            return items.toString();
        }
        String text = String.valueOf(value);
        StringBuilder out = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else {
                out.append("\\u").append(HEX[(c >> 12) & 0xf]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
            }
        }
        return out.toString();
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static final DeserializationSchema.InitializationContext CONTEXT =
            new DeserializationSchema.InitializationContext() {
                @Override
                public MetricGroup getMetricGroup() {
                    return new UnregisteredMetricsGroup();
                }

                @Override
                public UserCodeClassLoader getUserCodeClassLoader() {
                    return SimpleUserCodeClassLoader.create(MalformedInputParity.class.getClassLoader());
                }
            };
}
