package dev.streamfusion.testkit.nexmark;

import dev.streamfusion.testkit.flink.ChangelogRows;
import dev.streamfusion.testkit.flink.MiniClusters;
import dev.streamfusion.testkit.nexmark.NexmarkModel.Kind;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code streamfusion-nexmark} tables in real MiniCluster jobs. */
class NexmarkTableITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2, new Configuration());

    private static final long EVENTS = 20_000;
    private static final long SEED = 3;

    @Test
    void tablesHoldTheModelsRowsAtAnyParallelism() throws Exception {
        NexmarkModel model = new NexmarkModel(SEED);
        List<String> persons = new ArrayList<>();
        for (long n = 0; n < NexmarkModel.count(Kind.PERSON, EVENTS); n++) {
            RowData p = model.row(Kind.PERSON, n);
            persons.add("+I[" + p.getLong(0) + ", " + p.getString(1) + ", " + p.getString(5) + "]");
        }
        List<String> auctions = new ArrayList<>();
        for (long n = 0; n < NexmarkModel.count(Kind.AUCTION, EVENTS); n++) {
            RowData a = model.row(Kind.AUCTION, n);
            auctions.add("+I[" + a.getLong(0) + ", " + a.getLong(4) + ", " + a.getLong(7) + ", " + a.getLong(8) + "]");
        }
        List<String> bids = new ArrayList<>();
        for (long n = 0; n < NexmarkModel.count(Kind.BID, EVENTS); n++) {
            RowData b = model.row(Kind.BID, n);
            bids.add("+I[" + b.getLong(0) + ", " + b.getLong(1) + ", " + b.getLong(2) + ", " + b.getString(3) + "]");
        }
        for (int parallelism : new int[] {1, 2}) {
            StreamTableEnvironment tables = tables(parallelism);
            assertThat(rows(tables, "SELECT id, name, state FROM person")).containsExactlyInAnyOrderElementsOf(persons);
            assertThat(rows(tables, "SELECT id, reserve, seller, category FROM auction"))
                    .containsExactlyInAnyOrderElementsOf(auctions);
            assertThat(rows(tables, "SELECT auction, bidder, price, channel FROM bid")).containsExactlyInAnyOrderElementsOf(bids);
        }
    }

    /** Nexmark q3 (local item suggestion): a join of sellers in three states with their auctions. */
    @Test
    void queryThreeJoinsSellersAndTheirAuctions() throws Exception {
        NexmarkModel model = new NexmarkModel(SEED);
        Map<Long, RowData> people = new HashMap<>();
        for (long n = 0; n < NexmarkModel.count(Kind.PERSON, EVENTS); n++) {
            RowData person = model.row(Kind.PERSON, n);
            people.put(person.getLong(0), person);
        }
        List<String> expected = new ArrayList<>();
        for (long n = 0; n < NexmarkModel.count(Kind.AUCTION, EVENTS); n++) {
            RowData auction = model.row(Kind.AUCTION, n);
            RowData seller = people.get(auction.getLong(7));
            if (auction.getLong(8) == 10 && seller != null && Set.of("OR", "ID", "CA").contains(seller.getString(5).toString())) {
                expected.add("+I[" + seller.getString(1) + ", " + seller.getString(4) + ", " + seller.getString(5) + ", "
                        + auction.getLong(0) + "]");
            }
        }
        assertThat(expected).hasSizeGreaterThan(10);
        assertThat(rows(
                        tables(2),
                        "SELECT P.name, P.city, P.state, A.id FROM auction AS A JOIN person AS P ON A.seller = P.id"
                                + " WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')"))
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aTableOfOtherColumnsIsRefusedNamingTheKindsColumns() {
        StreamTableEnvironment tables = tables(1);
        tables.executeSql(
                "CREATE TABLE wrong (id BIGINT, name STRING) WITH ('connector' = 'streamfusion-nexmark', 'table' = 'person')");
        assertThatThrownBy(() -> tables.executeSql("SELECT * FROM wrong"))
                .hasStackTraceContaining("A streamfusion-nexmark table of 'person' events has the physical columns ROW<`id` BIGINT");
    }

    private static StreamTableEnvironment tables(int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        NexmarkTableFactory.createTables(tables, EVENTS, SEED);
        return tables;
    }

    private static List<String> rows(StreamTableEnvironment tables, String query) throws Exception {
        return ChangelogRows.drain(tables.executeSql(query).collect(), Duration.ofMinutes(2));
    }
}
