package dev.streamfusion.testkit.flink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The final rows of a bounded query's changelog. Updates arrive in an order that depends on timing;
 * the final rows do not, so they are what two runs of a query can be compared on.
 */
@Internal
public final class ChangelogRows {

    private ChangelogRows() {}

    /**
     * Drains {@code changelog} (closing it) into its final rows, as strings, reading it as a
     * retract changelog: inserts and update-afters added, update-befores and deletes taking their
     * row back out. Fails if it has not ended after {@code timeout}.
     */
    public static List<String> drain(CloseableIterator<Row> changelog, Duration timeout) throws Exception {
        return drain(changelog, timeout, new Retracted());
    }

    /**
     * Drains {@code changelog} (closing it) into the last row of each key, as strings of the
     * columns {@code shown}: an insert or update-after replaces its key's row, an update-before or
     * delete removes it. This reads upsert changelogs, where an update-after comes without its
     * update-before (a rank's new top, for instance), as well as retract ones.
     */
    public static List<String> drainLatestPerKey(
            CloseableIterator<Row> changelog, Duration timeout, int[] key, int[] shown) throws Exception {
        return drain(changelog, timeout, new LatestPerKey(key.clone(), shown.clone()));
    }

    private static List<String> drain(CloseableIterator<Row> changelog, Duration timeout, Accumulator rows)
            throws Exception {
        try {
            CompletableFuture.runAsync(() -> changelog.forEachRemaining(rows::apply))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(
                    "the bounded query did not finish within " + timeout + "; rows so far: " + rows.size(), e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        } finally {
            changelog.close();
        }
        return rows.rows();
    }

    private static boolean adds(RowKind kind) {
        return kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER;
    }

    /** Final rows built up one change at a time, by the thread that drains the changelog. */
    private interface Accumulator {
        void apply(Row row);

        /** How many rows there are so far; may be read while another thread applies changes. */
        int size();

        List<String> rows();
    }

    /**
     * The rows added and not taken back, in the order they were added; a retraction takes back the
     * earliest live copy of its row. Each change costs the same however many rows there are (a
     * query that updates a few rows a million times is drained at the pace of its changes).
     */
    private static final class Retracted implements Accumulator {
        /** Every row added, in order; a slot is emptied when its row is taken back. */
        private final List<String> added = new ArrayList<>();
        /** For each row's text, the slots of its live copies, earliest first. */
        private final Map<String, ArrayDeque<Integer>> live = new HashMap<>();
        private int size;

        @Override
        public synchronized void apply(Row row) {
            RowKind kind = row.getKind();
            row.setKind(RowKind.INSERT);
            String text = row.toString();
            if (adds(kind)) {
                live.computeIfAbsent(text, t -> new ArrayDeque<>()).addLast(added.size());
                added.add(text);
                size++;
                return;
            }
            ArrayDeque<Integer> slots = live.get(text);
            if (slots == null) {
                throw new IllegalStateException("the changelog retracts a row it never added: " + text);
            }
            added.set(slots.removeFirst(), null);
            if (slots.isEmpty()) {
                live.remove(text);
            }
            size--;
        }

        @Override
        public synchronized int size() {
            return size;
        }

        @Override
        public synchronized List<String> rows() {
            List<String> rows = new ArrayList<>(size);
            for (String text : added) {
                if (text != null) {
                    rows.add(text);
                }
            }
            return rows;
        }
    }

    private static final class LatestPerKey implements Accumulator {
        private final int[] key;
        private final int[] shown;
        private final Map<List<Object>, String> rows = new LinkedHashMap<>();

        LatestPerKey(int[] key, int[] shown) {
            this.key = key;
            this.shown = shown;
        }

        @Override
        public synchronized void apply(Row row) {
            List<Object> of = Arrays.asList(Arrays.stream(key).mapToObj(row::getField).toArray());
            if (adds(row.getKind())) {
                Row projected = Row.project(row, shown);
                projected.setKind(RowKind.INSERT);
                rows.put(of, projected.toString());
            } else {
                rows.remove(of);
            }
        }

        @Override
        public synchronized int size() {
            return rows.size();
        }

        @Override
        public synchronized List<String> rows() {
            return new ArrayList<>(rows.values());
        }
    }
}
