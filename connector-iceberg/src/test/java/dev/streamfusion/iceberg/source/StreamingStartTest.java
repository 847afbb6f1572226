package dev.streamfusion.iceberg.source;

import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.ScanContext;
import org.apache.iceberg.flink.source.StreamingStartingStrategy;
import org.apache.iceberg.flink.source.enumerator.ContinuousSplitPlannerImpl;
import org.apache.iceberg.flink.source.split.IcebergSourceSplit;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where a streaming read starts, for every starting strategy, against iceberg-flink 1.11's own
 * enumerator planner ({@code ContinuousSplitPlannerImpl}) on the same table: the same data files
 * planned by the first two discoveries, the same snapshot to go on from, and a failure where it
 * fails. (iceberg-flink's first discovery of an incremental start plans nothing and steps back to
 * the start's parent, its second plans the start's appends; ours plans them in the first.)
 *
 * <p>iceberg-flink's planner result and position are package-private; they are read by reflection.
 */
class StreamingStartTest {

    private static final Schema SCHEMA = new Schema(required(1, "id", Types.LongType.get()), optional(2, "s", Types.StringType.get()));

    @TempDir static Path warehouse;

    private static HadoopCatalog catalog;
    /** Three appends, committed at different milliseconds. */
    private static Table three;
    private static List<Snapshot> snapshots;

    @BeforeAll
    static void writeTable() throws Exception {
        catalog = new HadoopCatalog(new org.apache.hadoop.conf.Configuration(), warehouse.toUri().toString());
        catalog.createNamespace(Namespace.of("db"));
        three = catalog.createTable(TableIdentifier.of("db", "three"), SCHEMA, PartitionSpec.unpartitioned());
        snapshots = appendThree(three);
    }

    @AfterAll
    static void closeCatalog() throws Exception {
        catalog.close();
    }

