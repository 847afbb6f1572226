package dev.streamfusion.parquet.source;

import dev.streamfusion.parquet.internal.ColumnPredicates;

import org.apache.flink.connector.testutils.source.reader.TestingSplitEnumeratorContext;
import org.apache.flink.connector.testutils.source.reader.TestingSplitEnumeratorContext.SplitAssignmentState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How the enumerator plans: footers read after the job starts, a batch at a time, splits handed
 * out as they are found; continuous listing and footer failures logged and retried, bounded ones
 * failing the job naming the file.
 */
class RowGroupEnumeratorTest {

    /** One row group of 8 rows. */
    private static final Path FILE =
            Paths.get("..", "..", "shared", "testdata", "parquet-testing", "data", "alltypes_plain.parquet");

    @TempDir
    Path dir;

    private FileListing listing(Path path) {
        return new FileListing(path.toString(), null, ColumnPredicates.NONE, List.of(), "__DEFAULT__", null, false);
    }

    private void copies(int count) throws IOException {
        for (int i = 0; i < count; i++) {
            Files.copy(FILE, dir.resolve(String.format("part-%02d.parquet", i)));
        }
    }

    /** Requests splits for reader 0, running the planning tasks, until there are no more. */
    private static List<RowGroupSplit> requestAll(
            TestingSplitEnumeratorContext<RowGroupSplit> context, RowGroupEnumerator enumerator) {
        for (int request = 0; request < 1_000; request++) {
            int before = assigned(context).size();
            enumerator.handleSplitRequest(0, "localhost");
            SplitAssignmentState<RowGroupSplit> state = context.getSplitAssignments().get(0);
            if (state != null && state.hasReceivedNoMoreSplitsSignal()) {
                return state.getAssignedSplits();
            }
            if (assigned(context).size() == before) {
                context.triggerAllActions();
            }
        }
        throw new AssertionError("no end of splits after 1000 requests");
    }

    private static List<RowGroupSplit> assigned(TestingSplitEnumeratorContext<RowGroupSplit> context) {
        SplitAssignmentState<RowGroupSplit> state = context.getSplitAssignments().get(0);
        return state == null ? List.of() : state.getAssignedSplits();
    }

