package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The decoded polls a reader has not recycled yet: the fetcher thread adds them, the reader's
 * thread recycles them as it emits, and whatever is left is freed when the reader closes.
 */
@Internal
final class LivePolls {

    private final Set<DecodedPoll> polls = ConcurrentHashMap.newKeySet();

    DecodedPoll register(
            List<DecodedPoll.SplitBatch> batches, List<DecodedPart> parts, Set<String> finishedSplits) {
        DecodedPoll poll = new DecodedPoll(batches, parts, finishedSplits, polls::remove);
        polls.add(poll);
        return poll;
    }

    /** Frees every poll not recycled yet. */
    void freeAll() {
        for (DecodedPoll poll : List.copyOf(polls)) {
            poll.recycle();
        }
    }
}
