package dev.streamfusion.fluss.source;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Splits and enumerator checkpoints survive their bytes, and those of the first version are still read. */
class BucketEnumeratorStateTest {

    @Test
    void snapshotAndLogSplitsRoundTrip() throws IOException {
        BucketSplit.Serializer serializer = new BucketSplit.Serializer();
        BucketSplit snapshot = new BucketSplit(new BucketId(BucketId.NO_PARTITION, 3), null, 120, 7, 42);
        BucketSplit back = serializer.deserialize(serializer.getVersion(), serializer.serialize(snapshot));
        assertThat(back.toString()).isEqualTo(snapshot.toString()).isEqualTo("bucket-3-snapshot-7+42 then log@120");
        assertThat(back.isSnapshot()).isTrue();
        BucketSplit partition = new BucketSplit(new BucketId(17, 1), "2026", 8, BucketSplit.NO_SNAPSHOT, 0);
        BucketSplit partitionBack = serializer.deserialize(serializer.getVersion(), serializer.serialize(partition));
        assertThat(partitionBack.toString()).isEqualTo("2026:p17-bucket-1@8");
        assertThat(partitionBack.id).isEqualTo(new BucketId(17, 1));
        assertThat(partitionBack.log(30).toString()).isEqualTo("2026:p17-bucket-1@30");
        BucketSplit log = serializer.deserialize(serializer.getVersion(), serializer.serialize(new BucketSplit(1, -2)));
        assertThat(log.isSnapshot()).isFalse();
        assertThat(log.splitId()).isEqualTo("bucket-1");
        // A bounded read's split keeps its end, also when it moves on.
        BucketSplit bounded = new BucketSplit(new BucketId(17, 1), "2026", 8, BucketSplit.NO_SNAPSHOT, 0).stoppingAt(50);
        BucketSplit boundedBack = serializer.deserialize(serializer.getVersion(), serializer.serialize(bounded));
        assertThat(boundedBack.toString()).isEqualTo("2026:p17-bucket-1@8 to 50");
        assertThat(boundedBack.log(30).stoppingOffset).isEqualTo(50);
        assertThat(log.isBounded()).isFalse();
        // The table's id, kept as the split moves on.
        BucketSplit ofTable = serializer.deserialize(serializer.getVersion(), serializer.serialize(bounded.ofTable(31)));
        assertThat(ofTable.tableId).isEqualTo(31);
        assertThat(ofTable.log(40).tableId).isEqualTo(31);
        assertThat(new BucketSplit.State(ofTable).toSplit().tableId).isEqualTo(31);
        assertThat(boundedBack.tableId).isEqualTo(BucketSplit.NO_TABLE_ID);

        // Version 2: no end.
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(2);
            out.writeLong(11);
            out.writeLong(BucketSplit.NO_SNAPSHOT);
            out.writeLong(0);
            out.writeLong(5);
            out.writeUTF("p");
        }
        BucketSplit second = serializer.deserialize(2, bytes.toByteArray());
        assertThat(second.toString()).isEqualTo("p:p5-bucket-2@11");
        assertThat(second.isBounded()).isFalse();
        assertThat(second.tableId).isEqualTo(BucketSplit.NO_TABLE_ID);
    }

    @Test
    void checkpointsRoundTripAndTheFirstVersionIsRead() throws IOException {
        BucketEnumerator.StateSerializer serializer = new BucketEnumerator.StateSerializer();
        BucketEnumerator.Checkpoint state = new BucketEnumerator.Checkpoint(
                List.of(new BucketSplit(0, 5), new BucketSplit(new BucketId(3, 2), "x", 9, 4, 0)), java.util.Map.of(3L, "x"),
                "lease-1", Set.of(new BucketId(3, 2)));
        BucketEnumerator.Checkpoint back = serializer.deserialize(serializer.getVersion(), serializer.serialize(state));
        assertThat(back.pending).extracting(BucketSplit::toString).containsExactly("bucket-0@5", "x:p3-bucket-2-snapshot-4+0 then log@9");
        assertThat(back.partitions).containsExactly(java.util.Map.entry(3L, "x"));
        assertThat(back.leaseId).isEqualTo("lease-1");
        assertThat(back.leased).containsExactly(new BucketId(3, 2));
        BucketEnumerator.Checkpoint none = serializer.deserialize(
                serializer.getVersion(), serializer.serialize(new BucketEnumerator.Checkpoint(List.of(), java.util.Map.of(), null, Set.of())));
        assertThat(none.leaseId).isNull();

        // Version 1: the count, then each split (bucket, offset) with its length.
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(1);
            out.writeInt(12);
            out.writeInt(4);
            out.writeLong(33);
        }
        BucketEnumerator.Checkpoint first = serializer.deserialize(1, bytes.toByteArray());
        assertThat(first.pending).extracting(BucketSplit::toString).containsExactly("bucket-4@33");
        assertThat(first.leased).isEmpty();
        assertThatThrownBy(() -> serializer.deserialize(4, bytes.toByteArray())).hasMessageContaining("version 4");
    }
}
