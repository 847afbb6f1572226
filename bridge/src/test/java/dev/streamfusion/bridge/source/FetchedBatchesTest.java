package dev.streamfusion.bridge.source;

import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ownership rules of fetched Arrow records, as every connector's reader relies on them. */
class FetchedBatchesTest {

    /** One batch of {@code rows} ints, counting how often it is freed. */
    private static final class Ints extends ArrowRecords<Integer> {
        final VectorSchemaRoot root;
        final AtomicInteger freed = new AtomicInteger();

        Ints(FetchedBatches fetched, int rows) {
            super(Set.of("split"));
            IntVector vector = new IntVector("i", fetched.allocator());
            vector.allocateNew(rows);
            vector.setValueCount(rows);
            this.root = VectorSchemaRoot.of(vector);
        }

        @Override
        public List<VectorSchemaRoot> batches() {
            return List.of(root);
        }

        @Override
        protected void free() {
            freed.incrementAndGet();
            root.close();
        }

        @Override
        public String nextSplit() {
            return null;
        }

        @Override
        public Integer nextRecordFromSplit() {
            return null;
        }
    }

    @Test
    void recordsAreFreedOnceWhetherRecycledOrLeftToClose() {
        FetchedBatches fetched = new FetchedBatches();
        Ints emitted = fetched.track(new Ints(fetched, 100));
        Ints queued = fetched.track(new Ints(fetched, 100));
        assertThat(fetched.allocator().getAllocatedMemory()).isPositive();
        assertThat(emitted.batches()).containsExactly(emitted.root);
        assertThat(emitted.finishedSplits()).containsExactly("split");

        emitted.recycle();
        emitted.recycle();
        assertThat(emitted.freed).hasValue(1);
        assertThat(queued.freed).hasValue(0);

        fetched.close();
        assertThat(queued.freed).hasValue(1);
        assertThat(emitted.freed).hasValue(1);
        assertThat(fetched.allocator().getAllocatedMemory()).isZero();
        // A reader thread recycling after close changes nothing.
        queued.recycle();
        assertThat(queued.freed).hasValue(1);
    }

    @Test
    void memoryOutsideTrackedRecordsFailsTheClose() {
        FetchedBatches fetched = new FetchedBatches();
        IntVector stray = new IntVector("stray", fetched.allocator());
        stray.allocateNew(10);
        // The allocator refuses to close over it (its 64 bytes stay with the closed allocator).
        assertThatThrownBy(fetched::close).isInstanceOf(IllegalStateException.class).hasMessageContaining("Memory leaked");
    }
}
