package dev.streamfusion.parquet.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;

/** A split being read: the split, and how many of its rows are emitted. */
@Internal
final class RowGroupSplitState {

    final RowGroupSplit split;
    long emitted;

    RowGroupSplitState(RowGroupSplit split) {
        this.split = split;
        this.emitted = split.emitted;
    }

    /** The split's values of the columns not read from the file, once the reader asks. */
    RowData constants;

    RowGroupSplit toSplit() {
        return split.withEmitted(emitted);
    }
}
