package dev.streamfusion.operators.runtime;

import dev.streamfusion.bridge.batch.ArrowBatch;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.runtime.operators.sink.constraint.EnforcerException;

import org.apache.arrow.vector.FieldVector;
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
        ArrowBatch batch = element.getValue();
        try {
            int column = firstNull(batch.root(), columns);
            if (column >= 0) {
                throw new EnforcerException(
                        "Column '%s' is NOT NULL, however, a null value is being written into it. "
                                + String.format(
                                        "You can set job configuration '%s'='%s' to suppress this exception and drop such "
                                                + "records silently.",
                                        ExecutionConfigOptions.TABLE_EXEC_SINK_NOT_NULL_ENFORCER.key(),
                                        ExecutionConfigOptions.NotNullEnforcer.DROP.name()),
                        names[column]);
            }
            output.collect(element);
        } finally {
            // Also when handed on: a chained operator is done with it once collect returns (and
            // may have freed it: a received batch is freed once), an exchange has copied it.
            batch.release();
        }
    }

    /**
     * The column Flink's enforcer names for {@code root}'s rows, an index into {@code columns}, or
     * -1 when none of them holds a NULL. Flink checks row by row, each row's columns in order: so
     * the first of {@code columns} that is NULL in the first row where any of them is.
     */
    static int firstNull(VectorSchemaRoot root, int[] columns) {
        int row = root.getRowCount();
        int column = -1;
        for (int i = 0; i < columns.length; i++) {
            FieldVector vector = root.getVector(columns[i]);
            if (vector.getNullCount() == 0) {
                continue;
            }
            // Only rows before the first found so far: at that row, the earlier column comes first.
            for (int r = 0; r < row; r++) {
                if (vector.isNull(r)) {
                    row = r;
                    column = i;
                    break;
                }
            }
        }
        return column;
    }
}
