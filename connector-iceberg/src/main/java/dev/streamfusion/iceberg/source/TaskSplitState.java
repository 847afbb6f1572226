package dev.streamfusion.iceberg.source;

import org.apache.flink.annotation.Internal;

/** A split being read: the split, the file task its last emitted row came from, and the rows of it emitted. */
@Internal
final class TaskSplitState {

    final TaskSplit split;
    int task;
    long emitted;

    TaskSplitState(TaskSplit split) {
        this.split = split;
        this.task = split.task;
        this.emitted = split.emitted;
    }

    TaskSplit toSplit() {
        return split.at(task, emitted);
    }
}
