package dev.streamfusion.iceberg.sink;

import org.apache.flink.annotation.Internal;

/**
 * The data files one writer subtask closed for a checkpoint (or at the end of its input), as the
 * native writer describes them (JSON): what the committer commits once the checkpoint completes.
 */
@Internal
public final class WriteResult {

    /** The checkpoint the files belong to; {@link Long#MAX_VALUE} at the end of the input. */
    public long checkpointId;
    /** The files' JSON description. */
    public String files;
    /**
     * In the committer's state: the checkpoint whose snapshot took the files (0 in state written
     * before it was kept, and in a writer's result).
     */
    public long takenAt;

    public WriteResult() {}

    WriteResult(long checkpointId, String files) {
        this(checkpointId, files, 0);
    }

    WriteResult(long checkpointId, String files, long takenAt) {
        this.checkpointId = checkpointId;
        this.files = files;
        this.takenAt = takenAt;
    }
}
