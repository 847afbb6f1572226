package dev.streamfusion.kafka;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.factories.DynamicTableFactory;

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

    private ReadPlan(KafkaFormats formats, String stockReason, String javaRungReason) {
        this.formats = formats;
        this.stockReason = stockReason;
        this.javaRungReason = javaRungReason;
    }

    static ReadPlan of(DynamicTableFactory.Context context) {
        Map<String, String> options = context.getCatalogTable().getOptions();
        StreamFusionKafkaOptions.Rung rung =
                Configuration.fromMap(options).get(StreamFusionKafkaOptions.RUNG);
        String forced = "'" + StreamFusionKafkaOptions.RUNG.key() + "' = '" + rung + "'";
        KafkaFormats formats = KafkaFormats.of(options);
        String stockReason = formats.notNative("decoded");
        if (stockReason != null) {
            if (rung != StreamFusionKafkaOptions.Rung.AUTO) {
                throw new ValidationException(forced + ", but " + stockReason);
            }
            return new ReadPlan(formats, stockReason, null);
        }
        List<String> untranslatable = LibrdkafkaConfig.consumer(consumerProperties(options)).untranslatable();
        switch (rung) {
            case NATIVE:
                if (!untranslatable.isEmpty()) {
                    throw new ValidationException(
                            forced + ", but librdkafka cannot take these properties: "
                                    + String.join("; ", untranslatable));
                }
                return new ReadPlan(formats, null, null);
            case JAVA:
                return new ReadPlan(formats, null, "chosen by " + forced);
            default:
                return new ReadPlan(
                        formats,
                        null,
                        untranslatable.isEmpty()
                                ? null
                                : "librdkafka cannot take " + String.join("; ", untranslatable));
        }
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
