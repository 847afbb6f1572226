package dev.streamfusion.kafka.table;

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

    /** librdkafka's largest {@code queued.max.messages.kbytes}. */
    public static final int PREFETCH_KBYTES_MAX = 2_097_151;

    public static final ConfigOption<Integer> PREFETCH_KBYTES =
            ConfigOptions.key("streamfusion.prefetch.kbytes")
                    .intType()
                    .defaultValue(65_536)
                    .withDescription(
                            "On the native rung, how many kilobytes of records librdkafka fetches ahead of the reader, "
                                    + "across all of a reader's partitions (librdkafka's queued.max.messages.kbytes), "
                                    + "from 1 to " + PREFETCH_KBYTES_MAX + ". The Java rung's read-ahead is "
                                    + "kafka-clients' (fetch.max.bytes).");

    public static final ConfigOption<String> ERRORS_TOPIC =
            ConfigOptions.key("streamfusion.errors.topic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Under 'streamfusion.errors' = 'DEAD_LETTER', the topic each record the source cannot decode is"
                                    + " produced to, unchanged, with headers naming its topic, partition, offset, timestamp and"
                                    + " the reason. The producer takes the table's 'properties.*' a producer knows (servers,"
                                    + " security), then 'streamfusion.errors.properties.*'.");

    /** Producer properties of the dead-letter topic, over the table's {@code properties.*}. */
    public static final String ERRORS_PROPERTIES_PREFIX = "streamfusion.errors.properties.";

    private StreamFusionKafkaOptions() {}
}
