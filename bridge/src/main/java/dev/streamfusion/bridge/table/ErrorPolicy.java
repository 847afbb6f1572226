package dev.streamfusion.bridge.table;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * What a StreamFusion source does with input it cannot read: the table option {@value #KEY}, the
 * same for every connector that has it.
 *
 * @since 0.1
 */
@PublicEvolving
public enum ErrorPolicy {
    /** Fails the job, naming what could not be read (what Flink's connectors do). */
    FAIL,
    /** Skips it, counts it in the source's metrics and logs it; each connector says what is lost. */
    SKIP,
    /**
     * Skips it as {@link #SKIP} does and keeps it unchanged where the connector's dead-letter
     * options say (streamfusion-kafka: a topic); a connector without such a place refuses it.
     */
    DEAD_LETTER;

    public static final String KEY = "streamfusion.errors";

    public static final ConfigOption<ErrorPolicy> OPTION =
            ConfigOptions.key(KEY)
                    .enumType(ErrorPolicy.class)
                    .defaultValue(FAIL)
                    .withDescription(
                            "What the source does with input it cannot read: FAIL fails the job naming it; SKIP skips it,"
                                    + " counts it in the source's skipped metrics and logs it (streamfusion-kafka: a record"
                                    + " whose value or key the format cannot decode; streamfusion-parquet: a file whose footer"
                                    + " cannot be read); DEAD_LETTER (streamfusion-kafka) skips the record and produces it"
                                    + " unchanged to 'streamfusion.errors.topic', with headers saying where it came from and"
                                    + " why it was not read.");
}
