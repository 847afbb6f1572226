package dev.streamfusion.operators.runtime;

import dev.streamfusion.bridge.batch.ArrowBatch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.runtime.operators.sink.constraint.EnforcerException;

import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Flink's NOT NULL check of a sink's columns, over the batches the island's calc hands a sink:
 * the calc can compute a NULL where Flink's type says NOT NULL (a CAST that overflows gives NULL),
 * which Flink's sink constraint enforcer fails on with this error. The batches pass on unchanged.
 */
@Internal
public final class NotNullCheckOperator extends AbstractStreamOperator<ArrowBatch>
        implements OneInputStreamOperator<ArrowBatch, ArrowBatch> {

    private static final long serialVersionUID = 1L;

    private final int[] columns;
    private final String[] names;

    /** Checks the columns at {@code columns}, named {@code names} in the sink's table. */
    public NotNullCheckOperator(int[] columns, String[] names) {
        this.columns = columns.clone();
        this.names = names.clone();
    }

    @Override
    public void processElement(StreamRecord<ArrowBatch> element) {
        VectorSchemaRoot root = element.getValue().root();
        for (int i = 0; i < columns.length; i++) {
            if (root.getVector(columns[i]).getNullCount() > 0) {
                element.getValue().release();
                throw new EnforcerException(
                        "Column '%s' is NOT NULL, however, a null value is being written into it. "
                                + String.format(
                                        "You can set job configuration '%s'='%s' to suppress this exception and drop such "
                                                + "records silently.",
                                        ExecutionConfigOptions.TABLE_EXEC_SINK_NOT_NULL_ENFORCER.key(),
                                        ExecutionConfigOptions.NotNullEnforcer.DROP.name()),
                        names[i]);
            }
        }
        output.collect(element);
    }
}
