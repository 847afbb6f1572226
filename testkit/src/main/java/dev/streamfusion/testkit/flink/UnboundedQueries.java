package dev.streamfusion.testkit.flink;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.List;

/** Results of queries over unbounded sources, which never finish on their own. */
@PublicEvolving
public final class UnboundedQueries {

    private UnboundedQueries() {}

    /** The first {@code count} rows of {@code sql} (as text, in arrival order); then the job is cancelled. */
    // CloseableIterator.close() declares Exception.
    @SuppressWarnings("try")
    public static List<String> take(TableEnvironment env, String sql, int count) throws Exception {
        TableResult result = env.executeSql(sql);
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (rows.size() < count) {
                rows.add(it.next().toString());
            }
            result.getJobClient().orElseThrow().cancel().get();
        }
        return rows;
    }
}
