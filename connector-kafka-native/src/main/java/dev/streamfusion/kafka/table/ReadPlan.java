package dev.streamfusion.kafka.table;

import dev.streamfusion.bridge.table.ErrorPolicy;
import dev.streamfusion.bridge.table.RowLayout;
import dev.streamfusion.kafka.internal.LibrdkafkaConfig;
import dev.streamfusion.kafka.internal.LoginModules;
import dev.streamfusion.kafka.source.DeadLetterTarget;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.factories.DynamicTableFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.watermark.WatermarkEmitStrategy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * How a streamfusion-kafka table reads: natively (its formats) or, when the table asks for
 * something the native reader does not do, with Flink's own reader; and why.
 */
@Internal
final class ReadPlan {

    final KafkaFormats formats;
    /** Why Flink's own reader is used, or {@code null} when the table reads natively. */
    final String stockReason;
    /** Why the Java rung reads rather than the native one, or {@code null} for the native rung. */
    final String javaRungReason;

    /** The native rung's read-ahead, in kilobytes ({@code streamfusion.prefetch.kbytes}). */
    final int prefetchKbytes;

    /** What the source does with a record it cannot decode ({@code streamfusion.errors}). */
    final ErrorPolicy errors;

    /** Where undecodable records go under {@code DEAD_LETTER}; {@code null} under other policies. */
    final DeadLetterTarget deadLetters;

    /** The rung the table asks for. */
    private final StreamFusionKafkaOptions.Rung rung;

    /**
     * Whether a watermark of the table is emitted on every event ({@code
     * scan.watermark.emit.strategy} = {@code on-event}) rather than periodically.
     */
    final boolean watermarksOnEvent;

    /**
     * Whether rows handed to a stock operator are written in Flink's binary layout ({@code
     * streamfusion.row-layout}, resolved against the job's object reuse).
     */
    final boolean binaryRows;

    private ReadPlan(
            KafkaFormats formats,
            String stockReason,
            String javaRungReason,
            StreamFusionKafkaOptions.Rung rung,
            int prefetchKbytes,
            ErrorPolicy errors,
            DeadLetterTarget deadLetters,
            boolean watermarksOnEvent,
            boolean binaryRows) {
        this.watermarksOnEvent = watermarksOnEvent;
        this.binaryRows = binaryRows;
        this.formats = formats;
        this.stockReason = stockReason;
        this.javaRungReason = javaRungReason;
        this.rung = rung;
        this.prefetchKbytes = prefetchKbytes;
        this.errors = errors;
        this.deadLetters = deadLetters;
        if (stockReason != null && errors != ErrorPolicy.FAIL) {
            throw new ValidationException(
                    "'" + ErrorPolicy.OPTION.key() + "' = '" + errors + "' needs StreamFusion's reader, but the"
                            + " table reads with Flink's own: " + stockReason);
        }
    }

    /**
     * This plan, or, when the native decoders refuse the formats' options or the rows' types
     * (which only creating them tells), Flink's own reader (AUTO) or an error naming the reason.
     *
     * @param keyType the rows the key format reads, or {@code null} for a table without one
     */
    ReadPlan checkedFor(RowType valueType, RowType keyType) {
        if (stockReason != null) {
            return this;
        }
        String reason = formats.notDecodable(valueType, keyType);
        if (reason == null) {
            return this;
        }
        if (rung != StreamFusionKafkaOptions.Rung.AUTO) {
            throw new ValidationException("'" + StreamFusionKafkaOptions.RUNG.key() + "' = '" + rung + "', but " + reason);
        }
        return new ReadPlan(formats, reason, null, rung, prefetchKbytes, errors, deadLetters, watermarksOnEvent, binaryRows);
    }

