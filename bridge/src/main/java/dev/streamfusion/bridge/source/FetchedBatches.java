package dev.streamfusion.bridge.source;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Arrow memory of one source reader: the allocator its split readers import batches into, and
 * the {@link ArrowRecords} fetched and not yet recycled. Closed by {@link ArrowSourceReader} after
 * its fetchers stopped: whatever was fetched and not emitted is freed, then the allocator closes,
 * and fails if anything is still allocated.
 */
@Internal
public final class FetchedBatches implements AutoCloseable {

    private final BufferAllocator allocator = new RootAllocator();
    private final Set<ArrowRecords<?>> live = ConcurrentHashMap.newKeySet();

    /** The allocator batches of this reader are imported into and moved to. */
    public BufferAllocator allocator() {
        return allocator;
    }

    /** Tracks {@code records} until they are recycled or this closes; returns them. */
    public <R extends ArrowRecords<?>> R track(R records) {
        records.ownedBy(this);
        live.add(records);
        return records;
    }

    void forget(ArrowRecords<?> records) {
        live.remove(records);
    }

    /** Frees every record not recycled yet, then closes the allocator. */
    @Override
    public void close() {
        try {
            for (ArrowRecords<?> records : List.copyOf(live)) {
                records.recycle();
            }
        } finally {
            allocator.close();
        }
    }
}
