package dev.streamfusion.fluss.source;

import dev.streamfusion.bridge.source.FetchedBatches;
import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.sink.FlussSink;
import dev.streamfusion.testkit.fluss.FlussClusterExtension;

import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.metadata.PartitionSpec;
import org.apache.fluss.metadata.TablePath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The split reader and the sink's writer on a real Fluss cluster where the cluster changed under a
 * restored job: a split of a partition dropped before the reader heard of it (while the job was
 * down) finishes, as fluss-flink's reader finishes it, instead of failing the job on every
 * restart; a table dropped and created again fails the reader; a column added is written NULL.
 */
// The Fluss client's closeables declare Exception.
@SuppressWarnings("try")
class BucketSplitReaderITCase {

    @RegisterExtension static final FlussClusterExtension FLUSS = new FlussClusterExtension(Map.of());

    @Test
    void aSplitOfADroppedPartitionFinishes() throws Exception {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')");
        env.executeSql("CREATE TABLE stock.fluss.days (k BIGINT, dt STRING) PARTITIONED BY (dt) WITH ('bucket.num' = '1')");
        TablePath path = TablePath.of("fluss", "days");
        long partitionId = droppedPartition(path);
        BucketSplit split = new BucketSplit(new BucketId(partitionId, 0), "2026-12-01", 0, BucketSplit.NO_SNAPSHOT, 0);
        RowType rowType = RowType.of(new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH));
        finishes(new FlussTableRef(FLUSS.bootstrapServers(), Map.of(), "fluss", "days"), rowType, split);
    }

    /** The same for a primary-key table's split that reads a snapshot first. */
    @Test
    void aSnapshotSplitOfADroppedPartitionFinishes() throws Exception {
        TablePath path = keyedByDay("keyed_days");
        long partitionId = droppedPartition(path);
        BucketSplit split = new BucketSplit(new BucketId(partitionId, 0), "2026-12-01", 0, 1, 0);
        assertThat(split.isSnapshot()).isTrue();
        RowType rowType = RowType.of(new BigIntType(false), new VarCharType(false, VarCharType.MAX_LENGTH));
        finishes(new FlussTableRef(FLUSS.bootstrapServers(), Map.of(), "fluss", "keyed_days"), rowType, split);
    }

    /**
     * A reader restored with splits of dropped partitions only, snapshot splits among them, finishes
     * every one: with no log bucket subscribed, its log scanner is not polled (which would fail).
     */
    @Test
    void splitsOfDroppedPartitionsOnlyAllFinish() throws Exception {
        TablePath path = keyedByDay("keyed_months");
        List<BucketSplit> splits = new ArrayList<>();
        for (String day : List.of("2026-10-01", "2026-11-01", "2026-12-01")) {
            long partitionId = droppedPartition(path, day);
            splits.add(new BucketSplit(new BucketId(partitionId, 0), day, 0, day.equals("2026-10-01") ? BucketSplit.NO_SNAPSHOT : 1, 0));
        }
        RowType rowType = RowType.of(new BigIntType(false), new VarCharType(false, VarCharType.MAX_LENGTH));
        try (FetchedBatches fetched = new FetchedBatches()) {
            BucketSplitReader reader = new BucketSplitReader(
                    new FlussTableRef(FLUSS.bootstrapServers(), Map.of(), "fluss", "keyed_months"), new int[] {0, 1}, rowType, false,
                    fetched, false);
            try {
                reader.handleSplitsChanges(new SplitsAddition<>(splits));
                Set<String> finished = new HashSet<>();
                for (int fetch = 0; fetch < 10 && finished.size() < splits.size(); fetch++) {
                    RecordsWithSplitIds<BucketBatch.Row> records = reader.fetch();
                    finished.addAll(records.finishedSplits());
                    records.recycle();
                }
                assertThat(finished).containsExactlyInAnyOrderElementsOf(splits.stream().map(BucketSplit::splitId).toList());
            } finally {
                reader.close();
            }
        }
    }

    /**
     * A split of a table dropped and created again under its name (restored from a checkpoint of
     * the old one) fails the reader, as fluss-flink's fails, rather than read the new table from
     * the old table's offsets.
     */
    @Test
    void aSplitOfAnotherTableOfTheSameNameFails() throws Exception {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')");
        env.executeSql("CREATE TABLE stock.fluss.again (k BIGINT) WITH ('bucket.num' = '1')");
        long tableId = tableId(TablePath.of("fluss", "again"));
        RowType rowType = RowType.of(new BigIntType());
        FlussTableRef ref = new FlussTableRef(FLUSS.bootstrapServers(), Map.of(), "fluss", "again");
        BucketSplit old = new BucketSplit(0, 5).ofTable(tableId);
        env.executeSql("DROP TABLE stock.fluss.again");
        env.executeSql("CREATE TABLE stock.fluss.again (k BIGINT) WITH ('bucket.num' = '1')");
        assertThat(tableId(TablePath.of("fluss", "again"))).isNotEqualTo(tableId);
        try (FetchedBatches fetched = new FetchedBatches()) {
            BucketSplitReader reader = new BucketSplitReader(ref, new int[] {0}, rowType, false, fetched, false);
            try {
                assertThatThrownBy(() -> reader.handleSplitsChanges(new SplitsAddition<>(List.of(old))))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageStartingWith("Table ID mismatch: expected " + tableId(TablePath.of("fluss", "again"))
                                + ", but split contains " + tableId + " for table 'fluss.again'.");
            } finally {
                reader.close();
            }
        }
    }

    private static long tableId(TablePath path) throws Exception {
        org.apache.fluss.config.Configuration conf = new org.apache.fluss.config.Configuration();
        conf.setString("bootstrap.servers", FLUSS.bootstrapServers());
        try (Connection connection = ConnectionFactory.createConnection(conf); Admin admin = connection.getAdmin()) {
            return admin.getTableInfo(path).get().getTableId();
        }
    }

    /**
     * The sink's writer of a job planned before a column was added (Fluss adds it last), as a
     * restart after the change creates it, writes the new column NULL, as fluss-flink's sink pads
     * it, rather than failing at every restart.
     */
    @Test
    void aSinkPlannedBeforeAColumnWasAddedWritesItNull() throws Exception {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')");
        env.executeSql("CREATE TABLE stock.fluss.widened (k BIGINT, v STRING) WITH ('bucket.num' = '1')");
        env.executeSql("ALTER TABLE stock.fluss.widened ADD c STRING");
        SinkWriter<RowData> writer =
                new FlussSink(new FlussTableRef(FLUSS.bootstrapServers(), Map.of(), "fluss", "widened"), false, false, null)
                        .createWriter(null);
        try {
            writer.write(GenericRowData.of(1L, StringData.fromString("a")), null);
            writer.flush(true);
        } finally {
            writer.close();
        }
        try (CloseableIterator<Row> rows = env.executeSql(
                        "SELECT * FROM stock.fluss.widened /*+ OPTIONS('scan.startup.mode' = 'earliest') */").collect()) {
            assertThat(rows.next()).hasToString("+I[1, a, null]");
        }
    }

    /** A primary-key table {@code fluss.<name>} partitioned by day, of one bucket, created by fluss-flink. */
    private static TablePath keyedByDay(String name) {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.executeSql("CREATE CATALOG stock WITH ('type' = 'fluss', 'bootstrap.servers' = '" + FLUSS.bootstrapServers() + "')");
        env.executeSql("CREATE TABLE stock.fluss." + name + " (k BIGINT NOT NULL, dt STRING NOT NULL, PRIMARY KEY (k, dt) NOT ENFORCED) "
                + "PARTITIONED BY (dt) WITH ('bucket.num' = '1')");
        return TablePath.of("fluss", name);
    }

    /** The id partition {@code dt=2026-12-01} of {@code path} had: created, then dropped. */
    private static long droppedPartition(TablePath path) throws Exception {
        return droppedPartition(path, "2026-12-01");
    }

    /** The id partition {@code dt=<day>} of {@code path} had: created, then dropped. */
    private static long droppedPartition(TablePath path, String day) throws Exception {
        org.apache.fluss.config.Configuration conf = new org.apache.fluss.config.Configuration();
        conf.setString("bootstrap.servers", FLUSS.bootstrapServers());
        try (Connection connection = ConnectionFactory.createConnection(conf); Admin admin = connection.getAdmin()) {
            PartitionSpec spec = new PartitionSpec(Map.of("dt", day));
            admin.createPartition(path, spec, false).get();
            long partitionId = admin.listPartitionInfos(path).get().stream()
                    .filter(p -> p.getPartitionName().equals(day))
                    .findFirst()
                    .orElseThrow()
                    .getPartitionId();
            admin.dropPartition(path, spec, false).get();
            return partitionId;
        }
    }

    /** A reader given only {@code split} finishes it at its first fetch. */
    private static void finishes(FlussTableRef ref, RowType rowType, BucketSplit split) throws Exception {
        try (FetchedBatches fetched = new FetchedBatches()) {
            BucketSplitReader reader = new BucketSplitReader(ref, new int[] {0, 1}, rowType, false, fetched, false);
            try {
                reader.handleSplitsChanges(new SplitsAddition<>(List.of(split)));
                RecordsWithSplitIds<BucketBatch.Row> records = reader.fetch();
                assertThat(records.finishedSplits()).containsExactly(split.splitId());
                records.recycle();
            } finally {
                reader.close();
            }
        }
    }
}
