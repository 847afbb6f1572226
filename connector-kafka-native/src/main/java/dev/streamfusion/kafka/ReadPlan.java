package dev.streamfusion.kafka;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.factories.DynamicTableFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * How a streamfusion-kafka table reads: natively (the value format, its options) or, when the
 * table asks for something the native reader does not do yet, with Flink's own reader; and why.
 */
@Internal
final class ReadPlan {

    /** Value formats decoded natively. */
    static final Set<String> NATIVE_FORMATS = Set.of("json", "csv", "raw", "avro", "avro-confluent", "protobuf");

    final String format;
    final Map<String, String> formatOptions;
    /** The key format and its options, or {@code null} when the table reads no key. */
    final String keyFormat;
    final Map<String, String> keyFormatOptions;
    /** Why Flink's own reader is used, or {@code null} when the table reads natively. */
    final String stockReason;

    private ReadPlan(
            String format,
            Map<String, String> formatOptions,
            String keyFormat,
            Map<String, String> keyFormatOptions,
            String stockReason) {
        this.format = format;
        this.formatOptions = formatOptions;
        this.keyFormat = keyFormat;
        this.keyFormatOptions = keyFormatOptions;
        this.stockReason = stockReason;
    }

    static ReadPlan of(DynamicTableFactory.Context context) {
        Map<String, String> options = context.getCatalogTable().getOptions();
        StreamFusionKafkaOptions.Rung rung =
                Configuration.fromMap(options).get(StreamFusionKafkaOptions.RUNG);
        if (rung == StreamFusionKafkaOptions.Rung.NATIVE) {
            throw new ValidationException(
                    "'" + StreamFusionKafkaOptions.RUNG.key() + "' = 'NATIVE': the librdkafka rung is not available "
                            + "in this version; use 'AUTO' or 'JAVA'");
        }
        String format = valueFormat(options);
        String keyFormat = options.get("key.format");
        String stockReason = null;
        if (format == null || !NATIVE_FORMATS.contains(format)) {
            stockReason = "the value format '" + format + "' is not decoded natively";
        } else if (keyFormat != null && !NATIVE_FORMATS.contains(keyFormat)) {
            stockReason = "the key format '" + keyFormat + "' is not decoded natively";
        }
        if (rung == StreamFusionKafkaOptions.Rung.JAVA && stockReason != null) {
            throw new ValidationException(
                    "'" + StreamFusionKafkaOptions.RUNG.key() + "' = 'JAVA', but " + stockReason);
        }
        return new ReadPlan(
                format,
                valueFormatOptions(options),
                keyFormat,
                keyFormat == null ? null : keyFormatOptions(options, keyFormat),
                stockReason);
    }

    /** The value format's identifier: {@code value.format}, else {@code format}. */
    static String valueFormat(Map<String, String> options) {
        return options.containsKey("value.format") ? options.get("value.format") : options.get("format");
    }

    /** The value format's options, without their prefix. */
    static Map<String, String> valueFormatOptions(Map<String, String> options) {
        return formatOptions(options, (options.containsKey("value.format") ? "value." : "") + valueFormat(options) + ".");
    }

    /** The key format's options, without their prefix. */
    static Map<String, String> keyFormatOptions(Map<String, String> options, String keyFormat) {
        return formatOptions(options, "key." + keyFormat + ".");
    }

    /** The options under {@code prefix}, without it. */
    private static Map<String, String> formatOptions(Map<String, String> options, String prefix) {
        Map<String, String> formatOptions = new HashMap<>();
        options.forEach(
                (key, value) -> {
                    if (key.startsWith(prefix)) {
                        formatOptions.put(key.substring(prefix.length()), value);
                    }
                });
        return formatOptions;
    }

    /** What the table's description says of how it reads. */
    String describe() {
        if (stockReason != null) {
            return "Flink's own reader: " + stockReason;
        }
        return "Java rung: kafka-clients polls, '" + format + "' "
                + (keyFormat == null ? "" : "values and '" + keyFormat + "' keys ") + "decoded natively per poll";
    }
}
