package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;
import java.time.Duration;

/**
 * How a table is scanned: where the read starts ({@code scan.startup.mode}, and its timestamp); the
 * lease that keeps a primary-key table's key-value snapshots from being deleted while a {@code
 * full} read reads them ({@code scan.kv.snapshot.lease.id}, {@code
 * scan.kv.snapshot.lease.duration}); how often a partitioned table's partitions are listed ({@code
 * scan.partition.discovery.interval}), and which of them the query's filters leave to read.
 */
@Internal
public final class ScanOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    public final StartupMode mode;
    /** Epoch milliseconds of a {@link StartupMode#TIMESTAMP} start; -1 otherwise. */
    public final long timestamp;
    /** The lease's id, or {@code null} for one made up when the job first starts. */
    public final String leaseId;
    public final Duration leaseDuration;
    /** How often partitions are listed; zero: once, when the job starts. */
    public final Duration partitionDiscoveryInterval;
    /** The partitions the query may read rows of, or {@code null} for every partition. */
    public final PartitionFilter partitionFilter;
    /** Whether the read ends at the offsets each bucket's log had when the job started (a batch job's read). */
    public final boolean bounded;

    public ScanOptions(
            StartupMode mode, long timestamp, String leaseId, Duration leaseDuration, Duration partitionDiscoveryInterval) {
        this(mode, timestamp, leaseId, leaseDuration, partitionDiscoveryInterval, null, false);
    }

    private ScanOptions(
            StartupMode mode, long timestamp, String leaseId, Duration leaseDuration, Duration partitionDiscoveryInterval,
            PartitionFilter partitionFilter, boolean bounded) {
        this.partitionFilter = partitionFilter;
        this.bounded = bounded;
        this.mode = mode;
        this.timestamp = timestamp;
        this.leaseId = leaseId;
        this.leaseDuration = leaseDuration;
        this.partitionDiscoveryInterval = partitionDiscoveryInterval;
    }

    /** These options, reading only the partitions {@code filter} lets through ({@code null}: every partition). */
    public ScanOptions withPartitionFilter(PartitionFilter filter) {
        return new ScanOptions(mode, timestamp, leaseId, leaseDuration, partitionDiscoveryInterval, filter, bounded);
    }

    /** These options, the read ending at the offsets the buckets' logs have when the job starts. */
    public ScanOptions bounded() {
        return new ScanOptions(mode, timestamp, leaseId, leaseDuration, partitionDiscoveryInterval, partitionFilter, true);
    }

    /** Whether the partition named {@code spec} (column to value) is read. */
    public boolean reads(java.util.Map<String, String> spec) {
        return partitionFilter == null || partitionFilter.test(spec);
    }

    @Override
    public String toString() {
        return mode + (mode == StartupMode.TIMESTAMP ? "@" + timestamp : "") + (bounded ? ", bounded" : "");
    }
}
