package dev.streamfusion.kafka.table;

import dev.streamfusion.bridge.NativeLibrary;
import dev.streamfusion.formats.NativeFormatDecoder;
import dev.streamfusion.formats.NativeFormatEncoder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.RowType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A table's value and key formats with their options (keys without the format prefix), read from
 * its options as Flink's kafka connector reads them: {@code format}, else {@code value.format},
 * and {@code key.format}; a format's options are under the prefix Flink's factory helper gives
 * the option that names it ({@code json.*} for {@code format}, {@code value.json.*} for {@code
 * value.format}, {@code key.json.*} for {@code key.format}).
 */
@Internal
final class KafkaFormats {

    /** Formats StreamFusion decodes and encodes natively. */
    static final Set<String> NATIVE = Set.of("json", "csv", "raw", "avro", "avro-confluent", "protobuf");

    final String format;
    /** The prefix of the value format's options in the table's options, such as "value.json.". */
    private final String formatPrefix;
    final Map<String, String> formatOptions;
    /** The key format and its options, or {@code null} when the table has no key format. */
    final String keyFormat;
    final Map<String, String> keyFormatOptions;

    private KafkaFormats(
            String format,
            String formatPrefix,
            Map<String, String> formatOptions,
            String keyFormat,
            Map<String, String> keyFormatOptions) {
        this.format = format;
        this.formatPrefix = formatPrefix;
        this.formatOptions = formatOptions;
        this.keyFormat = keyFormat;
        this.keyFormatOptions = keyFormatOptions;
    }

    static KafkaFormats of(Map<String, String> options) {
        // As Flink's Kafka factory (getValueEncodingFormat, getValueDecodingFormat): 'format' where
        // the table sets it, 'value.format' only where it does not.
        boolean valuePrefixed = !options.containsKey("format") && options.containsKey("value.format");
        String format = valuePrefixed ? options.get("value.format") : options.get("format");
        String keyFormat = options.get("key.format");
        String formatPrefix = (valuePrefixed ? "value." : "") + format + ".";
        Map<String, String> formatOptions = withoutPrefix(options, formatPrefix);
        Map<String, String> keyFormatOptions = keyFormat == null ? null : withoutPrefix(options, "key." + keyFormat + ".");
        // As Flink's Kafka factory: a table of one topic registers its schemas under the topic's
        // subjects unless it names them.
        String topic = options.get("topic");
        if (topic != null && !topic.contains(";")) {
            completeSubject(format, formatOptions, topic.trim() + "-value");
            completeSubject(keyFormat, keyFormatOptions, topic.trim() + "-key");
        }
        return new KafkaFormats(format, formatPrefix, formatOptions, keyFormat, keyFormatOptions);
    }

    private static void completeSubject(String format, Map<String, String> options, String subject) {
        if (format != null && REGISTRY_FORMATS.contains(format)) {
            options.putIfAbsent("subject", subject);
        }
    }

    /** Formats whose schemas a Confluent schema registry holds. */
    private static final Set<String> REGISTRY_FORMATS = Set.of("avro-confluent", "debezium-avro-confluent");

    /**
     * avro-confluent options the native registry client does not act on: a table with any of
     * them is read and written by Flink's own format.
     */
    private static final List<String> UNSUPPORTED_REGISTRY_OPTIONS =
            List.of(
                    "schema",
                    "properties.",
                    "ssl.",
                    "bearer-auth.",
                    "basic-auth.credentials-source");

    /** Why a format's options keep it from being handled natively, or {@code null}. */
    private static String unsupportedOptions(String part, String prefix, String format, Map<String, String> options) {
        if (!"avro-confluent".equals(format)) {
            return null;
        }
        for (String option : options.keySet()) {
            for (String unsupported : UNSUPPORTED_REGISTRY_OPTIONS) {
                boolean credentialsSourceIsUserInfo =
                        option.equals("basic-auth.credentials-source") && "USER_INFO".equals(options.get(option));
                if ((option.equals(unsupported) || (unsupported.endsWith(".") && option.startsWith(unsupported)))
                        && !credentialsSourceIsUserInfo) {
                    return "the " + part + " format's option '" + prefix + option
                            + "' is not supported by the native schema registry client";
                }
            }
        }
        return null;
    }

    /**
     * Why the formats cannot be handled natively ({@code verb}: "decoded" or "encoded"): the
     * native library is not there for this platform, or a format or option is not native; or
     * {@code null} when they can.
     */
    String notNative(String verb) {
        String unavailable = NativeLibrary.unavailableReason();
        if (unavailable != null) {
            return unavailable;
        }
        if (format == null || !NATIVE.contains(format)) {
            return "the value format '" + format + "' is not " + verb + " natively";
        }
        if (keyFormat != null && !NATIVE.contains(keyFormat)) {
            return "the key format '" + keyFormat + "' is not " + verb + " natively";
        }
        String options = unsupportedOptions("value", formatPrefix, format, formatOptions);
        if (options == null && keyFormat != null) {
            options = unsupportedOptions("key", "key." + keyFormat + ".", keyFormat, keyFormatOptions);
        }
        return options;
    }

    /**
     * Why the native decoders do not take these formats for rows of {@code valueType} and {@code
     * keyType} (which creating them, at planning, tells), or {@code null} when they do.
     */
    String notDecodable(RowType valueType, RowType keyType) {
        String value = refusal("value", format, () -> NativeFormatDecoder.check(format, formatOptions, valueType, valueType));
        if (value != null || keyType == null) {
            return value;
        }
        return refusal("key", keyFormat, () -> NativeFormatDecoder.check(keyFormat, keyFormatOptions, keyType, keyType));
    }

    /** As {@link #notDecodable}, for the native encoders. */
    String notEncodable(RowType valueType, RowType keyType) {
        String value = refusal("value", format, () -> NativeFormatEncoder.check(format, formatOptions, valueType));
        if (value != null || keyType == null) {
            return value;
        }
        return refusal("key", keyFormat, () -> NativeFormatEncoder.check(keyFormat, keyFormatOptions, keyType));
    }

    private static String refusal(String part, String format, Runnable check) {
        try {
            check.run();
            return null;
        } catch (RuntimeException | LinkageError e) {
            return "the " + part + " format '" + format + "' is not handled natively here: " + e.getMessage();
        }
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
