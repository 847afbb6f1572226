package dev.streamfusion.bridge.table;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;

/**
 * How a StreamFusion source hands its rows to the stock Flink operator after it: the table option
 * {@value #KEY}, the same for every connector that has it. Either way the rows are read from the
 * source's Arrow batch without a copy per row; they differ in what Flink's copy into the next
 * chained operator costs.
 *
 * @since 0.1
 */
@PublicEvolving
public enum RowLayout {
    /**
     * {@link #BINARY} where the job copies each row into the next operator (a streaming job without
     * {@code pipeline.object-reuse}, Flink's default) and every produced column has a native binary
     * layout; {@link #COLUMNAR} otherwise (Flink's planner turns object reuse on for every batch
     * job).
     */
    AUTO,
    /**
     * Each batch's rows written natively in Flink's binary layout ({@code BinaryRowData}): Flink
     * copies a row as one byte copy. Nested columns are written as Flink's serializers write them.
     */
    BINARY,
    /** Views over the Arrow columns ({@code ColumnarRowData}): Flink copies a row field by field. */
    COLUMNAR;

    public static final String KEY = "streamfusion.row-layout";

    public static final ConfigOption<RowLayout> OPTION =
            ConfigOptions.key(KEY)
                    .enumType(RowLayout.class)
                    .defaultValue(AUTO)
                    .withDescription(
                            "How the source hands rows to the stock operator after it: BINARY writes each batch's rows"
                                    + " natively in Flink's binary row layout, which Flink copies between chained operators as"
                                    + " one byte copy; COLUMNAR hands views over the Arrow columns, which Flink copies field by"
                                    + " field; AUTO chooses BINARY in a streaming job that does not reuse objects"
                                    + " ('pipeline.object-reuse'), where every row is copied, and COLUMNAR otherwise (Flink's"
                                    + " planner reuses objects in every batch job). A source handing whole batches to the native"
                                    + " island writes no rows.");

    /**
     * Whether a source configured with this layout hands rows in the binary layout, in a job
     * configured by {@code job} (the planner's table configuration).
     */
    public boolean binary(ReadableConfig job) {
        switch (this) {
            case BINARY:
                return true;
            case COLUMNAR:
                return false;
            default:
                return !job.get(PipelineOptions.OBJECT_REUSE)
                        && job.get(ExecutionOptions.RUNTIME_MODE) != RuntimeExecutionMode.BATCH;
        }
    }
}
