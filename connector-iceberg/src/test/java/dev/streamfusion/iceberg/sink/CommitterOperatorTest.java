package dev.streamfusion.iceberg.sink;

import dev.streamfusion.iceberg.internal.IcebergTableRef;

import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;

import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Types;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Constructor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The committer against iceberg-flink 1.11's ({@code IcebergFilesCommitter}, built by reflection
 * through its package-private factory), each on its own table of a Hadoop catalog, driven through
 * the same checkpoints without files: which checkpoints commit an empty snapshot under the table
 * property {@code flink.max-continuous-empty-commits}, and what the snapshots record.
 */
// The harness's close() declares Exception.
@SuppressWarnings("try")
class CommitterOperatorTest {

    private static final Schema SCHEMA = new Schema(required(1, "id", Types.LongType.get()));

    @TempDir static Path warehouse;

    private static HadoopCatalog catalog;
    private static int tables;

    @BeforeAll
    static void openCatalog() {
        catalog = new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouse.toUri().toString());
        catalog.createNamespace(Namespace.of("db"));
    }

    @AfterAll
    static void closeCatalog() throws Exception {
        catalog.close();
    }

    /** A new table with {@code properties}. */
    private static TableIdentifier table(Map<String, String> properties) {
        TableIdentifier id = TableIdentifier.of("db", "t" + tables++);
        catalog.createTable(id, SCHEMA, PartitionSpec.unpartitioned(), properties);
        return id;
    }

    private static Map<String, String> catalogProperties() {
        return Map.of("catalog-type", "hadoop", "warehouse", warehouse.toUri().toString());
    }

    private static OneInputStreamOperatorTestHarness<WriteResult, Void> ours(TableIdentifier id) throws Exception {
        return ours(id, false);
    }

    private static OneInputStreamOperatorTestHarness<WriteResult, Void> ours(TableIdentifier id, boolean overwrite) throws Exception {
        IcebergTableRef ref = new IcebergTableRef("c", catalogProperties(), id.namespace().level(0), id.name());
        return new OneInputStreamOperatorTestHarness<>(new CommitterOperator(ref, null, 0, overwrite));
    }

    private static OneInputStreamOperatorTestHarness<Object, Void> stock(TableIdentifier id) throws Exception {
        return stock(id, false);
    }

    @SuppressWarnings("unchecked")
    private static OneInputStreamOperatorTestHarness<Object, Void> stock(TableIdentifier id, boolean overwrite) throws Exception {
        TableLoader loader = TableLoader.fromCatalog(
                CatalogLoader.hadoop("c", new org.apache.hadoop.conf.Configuration(), new HashMap<>(catalogProperties())), id);
        Class<?> factory = Class.forName("org.apache.iceberg.flink.sink.IcebergFilesCommitterFactory");
        Constructor<?> constructor = factory.getDeclaredConstructor(
                TableLoader.class, boolean.class, Map.class, int.class, String.class, PartitionSpec.class);
        constructor.setAccessible(true);
        Object committer = constructor.newInstance(loader, overwrite, Map.of(), 1, "main", catalog.loadTable(id).spec());
        return new OneInputStreamOperatorTestHarness<>((OneInputStreamOperatorFactory<Object, Void>) committer);
    }

    /**
     * Drives {@code harness} through completed checkpoints 1 to {@code checkpoints} without files,
     * then the end of its input; for each, the number of snapshots of {@code id} after it.
     */
    private static List<Integer> snapshotsAfterEach(OneInputStreamOperatorTestHarness<?, Void> harness, TableIdentifier id, int checkpoints)
            throws Exception {
        List<Integer> counts = new ArrayList<>();
        try (harness) {
            harness.setup();
            harness.initializeEmptyState();
            harness.open();
            for (long checkpoint = 1; checkpoint <= checkpoints; checkpoint++) {
                harness.snapshot(checkpoint, checkpoint);
                harness.notifyOfCompletedCheckpoint(checkpoint);
                counts.add(snapshots(id).size());
            }
            harness.endInput();
            counts.add(snapshots(id).size());
        }
        return counts;
    }

    private static List<Snapshot> snapshots(TableIdentifier id) {
        List<Snapshot> all = new ArrayList<>();
        catalog.loadTable(id).snapshots().forEach(all::add);
        return all;
    }

    /** The same checkpoints on a table of each connector; what both did. */
    private static List<Integer> bothAfterEach(Map<String, String> properties, int checkpoints) throws Exception {
        TableIdentifier oursId = table(properties);
        TableIdentifier stockId = table(properties);
        List<Integer> ourCounts = snapshotsAfterEach(ours(oursId), oursId, checkpoints);
        assertThat(ourCounts).isEqualTo(snapshotsAfterEach(stock(stockId), stockId, checkpoints));
        List<String> ourCheckpoints = committedCheckpoints(oursId);
        assertThat(ourCheckpoints).isEqualTo(committedCheckpoints(stockId));
        for (Snapshot snapshot : snapshots(oursId)) {
            assertThat(snapshot.operation()).isEqualTo("append");
            assertThat(snapshot.summary()).containsEntry("total-data-files", "0");
        }
        return ourCounts;
    }

    private static List<String> committedCheckpoints(TableIdentifier id) {
        List<String> ids = new ArrayList<>();
        snapshots(id).forEach(s -> ids.add(s.summary().get(CommitterOperator.MAX_COMMITTED_CHECKPOINT_ID)));
        return ids;
    }

    @Test
    void everyThirdCheckpointInARowWithoutFilesCommitsAnEmptySnapshot() throws Exception {
        // Seven checkpoints and the end of the input: the 3rd and 6th commit.
        assertThat(bothAfterEach(Map.of(CommitterOperator.MAX_CONTINUOUS_EMPTY_COMMITS, "3"), 7))
                .containsExactly(0, 0, 1, 1, 1, 2, 2, 2);
    }

    @Test
    void byDefaultEveryTenthCommits() throws Exception {
        assertThat(bothAfterEach(Map.of(), 11)).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1);
    }

    @Test
    void withOneEveryCheckpointAndTheEndOfTheInputCommit() throws Exception {
        assertThat(bothAfterEach(Map.of(CommitterOperator.MAX_CONTINUOUS_EMPTY_COMMITS, "1"), 2)).containsExactly(1, 2, 3);
    }

    @Test
    void aValueThatIsNotPositiveFailsNamingTheTable() throws Exception {
        TableIdentifier id = table(Map.of(CommitterOperator.MAX_CONTINUOUS_EMPTY_COMMITS, "0"));
        assertThatThrownBy(() -> snapshotsAfterEach(ours(id), id, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(CommitterOperator.MAX_CONTINUOUS_EMPTY_COMMITS)
                .hasMessageContaining(id.name());
        assertThatThrownBy(() -> snapshotsAfterEach(stock(id), id, 1))
                .hasStackTraceContaining(CommitterOperator.MAX_CONTINUOUS_EMPTY_COMMITS + " must be positive");
        assertThat(snapshots(id)).isEmpty();
    }

    /**
     * An {@code INSERT OVERWRITE} of no rows, where every checkpoint commits (under 1): Iceberg
     * cannot replace partitions with no file, and iceberg-flink's job fails on it; ours replaces
     * nothing and leaves the table as it was.
     */
    @Test
    void anEmptyOverwriteReplacesNothingWhereIcebergFlinkFails() throws Exception {
        Map<Boolean, TableIdentifier> tables = new java.util.HashMap<>();
        for (boolean ours : new boolean[] {true, false}) {
            TableIdentifier id = table(Map.of(CommitterOperator.MAX_CONTINUOUS_EMPTY_COMMITS, "1"));
            Table t = catalog.loadTable(id);
            t.newAppend().appendFile(org.apache.iceberg.DataFiles.builder(t.spec()).withPath(t.location() + "/data/a.parquet")
                    .withFileSizeInBytes(10).withRecordCount(3).build()).commit();
            tables.put(ours, id);
        }
        TableIdentifier oursId = tables.get(true);
        snapshotsAfterEach(ours(oursId, true), oursId, 0);
        assertThat(snapshots(oursId)).hasSize(1);
        assertThat(catalog.loadTable(oursId).currentSnapshot().summary()).containsEntry("total-data-files", "1");
        TableIdentifier stockId = tables.get(false);
        assertThatThrownBy(() -> snapshotsAfterEach(stock(stockId, true), stockId, 0))
                .hasStackTraceContaining("Cannot determine partition specs: no data files have been added");
    }

    /**
     * A restore from a checkpoint whose commit had not happened counts that checkpoint, as
     * iceberg-flink's committer counts it: under 2, the first checkpoint after the restore
     * commits an empty snapshot, in both.
     */
    @Test
    void aRestoreCountsTheCheckpointItRestoresAsIcebergFlinksDoes() throws Exception {
        List<List<Integer>> both = new ArrayList<>();
        for (boolean ours : new boolean[] {true, false}) {
            TableIdentifier id = table(Map.of(CommitterOperator.MAX_CONTINUOUS_EMPTY_COMMITS, "2"));
            org.apache.flink.runtime.checkpoint.OperatorSubtaskState state;
            try (OneInputStreamOperatorTestHarness<?, Void> before = ours ? ours(id) : stock(id)) {
                before.setup();
                before.initializeEmptyState();
                before.open();
                state = before.snapshot(1, 1);
            }
            List<Integer> counts = new ArrayList<>();
            try (OneInputStreamOperatorTestHarness<?, Void> after = ours ? ours(id) : stock(id)) {
                after.setup();
                after.initializeState(state);
                after.open();
                counts.add(snapshots(id).size());
                after.snapshot(2, 2);
                after.notifyOfCompletedCheckpoint(2);
                counts.add(snapshots(id).size());
            }
            both.add(counts);
        }
        assertThat(both.get(0)).containsExactly(0, 1).isEqualTo(both.get(1));
    }
}
