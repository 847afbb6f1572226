package dev.streamfusion.kafka;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.factories.DynamicTableFactory;

import java.util.Map;

/**
 * How a streamfusion-kafka table reads: natively (its formats) or, when the table asks for
 * something the native reader does not do, with Flink's own reader; and why.
 */
@Internal
final class ReadPlan {

    final KafkaFormats formats;
    /** Why Flink's own reader is used, or {@code null} when the table reads natively. */
    final String stockReason;

    private ReadPlan(KafkaFormats formats, String stockReason) {
        this.formats = formats;
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
        KafkaFormats formats = KafkaFormats.of(options);
        String stockReason = formats.notNative("decoded");
        if (rung == StreamFusionKafkaOptions.Rung.JAVA && stockReason != null) {
            throw new ValidationException(
                    "'" + StreamFusionKafkaOptions.RUNG.key() + "' = 'JAVA', but " + stockReason);
        }
        return new ReadPlan(formats, stockReason);
    }

    /** What the table's description says of how it reads. */
    String describe() {
        return stockReason != null
                ? "Flink's own reader: " + stockReason
                : "Java rung: kafka-clients polls, " + formats.describe() + "decoded natively per poll";
    }
}
