package dev.streamfusion.kafka.sink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.operators.ProcessingTimeService;

/**
 * Sends a writer's reduced rows once they have waited an interval ({@code
 * sink.buffer-flush.interval} of an upsert table), on the task's thread through its processing
 * time service, as Flink's upsert-kafka sink does: a timer fires an interval after the last send
 * and sends unless a send came in between.
 */
@Internal
final class IntervalSends {

    /** The writer's send of its pending rows. */
    @FunctionalInterface
    interface Send {
        void send() throws Exception;
    }

    private final ProcessingTimeService time;
    private final long intervalMs;
    private final Send send;
    private long lastSend;
    private boolean closed;

    private IntervalSends(ProcessingTimeService time, long intervalMs, Send send) {
        this.time = time;
        this.intervalMs = intervalMs;
        this.send = send;
        this.lastSend = time.getCurrentProcessingTime();
    }

    /** Starts sending through {@code send} every {@code intervalMs} without another send. */
    static IntervalSends start(ProcessingTimeService time, long intervalMs, Send send) {
        IntervalSends sends = new IntervalSends(time, intervalMs, send);
        sends.schedule();
        return sends;
    }

    /** Tells of a send (a full buffer, a checkpoint): the next timed one waits a whole interval. */
    void sent() {
        lastSend = time.getCurrentProcessingTime();
    }

    private void schedule() {
        if (closed) {
            return;
        }
        time.registerTimer(
                lastSend + intervalMs,
                now -> {
                    if (closed) {
                        return;
                    }
                    if (now >= lastSend + intervalMs) {
                        send.send();
                        // Nothing to send moves the next timed send on as a send does (from now:
                        // the callback is given the time the timer was due, which may be past).
                        lastSend = Math.max(lastSend, time.getCurrentProcessingTime());
                    }
                    schedule();
                });
    }

    /** Stops the timed sends. */
    void close() {
        closed = true;
    }
}
