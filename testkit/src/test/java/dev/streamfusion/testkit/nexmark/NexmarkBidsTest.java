package dev.streamfusion.testkit.nexmark;

import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class NexmarkBidsTest {

    @Test
    void sameSeedSameBids() {
        List<RowData> first = new NexmarkBids(3).next(500);
        List<RowData> second = new NexmarkBids(3).next(500);
        assertThat(first).isEqualTo(second);
        assertThat(new NexmarkBids(4).next(500)).isNotEqualTo(first);
    }

    @Test
    void bidsFollowTheModel() {
        List<RowData> bids = new NexmarkBids(1).next(46 * 1000);
        Set<String> channels = new HashSet<>();
        long hotAuction = 0;
        long previousTime = Long.MIN_VALUE;
        for (int i = 0; i < bids.size(); i++) {
            RowData bid = bids.get(i);
            long cycle = i / 46;
            long lastAuction = 1000 + cycle * 3 + 2;
            assertThat(bid.getLong(0)).isBetween(1000L, lastAuction + 10);
            assertThat(bid.getLong(1)).isBetween(1000L, 1000 + cycle + 10);
            assertThat(bid.getLong(2)).isBetween(100L, 100_000_000L);
            if (bid.getLong(0) == 1000 + (lastAuction - 1000) / 100 * 100) {
                hotAuction++;
            }
            channels.add(bid.getString(3).toString());
            assertThat(bid.getString(4).toString()).startsWith("https://www.nexmark.com/");
            long time = bid.getTimestamp(5, 3).getMillisecond();
            assertThat(time).isGreaterThanOrEqualTo(previousTime);
            previousTime = time;
        }
        // Half the bids go to the hot auction, plus the cold ones that happen to hit it.
        assertThat(hotAuction).isBetween(bids.size() / 2L - 1000, bids.size() / 2L + 2000);
        assertThat(channels).contains("Google", "Facebook", "Baidu", "Apple").hasSizeGreaterThan(1000);
        // 1,000 cycles of 50 events at 10,000 events per second: 5 seconds.
        assertThat(previousTime - bids.get(0).getTimestamp(5, 3).getMillisecond()).isBetween(4990L, 5000L);
    }
}