    private static List<Snapshot> appendThree(Table table) throws Exception {
        List<Snapshot> committed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            append(table, i);
            committed.add(table.currentSnapshot());
            long after = table.currentSnapshot().timestampMillis();
            while (System.currentTimeMillis() <= after + 2) {
                Thread.sleep(1);
            }
        }
        return committed;
    }

    private static void append(Table table, int file) throws Exception {
        DataWriter<Record> writer = Parquet.writeData(table.io().newOutputFile(table.locationProvider().newDataLocation("f" + file + ".parquet")))
                .schema(table.schema())
                .createWriterFunc(GenericParquetWriter::create)
                .withSpec(table.spec())
                .overwrite()
                .build();
        try (DataWriter<Record> w = writer) {
            // By position: the second column may have been renamed.
            GenericRecord r = GenericRecord.create(table.schema());
            r.set(0, (long) file);
            r.set(1, "s" + file);
            w.write(r);
        }
        table.newAppend().appendFile(writer.toDataFile()).commit();
    }

    /**
     * A streaming read keeps the field ids its columns had when it was planned, as iceberg-flink's
     * source does: a column renamed later reads on; one dropped later, even with another of its
     * name added, fails the next discovery naming it (rather than reading the other column).
     */
    @Test
    void aStreamingReadKeepsTheFieldIdsItsColumnsHadWhenPlanned() throws Exception {
        Table t = catalog.createTable(TableIdentifier.of("db", "renamed"), SCHEMA, PartitionSpec.unpartitioned());
        append(t, 0);
        ScanPlanner planner = new ScanPlanner(t.name(), new ScanOptions().streaming(true), List.of("id", "s")).withColumnsOf(t);
        ScanPlanner.Increment first = planner.planIncrement(t, null);
        t.updateSchema().renameColumn("s", "text").commit();
        append(t, 1);
        t.refresh();
        ScanPlanner.Increment next = planner.planIncrement(t, first.position);
        assertThat(next.splits).isNotEmpty()
                .allSatisfy(split -> split.tasks.forEach(task -> assertThat(task.json()).contains("\"projected-ids\":[1,2]")));
        t.updateSchema().deleteColumn("text").commit();
        t.updateSchema().addColumn("s", Types.StringType.get()).commit();
        append(t, 2);
        t.refresh();
        assertThatThrownBy(() -> planner.planIncrement(t, next.position))
                .hasMessageContaining("Column 's' (field id 2)")
                .hasMessageContaining("dropped");
    }

    @Test
    void everyStartingStrategyStartsWhereIcebergFlinksDoes() throws Exception {
        long second = snapshots.get(1).timestampMillis();
        Object[][] starts = {
            {StreamingStartingStrategy.TABLE_SCAN_THEN_INCREMENTAL, null, null},
            {StreamingStartingStrategy.INCREMENTAL_FROM_LATEST_SNAPSHOT, null, null},
            {StreamingStartingStrategy.INCREMENTAL_FROM_LATEST_SNAPSHOT_EXCLUSIVE, null, null},
            {StreamingStartingStrategy.INCREMENTAL_FROM_EARLIEST_SNAPSHOT, null, null},
            {StreamingStartingStrategy.INCREMENTAL_FROM_SNAPSHOT_ID, snapshots.get(1).snapshotId(), null},
            {StreamingStartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP, null, second},
            {StreamingStartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP, null, second - 1},
            {StreamingStartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP, null, 0L},
        };
        List<Integer> planned = new ArrayList<>();
        for (Object[] start : starts) {
            Start s = new Start(three, (StreamingStartingStrategy) start[0], (Long) start[1], (Long) start[2]);
            String name = start[0] + " " + start[1] + " " + start[2];
            Plan stock = s.stock();
            assertThat(s.ours()).as(name).isEqualTo(stock);
            planned.add(stock.files.size());
        }
        // The cases differ: the whole table, the latest append, nothing, every append, the last two.
        assertThat(planned).containsExactly(3, 1, 0, 3, 2, 2, 2, 3);
    }

    @Test
    void aStartTimeAfterTheCurrentSnapshotFailsAsIcebergFlinksDoes() throws Exception {
        Start s = new Start(three, StreamingStartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP, null,
                snapshots.get(2).timestampMillis() + 1);
        assertThatThrownBy(s::stock).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Cannot find a snapshot after");
        assertThatThrownBy(s::ours)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("db.three")
                .hasMessageContaining("start-snapshot-timestamp " + (snapshots.get(2).timestampMillis() + 1));
    }

    @Test
    void aStartTimeBeforeTheOldestSnapshotLeftAfterExpiryFailsAsIcebergFlinksDoes() throws Exception {
        Table expired = catalog.createTable(TableIdentifier.of("db", "expired"), SCHEMA, PartitionSpec.unpartitioned());
        List<Snapshot> made = appendThree(expired);
        expired.expireSnapshots().expireSnapshotId(made.get(0).snapshotId()).commit();
        Start s = new Start(expired, StreamingStartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP, null, 0L);
        assertThatThrownBy(s::stock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(s::ours).isInstanceOf(IllegalStateException.class).hasMessageContaining("expired");
        // A time the retained history covers still starts there.
        Start covered = new Start(expired, StreamingStartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP, null,
                made.get(2).timestampMillis());
        assertThat(covered.ours()).isEqualTo(covered.stock());
    }

    @Test
    void onAnEmptyTableEveryStrategyButAnIdOrATimeWaitsForTheFirstSnapshot() throws Exception {
        Table empty = catalog.createTable(TableIdentifier.of("db", "empty"), SCHEMA, PartitionSpec.unpartitioned());
        List<Start> waiting = new ArrayList<>();
        for (StreamingStartingStrategy strategy : StreamingStartingStrategy.values()) {
            if (strategy == StreamingStartingStrategy.INCREMENTAL_FROM_SNAPSHOT_ID) {
                continue;
            }
            Start s = new Start(empty, strategy, null, strategy == StreamingStartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP ? 0L : null);
            if (strategy == StreamingStartingStrategy.INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP) {
                assertThatThrownBy(s::stock).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(s::ours).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("it is empty");
                continue;
            }
            assertThat(s.ours()).as(strategy.name()).isEqualTo(s.stock()).isEqualTo(new Plan(List.of(), null));
            waiting.add(s);
        }
        append(empty, 7);
        append(empty, 8);
        for (Start s : waiting) {
            Plan stock = s.stock();
            assertThat(s.ours()).isEqualTo(stock);
            assertThat(stock.files).hasSize(2);
        }
    }

    /** The data files a plan reads and the snapshot it goes on from ({@code null}: none yet). */
    private static final class Plan {
        final TreeSet<String> files;
        final Long snapshot;

        Plan(Collection<String> files, Long snapshot) {
            this.files = new TreeSet<>(files);
            this.snapshot = snapshot;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Plan && ((Plan) o).files.equals(files) && java.util.Objects.equals(((Plan) o).snapshot, snapshot);
        }

        @Override
        public int hashCode() {
            return files.hashCode();
        }

        @Override
        public String toString() {
            return files + " up to " + snapshot;
        }
    }

    /**
     * One starting strategy, planned by both: each call runs two discoveries, the first from where
     * the last call got to (from nothing at first), and gives what the two planned together.
     */
    private static final class Start {
        private final Table table;
        private final ContinuousSplitPlannerImpl stockPlanner;
        private final ScanPlanner ourPlanner;
        private Object stockPosition;
        private Long ourPosition;

        Start(Table table, StreamingStartingStrategy strategy, Long snapshotId, Long timestamp) {
            this.table = table;
            ScanContext context = ScanContext.builder()
                    .streaming(true)
                    .startingStrategy(strategy)
                    .startSnapshotId(snapshotId)
                    .startSnapshotTimestamp(timestamp)
                    .build();
            this.stockPlanner = new ContinuousSplitPlannerImpl(TableLoader.fromHadoopTable(table.location()), context, null);
            ScanOptions options = new ScanOptions()
                    .streaming(true)
                    .startingStrategy(ScanOptions.StartingStrategy.valueOf(strategy.name()))
                    .startSnapshotId(snapshotId)
                    .startSnapshotTimestamp(timestamp);
            this.ourPlanner = new ScanPlanner(table.name(), options, List.of("id", "s"));
        }

        Plan stock() throws Exception {
            List<String> files = new ArrayList<>();
            for (int discovery = 0; discovery < 2; discovery++) {
                Object result;
                try {
                    result = ContinuousSplitPlannerImpl.class.getMethod("planSplits", stockPositionClass())
                            .invoke(stockPlanner, stockPosition);
                } catch (InvocationTargetException e) {
                    throw (Exception) e.getCause();
                }
                stockPosition = call(result, "toPosition");
                for (Object split : (Collection<?>) call(result, "splits")) {
                    for (FileScanTask task : ((IcebergSourceSplit) split).task().files()) {
                        files.add(task.file().location());
                    }
                }
            }
            return new Plan(files, stockPosition == null ? null : (Long) call(stockPosition, "snapshotId"));
        }

        Plan ours() {
            List<String> files = new ArrayList<>();
            for (int discovery = 0; discovery < 2; discovery++) {
                table.refresh();
                ScanPlanner.Increment increment = ourPlanner.planIncrement(table, ourPosition);
                ourPosition = increment.position;
                for (TaskSplit split : increment.splits) {
                    split.tasks.forEach(t -> files.add(t.path()));
                }
            }
            return new Plan(files, ourPosition == null || ourPosition == ScanPlanner.BEFORE_FIRST_SNAPSHOT ? null : ourPosition);
        }

        private static Class<?> stockPositionClass() throws ClassNotFoundException {
            return Class.forName("org.apache.iceberg.flink.source.enumerator.IcebergEnumeratorPosition");
        }

        private static Object call(Object target, String method) throws Exception {
            Method m = target.getClass().getDeclaredMethod(method);
            m.setAccessible(true);
            return m.invoke(target);
        }
    }
}
