package dev.streamfusion.bridge;

import org.apache.flink.annotation.Internal;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Owner of one native object.
 *
 * <p>The native object lives at {@link #address()} until {@link #close()}, which frees it exactly
 * once; closing again does nothing, and any use after close is an {@link IllegalStateException},
 * never a native crash. Subclasses call their natives from {@code synchronized} methods, so a
 * close from another thread (a cancelled task) waits for a call in flight instead of freeing the
 * object under it.
 *
 * <p>Every owner closes its handles on every path; as a last resort, a handle that becomes
 * unreachable unclosed (its owner failed before it could close it) has its native object freed
 * then, so that no native memory or client threads outlive it.
 */
@Internal
public abstract class NativeHandle implements AutoCloseable {

    private static final Cleaner UNCLOSED = Cleaner.create();

    /** Native objects owned by handles of this class loader and not yet freed. */
    private static final AtomicLong OPEN = new AtomicLong();

    private final String kind;
    private final Native object;
    private final Cleaner.Cleanable freeing;

    /**
     * Takes ownership of the native object at {@code address}, which {@code free} (a static
     * function: it must not hold this handle) frees.
     */
    protected NativeHandle(String kind, long address, LongConsumer free) {
        if (address == 0) {
            throw new NativeException("native " + kind + " was not created");
        }
        this.kind = kind;
        this.object = new Native(address, free);
        this.freeing = UNCLOSED.register(this, object);
        OPEN.incrementAndGet();
    }

    /**
     * How many native objects handles (of this class loader) own and have not freed: closed
     * handles and handles the garbage collector reclaimed are not counted.
     */
    public static long openHandles() {
        return OPEN.get();
    }

    /** The native object and how it is freed: what the cleaner holds, never the handle. */
    private static final class Native implements Runnable {
        private final LongConsumer free;
        private volatile long address;

        Native(long address, LongConsumer free) {
            this.address = address;
            this.free = free;
        }

        @Override
        public void run() {
            long freed = address;
            address = 0;
            if (freed != 0) {
                try {
                    free.accept(freed);
                } finally {
                    OPEN.decrementAndGet();
                }
            }
        }
    }

    /** The native object's address; callers hold this handle's lock. */
    protected final long address() {
        long address = object.address;
        if (address == 0) {
            throw new IllegalStateException("the native " + kind + " is closed");
        }
        return address;
    }

    public final synchronized boolean isClosed() {
        return object.address == 0;
    }

    @Override
    public final synchronized void close() {
        if (object.address == 0) {
            return;
        }
        try {
            freeing.clean();
        } finally {
            closeJavaResources();
        }
    }

    /** Releases what the Java side of the handle holds (cached Arrow structs, vectors). */
    protected void closeJavaResources() {}

    @Override
    public String toString() {
        return getClass().getSimpleName() + (isClosed() ? "(closed)" : "(open)");
    }
}
