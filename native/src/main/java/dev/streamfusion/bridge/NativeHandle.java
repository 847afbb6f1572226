package dev.streamfusion.bridge;

import org.apache.flink.annotation.Internal;

/**
 * Owner of one native object.
 *
 * <p>The native object lives at {@link #address()} until {@link #close()}, which frees it exactly
 * once; closing again does nothing, and any use after close is an {@link IllegalStateException},
 * never a native crash. Subclasses call their natives from {@code synchronized} methods, so a
 * close from another thread (a cancelled task) waits for a call in flight instead of freeing the
 * object under it.
 */
@Internal
public abstract class NativeHandle implements AutoCloseable {

    private final String kind;
    private long address;

    protected NativeHandle(String kind, long address) {
        if (address == 0) {
            throw new NativeException("native " + kind + " was not created");
        }
        this.kind = kind;
        this.address = address;
    }

    /** The native object's address; callers hold this handle's lock. */
    protected final long address() {
        if (address == 0) {
            throw new IllegalStateException("the native " + kind + " is closed");
        }
        return address;
    }

    public final synchronized boolean isClosed() {
        return address == 0;
    }

    @Override
    public final synchronized void close() {
        if (address == 0) {
            return;
        }
        long freed = address;
        address = 0;
        try {
            free(freed);
        } finally {
            closeJavaResources();
        }
    }

    /** Frees the native object; called exactly once. */
    protected abstract void free(long address);

    /** Releases what the Java side of the handle holds (cached Arrow structs, vectors). */
    protected void closeJavaResources() {}

    @Override
    public String toString() {
        return getClass().getSimpleName() + (isClosed() ? "(closed)" : "(open)");
    }
}
