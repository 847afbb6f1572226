package dev.streamfusion.testkit.nexmark;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.util.Locale;
import java.util.SplittableRandom;

import static org.apache.flink.table.api.DataTypes.FIELD;

/**
 * The whole Nexmark auction model: people, auctions and bids, each event computed from its index
 * alone (its draws come from a generator seeded by the model's seed and the index), so any range
 * of events, split among any number of readers, is the same rows.
 *
 * <p>The event stream repeats a cycle of 50 events: one new person, three new auctions, 46 bids
 * (made as {@link NexmarkBids} makes them), at 10,000 events per second of {@code date_time}:
 *
 * <ul>
 *   <li>a person: ids from 1000 in order; a name of one of 12 first and 12 last names, an e-mail
 *       address and a credit card number of random characters, one of 12 cities and of the six
 *       states AZ, CA, ID, OR, WA and WY; {@code extra} padding it towards 200 bytes;
 *   <li>an auction: ids from 1000 in order; a random item name and description, an initial bid
 *       and a reserve above it (prices as bids'), a seller chosen as bidders are (mostly the hot
 *       person), one of the five categories 10 to 14, an expiry between one and two times the
 *       span of the 100 auctions in flight after its time; {@code extra} padding it towards 500
 *       bytes.
 * </ul>
 */
