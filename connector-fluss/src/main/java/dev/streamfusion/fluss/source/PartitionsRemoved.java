package dev.streamfusion.fluss.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

import java.util.Set;

/** The enumerator to its readers: these partitions were dropped; stop reading their buckets. */
@Internal
final class PartitionsRemoved implements SourceEvent {

    private static final long serialVersionUID = 1L;

    final Set<Long> partitionIds;

    PartitionsRemoved(Set<Long> partitionIds) {
        this.partitionIds = Set.copyOf(partitionIds);
    }

    @Override
    public String toString() {
        return "PartitionsRemoved" + partitionIds;
    }
}
