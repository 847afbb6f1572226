package dev.streamfusion.iceberg.source;

import org.apache.flink.annotation.Internal;

import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

import java.io.Serializable;
import java.time.Duration;

/**
 * What a scan reads, in iceberg-flink's terms: a snapshot (by id, time, branch or tag) or, when
 * streaming, the appends of each new snapshot from a starting point on; how Iceberg Java combines
 * file tasks into splits; the filter planning prunes files with.
 */
@Internal
public final class ScanOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Where a streaming read starts (iceberg-flink's {@code starting-strategy}). */
    public enum StartingStrategy {
        TABLE_SCAN_THEN_INCREMENTAL,
        INCREMENTAL_FROM_LATEST_SNAPSHOT,
        INCREMENTAL_FROM_LATEST_SNAPSHOT_EXCLUSIVE,
        INCREMENTAL_FROM_EARLIEST_SNAPSHOT,
        INCREMENTAL_FROM_SNAPSHOT_ID,
        INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP
    }

    boolean streaming;
    Duration monitorInterval = Duration.ofSeconds(60);
    StartingStrategy startingStrategy = StartingStrategy.INCREMENTAL_FROM_LATEST_SNAPSHOT;
    Long startSnapshotId;
    Long startSnapshotTimestamp;
    Long endSnapshotId;
    String startTag;
    String endTag;
    Long snapshotId;
    Long asOfTimestamp;
    String branch;
    String tag;
    Long splitSize;
    Integer splitLookback;
    Long splitOpenFileCost;
    int maxPlanningSnapshotCount = Integer.MAX_VALUE;
    int maxAllowedPlanningFailures = 3;
    boolean caseSensitive;
    Expression filter = Expressions.alwaysTrue();

    /** A bounded scan of the current snapshot of the main branch, case-insensitive. */
    public ScanOptions() {}

    /** Options of their own, equal to these. */
    public ScanOptions copy() {
        ScanOptions c = new ScanOptions();
        c.streaming = streaming;
        c.monitorInterval = monitorInterval;
        c.startingStrategy = startingStrategy;
        c.startSnapshotId = startSnapshotId;
        c.startSnapshotTimestamp = startSnapshotTimestamp;
        c.endSnapshotId = endSnapshotId;
        c.startTag = startTag;
        c.endTag = endTag;
        c.snapshotId = snapshotId;
        c.asOfTimestamp = asOfTimestamp;
        c.branch = branch;
        c.tag = tag;
        c.splitSize = splitSize;
        c.splitLookback = splitLookback;
        c.splitOpenFileCost = splitOpenFileCost;
        c.maxPlanningSnapshotCount = maxPlanningSnapshotCount;
        c.maxAllowedPlanningFailures = maxAllowedPlanningFailures;
        c.caseSensitive = caseSensitive;
        c.filter = filter;
        return c;
    }

    public ScanOptions streaming(boolean value) {
        streaming = value;
        return this;
    }

    public boolean isStreaming() {
        return streaming;
    }

    public ScanOptions monitorInterval(Duration value) {
        monitorInterval = value;
        return this;
    }

    public ScanOptions startingStrategy(StartingStrategy value) {
        startingStrategy = value;
        return this;
    }

    public ScanOptions startSnapshotId(Long value) {
        startSnapshotId = value;
        return this;
    }

    public ScanOptions startSnapshotTimestamp(Long value) {
        startSnapshotTimestamp = value;
        return this;
    }

    public ScanOptions endSnapshotId(Long value) {
        endSnapshotId = value;
        return this;
    }

    public ScanOptions startTag(String value) {
        startTag = value;
        return this;
    }

    public ScanOptions endTag(String value) {
        endTag = value;
        return this;
    }

    public ScanOptions snapshotId(Long value) {
        snapshotId = value;
        return this;
    }

    public ScanOptions asOfTimestamp(Long value) {
        asOfTimestamp = value;
        return this;
    }

    public ScanOptions branch(String value) {
        branch = value;
        return this;
    }

    public ScanOptions tag(String value) {
        tag = value;
        return this;
    }

    public ScanOptions splitSize(Long value) {
        splitSize = value;
        return this;
    }

    public ScanOptions splitLookback(Integer value) {
        splitLookback = value;
        return this;
    }

    public ScanOptions splitOpenFileCost(Long value) {
        splitOpenFileCost = value;
        return this;
    }

    public ScanOptions maxPlanningSnapshotCount(int value) {
        maxPlanningSnapshotCount = value;
        return this;
    }

    public ScanOptions maxAllowedPlanningFailures(int value) {
        maxAllowedPlanningFailures = value;
        return this;
    }

    public int maxAllowedPlanningFailures() {
        return maxAllowedPlanningFailures;
    }

    public ScanOptions caseSensitive(boolean value) {
        caseSensitive = value;
        return this;
    }

    public boolean caseSensitive() {
        return caseSensitive;
    }

    public ScanOptions filter(Expression value) {
        filter = value;
        return this;
    }

    public Expression filter() {
        return filter;
    }
}
