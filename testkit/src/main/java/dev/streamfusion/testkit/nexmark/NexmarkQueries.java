package dev.streamfusion.testkit.nexmark;

import org.apache.flink.annotation.Internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Nexmark queries in Flink SQL, written from the benchmark's query descriptions, over a bid table
 * of {@link NexmarkBids#BID_TYPE} named by {@code %s}.
 *
 * <p>The queries here are the ones whose work is one projection and filter over the bids: q0
 * (pass-through), q1 (currency conversion, an exact decimal), q2 (a selective filter), q10 (the
 * bids with their day and minute as text, as written to a file system), q14 (a price band,
 * labelled by time of day; without its character-counting UDF), q21 (the channel's id, from a
 * fixed table or the URL), q22 (the URL's first directories).
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

    private NexmarkQueries() {}

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
