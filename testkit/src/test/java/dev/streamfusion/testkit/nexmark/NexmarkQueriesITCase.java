package dev.streamfusion.testkit.nexmark;

import dev.streamfusion.testkit.flink.ChangelogRows;
import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every query of {@link NexmarkQueries#all()} runs on the {@code streamfusion-nexmark} tables in a
 * real MiniCluster job and gives rows; those whose rows do not depend on the order of rows of
 * equal time or price give the same rows at parallelism 1 and 2. The 20,000 events span two
 * seconds of {@code date_time}, less than the watermarks' 4 seconds, so no reader's rows are late.
 */
class NexmarkQueriesITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK = MiniClusters.withSlots(2, new Configuration());

    static Stream<String> queries() {
        return NexmarkQueries.all().keySet().stream();
    }

    @ParameterizedTest
    @MethodSource("queries")
    void runsAndGivesTheSameRowsAtEveryParallelism(String name) throws Exception {
        String query = NexmarkQueries.all().get(name);
        List<String> rows = rows(2, query);
        assertThat(rows).as(name).isNotEmpty();
        if (!NexmarkQueries.ORDER_DEPENDENT.contains(name)) {
            assertThat(rows(1, query)).as(name).containsExactlyInAnyOrderElementsOf(rows);
        }
    }

    private static List<String> rows(int parallelism, String query) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        NexmarkTableFactory.createTables(tables, 20_000, 5);
        return ChangelogRows.drain(tables.executeSql(query).collect(), Duration.ofMinutes(2));
    }
}
