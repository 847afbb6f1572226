package dev.streamfusion.kafka;

import org.apache.flink.annotation.Internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * A table's value and key formats with their options (keys without the format prefix), read from
 * its options as Flink's kafka connector reads them: {@code value.format}, else {@code format},
 * and {@code key.format}.
 */
@Internal
final class KafkaFormats {

    /** Formats StreamFusion decodes and encodes natively. */
    static final Set<String> NATIVE = Set.of("json", "csv", "raw", "avro", "avro-confluent", "protobuf");

    final String format;
    final Map<String, String> formatOptions;
    /** The key format and its options, or {@code null} when the table has no key format. */
    final String keyFormat;
    final Map<String, String> keyFormatOptions;

    private KafkaFormats(
            String format, Map<String, String> formatOptions, String keyFormat, Map<String, String> keyFormatOptions) {
        this.format = format;
        this.formatOptions = formatOptions;
        this.keyFormat = keyFormat;
        this.keyFormatOptions = keyFormatOptions;
    }

    static KafkaFormats of(Map<String, String> options) {
        boolean valuePrefixed = options.containsKey("value.format");
        String format = valuePrefixed ? options.get("value.format") : options.get("format");
        String keyFormat = options.get("key.format");
        return new KafkaFormats(
                format,
                withoutPrefix(options, (valuePrefixed ? "value." : "") + format + "."),
                keyFormat,
                keyFormat == null ? null : withoutPrefix(options, "key." + keyFormat + "."));
    }

    /**
     * Why the formats cannot be handled natively ({@code verb}: "decoded" or "encoded"), or
     * {@code null} when they can.
     */
    String notNative(String verb) {
        if (format == null || !NATIVE.contains(format)) {
            return "the value format '" + format + "' is not " + verb + " natively";
        }
        if (keyFormat != null && !NATIVE.contains(keyFormat)) {
            return "the key format '" + keyFormat + "' is not " + verb + " natively";
        }
        return null;
    }

    /** "'json' " or "'json' values and 'raw' keys ", for descriptions. */
    String describe() {
        return "'" + format + "' " + (keyFormat == null ? "" : "values and '" + keyFormat + "' keys ");
    }

    private static Map<String, String> withoutPrefix(Map<String, String> options, String prefix) {
        Map<String, String> formatOptions = new HashMap<>();
        options.forEach(
                (key, value) -> {
                    if (key.startsWith(prefix)) {
                        formatOptions.put(key.substring(prefix.length()), value);
                    }
                });
        return formatOptions;
    }
}