    @Test
    void boundedFootersAreReadAfterTheJobStartsAndSplitsHandedOutAsTheyAreRead() throws Exception {
        int files = RowGroupEnumerator.FILES_PER_PLAN + 4;
        copies(files);
        TestingSplitEnumeratorContext<RowGroupSplit> context = new TestingSplitEnumeratorContext<>(1);
        context.registerReader(0, "localhost");
        RowGroupEnumerator enumerator = RowGroupEnumerator.listed(context, listing(dir), false);
        enumerator.start();
        // Nothing read yet: the reader waits rather than finishing.
        enumerator.handleSplitRequest(0, "localhost");
        assertThat(context.getSplitAssignments()).isEmpty();
        assertThat(context.getExecutorService().numQueuedRunnables()).isEqualTo(1);

        // The first batch of footers hands the waiting reader a split; the next batch is queued.
        context.getExecutorService().trigger();
        assertThat(context.getSplitAssignments().get(0).getAssignedSplits()).hasSize(1);
        assertThat(context.getSplitAssignments().get(0).hasReceivedNoMoreSplitsSignal()).isFalse();
        assertThat(context.getExecutorService().numQueuedRunnables()).isEqualTo(1);

        // A checkpoint now holds the splits found and the files whose footers are being read.
        RowGroupEnumerator.StateSerializer serializer = new RowGroupEnumerator.StateSerializer();
        RowGroupEnumerator.Checkpoint checkpoint = serializer.deserialize(
                serializer.getVersion(), serializer.serialize(enumerator.snapshotState(1)));
        assertThat(checkpoint.pending).hasSize(RowGroupEnumerator.FILES_PER_PLAN - 1);
        assertThat(checkpoint.unplanned).hasSize(4);
        assertThat(checkpoint.unplanned.iterator().next().location)
                .endsWith(String.format("part-%02d.parquet", RowGroupEnumerator.FILES_PER_PLAN));

        List<RowGroupSplit> splits = requestAll(context, enumerator);
        assertThat(splits).hasSize(files);
        assertThat(splits).allSatisfy(split -> assertThat(split.rows).isEqualTo(8));
        assertThat(splits.stream().map(split -> split.path).distinct()).hasSize(files);

        // Restored from the checkpoint, the same splits are found: those pending and those of the
        // files whose footers were being read.
        TestingSplitEnumeratorContext<RowGroupSplit> again = new TestingSplitEnumeratorContext<>(1);
        again.registerReader(0, "localhost");
        RowGroupEnumerator restored = new RowGroupEnumerator(again, listing(dir), null, checkpoint, false);
        restored.start();
        // Every file's split but the one handed out before the checkpoint, each once.
        List<String> handedOut = context.getSplitAssignments().get(0).getAssignedSplits().stream()
                .limit(1)
                .map(split -> split.path)
                .collect(java.util.stream.Collectors.toList());
        List<String> expected = splits.stream()
                .map(split -> split.path)
                .filter(path -> !handedOut.contains(path))
                .collect(java.util.stream.Collectors.toList());
        assertThat(expected).hasSize(files - 1);
        assertThat(requestAll(again, restored).stream().map(split -> split.path))
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void boundedAFooterThatCannotBeReadFailsTheJobNamingTheFileOrIsSkippedUnderTheSkipPolicy() throws Exception {
        copies(2);
        Files.write(dir.resolve("part-01a.parquet"), "not parquet".getBytes(StandardCharsets.UTF_8));
        for (boolean skip : new boolean[] {false, true}) {
            TestingSplitEnumeratorContext<RowGroupSplit> context = new TestingSplitEnumeratorContext<>(1);
            context.registerReader(0, "localhost");
            // Creating the enumerator lists the files and reads no footer.
            RowGroupEnumerator enumerator = RowGroupEnumerator.listed(context, listing(dir), skip);
            enumerator.start();
            if (!skip) {
                assertThatThrownBy(context::triggerAllActions)
                        .hasMessageContaining("Cannot read the footer of")
                        .hasMessageContaining("part-01a.parquet");
                continue;
            }
            List<RowGroupSplit> splits = requestAll(context, enumerator);
            assertThat(splits).extracting(split -> Paths.get(split.path).getFileName().toString())
                    .containsExactlyInAnyOrder("part-00.parquet", "part-01.parquet");
            // Seen: a checkpoint does not list it for reading again.
            assertThat(enumerator.snapshotState(1).unplanned).isEmpty();
        }
    }

    @Test
    void continuousListingAndFooterFailuresAreLoggedAndTriedAgain() throws Exception {
        Path table = dir.resolve("table");
        TestingSplitEnumeratorContext<RowGroupSplit> context = new TestingSplitEnumeratorContext<>(1);
        context.registerReader(0, "localhost");
        // Restored (from a checkpoint of nothing yet), so past its first listing (a fresh start
        // fails when its first listing fails: StreamFusionParquetITCase).
        RowGroupEnumerator enumerator =
                new RowGroupEnumerator(context, listing(table), Duration.ofSeconds(1), RowGroupEnumerator.Checkpoint.EMPTY, false);
        enumerator.start();
        enumerator.handleSplitRequest(0, "localhost");

        // The path is gone for now: the listing fails, and the job goes on.
        context.getExecutorService().triggerPeriodicScheduledTasks();
        context.triggerAllActions();
        assertThat(context.getSplitAssignments()).isEmpty();

        // A file whose footer cannot be read yet (still being copied, say) is not seen.
        Files.createDirectories(table);
        Files.copy(FILE, table.resolve("a.parquet"));
        Path late = table.resolve("b.parquet");
        Files.write(late, "PAR1".getBytes(StandardCharsets.UTF_8));
        context.getExecutorService().triggerPeriodicScheduledTasks();
        context.triggerAllActions();
        List<RowGroupSplit> splits = new ArrayList<>(context.getSplitAssignments().get(0).getAssignedSplits());
        assertThat(splits).extracting(split -> Paths.get(split.path).getFileName().toString()).containsExactly("a.parquet");
        RowGroupEnumerator.Checkpoint checkpoint = enumerator.snapshotState(1);
        assertThat(checkpoint.seen).hasSize(1);
        assertThat(checkpoint.unplanned).isEmpty();

        // Complete at the next listing, it is read.
        Files.copy(FILE, late, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        enumerator.handleSplitRequest(0, "localhost");
        context.getExecutorService().triggerPeriodicScheduledTasks();
        context.triggerAllActions();
        assertThat(context.getSplitAssignments().get(0).getAssignedSplits())
                .extracting(split -> Paths.get(split.path).getFileName().toString())
                .containsExactly("a.parquet", "b.parquet");
        assertThat(context.getSplitAssignments().get(0).hasReceivedNoMoreSplitsSignal()).isFalse();
    }
}
