package dev.streamfusion.kafka;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
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
    /** Why Flink's own reader is used, or {@code null} when the table reads natively. */
    final String stockReason;

    private ReadPlan(String format, Map<String, String> formatOptions, String stockReason) {
        this.format = format;
        this.formatOptions = formatOptions;
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
        boolean valuePrefixed = options.containsKey("value.format");
        String format = valuePrefixed ? options.get("value.format") : options.get("format");
        String prefix = (valuePrefixed ? "value." : "") + format + ".";
        Map<String, String> formatOptions = new HashMap<>();
        options.forEach(
                (key, value) -> {
                    if (key.startsWith(prefix)) {
                        formatOptions.put(key.substring(prefix.length()), value);
                    }
                });
        String stockReason = null;
        if (format == null || !NATIVE_FORMATS.contains(format)) {
            stockReason = "the value format '" + format + "' is not decoded natively";
        } else if (options.containsKey("key.format")) {
            stockReason = "'key.format' is not decoded natively yet";
        } else if (context.getCatalogTable().getResolvedSchema().getColumns().stream()
                .anyMatch(c -> c instanceof Column.MetadataColumn)) {
            stockReason = "metadata columns are not read natively yet";
        }
        if (rung == StreamFusionKafkaOptions.Rung.JAVA && stockReason != null) {
            throw new ValidationException(
                    "'" + StreamFusionKafkaOptions.RUNG.key() + "' = 'JAVA', but " + stockReason);
        }
        return new ReadPlan(format, formatOptions, stockReason);
    }

    /** What the table's description says of how it reads. */
    String describe() {
        return stockReason == null
                ? "Java rung: kafka-clients polls, '" + format + "' decoded natively per poll"
                : "Flink's own reader: " + stockReason;
    }
}
