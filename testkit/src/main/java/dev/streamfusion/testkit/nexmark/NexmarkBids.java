package dev.streamfusion.testkit.nexmark;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

import static org.apache.flink.table.api.DataTypes.FIELD;

/**
 * Bid events of the Nexmark benchmark's auction model, deterministic for a seed.
 *
 * <p>The model's event stream repeats a cycle of 50 events: one new person, three new auctions,
 * 46 bids. Only the bids are produced here, but their ids and fields follow from their place in
 * that stream, with the model's default settings:
 *
 * <ul>
 *   <li>{@code auction}: half the bids go to a hot auction (the latest auction id rounded down to
 *       a multiple of 100), the rest to one of the 100 auctions in flight (or up to 10 ahead of
 *       the newest); ids start at 1000.
 *   <li>{@code bidder}: three bids in four come from a hot bidder (the latest person id rounded
 *       down to a multiple of 100, plus one), the rest from one of the 1,000 active people (or up
 *       to 10 ahead); ids start at 1000.
 *   <li>{@code price}: {@code round(10^(6u) * 100)} for a uniform {@code u}, cents from 100 to
 *       100,000,000, log-uniformly spread.
 *   <li>{@code channel} and {@code url}: half the bids come through one of four hot channels
 *       (Google, Facebook, Baidu, Apple), the rest through one of 10,000 numbered channels, each
 *       with its own URL.
 *   <li>{@code date_time}: the event's time at the model's default rate of 10,000 events per
 *       second, from 2023-11-14 22:13:20 UTC.
 *   <li>{@code extra}: random letters padding the bid towards the model's average of 100 bytes.
 * </ul>
 */
@Internal
public final class NexmarkBids {

    /** The Nexmark bid table: {@code auction, bidder, price, channel, url, date_time, extra}. */
    public static final RowType BID_TYPE = bidType(DataTypes.TIMESTAMP(3));

    /**
     * The bid table as Flink's protobuf format reads the {@code Bid} message of {@code
     * nexmark.proto}: {@code date_time} as epoch milliseconds (BIGINT), as protobuf has no
     * timestamp type. {@link #withEpochMillis} turns bids into such rows.
     */
    public static final RowType PROTOBUF_BID_TYPE = bidType(DataTypes.BIGINT());

    static final int PERSONS_PER_CYCLE = 1;
    static final int AUCTIONS_PER_CYCLE = 3;
    static final int BIDS_PER_CYCLE = 46;
    static final int CYCLE = PERSONS_PER_CYCLE + AUCTIONS_PER_CYCLE + BIDS_PER_CYCLE;

    static final long FIRST_AUCTION_ID = 1000;
    static final long FIRST_PERSON_ID = 1000;
    static final int HOT_ROUNDING = 100;
    static final int AUCTIONS_IN_FLIGHT = 100;
    private static final int ACTIVE_PEOPLE = 1000;
    private static final int ID_LEAD = 10;

    private static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
    private static final int CHANNELS = 10_000;
    private static final int AVERAGE_BID_BYTES = 100;

    private static final long START_MILLIS = 1_700_000_000_000L;
    static final long EVENTS_PER_SECOND = 10_000;

    private final SplittableRandom random;
    private final String[] channelUrls = new String[CHANNELS];
    private long bids;

    public NexmarkBids(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** The next {@code count} bids. */
    public List<RowData> next(int count) {
        List<RowData> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            rows.add(next());
        }
        return rows;
    }

    /** The next bid. */
    public RowData next() {
        return bid(bids++, random, this::channelUrl);
    }

