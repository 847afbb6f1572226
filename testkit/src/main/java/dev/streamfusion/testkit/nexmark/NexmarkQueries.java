package dev.streamfusion.testkit.nexmark;

import dev.streamfusion.testkit.flink.ChangelogRows;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.TableResult;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Nexmark queries in Flink SQL, written from the benchmark's query descriptions, over a bid table
 * of {@link NexmarkBids#BID_TYPE} named by {@code %s}.
 *
 * <p>The queries here are the ones whose work is one projection and filter over the bids: q0
 * (pass-through), q1 (currency conversion, an exact decimal), q2 (a selective filter), q10 (the
 * bids with their day and minute as text, as written to a file system), q14 (a price band,
 * labelled by time of day; without its character-counting UDF), q21 (the channel's id, from a
 * fixed table or the URL), q22 (the URL's first directories). {@link #all()} holds every query
 * of q0-q22 Flink runs, over the model's three tables.
 */
@Internal
public final class NexmarkQueries {

    private static final Map<String, String> BID_CALCS = new LinkedHashMap<>();

    static {
        BID_CALCS.put("q0", "SELECT auction, bidder, price, date_time, extra FROM %s");
        BID_CALCS.put("q1", "SELECT auction, bidder, 0.908 * price AS price, date_time, extra FROM %s");
        BID_CALCS.put("q2", "SELECT auction, price FROM %s WHERE MOD(auction, 123) = 0");
        BID_CALCS.put("q10", "SELECT auction, bidder, price, date_time, extra, DATE_FORMAT(date_time, 'yyyy-MM-dd') AS dt, "
                + "DATE_FORMAT(date_time, 'HH:mm') AS hm FROM %s");
        BID_CALCS.put("q14", "SELECT auction, bidder, 0.908 * price AS price, CASE "
                + "WHEN HOUR(date_time) >= 8 AND HOUR(date_time) <= 18 THEN 'dayTime' "
                + "WHEN HOUR(date_time) <= 6 OR HOUR(date_time) >= 20 THEN 'nightTime' "
                + "ELSE 'otherTime' END AS bid_time_type, date_time, extra FROM %s "
                + "WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000");
        BID_CALCS.put("q21", "SELECT auction, bidder, price, channel, CASE "
                + "WHEN LOWER(channel) = 'apple' THEN '0' WHEN LOWER(channel) = 'google' THEN '1' "
                + "WHEN LOWER(channel) = 'facebook' THEN '2' WHEN LOWER(channel) = 'baidu' THEN '3' "
                + "ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) END AS channel_id FROM %s "
                + "WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL "
                + "OR LOWER(channel) IN ('apple', 'google', 'facebook', 'baidu')");
        BID_CALCS.put("q22", "SELECT auction, bidder, price, channel, SPLIT_INDEX(url, '/', 3) AS dir1, "
                + "SPLIT_INDEX(url, '/', 4) AS dir2, SPLIT_INDEX(url, '/', 5) AS dir3 FROM %s");
    }

    /**
     * q0-q22 over the tables {@code person}, {@code auction} and {@code bid} of the model's
     * columns ({@link NexmarkModel}), each with a watermark on {@code date_time}; those Flink
     * cannot run as the benchmark describes them are in {@link #NOT_RUN}.
     */
    private static final Map<String, String> ALL = new LinkedHashMap<>();

    /** The queries left out of {@link #all()}, with the reason. */
    public static final Map<String, String> NOT_RUN =
            Map.of(
                    "q6", "an OVER window over the closed auctions' changelog (the last 10 per seller), which Flink's"
                            + " streaming OVER aggregation does not take (it needs an insert-only input)",
                    "q12", "processing-time windows: their rows depend on when the job runs, so no two runs compare",
                    "q13", "a join with a bounded side input read by a lookup source, which the benchmark leaves to"
                            + " each system's file source");

    /**
     * Queries of {@link #all()} whose rows depend on the order of rows of equal time or price, by
     * name: a rank keeps the first of the rows that tie for a place, and which row comes first
     * depends on the order rows meet in. Two runs of one of these are compared on the last row of
     * each of its ranks' keys, and only on the columns the data fixes whatever that order.
     */
    public static final Map<String, Ties> ORDER_DEPENDENT =
            Map.of(
                    // the winning bid per auction: every auction column, and the bid's price and time
                    // (the highest price, then the earliest time); its bidder is the first of the ties
                    "q9",
                    new Ties(
                            List.of("id"),
                            List.of("id", "itemName", "description", "initialBid", "reserve", "date_time", "expires",
                                    "seller", "category", "auction", "price", "bid_date_time")),
                    // the latest bid per bidder and auction: its time; the rest is the first of the ties
                    "q18", new Ties(List.of("bidder", "auction"), List.of("auction", "bidder", "date_time")),
                    // the ten highest bids per auction: the price at each rank number
                    "q19", new Ties(List.of("auction", "rank_number"), List.of("auction", "price", "rank_number")));

    /**
     * How a query of {@link #ORDER_DEPENDENT} is compared, by column name (a source may add
     * columns, as the Protobuf topics' {@code SELECT *} does): the columns that key its rank's rows
     * (one final row per key) and the columns that are equal in every run.
     */
    public static final class Ties {
        private final List<String> key;
        private final List<String> fixed;

        Ties(List<String> key, List<String> fixed) {
            this.key = key;
            this.fixed = fixed;
        }

        /** The columns of the query's result that key its rows. */
        public List<String> key() {
            return key;
        }

        /** The columns of the query's result that the data fixes, whatever the order of ties. */
        public List<String> fixed() {
            return fixed;
        }

        /** The positions of {@code names} among the result's {@code columns}. */
        public static int[] positions(List<String> names, List<String> columns) {
            return names.stream()
                    .mapToInt(name -> {
                        int at = columns.indexOf(name);
                        if (at < 0) {
                            throw new IllegalArgumentException("no column " + name + " among " + columns);
                        }
                        return at;
                    })
                    .toArray();
        }
    }

    /**
     * The rows two runs of the query {@code name} of {@link #all()} are compared on, drained from
     * its {@code result} (closed after): the final rows, or for the queries of {@link
     * #ORDER_DEPENDENT} the last row per key with the columns the data fixes. Fails if the
     * changelog has not ended after {@code timeout}.
     */
    public static List<String> comparableRows(String name, TableResult result, Duration timeout) throws Exception {
        Ties ties = ORDER_DEPENDENT.get(name);
        if (ties == null) {
            return ChangelogRows.drain(result.collect(), timeout);
        }
        List<String> columns = result.getResolvedSchema().getColumnNames();
        return ChangelogRows.drainLatestPerKey(
                result.collect(), timeout, Ties.positions(ties.key, columns), Ties.positions(ties.fixed, columns));
    }

    static {
        BID_CALCS.forEach((name, query) -> ALL.put(name, String.format(query, "bid")));
        ALL.put("q3", "SELECT P.name, P.city, P.state, A.id FROM auction AS A JOIN person AS P ON A.seller = P.id "
                + "WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')");
        ALL.put("q4", "SELECT Q.category, AVG(Q.final) AS avg_final FROM ("
                + "SELECT MAX(B.price) AS final, A.category FROM auction AS A, bid AS B "
                + "WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires "
                + "GROUP BY A.id, A.category) AS Q GROUP BY Q.category");
        String hop = "FROM TABLE(HOP(TABLE bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) "
                + "GROUP BY auction, window_start, window_end";
        ALL.put("q5", "SELECT AB.auction, AB.num FROM ("
                + "SELECT auction, COUNT(*) AS num, window_start AS starttime, window_end AS endtime " + hop + ") AS AB "
                + "JOIN (SELECT MAX(CB.num) AS maxn, CB.starttime, CB.endtime FROM ("
                + "SELECT COUNT(*) AS num, window_start AS starttime, window_end AS endtime " + hop + ") AS CB "
                + "GROUP BY CB.starttime, CB.endtime) AS MB "
                + "ON AB.starttime = MB.starttime AND AB.endtime = MB.endtime AND AB.num >= MB.maxn");
        ALL.put("q7", "SELECT B.auction, B.price, B.bidder, B.date_time, B.extra FROM bid AS B JOIN ("
                + "SELECT MAX(price) AS maxprice, window_end AS date_time "
                + "FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) "
                + "GROUP BY window_start, window_end) AS B1 ON B.price = B1.maxprice "
                + "WHERE B.date_time BETWEEN B1.date_time - INTERVAL '10' SECOND AND B1.date_time");
        ALL.put("q8", "SELECT P.id, P.name, P.starttime FROM ("
                + "SELECT id, name, window_start AS starttime, window_end AS endtime "
                + "FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) "
                + "GROUP BY id, name, window_start, window_end) AS P JOIN ("
                + "SELECT seller, window_start AS starttime, window_end AS endtime "
                + "FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) "
                + "GROUP BY seller, window_start, window_end) AS A "
                + "ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime");
        ALL.put("q9", "SELECT id, itemName, description, initialBid, reserve, date_time, expires, seller, category, "
                + "auction, bidder, price, bid_date_time FROM ("
                + "SELECT A.id, A.itemName, A.description, A.initialBid, A.reserve, A.date_time, A.expires, A.seller, "
                + "A.category, B.auction, B.bidder, B.price, B.date_time AS bid_date_time, "
                + "ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.date_time ASC) AS rownum "
                + "FROM auction AS A, bid AS B "
                + "WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires) WHERE rownum <= 1");
        ALL.put("q11", "SELECT bidder, COUNT(*) AS bid_count, window_start AS starttime, window_end AS endtime "
                + "FROM TABLE(SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) "
                + "GROUP BY bidder, window_start, window_end");
        String bands = "COUNT(*) AS total_bids, "
                + "COUNT(*) FILTER (WHERE price < 10000) AS rank1_bids, "
                + "COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids, "
                + "COUNT(*) FILTER (WHERE price >= 1000000) AS rank3_bids";
        String distinct = "COUNT(DISTINCT bidder) AS total_bidders, "
                + "COUNT(DISTINCT bidder) FILTER (WHERE price < 10000) AS rank1_bidders, "
                + "COUNT(DISTINCT bidder) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bidders, "
                + "COUNT(DISTINCT bidder) FILTER (WHERE price >= 1000000) AS rank3_bidders, "
                + "COUNT(DISTINCT auction) AS total_auctions, "
                + "COUNT(DISTINCT auction) FILTER (WHERE price < 10000) AS rank1_auctions, "
                + "COUNT(DISTINCT auction) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_auctions, "
                + "COUNT(DISTINCT auction) FILTER (WHERE price >= 1000000) AS rank3_auctions";
        ALL.put("q15", "SELECT DATE_FORMAT(date_time, 'yyyy-MM-dd') AS `day`, " + bands + ", " + distinct
                + " FROM bid GROUP BY DATE_FORMAT(date_time, 'yyyy-MM-dd')");
        ALL.put("q16", "SELECT channel, DATE_FORMAT(date_time, 'yyyy-MM-dd') AS `day`, "
                + "MAX(DATE_FORMAT(date_time, 'HH:mm')) AS `minute`, " + bands + ", " + distinct
                + " FROM bid GROUP BY channel, DATE_FORMAT(date_time, 'yyyy-MM-dd')");
        ALL.put("q17", "SELECT auction, DATE_FORMAT(date_time, 'yyyy-MM-dd') AS `day`, " + bands + ", "
                + "MIN(price) AS min_price, MAX(price) AS max_price, AVG(price) AS avg_price, SUM(price) AS sum_price "
                + "FROM bid GROUP BY auction, DATE_FORMAT(date_time, 'yyyy-MM-dd')");
        ALL.put("q18", "SELECT auction, bidder, price, channel, url, date_time, extra FROM ("
                + "SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC) AS rank_number "
                + "FROM bid) WHERE rank_number <= 1");
        ALL.put("q19", "SELECT * FROM ("
                + "SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid) "
                + "WHERE rank_number <= 10");
        ALL.put("q20", "SELECT B.auction, B.bidder, B.price, B.channel, B.url, B.date_time, B.extra, A.itemName, "
                + "A.description, A.initialBid, A.reserve, A.date_time AS auction_date_time, A.expires, A.seller, "
                + "A.category FROM bid AS B INNER JOIN auction AS A ON B.auction = A.id WHERE A.category = 10");
    }

    private NexmarkQueries() {}

    /**
     * Every query Flink runs as the benchmark describes it (q0-q22 but {@link #NOT_RUN}), by name
     * in the benchmark's order, over the tables {@code person}, {@code auction} and {@code bid}.
     */
    public static Map<String, String> all() {
        Map<String, String> ordered = new LinkedHashMap<>();
        for (int q = 0; q <= 22; q++) {
            String name = "q" + q;
            if (ALL.containsKey(name)) {
                ordered.put(name, ALL.get(name));
            }
        }
        return Collections.unmodifiableMap(ordered);
    }

    /** The queries that are one projection and filter over the bids, by name, in order. */
    public static Map<String, String> bidCalcs() {
        return Collections.unmodifiableMap(BID_CALCS);
    }

    /** The query {@code name} over the bid table {@code table}. */
    public static String bidCalc(String name, String table) {
        String query = BID_CALCS.get(name);
        if (query == null) {
            throw new IllegalArgumentException("no Nexmark query " + name + " over the bids; there are " + BID_CALCS.keySet());
        }
        return String.format(query, table);
    }
}