    static ReadPlan of(DynamicTableFactory.Context context) {
        Map<String, String> options = context.getCatalogTable().getOptions();
        Configuration configuration = Configuration.fromMap(options);
        StreamFusionKafkaOptions.Rung rung = configuration.get(StreamFusionKafkaOptions.RUNG);
        ErrorPolicy errors = configuration.get(ErrorPolicy.OPTION);
        DeadLetterTarget deadLetters = deadLetters(options, errors);
        int prefetch = configuration.get(StreamFusionKafkaOptions.PREFETCH_KBYTES);
        boolean watermarksOnEvent = configuration.get(FactoryUtil.WATERMARK_EMIT_STRATEGY) == WatermarkEmitStrategy.ON_EVENT;
        boolean binaryRows = configuration.get(RowLayout.OPTION).binary(context.getConfiguration());
        if (prefetch < 1 || prefetch > StreamFusionKafkaOptions.PREFETCH_KBYTES_MAX) {
            throw new ValidationException(
                    "'" + StreamFusionKafkaOptions.PREFETCH_KBYTES.key() + "' = '" + prefetch + "' is not between 1 and "
                            + StreamFusionKafkaOptions.PREFETCH_KBYTES_MAX);
        }
        String forced = "'" + StreamFusionKafkaOptions.RUNG.key() + "' = '" + rung + "'";
        KafkaFormats formats = KafkaFormats.of(options);
        String stockReason = formats.notNative("decoded");
        if (stockReason != null) {
            if (rung != StreamFusionKafkaOptions.Rung.AUTO) {
                throw new ValidationException(forced + ", but " + stockReason);
            }
            return new ReadPlan(formats, stockReason, null, rung, prefetch, errors, deadLetters, watermarksOnEvent, binaryRows);
        }
        List<String> untranslatable = LibrdkafkaConfig.consumer(consumerProperties(options)).consumerProblems();
        switch (rung) {
            case NATIVE:
                if (!untranslatable.isEmpty()) {
                    throw new ValidationException(
                            forced + ", but librdkafka cannot take these properties: "
                                    + String.join("; ", untranslatable));
                }
                return new ReadPlan(formats, null, null, rung, prefetch, errors, deadLetters, watermarksOnEvent, binaryRows);
            case JAVA:
                return new ReadPlan(formats, null, "chosen by " + forced, rung, prefetch, errors, deadLetters, watermarksOnEvent, binaryRows);
            default:
                return new ReadPlan(
                        formats,
                        null,
                        untranslatable.isEmpty()
                                ? null
                                : "librdkafka cannot take " + String.join("; ", untranslatable),
                        rung,
                        prefetch,
                        errors,
                        deadLetters,
                        watermarksOnEvent,
                        binaryRows);
        }
    }

    /**
     * The dead-letter topic and its producer's properties under {@code DEAD_LETTER}; {@code null}
     * under the other policies, which take no dead-letter option.
     */
    private static DeadLetterTarget deadLetters(Map<String, String> options, ErrorPolicy errors) {
        String topic = options.get(StreamFusionKafkaOptions.ERRORS_TOPIC.key());
        Map<String, String> overrides = new HashMap<>();
        options.forEach((key, value) -> {
            if (key.startsWith(StreamFusionKafkaOptions.ERRORS_PROPERTIES_PREFIX)) {
                overrides.put(key.substring(StreamFusionKafkaOptions.ERRORS_PROPERTIES_PREFIX.length()), value);
            }
        });
        if (errors != ErrorPolicy.DEAD_LETTER) {
            if (topic != null || !overrides.isEmpty()) {
                throw new ValidationException(
                        "'" + StreamFusionKafkaOptions.ERRORS_TOPIC.key() + "' and '" + StreamFusionKafkaOptions.ERRORS_PROPERTIES_PREFIX
                                + "*' are for '" + ErrorPolicy.KEY + "' = 'DEAD_LETTER', but it is '" + errors + "'");
            }
            return null;
        }
        if (topic == null || topic.isBlank()) {
            throw new ValidationException(
                    "'" + ErrorPolicy.KEY + "' = 'DEAD_LETTER' needs the topic to produce to: '"
                            + StreamFusionKafkaOptions.ERRORS_TOPIC.key() + "'");
        }
        return new DeadLetterTarget(topic, LoginModules.rewritten(consumerProperties(options)), overrides);
    }

    /** The table's {@code properties.*} options, without the prefix. */
    private static Properties consumerProperties(Map<String, String> options) {
        Properties properties = new Properties();
        options.forEach(
                (key, value) -> {
                    if (key.startsWith(PROPERTIES_PREFIX)) {
                        properties.setProperty(key.substring(PROPERTIES_PREFIX.length()), value);
                    }
                });
        return properties;
    }

    private static final String PROPERTIES_PREFIX = "properties.";

    boolean nativeRung() {
        return stockReason == null && javaRungReason == null;
    }

    /** What the table's description says of how it reads. */
    String describe() {
        if (stockReason != null) {
            return "Flink's own reader: " + stockReason;
        }
        String decoded = formats.describe() + "decoded natively";
        return javaRungReason == null
                ? "native rung: librdkafka polls, " + decoded
                : "Java rung (" + javaRungReason + "): kafka-clients polls, " + decoded + " per poll";
    }
}
