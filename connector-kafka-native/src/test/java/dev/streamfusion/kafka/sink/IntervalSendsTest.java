package dev.streamfusion.kafka.sink;

import org.apache.flink.api.common.operators.ProcessingTimeService;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** The timed sends of an upsert table's buffer ({@code sink.buffer-flush.interval}). */
class IntervalSendsTest {

    /** A clock moved by hand, its timers fired by hand in the order they are due. */
    private static final class ManualTime implements ProcessingTimeService {
        long now;
        final List<long[]> due = new ArrayList<>();
        final List<ProcessingTimeCallback> callbacks = new ArrayList<>();

        @Override
        public long getCurrentProcessingTime() {
            return now;
        }

        @Override
        public ScheduledFuture<?> registerTimer(long timestamp, ProcessingTimeCallback callback) {
            due.add(new long[] {timestamp});
            callbacks.add(callback);
            return null;
        }

        /**
         * Fires the earliest timer at {@code max(now, its time)}, handing it the time it was due,
         * as Flink's timer service does; its time.
         */
        long fireNext() throws Exception {
            long at = due.remove(0)[0];
            now = Math.max(now, at);
            callbacks.remove(0).onProcessingTime(at);
            return at;
        }
    }

    @Test
    void anIdleBufferWaitsAWholeIntervalBetweenTimedSendsInsteadOfFiringAgainAtOnce() throws Exception {
        ManualTime time = new ManualTime();
        int[] sends = {0};
        IntervalSends.start(time, 1000, () -> sends[0]++);
        assertThat(time.fireNext()).isEqualTo(1000);
        assertThat(sends[0]).isEqualTo(1);
        // Nothing was pending (the writer's send did nothing): the next timer is an interval on.
        assertThat(time.due).singleElement().satisfies(at -> assertThat(at[0]).isEqualTo(2000));
        time.now = 2500;
        assertThat(time.fireNext()).isEqualTo(2000);
        assertThat(time.due).singleElement().satisfies(at -> assertThat(at[0]).isEqualTo(3500));
    }

    @Test
    void aSendInBetweenPutsTheTimedSendOff() throws Exception {
        ManualTime time = new ManualTime();
        int[] sends = {0};
        IntervalSends interval = IntervalSends.start(time, 1000, () -> sends[0]++);
        time.now = 600;
        interval.sent();
        time.fireNext();
        assertThat(sends[0]).as("600 ms after the last send").isZero();
        assertThat(time.due).singleElement().satisfies(at -> assertThat(at[0]).isEqualTo(1600));
    }
}
