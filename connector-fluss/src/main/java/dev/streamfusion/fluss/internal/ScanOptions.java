package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;
import java.time.Duration;

/**
 * How a table is scanned: where the read starts ({@code scan.startup.mode}, and its timestamp); the
 * lease that keeps a primary-key table's key-value snapshots from being deleted while a {@code
 * full} read reads them ({@code scan.kv.snapshot.lease.id}, {@code
 * scan.kv.snapshot.lease.duration}); how often a partitioned table's partitions are listed ({@code
 * scan.partition.discovery.interval}).
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

    public ScanOptions(
            StartupMode mode, long timestamp, String leaseId, Duration leaseDuration, Duration partitionDiscoveryInterval) {
        this.mode = mode;
        this.timestamp = timestamp;
        this.leaseId = leaseId;
        this.leaseDuration = leaseDuration;
        this.partitionDiscoveryInterval = partitionDiscoveryInterval;
    }

    @Override
    public String toString() {
        return mode + (mode == StartupMode.TIMESTAMP ? "@" + timestamp : "");
    }
}
