package dev.streamfusion.operators;

import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.streamfusion.operators.IslandTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A streaming job that runs wholly in the island (Parquet files read as batches, a native calc,
 * the exactly-once Parquet sink taking batches) survives a TaskManager lost mid-stream, and a
 * stop with a savepoint followed by a restore at another parallelism: every row is committed
 * exactly once.
 */
class IslandFailoverITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(4);

    private static final String COLUMNS = "id BIGINT, s STRING, v INT";
    private static final int JOBS = 4;
    private static final int ROWS_PER_JOB = 3000;
    private static final String QUERY = "SELECT id, s, v * 2 FROM watched WHERE MOD(id, 3) <> 0";

    @TempDir static Path root;

    /** The staged input: Parquet files, moved into a watched directory one at a time. */
    private static final List<Path> STAGED = new ArrayList<>();

    @BeforeAll
    static void stage() throws Exception {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.getConfig().set("table.exec.resource.default-parallelism", "2");
        for (int job = 0; job < JOBS; job++) {
            long first = (long) job * ROWS_PER_JOB + 1;
            env.executeSql("CREATE TEMPORARY TABLE ids" + job + " (id BIGINT) WITH ('connector' = 'datagen', "
                    + "'number-of-rows' = '" + ROWS_PER_JOB + "', 'fields.id.kind' = 'sequence', 'fields.id.start' = '" + first + "', 'fields.id.end' = '"
                    + (first + ROWS_PER_JOB - 1) + "')");
            env.executeSql(table("staged" + job, "filesystem", root.resolve("staging-" + job)));
            env.executeSql("INSERT INTO staged" + job + " SELECT id, CONCAT('row-', CAST(id AS STRING)), "
                    + "CAST(MOD(id, 1000) AS INT) FROM ids" + job).await();
            try (Stream<Path> files = Files.list(root.resolve("staging-" + job))) {
                files.filter(f -> !f.getFileName().toString().startsWith(".")).sorted().forEach(STAGED::add);
            }
        }
        assertThat(STAGED).hasSizeGreaterThanOrEqualTo(2 * JOBS);
    }

    /**
     * A streaming job whose tasks take no checkpoint once finished
     * ({@code execution.checkpointing.checkpoints-after-tasks-finish} = false) commits a bounded
     * input's last rows: no checkpoint comes after its end, so its Parquet sink takes rows through
     * Flink's file sink, which commits them when its input ends, not the island's batches.
     */
    @Test
    void aStreamingJobWithoutAFinalCheckpointCommitsItsLastRows() throws Exception {
        Path input = Files.createTempDirectory(root, "no-final-in");
        release(0, 2, input, 0);
        Path out = root.resolve("no-final-out");
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMinutes(10));
        env.getConfig().set(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, false);
        assertThat(StreamFusion.install(env)).isTrue();
        env.executeSql(table("watched", "streamfusion-parquet", input));
        env.executeSql(table("sunk", "streamfusion-parquet", out));
        StreamFusion.Explanation plan = StreamFusion.explain(env, "INSERT INTO sunk " + QUERY);
        assertThat(plan.nativeNodes()).contains("NativeCalc").noneMatch(node -> node.startsWith("NativeSinkBatches"));
        assertThat(plan.fallbacks()).anyMatch(reason -> reason.contains("checkpoints-after-tasks-finish"));
        env.executeSql("INSERT INTO sunk " + QUERY).await(2, TimeUnit.MINUTES);
        assertThat(committed(out)).containsExactlyInAnyOrderElementsOf(expected(2));
    }

    private static String table(String name, String connector, Path directory) {
        return table(name, connector, directory, "");
    }

    private static String table(String name, String connector, Path directory, String options) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = '" + connector + "', 'path' = '"
                + directory + "'" + (connector.equals("filesystem") ? ", 'format' = 'parquet'" : "") + options + ")";
    }

    /** A streaming table environment with the island, checkpointing and restarts. */
    private static TableEnvironment streaming(int parallelism, Path watched, Path out) {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        env.getConfig().set("table.exec.resource.default-parallelism", String.valueOf(parallelism));
        env.getConfig().set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        env.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        env.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        env.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        assertThat(StreamFusion.install(env)).isTrue();
        env.executeSql(table("watched", "streamfusion-parquet", watched, ", 'source.monitor-interval' = '100ms'"));
        env.executeSql(table("sunk", "streamfusion-parquet", out));
        assertThat(StreamFusion.explain(env, "INSERT INTO sunk " + QUERY).nativeNodes())
                .containsExactly(
                        "NativeSourceBatches(default_catalog.default_database.watched)",
                        "NativeCalc",
                        "NativeSinkBatches(default_catalog.default_database.sunk)");
        return env;
    }

    /** Moves staged files {@code from} (inclusive) to {@code to} (exclusive) into {@code watched}. */
    private static void release(int from, int to, Path watched, long pauseMillis) throws Exception {
        for (int i = from; i < to; i++) {
            Path staged = STAGED.get(i);
            Files.copy(staged, watched.resolve(".copying-" + i));
            Files.move(watched.resolve(".copying-" + i), watched.resolve("input-" + i + ".parquet"), StandardCopyOption.ATOMIC_MOVE);
            Thread.sleep(pauseMillis);
        }
    }

    /** The rows the query gives over the first {@code files} staged files, computed by stock Flink. */
    private static List<String> expected(int files) throws Exception {
        Path all = Files.createTempDirectory(root, "expected");
        release(0, files, all, 0);
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.executeSql(table("watched", "filesystem", all));
        return rows(env, QUERY);
    }

    /** The rows committed under {@code out}, read by Flink's own connector (in-progress files are hidden). */
    private static List<String> committed(Path out) throws Exception {
        if (!Files.exists(out)) {
            return List.of();
        }
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.executeSql("CREATE TABLE committed (id BIGINT, s STRING, v INT) WITH ('connector' = 'filesystem', "
                + "'path' = '" + out + "', 'format' = 'parquet')");
        return rows(env, "SELECT * FROM committed");
    }

    /** Waits until at least {@code rows} rows are committed under {@code out}; returns them. */
    private static List<String> awaitCommitted(Path out, int rows) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        List<String> committed = committed(out);
        while (committed.size() < rows && System.nanoTime() < deadline) {
            Thread.sleep(300);
            committed = committed(out);
        }
        return committed;
    }

    @Test
    void aTaskManagerLostMidStreamCommitsEveryRowExactlyOnce(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Path watched = Files.createDirectories(root.resolve("lost-in"));
        Path out = root.resolve("lost-out");
        int half = STAGED.size() / 2;
        release(0, half, watched, 0);
        TableResult running = streaming(1, watched, out).executeSql("INSERT INTO sunk " + QUERY);
        JobClient job = running.getJobClient().orElseThrow();
        try {
            assertThat(awaitCommitted(out, 1)).as("rows committed before the failure").isNotEmpty();
            // The rest arrives while the TaskManager goes away and a new one takes over.
            release(half, half + 1, watched, 0);
            cluster.terminateTaskManager(0).get(30, TimeUnit.SECONDS);
            cluster.startTaskManager();
            release(half + 1, STAGED.size(), watched, 150);

            List<String> expected = expected(STAGED.size());
            List<String> committed = awaitCommitted(out, expected.size());
            assertThat(failureOf(cluster, job.getJobID())).as("the job failed and recovered").isNotNull();
            // Every row once: none lost with the TaskManager, none committed twice after recovery.
            assertThat(committed).containsExactlyElementsOf(expected);
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
    }

    private static Object failureOf(MiniCluster cluster, JobID job) throws Exception {
        return cluster.getExecutionGraph(job).get(30, TimeUnit.SECONDS).getFailureInfo();
    }

    @Test
    void aSavepointRestoresAtAnotherParallelismWithEveryRowOnce() throws Exception {
        Path watched = Files.createDirectories(root.resolve("rescaled-in"));
        Path out = root.resolve("rescaled-out");
        int half = STAGED.size() / 2;
        release(0, half, watched, 0);
        List<String> firstHalf = expected(half);
        JobClient first = streaming(1, watched, out).executeSql("INSERT INTO sunk " + QUERY).getJobClient().orElseThrow();
        assertThat(awaitCommitted(out, firstHalf.size())).containsExactlyElementsOf(firstHalf);
        String savepoint = first.stopWithSavepoint(false, root.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);

        TableEnvironment restored = streaming(2, watched, out);
        restored.getConfig().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        JobClient second = restored.executeSql("INSERT INTO sunk " + QUERY).getJobClient().orElseThrow();
        try {
            release(half, STAGED.size(), watched, 50);
            List<String> expected = expected(STAGED.size());
            // The files read before the savepoint are not read again; the rest is read once.
            assertThat(awaitCommitted(out, expected.size())).containsExactlyElementsOf(expected);
        } finally {
            second.cancel().get(30, TimeUnit.SECONDS);
        }
    }
}
