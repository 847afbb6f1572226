package dev.streamfusion.fluss.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * One bucket of a Fluss table (or of one of its partitions): its log read from an offset on, or (a
 * primary-key table read from its start) its key-value snapshot first. A snapshot split's rows are
 * the snapshot's, as inserts; when they are all emitted the reader goes on with the bucket's log
 * from the offset the snapshot was taken at.
 */
@Internal
public final class BucketSplit implements SourceSplit {

    /** The {@link #snapshotId} of a split of the log alone. */
    static final long NO_SNAPSHOT = -1;
    /** The {@link #stoppingOffset} of a split read without end. */
    static final long NO_STOP = -1;
    /** The {@link #tableId} of a split that does not know its table's. */
    static final long NO_TABLE_ID = -1;

    final BucketId id;
    /** The partition's name ({@code null} for a table without partitions). */
    final String partitionName;
    /**
     * The offset of the next log record to emit ({@code LogScanner.EARLIEST_OFFSET} for the log's
     * first); of a snapshot split, the offset the log goes on from after the snapshot.
     */
    final long offset;
    /** The key-value snapshot read before the log, or {@link #NO_SNAPSHOT}. */
    final long snapshotId;
    /** How many of the snapshot's rows were emitted already (and are skipped when it is read again). */
    final long snapshotRowsEmitted;
    /** The offset the log is read up to (not including it), or {@link #NO_STOP}. */
    final long stoppingOffset;
    /**
     * The id of the table the split was planned for, or {@link #NO_TABLE_ID} (a split restored from
     * a state written before splits held it): a table dropped and created again under its name has
     * another id, and its buckets' offsets are not this split's.
     */
    final long tableId;

    /** The log of {@code bucket} of a table without partitions from {@code offset} on. */
    BucketSplit(int bucket, long offset) {
        this(new BucketId(BucketId.NO_PARTITION, bucket), null, offset, NO_SNAPSHOT, 0);
    }

    BucketSplit(BucketId id, String partitionName, long offset, long snapshotId, long snapshotRowsEmitted) {
        this(id, partitionName, offset, snapshotId, snapshotRowsEmitted, NO_STOP);
    }

    BucketSplit(BucketId id, String partitionName, long offset, long snapshotId, long snapshotRowsEmitted, long stoppingOffset) {
        this(id, partitionName, offset, snapshotId, snapshotRowsEmitted, stoppingOffset, NO_TABLE_ID);
    }

    private BucketSplit(
            BucketId id, String partitionName, long offset, long snapshotId, long snapshotRowsEmitted, long stoppingOffset,
            long tableId) {
        this.tableId = tableId;
        this.stoppingOffset = stoppingOffset;
        this.id = id;
        this.partitionName = partitionName;
        this.offset = offset;
        this.snapshotId = snapshotId;
        this.snapshotRowsEmitted = snapshotRowsEmitted;
    }

    /** The log of this split's bucket from {@code from} on. */
    BucketSplit log(long from) {
        return new BucketSplit(id, partitionName, from, NO_SNAPSHOT, 0, stoppingOffset, tableId);
    }

    /** This split, ending at {@code stop} (not including it). */
    BucketSplit stoppingAt(long stop) {
        return new BucketSplit(id, partitionName, offset, snapshotId, snapshotRowsEmitted, stop, tableId);
    }

    /** This split, of the table of id {@code table}. */
    BucketSplit ofTable(long table) {
        return new BucketSplit(id, partitionName, offset, snapshotId, snapshotRowsEmitted, stoppingOffset, table);
    }

    boolean isBounded() {
        return stoppingOffset != NO_STOP;
    }

    boolean isSnapshot() {
        return snapshotId != NO_SNAPSHOT;
    }

    @Override
    public String splitId() {
        return isSnapshot() ? id + "-snapshot-" + snapshotId : id.toString();
    }

    @Override
    public String toString() {
        return (partitionName == null ? "" : partitionName + ":")
                + (isSnapshot() ? splitId() + "+" + snapshotRowsEmitted + " then log@" + offset : splitId() + "@" + offset)
                + (isBounded() ? " to " + stoppingOffset : "");
    }

    /**
     * The mutable position of a split being read: the offset after the last log record emitted, or
     * the snapshot rows emitted.
     */
    static final class State {
        final BucketSplit split;
        long offset;
        long snapshotRowsEmitted;

        State(BucketSplit split) {
            this.split = split;
            this.offset = split.offset;
            this.snapshotRowsEmitted = split.snapshotRowsEmitted;
        }

        BucketSplit toSplit() {
            return new BucketSplit(
                    split.id, split.partitionName, offset, split.snapshotId, snapshotRowsEmitted, split.stoppingOffset, split.tableId);
        }
    }

    /**
     * Splits as bytes: version 4 is the bucket, the offset, the snapshot, the snapshot rows emitted,
     * the partition's id, its name (empty: none), the stopping offset and the table's id; versions 3
     * (without the table's id), 2 (nor the stopping offset) and 1 (the bucket and the offset) are
     * still read.
     */
    static final class Serializer implements SimpleVersionedSerializer<BucketSplit> {

        @Override
        public int getVersion() {
            return 4;
        }

        @Override
        public byte[] serialize(BucketSplit split) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(split.id.bucket);
                out.writeLong(split.offset);
                out.writeLong(split.snapshotId);
                out.writeLong(split.snapshotRowsEmitted);
                out.writeLong(split.id.partitionId);
                out.writeUTF(split.partitionName == null ? "" : split.partitionName);
                out.writeLong(split.stoppingOffset);
                out.writeLong(split.tableId);
            }
            return bytes.toByteArray();
        }

        @Override
        public BucketSplit deserialize(int version, byte[] serialized) throws IOException {
            if (version < 1 || version > 4) {
                throw new IOException("Unknown version " + version + " of a Fluss bucket split");
            }
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                int bucket = in.readInt();
                long offset = in.readLong();
                if (version == 1) {
                    return new BucketSplit(bucket, offset);
                }
                long snapshotId = in.readLong();
                long rowsEmitted = in.readLong();
                long partitionId = in.readLong();
                String partitionName = in.readUTF();
                long stop = version >= 3 ? in.readLong() : NO_STOP;
                long tableId = version >= 4 ? in.readLong() : NO_TABLE_ID;
                return new BucketSplit(new BucketId(partitionId, bucket), partitionName.isEmpty() ? null : partitionName,
                        offset, snapshotId, rowsEmitted, stop, tableId);
            }
        }
    }
}
