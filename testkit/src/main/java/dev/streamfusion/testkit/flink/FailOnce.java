package dev.streamfusion.testkit.flink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.functions.ScalarFunction;

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
