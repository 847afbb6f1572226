package dev.streamfusion.fluss.internal;

import org.apache.flink.annotation.PublicEvolving;

/** Where a read starts, as fluss-flink names it ({@code scan.startup.mode}). */
@PublicEvolving
public enum StartupMode {
    /** A log table from its first record (a primary-key table: its snapshot, then its changes). */
    FULL,
    /** From the first record of the log. */
    EARLIEST,
    /** From the end of the log: only records written after the job starts. */
    LATEST,
    /** From the first record written at or after {@code scan.startup.timestamp}. */
    TIMESTAMP
}
