package dev.streamfusion.bridge.sink;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The close order every sink writer relies on. */
class EncoderResourcesTest {

    /** A handle that holds a vector of the allocator and records when it closes. */
    private static final class Handle implements AutoCloseable {
        final String name;
        final List<String> log;
        final IntVector vector;

        Handle(String name, List<String> log, BufferAllocator allocator) {
            this.name = name;
            this.log = log;
            this.vector = new IntVector(name, allocator);
            vector.allocateNew(64);
        }

        @Override
        public void close() {
            vector.close();
            log.add(name);
        }
    }

    @Test
    void handlesCloseLastOpenedFirstThenTheAllocatorOnce() {
        List<String> log = new ArrayList<>();
        EncoderResources held = new EncoderResources();
        held.open(allocator -> new Handle("transposer", log, allocator));
        held.open(allocator -> new Handle("encoder", log, allocator));
        assertThat(held.allocator().getAllocatedMemory()).isPositive();

        held.close();
        held.close();
        assertThat(log).containsExactly("encoder", "transposer");
        assertThat(held.allocator().getAllocatedMemory()).isZero();
        assertThatThrownBy(() -> held.allocator().buffer(8)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aHandleThatFailsToOpenClosesWhatWasOpenedBefore() {
        List<String> log = new ArrayList<>();
        EncoderResources held = new EncoderResources();
        held.open(allocator -> new Handle("transposer", log, allocator));
        assertThatThrownBy(() -> held.open(allocator -> {
                    throw new IllegalArgumentException("no such format");
                }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no such format");
        assertThat(log).containsExactly("transposer");
        assertThat(held.allocator().getAllocatedMemory()).isZero();
    }

    @Test
    void memoryNoHandleFreedFailsTheCloseAfterEveryHandleClosed() {
        List<String> log = new ArrayList<>();
        EncoderResources held = new EncoderResources();
        held.open(allocator -> new Handle("encoder", log, allocator));
        IntVector stray = new IntVector("stray", held.allocator());
        stray.allocateNew(8);
        // The allocator refuses to close over it (its bytes stay with the closed allocator).
        assertThatThrownBy(held::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("Memory leaked");
        assertThat(log).containsExactly("encoder");
    }
}
