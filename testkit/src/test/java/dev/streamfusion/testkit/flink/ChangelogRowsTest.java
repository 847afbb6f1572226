package dev.streamfusion.testkit.flink;

import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The final rows of retract and upsert changelogs. */
class ChangelogRowsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void aRetractChangelogEndsWithTheRowsNotTakenBack() throws Exception {
        List<Row> changes = List.of(
                Row.ofKind(RowKind.INSERT, 1L, "a"),
                Row.ofKind(RowKind.INSERT, 2L, "b"),
                Row.ofKind(RowKind.UPDATE_BEFORE, 1L, "a"),
                Row.ofKind(RowKind.UPDATE_AFTER, 1L, "c"),
                Row.ofKind(RowKind.DELETE, 2L, "b"));
        assertThat(ChangelogRows.drain(CloseableIterator.fromList(changes, r -> {}), TIMEOUT))
                .containsExactly("+I[1, c]");
    }

    @Test
    void aRetractionTakesBackTheEarliestCopyOfItsRowAndTheRestKeepTheirOrder() throws Exception {
        assertThat(ChangelogRows.drain(CloseableIterator.fromList(duplicatedChanges().subList(0, 6), r -> {}), TIMEOUT))
                .containsExactly("+I[2, b]", "+I[1, a]", "+I[3, c]", "+I[1, a]");
        assertThat(ChangelogRows.drain(CloseableIterator.fromList(duplicatedChanges(), r -> {}), TIMEOUT))
                .containsExactly("+I[2, b]", "+I[3, c]");
    }

    /** A changelog that adds one row twice and takes it back in several ways (new rows each time: draining marks them). */
    private static List<Row> duplicatedChanges() {
        return List.of(
                Row.ofKind(RowKind.INSERT, 1L, "a"),
                Row.ofKind(RowKind.INSERT, 2L, "b"),
                Row.ofKind(RowKind.INSERT, 1L, "a"),
                Row.ofKind(RowKind.INSERT, 3L, "c"),
                Row.ofKind(RowKind.UPDATE_BEFORE, 1L, "a"),
                Row.ofKind(RowKind.UPDATE_AFTER, 1L, "a"),
                Row.ofKind(RowKind.DELETE, 3L, "c"),
                Row.ofKind(RowKind.INSERT, 3L, "c"),
                Row.ofKind(RowKind.DELETE, 1L, "a"),
                Row.ofKind(RowKind.DELETE, 1L, "a"));
    }

    @Test
    void aRowTakenBackAsOftenAsItWasAddedCannotBeTakenBackAgain() {
        List<Row> changes = List.of(
                Row.ofKind(RowKind.INSERT, 1L, "a"),
                Row.ofKind(RowKind.INSERT, 1L, "a"),
                Row.ofKind(RowKind.DELETE, 1L, "a"),
                Row.ofKind(RowKind.DELETE, 1L, "a"),
                Row.ofKind(RowKind.DELETE, 1L, "a"));
        assertThatThrownBy(() -> ChangelogRows.drain(CloseableIterator.fromList(changes, r -> {}), TIMEOUT))
                .hasMessageContaining("retracts a row it never added: +I[1, a]");
    }

    @Test
    void aRetractChangelogThatTakesBackARowItNeverAddedFails() {
        List<Row> changes = List.of(Row.ofKind(RowKind.INSERT, 1L, "a"), Row.ofKind(RowKind.UPDATE_BEFORE, 1L, "b"));
        assertThatThrownBy(() -> ChangelogRows.drain(CloseableIterator.fromList(changes, r -> {}), TIMEOUT))
                .hasMessageContaining("retracts a row it never added: +I[1, b]");
    }

    @Test
    void anUpsertChangelogEndsWithTheLastRowOfEachKeyShowingTheChosenColumns() throws Exception {
        // a rank's new tops come as update-afters without their update-befores
        List<Row> changes = List.of(
                Row.ofKind(RowKind.INSERT, 1L, 10, "x"),
                Row.ofKind(RowKind.INSERT, 2L, 20, "y"),
                Row.ofKind(RowKind.UPDATE_AFTER, 1L, 30, "z"),
                Row.ofKind(RowKind.INSERT, 3L, 40, "w"),
                Row.ofKind(RowKind.DELETE, 3L, 40, "w"),
                Row.ofKind(RowKind.UPDATE_AFTER, 2L, 50, "v"));
        assertThat(ChangelogRows.drainLatestPerKey(
                        CloseableIterator.fromList(changes, r -> {}), TIMEOUT, new int[] {0}, new int[] {0, 1}))
                .containsExactlyInAnyOrder("+I[1, 30]", "+I[2, 50]");
    }

    @Test
    void aRetractChangelogReadByKeyEndsWithTheSameRows() throws Exception {
        List<Row> changes = List.of(
                Row.ofKind(RowKind.INSERT, 1L, 7, 10),
                Row.ofKind(RowKind.INSERT, 1L, 8, 11),
                Row.ofKind(RowKind.UPDATE_BEFORE, 1L, 7, 10),
                Row.ofKind(RowKind.UPDATE_AFTER, 1L, 7, 12),
                Row.ofKind(RowKind.UPDATE_BEFORE, 1L, 8, 11),
                Row.ofKind(RowKind.UPDATE_AFTER, 1L, 8, 10));
        assertThat(ChangelogRows.drainLatestPerKey(
                        CloseableIterator.fromList(changes, r -> {}), TIMEOUT, new int[] {0, 1}, new int[] {1, 2}))
                .containsExactlyInAnyOrder("+I[7, 12]", "+I[8, 10]");
    }
}
