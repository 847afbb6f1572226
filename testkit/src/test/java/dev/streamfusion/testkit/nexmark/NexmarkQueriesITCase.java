package dev.streamfusion.testkit.nexmark;

import dev.streamfusion.testkit.flink.ChangelogRows;
import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.runtime.typeutils.ExternalTypeInfo;
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
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
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

    private static final Pattern READS_AUCTIONS = Pattern.compile("\\bFROM auction\\b");

    /** Per run of {@link #tied}, the auctions not yet sent on by their source's calc. */
    private static final Map<String, CountDownLatch> AUCTIONS_SENT = new ConcurrentHashMap<>();

    /** How long the first bid waits after the auctions are sent: ample to hand a flushed buffer on. */
    private static final long FLUSH_MILLIS = 500;

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
        List<String> compared =
                NexmarkQueries.comparableRows(name, tied(false, query).executeSql(query), TIMEOUT);
        List<String> comparedReversed =
                NexmarkQueries.comparableRows(name, tied(true, query).executeSql(query), TIMEOUT);
        assertThat(compared).as(name).isNotEmpty();
        assertThat(comparedReversed).as(name).containsExactlyInAnyOrderElementsOf(compared);

        List<String> key = NexmarkQueries.ORDER_DEPENDENT.get(name).key();
        assertThat(wholeRows(tied(false, query).executeSql(query), key))
                .as(name + ": the ties change which rows are kept")
                .isNotEqualTo(wholeRows(tied(true, query).executeSql(query), key));
    }

    private static List<String> wholeRows(TableResult result, List<String> key) throws Exception {
        List<String> columns = result.getResolvedSchema().getColumnNames();
        int[] all = IntStream.range(0, columns.size()).toArray();
        List<String> rows = ChangelogRows.drainLatestPerKey(
                result.collect(), TIMEOUT, NexmarkQueries.Ties.positions(key, columns), all);
        rows.sort(null);
        return rows;
    }

    /**
     * Tables {@code bid} and {@code auction} at parallelism 1, with bids that tie, in either order.
     *
     * <p>A join passes bids on in the order they arrive only if their auction is already there: an
     * auction arriving after its bids meets them in the order of the join's state, the same in
     * either run. So when the query reads {@code auction}, every record is flushed as soon as it
     * is written, and the first bid waits at {@link AfterAuctions} until both auctions have been
     * sent, and a while longer for them to reach the join.
     */
    private static StreamTableEnvironment tied(boolean reversed, String query) {
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
        // A stream of the rows in their order: a VALUES whose rows need casts is planned as a union
        // of one operator per row, which meets the rows in any order.
        Table bidValues = tables.fromDataStream(
                env.fromData(bids, ExternalTypeInfo.of(TypeConversions.fromLogicalToDataType(NexmarkBids.BID_TYPE))));
        Table auctionValues = tables.fromValues(
                TypeConversions.fromLogicalToDataType(NexmarkModel.AUCTION_TYPE),
                Row.of(1L, "one", "first", 10L, 20L, t.minusMinutes(1), t.plusMinutes(1), 7L, 10L, ""),
                Row.of(2L, "two", "second", 10L, 20L, t.minusMinutes(1), t.plusMinutes(1), 8L, 11L, ""));
        if (!READS_AUCTIONS.matcher(query).find()) {
            tables.createTemporaryView("bid", bidValues);
            tables.createTemporaryView("auction", auctionValues);
            return tables;
        }
        env.setBufferTimeout(0);
        String run = UUID.randomUUID().toString();
        AUCTIONS_SENT.put(run, new CountDownLatch(2));
        tables.createTemporaryFunction("auctionSent", new AuctionSent(run));
        tables.createTemporaryFunction("afterAuctions", new AfterAuctions(run));
        tables.createTemporaryView("bidValues", bidValues);
        tables.createTemporaryView("auctionValues", auctionValues);
        tables.createTemporaryView(
                "bid",
                tables.sqlQuery("SELECT auction, afterAuctions(bidder) AS bidder, price, channel, url, date_time, "
                        + "extra FROM bidValues"));
        tables.createTemporaryView(
                "auction",
                tables.sqlQuery("SELECT auctionSent(id) AS id, itemName, description, initialBid, reserve, "
                        + "date_time, expires, seller, category, extra FROM auctionValues"));
        return tables;
    }

    /** Counts an auction out of its source; returns its id. */
    public static final class AuctionSent extends ScalarFunction {
        private final String run;

        AuctionSent(String run) {
            this.run = run;
        }

        public Long eval(Long id) {
            AUCTIONS_SENT.get(run).countDown();
            return id;
        }

        @Override
        public boolean isDeterministic() {
            return false;
        }
    }

    /** Holds the first bid until both auctions are sent and have reached the join; returns its bidder. */
    public static final class AfterAuctions extends ScalarFunction {
        private final String run;
        private transient boolean open;

        AfterAuctions(String run) {
            this.run = run;
        }

        public Long eval(Long bidder) throws InterruptedException {
            if (!open) {
                if (!AUCTIONS_SENT.get(run).await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("The auctions were not sent within " + TIMEOUT);
                }
                Thread.sleep(FLUSH_MILLIS);
                open = true;
            }
            return bidder;
        }

        @Override
        public boolean isDeterministic() {
            return false;
        }
    }

    private static List<String> rows(int parallelism, String name, String query) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        NexmarkTableFactory.createTables(tables, 20_000, 5);
        return NexmarkQueries.comparableRows(name, tables.executeSql(query), TIMEOUT);
    }
}
