package dev.streamfusion.parquet.source;

import org.apache.flink.annotation.Internal;

/** A split being read: the split, and how many of its rows are emitted. */
@Internal
final class RowGroupSplitState {

    final RowGroupSplit split;
    long emitted;

    RowGroupSplitState(RowGroupSplit split) {
        this.split = split;
        this.emitted = split.emitted;
    }

    RowGroupSplit toSplit() {
        return new RowGroupSplit(split.path, split.rowGroup, split.rows, emitted);
    }
}