    /**
     * Bid {@code n} (0-based) of the model, its draws taken from {@code random}, numbered
     * channels' URLs from {@code channelUrls}.
     */
    static RowData bid(long n, SplittableRandom random, IntFunction<String> channelUrls) {
        long event = n / BIDS_PER_CYCLE * CYCLE + PERSONS_PER_CYCLE + AUCTIONS_PER_CYCLE + n % BIDS_PER_CYCLE;
        long cycle = event / CYCLE;
        // The newest auction and person when this bid is made (0-based).
        long lastAuction = cycle * AUCTIONS_PER_CYCLE + AUCTIONS_PER_CYCLE - 1;
        long lastPerson = cycle * PERSONS_PER_CYCLE + PERSONS_PER_CYCLE - 1;

        long auction;
        if (random.nextInt(2) > 0) {
            auction = lastAuction / HOT_ROUNDING * HOT_ROUNDING;
        } else {
            long oldest = Math.max(lastAuction - AUCTIONS_IN_FLIGHT, 0);
            auction = oldest + random.nextLong(lastAuction - oldest + 1 + ID_LEAD);
        }
        long bidder = person(random, lastPerson);
        long price = price(random);

        String channel;
        String url;
        if (random.nextInt(2) > 0) {
            channel = HOT_CHANNELS[random.nextInt(HOT_CHANNELS.length)];
            url = "https://www.nexmark.com/" + channel.toLowerCase(Locale.ROOT) + "/item.htm?query=1";
        } else {
            int number = random.nextInt(CHANNELS);
            channel = "channel-" + number;
            url = channelUrls.apply(number);
        }
        // The model counts a bid's size as its four numbers (8 bytes each) and its strings.
        int size = 8 * 4 + channel.length() + url.length();
        return GenericRowData.of(
                FIRST_AUCTION_ID + auction,
                FIRST_PERSON_ID + bidder,
                price,
                StringData.fromString(channel),
                StringData.fromString(url),
                TimestampData.fromEpochMillis(millis(event)),
                StringData.fromString(extra(random, AVERAGE_BID_BYTES - size)));
    }

    private static RowType bidType(DataType dateTime) {
        return (RowType)
                DataTypes.ROW(
                                FIELD("auction", DataTypes.BIGINT()),
                                FIELD("bidder", DataTypes.BIGINT()),
                                FIELD("price", DataTypes.BIGINT()),
                                FIELD("channel", DataTypes.STRING()),
                                FIELD("url", DataTypes.STRING()),
                                FIELD("date_time", dateTime),
                                FIELD("extra", DataTypes.STRING()))
                        .notNull()
                        .getLogicalType();
    }

    /** Bids of {@link #BID_TYPE} as rows of {@link #PROTOBUF_BID_TYPE}. */
    public static List<RowData> withEpochMillis(List<RowData> bids) {
        List<RowData> rows = new ArrayList<>(bids.size());
        for (RowData bid : bids) {
            rows.add(
                    GenericRowData.of(
                            bid.getLong(0),
                            bid.getLong(1),
                            bid.getLong(2),
                            bid.getString(3),
                            bid.getString(4),
                            bid.getTimestamp(5, 3).getMillisecond(),
                            bid.getString(6)));
        }
        return rows;
    }

    /**
     * A person (0-based) when {@code lastPerson} is the newest: three times in four the hot one
     * (the newest rounded down to a multiple of 100, plus one), else one of the 1,000 active
     * people or up to 10 ahead of the newest.
     */
    static long person(SplittableRandom random, long lastPerson) {
        if (random.nextInt(4) > 0) {
            return lastPerson / HOT_ROUNDING * HOT_ROUNDING + 1;
        }
        long people = lastPerson + 1;
        long active = Math.min(people, ACTIVE_PEOPLE);
        return people - active + random.nextLong(active + ID_LEAD);
    }

    /** A price in cents, {@code round(10^(6u) * 100)} for a uniform {@code u}. */
    static long price(SplittableRandom random) {
        return Math.round(Math.pow(10.0, random.nextDouble() * 6.0) * 100.0);
    }

    /** The time of event {@code event} (0-based) at the model's rate, in epoch milliseconds. */
    static long millis(long event) {
        return START_MILLIS + event * 1000 / EVENTS_PER_SECOND;
    }

    /** A numbered channel's URL, drawn once per channel and kept. */
    private String channelUrl(int number) {
        String url = channelUrls[number];
        if (url == null) {
            url = channelUrl(random, number);
            channelUrls[number] = url;
        }
        return url;
    }

    /** A numbered channel's URL, its path drawn from {@code random}. */
    static String channelUrl(SplittableRandom random, int number) {
        return "https://www.nexmark.com/" + letters(random, 5) + "/" + letters(random, 5) + "/" + letters(random, 5)
                + "/item.htm?query=1&channel_id=" + Integer.toUnsignedString(Integer.reverse(number));
    }

    /** Random letters, {@code average} long on average (within 20%), or none. */
    static String extra(SplittableRandom random, int average) {
        if (average <= 0) {
            return "";
        }
        int delta = (int) Math.round(average * 0.2);
        return letters(random, average - delta + (delta == 0 ? 0 : random.nextInt(2 * delta)));
    }

    static String letters(SplittableRandom random, int length) {
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(chars);
    }
}
