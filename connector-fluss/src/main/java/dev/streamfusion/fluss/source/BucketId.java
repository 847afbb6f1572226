package dev.streamfusion.fluss.source;

import org.apache.flink.annotation.Internal;

import org.apache.fluss.metadata.TableBucket;

import java.io.Serializable;
import java.util.Objects;

/** A bucket of a Fluss table, or of one of its partitions. */
@Internal
final class BucketId implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The {@link #partitionId} of a bucket of a table without partitions. */
    static final long NO_PARTITION = -1;

    final long partitionId;
    final int bucket;

    BucketId(long partitionId, int bucket) {
        this.partitionId = partitionId;
        this.bucket = bucket;
    }

    boolean isPartitioned() {
        return partitionId != NO_PARTITION;
    }

    /** The bucket as the Fluss client names it, in the table {@code tableId}. */
    TableBucket toTableBucket(long tableId) {
        return isPartitioned() ? new TableBucket(tableId, partitionId, bucket) : new TableBucket(tableId, bucket);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BucketId && ((BucketId) o).partitionId == partitionId && ((BucketId) o).bucket == bucket;
    }

    @Override
    public int hashCode() {
        return Objects.hash(partitionId, bucket);
    }

    @Override
    public String toString() {
        return (isPartitioned() ? "p" + partitionId + "-" : "") + "bucket-" + bucket;
    }
}
