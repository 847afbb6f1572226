package dev.streamfusion.bridge.testing;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh Arrow allocator for each test, closed after it: a test that leaves Arrow memory behind
 * fails, naming how many bytes are still allocated.
 *
 * <pre>{@code @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();}</pre>
 */
public final class ArrowAllocatorExtension implements BeforeEachCallback, AfterEachCallback {

    private BufferAllocator allocator;

    /** The running test's allocator. */
    public BufferAllocator allocator() {
        if (allocator == null) {
            throw new IllegalStateException("the allocator exists only while a test runs");
        }
        return allocator;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        allocator = new RootAllocator();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        BufferAllocator closing = allocator;
        allocator = null;
        long outstanding = closing.getAllocatedMemory();
        if (outstanding != 0) {
            String state = closing.toVerboseString();
            try {
                closing.close();
            } catch (IllegalStateException ignored) {
                // Reported below with the allocator's state.
            }
            throw new AssertionError(
                    context.getDisplayName() + " left " + outstanding + " bytes of Arrow memory allocated:\n" + state);
        }
        closing.close();
    }
}
