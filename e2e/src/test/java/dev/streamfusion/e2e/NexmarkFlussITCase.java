package dev.streamfusion.e2e;

import dev.streamfusion.testkit.flink.ChangelogRows;
import dev.streamfusion.testkit.flink.MiniClusters;
import dev.streamfusion.testkit.flink.UnboundedQueries;
import dev.streamfusion.testkit.fluss.FlussClusterExtension;
import dev.streamfusion.testkit.nexmark.NexmarkModel;
import dev.streamfusion.testkit.nexmark.NexmarkQueries;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Nexmark writer into Fluss ({@link NexmarkFluss}) on a real Fluss cluster in a child JVM: the
 * model's events written by fluss-flink and by {@code streamfusion-fluss} are, table by table, the
 * model's rows value for value; and the bid queries over either writer's tables, read by either
 * connector, give the rows stock Flink computes over the model itself.
 */
class NexmarkFlussITCase {

    @RegisterExtension
    @Order(1)
    static final FlussClusterExtension FLUSS = new FlussClusterExtension();

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    /** Events of the model: 100 cycles of one person, three auctions and 46 bids. */
    private static final long EVENTS = 5_000;
    private static final Map<NexmarkModel.Kind, Integer> ROWS =
            Map.of(NexmarkModel.Kind.PERSON, 100, NexmarkModel.Kind.AUCTION, 300, NexmarkModel.Kind.BID, 4_600);
    private static final String BY_FLUSS_FLINK = "nexmark_by_fluss_flink";
    private static final String BY_STREAMFUSION = "nexmark_by_streamfusion";

    @BeforeAll
    static void writeTheModelThroughEitherConnector() throws Exception {
        TableEnvironment env = NexmarkFluss.tables(FLUSS.bootstrapServers(), 2, EVENTS);
        NexmarkFluss.create(env, BY_FLUSS_FLINK, 2);
        NexmarkFluss.create(env, BY_STREAMFUSION, 3);
        NexmarkFluss.write(env, NexmarkFluss.STOCK, BY_FLUSS_FLINK);
        NexmarkFluss.write(env, NexmarkFluss.FUSED, BY_STREAMFUSION);
    }

    @Test
    void eachTableHoldsTheModelsEventsOfItsKindWhicheverConnectorWroteIt() throws Exception {
        for (NexmarkModel.Kind kind : NexmarkModel.Kind.values()) {
            List<String> model = NexmarkFluss.expected(kind, EVENTS);
            assertThat(model).hasSize(ROWS.get(kind));
            for (String database : List.of(BY_FLUSS_FLINK, BY_STREAMFUSION)) {
                assertThat(NexmarkFluss.rows(FLUSS.bootstrapServers(), database, kind))
                        .as("%s of %s", NexmarkFluss.name(kind), database)
                        .isEqualTo(model);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"q0", "q2", "q22"})
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void bidQueriesOverEitherWritersTablesGiveTheModelsRowsThroughEitherConnector(String query) throws Exception {
        TableEnvironment env = NexmarkFluss.tables(FLUSS.bootstrapServers(), 2, EVENTS);
        List<String> expected = sorted(ChangelogRows.drain(
                env.executeSql(NexmarkQueries.bidCalc(query, "model.bid")).collect(), Duration.ofMinutes(2)));
        assertThat(expected).isNotEmpty();
        for (String catalog : List.of(NexmarkFluss.STOCK, NexmarkFluss.FUSED)) {
            for (String database : List.of(BY_FLUSS_FLINK, BY_STREAMFUSION)) {
                String bids = catalog + "." + database + ".bid";
                assertThat(sorted(UnboundedQueries.take(env, NexmarkQueries.bidCalc(query, bids), expected.size())))
                        .as("%s over %s", query, bids)
                        .isEqualTo(expected);
            }
        }
    }

    private static List<String> sorted(List<String> rows) {
        List<String> copy = new ArrayList<>(rows);
        copy.sort(null);
        return copy;
    }
}
