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

    public WriteResult() {}

    WriteResult(long checkpointId, String files) {
        this.checkpointId = checkpointId;
        this.files = files;
    }
}
