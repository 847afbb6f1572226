package dev.streamfusion.kafka;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** Options of the streamfusion-kafka connector beyond those of Flink's kafka connector. */
@PublicEvolving
public final class StreamFusionKafkaOptions {

    /** How record values are read. */
    public enum Rung {
        /** The fastest rung the table's options allow. */
        AUTO,
        /** Flink's Kafka reader (kafka-clients) polls; values are decoded natively per poll. */
        JAVA,
        /** librdkafka polls and decodes in native code. */
        NATIVE
    }

    public static final ConfigOption<Rung> RUNG =
            ConfigOptions.key("streamfusion.rung")
                    .enumType(Rung.class)
                    .defaultValue(Rung.AUTO)
                    .withDescription(
                            "How record values are read: AUTO picks the fastest rung the table's options allow; "
                                    + "JAVA polls with kafka-clients and decodes natively; NATIVE polls with librdkafka.");

    private StreamFusionKafkaOptions() {}
}