@Internal
public final class NexmarkModel implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The kinds of events, in the order a cycle makes them. */
    public enum Kind {
        PERSON,
        AUCTION,
        BID
    }

    /** {@code id, name, emailAddress, creditCard, city, state, date_time, extra}. */
    public static final RowType PERSON_TYPE =
            (RowType)
                    DataTypes.ROW(
                                    FIELD("id", DataTypes.BIGINT()),
                                    FIELD("name", DataTypes.STRING()),
                                    FIELD("emailAddress", DataTypes.STRING()),
                                    FIELD("creditCard", DataTypes.STRING()),
                                    FIELD("city", DataTypes.STRING()),
                                    FIELD("state", DataTypes.STRING()),
                                    FIELD("date_time", DataTypes.TIMESTAMP(3)),
                                    FIELD("extra", DataTypes.STRING()))
                            .notNull()
                            .getLogicalType();

    /**
     * {@code id, itemName, description, initialBid, reserve, date_time, expires, seller, category,
     * extra}.
     */
    public static final RowType AUCTION_TYPE =
            (RowType)
                    DataTypes.ROW(
                                    FIELD("id", DataTypes.BIGINT()),
                                    FIELD("itemName", DataTypes.STRING()),
                                    FIELD("description", DataTypes.STRING()),
                                    FIELD("initialBid", DataTypes.BIGINT()),
                                    FIELD("reserve", DataTypes.BIGINT()),
                                    FIELD("date_time", DataTypes.TIMESTAMP(3)),
                                    FIELD("expires", DataTypes.TIMESTAMP(3)),
                                    FIELD("seller", DataTypes.BIGINT()),
                                    FIELD("category", DataTypes.BIGINT()),
                                    FIELD("extra", DataTypes.STRING()))
                            .notNull()
                            .getLogicalType();

    private static final String[] FIRST_NAMES = {
        "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter", "Maria"
    };
    private static final String[] LAST_NAMES = {
        "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris", "Lopez", "Chen", "Okafor"
    };
    private static final String[] CITIES = {
        "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent",
        "Cheyenne", "Tucson", "Eugene"
    };
    private static final String[] STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
    private static final long FIRST_CATEGORY = 10;
    private static final int CATEGORIES = 5;
    private static final int AVERAGE_PERSON_BYTES = 200;
    private static final int AVERAGE_AUCTION_BYTES = 500;
    /** Milliseconds between two auctions at the model's rate, times the auctions in flight. */
    private static final long AUCTIONS_IN_FLIGHT_MILLIS =
            NexmarkBids.AUCTIONS_IN_FLIGHT * 1000L * NexmarkBids.CYCLE
                    / (NexmarkBids.AUCTIONS_PER_CYCLE * NexmarkBids.EVENTS_PER_SECOND);
    /** Salts a channel's draws apart from every event's. */
    private static final long CHANNEL_SALT = 0x5DEECE66DL;

    private final long seed;

    public NexmarkModel(long seed) {
        this.seed = seed;
    }

    /** The kind of event {@code event} (0-based). */
    public static Kind kind(long event) {
        long offset = event % NexmarkBids.CYCLE;
        return offset < NexmarkBids.PERSONS_PER_CYCLE
                ? Kind.PERSON
                : offset < NexmarkBids.PERSONS_PER_CYCLE + NexmarkBids.AUCTIONS_PER_CYCLE ? Kind.AUCTION : Kind.BID;
    }

    /** How many events of {@code kind} the first {@code events} events hold. */
    public static long count(Kind kind, long events) {
        long cycles = events / NexmarkBids.CYCLE;
        long rest = events % NexmarkBids.CYCLE;
        long first = firstOffset(kind);
        long perCycle = perCycle(kind);
        return cycles * perCycle + Math.max(0, Math.min(rest - first, perCycle));
    }

    /** The event (0-based) of the {@code n}th (0-based) event of {@code kind}. */
    public static long event(Kind kind, long n) {
        long perCycle = perCycle(kind);
        return n / perCycle * NexmarkBids.CYCLE + firstOffset(kind) + n % perCycle;
    }

    private static long perCycle(Kind kind) {
        switch (kind) {
            case PERSON:
                return NexmarkBids.PERSONS_PER_CYCLE;
            case AUCTION:
                return NexmarkBids.AUCTIONS_PER_CYCLE;
            default:
                return NexmarkBids.BIDS_PER_CYCLE;
        }
    }

    private static long firstOffset(Kind kind) {
        switch (kind) {
            case PERSON:
                return 0;
            case AUCTION:
                return NexmarkBids.PERSONS_PER_CYCLE;
            default:
                return NexmarkBids.PERSONS_PER_CYCLE + NexmarkBids.AUCTIONS_PER_CYCLE;
        }
    }

    /** The {@code n}th (0-based) row of {@code kind}: a row of its kind's type. */
    public RowData row(Kind kind, long n) {
        long event = event(kind, n);
        SplittableRandom random = new SplittableRandom(mix(seed, event));
        switch (kind) {
            case PERSON:
                return person(n, event, random);
            case AUCTION:
                return auction(n, event, random);
            default:
                return NexmarkBids.bid(n, random, number -> NexmarkBids.channelUrl(channelRandom(number), number));
        }
    }

    private SplittableRandom channelRandom(int number) {
        return new SplittableRandom(mix(seed ^ CHANNEL_SALT, number));
    }

    private static RowData person(long n, long event, SplittableRandom random) {
        String name = FIRST_NAMES[random.nextInt(FIRST_NAMES.length)] + " " + LAST_NAMES[random.nextInt(LAST_NAMES.length)];
        String email = NexmarkBids.letters(random, 7) + "@" + NexmarkBids.letters(random, 5) + ".com";
        String card = String.format(
                Locale.ROOT, "%04d %04d %04d %04d",
                random.nextInt(10_000), random.nextInt(10_000), random.nextInt(10_000), random.nextInt(10_000));
        String city = CITIES[random.nextInt(CITIES.length)];
        String state = STATES[random.nextInt(STATES.length)];
        // The model counts a person's size as its id and time (8 bytes each) and its strings.
        int size = 8 * 2 + name.length() + email.length() + card.length() + city.length() + state.length();
        return GenericRowData.of(
                NexmarkBids.FIRST_PERSON_ID + n,
                StringData.fromString(name),
                StringData.fromString(email),
                StringData.fromString(card),
                StringData.fromString(city),
                StringData.fromString(state),
                TimestampData.fromEpochMillis(NexmarkBids.millis(event)),
                StringData.fromString(NexmarkBids.extra(random, AVERAGE_PERSON_BYTES - size)));
    }

    private static RowData auction(long n, long event, SplittableRandom random) {
        String item = NexmarkBids.letters(random, 20);
        String description = NexmarkBids.letters(random, 100);
        long initialBid = NexmarkBids.price(random);
        long reserve = initialBid + NexmarkBids.price(random);
        long millis = NexmarkBids.millis(event);
        long expires = millis + AUCTIONS_IN_FLIGHT_MILLIS + random.nextLong(AUCTIONS_IN_FLIGHT_MILLIS + 1);
        long lastPerson = event / NexmarkBids.CYCLE * NexmarkBids.PERSONS_PER_CYCLE + NexmarkBids.PERSONS_PER_CYCLE - 1;
        long seller = NexmarkBids.person(random, lastPerson);
        long category = FIRST_CATEGORY + random.nextInt(CATEGORIES);
        // The model counts an auction's size as its seven numbers and times and its strings.
        int size = 8 * 7 + item.length() + description.length();
        return GenericRowData.of(
                NexmarkBids.FIRST_AUCTION_ID + n,
                StringData.fromString(item),
                StringData.fromString(description),
                initialBid,
                reserve,
                TimestampData.fromEpochMillis(millis),
                TimestampData.fromEpochMillis(expires),
                NexmarkBids.FIRST_PERSON_ID + seller,
                category,
                StringData.fromString(NexmarkBids.extra(random, AVERAGE_AUCTION_BYTES - size)));
    }

    /** A generator seed from the model's seed and an index (SplitMix64's finalizer). */
    private static long mix(long seed, long index) {
        long z = seed + (index + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
