package dev.streamfusion.testkit.nexmark;

import dev.streamfusion.testkit.flink.ChangelogRows;
import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every query of {@link NexmarkQueries#all()} runs on the {@code streamfusion-nexmark} tables in a
 * real MiniCluster job and gives rows, and the same rows at parallelism 1 and 2: the final rows, or
 * for the ranks whose rows depend on the order of ties, the columns the data fixes ({@link
 * NexmarkQueries#ORDER_DEPENDENT}). The 20,000 events span two
 * seconds of {@code date_time}, less than the watermarks' 4 seconds, so no reader's rows are late.
 */
class NexmarkQueriesITCase {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2, new Configuration());

    static Stream<String> queries() {
        return NexmarkQueries.all().keySet().stream();
    }

    @ParameterizedTest
    @MethodSource("queries")
    void runsAndGivesTheSameRowsAtEveryParallelism(String name) throws Exception {
        String query = NexmarkQueries.all().get(name);
        List<String> rows = rows(2, name, query);
        assertThat(rows).as(name).isNotEmpty();
        assertThat(rows(1, name, query)).as(name).containsExactlyInAnyOrderElementsOf(rows);
    }

    static Stream<String> ranksOverTies() {
        return NexmarkQueries.ORDER_DEPENDENT.keySet().stream().sorted();
    }

    /**
     * Bids that tie on price and time, met in one order and then in the reverse order: the ranks
     * keep other bids, but the columns they are compared on are the same.
     */
    @ParameterizedTest
    @MethodSource("ranksOverTies")
    void tiesMetInEitherOrderGiveTheSameComparedRows(String name) throws Exception {
        String query = NexmarkQueries.all().get(name);
        List<String> compared = NexmarkQueries.comparableRows(name, tied(false).executeSql(query), TIMEOUT);
        List<String> comparedReversed =
                NexmarkQueries.comparableRows(name, tied(true).executeSql(query), TIMEOUT);
        assertThat(compared).as(name).isNotEmpty();
        assertThat(comparedReversed).as(name).containsExactlyInAnyOrderElementsOf(compared);

        List<String> key = NexmarkQueries.ORDER_DEPENDENT.get(name).key();
        assertThat(wholeRows(tied(false).executeSql(query), key))
                .as(name + ": the ties change which rows are kept")
                .isNotEqualTo(wholeRows(tied(true).executeSql(query), key));
    }

    private static List<String> wholeRows(TableResult result, List<String> key) throws Exception {
        List<String> columns = result.getResolvedSchema().getColumnNames();
        int[] all = IntStream.range(0, columns.size()).toArray();
        List<String> rows = ChangelogRows.drainLatestPerKey(
                result.collect(), TIMEOUT, NexmarkQueries.Ties.positions(key, columns), all);
        rows.sort(null);
        return rows;
    }

    /** Tables {@code bid} and {@code auction} at parallelism 1, with bids that tie, in either order. */
    private static StreamTableEnvironment tied(boolean reversed) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        LocalDateTime t = LocalDateTime.of(2026, 1, 1, 12, 0);
        List<Row> bids = new ArrayList<>(List.of(
                // auction 1: two bids of the highest price at one time; bidder 10's two bids at one time
                Row.of(1L, 10L, 100L, "apple", "u1", t, "x1"),
                Row.of(1L, 11L, 100L, "google", "u2", t, "x2"),
                Row.of(1L, 10L, 90L, "baidu", "u3", t, "x3"),
                Row.of(1L, 12L, 80L, "apple", "u4", t.minusSeconds(1), "x4"),
                // auction 2: no ties
                Row.of(2L, 13L, 70L, "facebook", "u5", t, "x5")));
        if (reversed) {
            Collections.reverse(bids);
        }
        tables.createTemporaryView(
                "bid", tables.fromValues(TypeConversions.fromLogicalToDataType(NexmarkBids.BID_TYPE), bids));
        tables.createTemporaryView(
                "auction",
                tables.fromValues(
                        TypeConversions.fromLogicalToDataType(NexmarkModel.AUCTION_TYPE),
                        Row.of(1L, "one", "first", 10L, 20L, t.minusMinutes(1), t.plusMinutes(1), 7L, 10L, ""),
                        Row.of(2L, "two", "second", 10L, 20L, t.minusMinutes(1), t.plusMinutes(1), 8L, 11L, "")));
        return tables;
    }

    private static List<String> rows(int parallelism, String name, String query) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        NexmarkTableFactory.createTables(tables, 20_000, 5);
        return NexmarkQueries.comparableRows(name, tables.executeSql(query), TIMEOUT);
    }
}
