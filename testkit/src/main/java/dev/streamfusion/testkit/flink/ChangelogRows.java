package dev.streamfusion.testkit.flink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The final rows of a bounded query's changelog: inserts and update-afters added, update-befores
 * and deletes taking their row back out. Updates arrive in an order that depends on timing; the
 * final rows do not, so they are what two runs of a query can be compared on.
 */
@Internal
public final class ChangelogRows {

    private ChangelogRows() {}

    /**
     * Drains {@code changelog} (closing it) into its final rows, as strings; fails if it has not
     * ended after {@code timeout}.
     */
    public static List<String> drain(CloseableIterator<Row> changelog, Duration timeout) throws Exception {
        List<String> rows = Collections.synchronizedList(new ArrayList<>());
        try {
            CompletableFuture.runAsync(() -> changelog.forEachRemaining(row -> apply(row, rows)))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(
                    "the bounded query did not finish within " + timeout + "; rows so far: " + rows.size(), e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        } finally {
            changelog.close();
        }
        return new ArrayList<>(rows);
    }

    private static void apply(Row row, List<String> rows) {
        RowKind kind = row.getKind();
        row.setKind(RowKind.INSERT);
        String text = row.toString();
        if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
            rows.add(text);
        } else if (!rows.remove(text)) {
            throw new IllegalStateException("the changelog retracts a row it never added: " + text);
        }
    }
}
