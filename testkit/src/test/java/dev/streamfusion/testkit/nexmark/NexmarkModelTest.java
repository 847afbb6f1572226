package dev.streamfusion.testkit.nexmark;

import dev.streamfusion.testkit.nexmark.NexmarkModel.Kind;

import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class NexmarkModelTest {

    @Test
    void eachRowFollowsFromItsSeedAndIndexAlone() {
        NexmarkModel model = new NexmarkModel(7);
        for (Kind kind : Kind.values()) {
            for (long n : new long[] {0, 1, 45, 46, 999, 123_456}) {
                assertThat(model.row(kind, n)).isEqualTo(new NexmarkModel(7).row(kind, n));
                assertThat(model.row(kind, n)).isNotEqualTo(new NexmarkModel(8).row(kind, n));
            }
        }
    }

    @Test
    void eventsCycleThroughOnePersonThreeAuctionsAndFortySixBids() {
        assertThat(NexmarkModel.count(Kind.PERSON, 50)).isEqualTo(1);
        assertThat(NexmarkModel.count(Kind.AUCTION, 50)).isEqualTo(3);
        assertThat(NexmarkModel.count(Kind.BID, 50)).isEqualTo(46);
        assertThat(NexmarkModel.count(Kind.AUCTION, 2)).isEqualTo(1);
        assertThat(NexmarkModel.count(Kind.BID, 4)).isZero();
        assertThat(NexmarkModel.count(Kind.BID, 5)).isEqualTo(1);
        long[] seen = new long[Kind.values().length];
        for (long event = 0; event < 5_000; event++) {
            Kind kind = NexmarkModel.kind(event);
            long n = seen[kind.ordinal()]++;
            assertThat(NexmarkModel.count(kind, event)).isEqualTo(n);
            assertThat(NexmarkModel.event(kind, n)).isEqualTo(event);
        }
        assertThat(seen).containsExactly(100, 300, 4_600);
    }

    @Test
    void peopleAuctionsAndBidsFollowTheModel() {
        NexmarkModel model = new NexmarkModel(1);
        Set<String> states = new HashSet<>();
        long personBytes = 0;
        for (long n = 0; n < 1_000; n++) {
            RowData person = model.row(Kind.PERSON, n);
            assertThat(person.getLong(0)).isEqualTo(1000 + n);
            assertThat(person.getString(1).toString()).contains(" ");
            assertThat(person.getString(2).toString()).matches("[a-z]{7}@[a-z]{5}\\.com");
            assertThat(person.getString(3).toString()).matches("\\d{4} \\d{4} \\d{4} \\d{4}");
            states.add(person.getString(5).toString());
            // 50 events at 10,000 a second: a person every 5 ms.
            assertThat(person.getTimestamp(6, 3).getMillisecond()).isEqualTo(1_700_000_000_000L + 5 * n);
            for (int field = 1; field < 8; field++) {
                personBytes += field == 6 ? 8 : person.getString(field).toBytes().length;
            }
        }
        assertThat(states).containsExactlyInAnyOrder("AZ", "CA", "ID", "OR", "WA", "WY");
        assertThat(personBytes / 1_000 + 8).isBetween(190L, 210L);

        Set<Long> categories = new HashSet<>();
        for (long n = 0; n < 3_000; n++) {
            RowData auction = model.row(Kind.AUCTION, n);
            long cycle = n / 3;
            assertThat(auction.getLong(0)).isEqualTo(1000 + n);
            assertThat(auction.getLong(3)).isBetween(100L, 100_000_000L);
            assertThat(auction.getLong(4)).isGreaterThan(auction.getLong(3));
            long time = auction.getTimestamp(5, 3).getMillisecond();
            assertThat(auction.getTimestamp(6, 3).getMillisecond()).isGreaterThan(time);
            // The seller is a person made by then, or up to 10 ahead.
            assertThat(auction.getLong(7)).isBetween(1000L, 1000 + cycle + 10);
            categories.add(auction.getLong(8));
        }
        assertThat(categories).containsExactlyInAnyOrder(10L, 11L, 12L, 13L, 14L);

        for (long n = 0; n < 4_600; n++) {
            RowData bid = model.row(Kind.BID, n);
            long cycle = n / 46;
            assertThat(bid.getLong(0)).isBetween(1000L, 1000 + cycle * 3 + 2 + 10);
            assertThat(bid.getLong(1)).isBetween(1000L, 1000 + cycle + 10);
        }
    }
}
