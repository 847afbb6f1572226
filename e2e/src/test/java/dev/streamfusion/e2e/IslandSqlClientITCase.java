package dev.streamfusion.e2e;

import dev.streamfusion.testkit.flink.FlinkSqlClient;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The island's option in Flink's SQL Client over an installation's {@code lib/} as Flink ships it
 * (the planner loader, which hides the planner's classes), with the operators jar beside the
 * SQL jars: the query runs stock and correct, and the log says once why the island did not run.
 */
class IslandSqlClientITCase {

    @TempDir Path directory;

    @Test
    void withThePlannerLoaderTheOptionRunsStockAndTheLogSaysWhy() throws Exception {
        FlinkSqlClient client = new FlinkSqlClient(directory).withLib(List.of(
                Paths.get(System.getProperty("streamfusion.parquet.sql.jar")),
                Paths.get(System.getProperty("streamfusion.operators.jar"))));
        String script = "SET 'execution.runtime-mode' = 'batch';\n"
                + "SET 'table.dml-sync' = 'true';\n"
                + "SET 'streamfusion.island.enabled' = 'true';\n"
                + "CREATE TABLE p (id BIGINT, price BIGINT) WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                + directory.resolve("p").toUri() + "');\n"
                + "INSERT INTO p VALUES (1, 10), (2, 20), (3, 30), (4, CAST(NULL AS BIGINT));\n"
                + "SELECT COUNT(*), SUM(price) FROM p WHERE price > 10 OR price IS NULL;\n";

        FlinkSqlClient.Run run = client.run("island-with-loader", script);

        assertThat(run.exitCode).as(run.text()).isZero();
        assertThat(run.output).as(run.text()).noneMatch(line -> line.contains("[ERROR]"));
        Matcher row = Pattern.compile("\\|\\s+(\\d+)\\s+\\|\\s+(\\d+)\\s+\\|").matcher(run.text());
        assertThat(row.find()).as(run.text()).isTrue();
        assertThat(row.group(1) + " " + row.group(2)).isEqualTo("3 50");
        String log = Files.readString(run.log);
        assertThat(log)
                .contains("'streamfusion.island.enabled' is set but the planner's classes are hidden by "
                        + "flink-table-planner-loader: queries run stock Flink.");
        assertThat(log.split("planner's classes are hidden", -1)).as("said once").hasSize(2);
    }

    /**
     * With the planner jar in {@code lib/} in place of the loader (as Flink's documentation has
     * users do), the same SQL jars and operators jar run the island in the SQL Client: EXPLAIN
     * shows the native nodes, and the rows are stock Flink's.
     */
    @Test
    void withThePlannerJarTheIslandRunsInTheSqlClient() throws Exception {
        List<Path> planner;
        try (Stream<Path> jars = Files.list(Paths.get(System.getProperty("streamfusion.planner.jars")))) {
            planner = jars.filter(jar -> jar.toString().endsWith(".jar")).sorted().collect(Collectors.toList());
        }
        assertThat(planner).hasSize(2);
        FlinkSqlClient client = new FlinkSqlClient(directory)
                .withLib(List.of(
                        Paths.get(System.getProperty("streamfusion.parquet.sql.jar")),
                        Paths.get(System.getProperty("streamfusion.operators.jar"))))
                .withPlannerInsteadOfLoader(planner);
        String script = "SET 'execution.runtime-mode' = 'batch';\n"
                + "SET 'table.dml-sync' = 'true';\n"
                + "SET 'streamfusion.island.enabled' = 'true';\n"
                + "CREATE TABLE p (id BIGINT, price BIGINT, name STRING) WITH ('connector' = 'streamfusion-parquet', 'path' = '"
                + directory.resolve("p").toUri() + "');\n"
                + "INSERT INTO p VALUES (1, 10, 'a'), (2, 20, 'B'), (3, 30, 'c'), (4, CAST(NULL AS BIGINT), 'D');\n"
                + "EXPLAIN SELECT id, UPPER(name) FROM p WHERE price > 10 OR price IS NULL;\n"
                + "SELECT id, UPPER(name) FROM p WHERE price > 10 OR price IS NULL;\n";

        FlinkSqlClient.Run run = client.run("island-with-planner", script);

        assertThat(run.exitCode).as(run.text()).isZero();
        assertThat(run.output).as(run.text()).noneMatch(line -> line.contains("[ERROR]"));
        assertThat(run.text()).contains("NativeCalc(", "NativeSourceBatches(", "NativeToRows");
        List<String> rows = new ArrayList<>();
        Matcher row = Pattern.compile("\\|\\s+(\\d+)\\s+\\|\\s+(\\S+)\\s+\\|").matcher(run.text());
        while (row.find()) {
            rows.add(row.group(1) + " " + row.group(2));
        }
        assertThat(rows).containsExactlyInAnyOrder("2 B", "3 C", "4 D");
        assertThat(Files.readString(run.log)).doesNotContain("planner's classes are hidden");
    }
}
