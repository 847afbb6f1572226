package dev.streamfusion.testkit.flink;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/** Results of queries over unbounded sources, which never finish on their own. */
@PublicEvolving
public final class UnboundedQueries {

    private UnboundedQueries() {}

    /** The first {@code count} rows of {@code sql} (as text, in arrival order); then the job is cancelled. */
    // CloseableIterator.close() declares Exception.
    @SuppressWarnings("try")
    public static List<String> take(TableEnvironment env, String sql, int count) throws Exception {
        TableResult result = env.executeSql(sql);
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (rows.size() < count) {
                rows.add(it.next().toString());
            }
            cancel(result.getJobClient().orElseThrow());
        }
        return rows;
    }

    /**
     * Cancels {@code job} and waits until it has ended, so that the slots it held are free for the
     * next job of a shared cluster (a cancel is acknowledged before its tasks have stopped).
     */
    public static void cancel(JobClient job) throws Exception {
        job.cancel().get();
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("job " + job.getJobID() + " did not end within a minute of its cancel");
            }
            Thread.sleep(20);
        }
    }
}
