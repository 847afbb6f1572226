package dev.streamfusion.testkit.flink;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.functions.ScalarFunction;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A SQL function for failover tests: passes its argument through, slowly enough (1 ms a call) for
 * checkpoints to complete while a job runs, and throws once, at a chosen call, so the job fails
 * mid-stream and restarts from its last checkpoint. The failing call lingers longer than a
 * checkpoint interval before it throws, so the job fails with a checkpoint due. Register it as a
 * temporary system function and {@link #reset} it before each job; jobs run in the test's JVM (a
 * MiniCluster).
 *
 * <p>Where the rows come from Flink's {@code datagen}, add {@link #SOURCE_APART} to its options.
 * {@code datagen} is a legacy source function: it emits from a thread of its own, holding the
 * checkpoint lock while a row passes through the operators chained to it. When {@code fail_once}
 * is chained to it and throws, the lock is released before the task fails, and a checkpoint
 * waiting for the lock is taken then: its source state is past the row that failed, so the row is
 * never emitted again, whatever the sink. Apart from the source, {@code fail_once} fails its task
 * before that task can take part in another checkpoint.
 */
@Internal
public class FailOnce extends ScalarFunction {

    /**
     * The {@code datagen} option that runs the source at parallelism 1, so that the operators
     * after it, at the job's parallelism, are not chained to it.
     */
    public static final String SOURCE_APART = "'scan.parallelism' = '1'";

    /** How long the failing call waits before it throws. */
    private static final Duration LINGER = Duration.ofMillis(400);

    private static final AtomicInteger CALLS = new AtomicInteger();
    private static final AtomicBoolean FAILED = new AtomicBoolean();
    private static volatile int failAt;

    /**
     * Tables whose jobs run at {@code parallelism}, checkpoint every {@code checkpointInterval}
     * and restart (twice at most, 100 ms apart) after a failure, with {@code fail_once}
     * registered.
     */
    public static StreamTableEnvironment restartingTables(int parallelism, Duration checkpointInterval) {
        Configuration configuration = new Configuration();
        configuration.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval);
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        configuration.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.setParallelism(parallelism);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.createTemporarySystemFunction("fail_once", FailOnce.class);
        return tables;
    }

    /** Arms the function to fail at call {@code failAtCall}, counting from now. */
    public static void reset(int failAtCall) {
        CALLS.set(0);
        FAILED.set(false);
        failAt = failAtCall;
    }

    /** Whether the injected failure has happened since the last {@link #reset}. */
    public static boolean failed() {
        return FAILED.get();
    }

    /** Calls since the last {@link #reset}, across attempts of the job. */
    public static int calls() {
        return CALLS.get();
    }

    public Long eval(Long value) throws InterruptedException {
        Thread.sleep(1);
        if (CALLS.incrementAndGet() >= failAt && FAILED.compareAndSet(false, true)) {
            // A checkpoint is due while the failing call lingers: the job fails with one in flight.
            Thread.sleep(LINGER.toMillis());
            throw new IllegalStateException("injected failure");
        }
        return value;
    }
}
