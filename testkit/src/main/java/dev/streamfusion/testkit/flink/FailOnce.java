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
 * mid-stream and restarts from its last checkpoint. Register it as a temporary system function
 * and {@link #reset} it before each job; jobs run in the test's JVM (a MiniCluster).
 */
@Internal
public class FailOnce extends ScalarFunction {

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
            throw new IllegalStateException("injected failure");
        }
        return value;
    }
}
