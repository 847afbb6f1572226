package dev.streamfusion.fluss.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

import java.util.Set;

/**
 * A reader to the enumerator: the key-value snapshots of these buckets are read, and the reader's
 * checkpoint that follows holds the buckets' logs, not their snapshots.
 */
@Internal
final class SnapshotsRead implements SourceEvent {

    private static final long serialVersionUID = 1L;

    final Set<BucketId> buckets;

    SnapshotsRead(Set<BucketId> buckets) {
        this.buckets = Set.copyOf(buckets);
    }

    @Override
    public String toString() {
        return "SnapshotsRead" + buckets;
    }
}
