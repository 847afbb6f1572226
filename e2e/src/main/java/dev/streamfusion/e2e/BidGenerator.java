package dev.streamfusion.e2e;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.apache.flink.table.api.DataTypes.FIELD;

/**
 * Bid events shaped like the Nexmark benchmark's: auction, bidder, price, channel, url, event time
 * and a padding string. Deterministic for a seed.
 */
public final class BidGenerator {

    public static final RowType BID =
            (RowType)
                    DataTypes.ROW(
                                    FIELD("auction", DataTypes.BIGINT()),
                                    FIELD("bidder", DataTypes.BIGINT()),
                                    FIELD("price", DataTypes.BIGINT()),
                                    FIELD("channel", DataTypes.STRING()),
                                    FIELD("url", DataTypes.STRING()),
                                    FIELD("date_time", DataTypes.TIMESTAMP(3)),
                                    FIELD("extra", DataTypes.STRING()))
                            .notNull()
                            .getLogicalType();

    private static final String[] CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
    private static final long START_MILLIS = 1_700_000_000_000L;

    private final SplittableRandom random;
    private long events;

    public BidGenerator(long seed) {
        this.random = new SplittableRandom(seed);
    }

    public List<RowData> next(int count) {
        List<RowData> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long n = events++;
            String channel = CHANNELS[random.nextInt(CHANNELS.length)];
            rows.add(
                    GenericRowData.of(
                            1000L + random.nextLong(n / 10 + 1),
                            1000L + random.nextLong(n / 5 + 1),
                            100L + random.nextLong(10_000_000L),
                            StringData.fromString(channel),
                            StringData.fromString(
                                    "https://www.nexmark.com/" + channel.toLowerCase() + "/item.htm?query=1&channel_id=" + random.nextInt(1 << 20)),
                            TimestampData.fromEpochMillis(START_MILLIS + n),
                            StringData.fromString("")));
        }
        return rows;
    }
}
