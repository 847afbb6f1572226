package dev.streamfusion.operators;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What the island's tests share. */
final class IslandTesting {

    private IslandTesting() {}

    /**
     * The rows {@code query} gives, as text, sorted: results compare in one pass whatever order
     * the job emitted them in.
     */
    // CloseableIterator.close() declares Exception.
    @SuppressWarnings("try")
    static List<String> rows(TableEnvironment env, String query) throws Exception {
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = env.executeSql(query).collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        Collections.sort(rows);
        return rows;
    }
}
