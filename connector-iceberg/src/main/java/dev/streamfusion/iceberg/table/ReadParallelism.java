package dev.streamfusion.iceberg.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.config.ExecutionConfigOptions;

import java.util.function.IntSupplier;

/**
 * The parallelism of a bounded read, as iceberg-flink sets its source's: the number of splits
 * planned, at most {@code table.exec.iceberg.infer-source-parallelism.max} and at most the query's
 * limit; with inference switched off, {@code table.exec.resource.default-parallelism} (and 1 where
 * that is not set, as iceberg-flink does). Never above {@code pipeline.max-parallelism} where that
 * is set. Streaming reads keep the planner's parallelism, as iceberg-flink's do.
 */
@Internal
final class ReadParallelism {

    /** iceberg-flink's option: whether a bounded read's parallelism follows its splits. */
    static final ConfigOption<Boolean> INFER = ConfigOptions.key("table.exec.iceberg.infer-source-parallelism")
            .booleanType()
            .defaultValue(true)
            .withDescription("Whether a bounded read runs at the parallelism of its number of splits (iceberg-flink's "
                    + "option, read from the job's configuration).");
    /** iceberg-flink's option: the most a bounded read's parallelism is inferred to. */
    static final ConfigOption<Integer> INFER_MAX = ConfigOptions.key("table.exec.iceberg.infer-source-parallelism.max")
            .intType()
            .defaultValue(100)
            .withDescription("The highest parallelism a bounded read is inferred to (iceberg-flink's option).");

    private final boolean infer;
    private final int inferMax;
    private final int defaultParallelism;
    private final int maxParallelism;

    private ReadParallelism(boolean infer, int inferMax, int defaultParallelism, int maxParallelism) {
        this.infer = infer;
        this.inferMax = inferMax;
        this.defaultParallelism = defaultParallelism;
        this.maxParallelism = maxParallelism;
    }

    /** The settings of {@code config}, the job's configuration as the planner hands it to a factory. */
    static ReadParallelism of(ReadableConfig config) {
        return new ReadParallelism(
                config.get(INFER),
                config.get(INFER_MAX),
                config.get(ExecutionConfigOptions.TABLE_EXEC_RESOURCE_DEFAULT_PARALLELISM),
                config.get(PipelineOptions.MAX_PARALLELISM));
    }

    /**
     * The parallelism of a bounded read of at most {@code limit} rows (-1: no limit) whose splits
     * {@code splits} plans (asked only when inference is on; a maximum below 1 is refused then).
     */
    int of(long limit, IntSupplier splits) {
        if (infer && inferMax < 1) {
            throw new ValidationException(INFER_MAX.key() + " is " + inferMax + ": it cannot be less than 1");
        }
        int parallelism = infer ? Math.min(splits.getAsInt(), inferMax) : defaultParallelism;
        if (limit > 0) {
            parallelism = (int) Math.min(parallelism, limit);
        }
        parallelism = Math.max(1, parallelism);
        return maxParallelism > 0 ? Math.min(parallelism, maxParallelism) : parallelism;
    }
}
