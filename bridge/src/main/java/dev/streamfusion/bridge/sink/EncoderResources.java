package dev.streamfusion.bridge.sink;

import org.apache.flink.annotation.Internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Function;

/**
 * What a sink's writer holds to encode natively: an Arrow allocator that rows are transposed into,
 * and the native handles (encoders, writers, transposers) opened on it. Handles close in the reverse
 * of the order they were opened, then the allocator, which fails if a byte is still allocated.
 * When opening a handle fails, everything opened before it is closed and the failure passes on,
 * so a writer whose constructor fails half-way holds nothing.
 */
@Internal
public final class EncoderResources implements AutoCloseable {

    private final BufferAllocator allocator = new RootAllocator();
    private final Deque<AutoCloseable> opened = new ArrayDeque<>();
    private boolean closed;

    /** The allocator the handles transpose into and export from. */
    public BufferAllocator allocator() {
        return allocator;
    }

    /**
     * Opens a handle on the allocator and keeps it until {@link #close()}.
     *
     * @throws RuntimeException what {@code open} threw, after everything opened so far is closed
     */
    public <T extends AutoCloseable> T open(Function<BufferAllocator, T> open) {
        T handle;
        try {
            handle = open.apply(allocator);
        } catch (RuntimeException | Error e) {
            try {
                close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        opened.push(handle);
        return handle;
    }

    /** Closes every handle, the last opened first, then the allocator; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (Exception e) {
                RuntimeException wrapped = e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
                if (failure == null) {
                    failure = wrapped;
                } else {
                    failure.addSuppressed(wrapped);
                }
            }
        }
        try {
            allocator.close();
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
