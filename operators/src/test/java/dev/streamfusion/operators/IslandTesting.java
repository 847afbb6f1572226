package dev.streamfusion.operators;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the island's tests share. */
final class IslandTesting {

    private IslandTesting() {}

    /**
     * A table environment in the mode and default parallelism given, with the island installed or
     * not, in which each of {@code ddl} has run.
     */
    static TableEnvironment env(boolean streaming, int parallelism, boolean island, String... ddl) {
        TableEnvironment env = TableEnvironment.create(
                streaming ? EnvironmentSettings.inStreamingMode() : EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", String.valueOf(parallelism));
        if (island) {
            assertThat(StreamFusion.install(env)).isTrue();
        }
        for (String statement : ddl) {
            env.executeSql(statement);
        }
        return env;
    }

    /** The full name of {@code table} (in the default catalog and database unless qualified). */
    static String identifier(String table) {
        return table.contains(".") ? table : "default_catalog.default_database." + table;
    }

    /**
     * Checks that {@code query} ({@code %s} for the table) runs over {@code fused} as the source's
     * batches through the native calc into rows, and gives the rows {@code stock} gives over
     * {@code stockTable}, of which there are more than {@code atLeast}.
     */
    static void nativeCalcGivesStockRows(
            TableEnvironment stock, TableEnvironment island, String query, String stockTable, String fused, int atLeast)
            throws Exception {
        StreamFusion.Explanation explained = StreamFusion.explain(island, String.format(query, fused));
        assertThat(explained.fallbacks()).as("%s", explained).isEmpty();
        assertThat(explained.nativeNodes())
                .as("%s", explained)
                .containsExactly("NativeSourceBatches(" + identifier(fused) + ")", "NativeCalc", "NativeToRows");
        List<String> expected = rows(stock, String.format(query, stockTable));
        assertThat(expected).as(query).hasSizeGreaterThan(atLeast);
        assertThat(rows(island, String.format(query, fused))).as(query).containsExactlyElementsOf(expected);
    }

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
