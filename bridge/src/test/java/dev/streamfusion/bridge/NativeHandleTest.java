package dev.streamfusion.bridge;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NativeHandleTest {

    private static final Schema SCHEMA =
            new Schema(List.of(Field.nullable("a", new ArrowType.Int(32, true))));

    @Test
    void useAfterCloseIsAnExceptionAndCloseIsIdempotent() {
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot batch = VectorSchemaRoot.create(SCHEMA, allocator)) {
            ((IntVector) batch.getVector(0)).setSafe(0, 5);
            batch.setRowCount(1);

            NativeProjection projection = NativeProjection.create(allocator, SCHEMA, new int[] {0});
            assertThat(((IntVector) projection.project(batch).getVector(0)).get(0)).isEqualTo(5);

            projection.close();
            projection.close();
            assertThat(projection.isClosed()).isTrue();
            assertThatThrownBy(() -> projection.project(batch))
                    .isExactlyInstanceOf(IllegalStateException.class)
                    .hasMessage("the native projection is closed");
        }
    }

    @Test
    // Closed inside its try-with-resources on purpose: the second close must free nothing.
    @SuppressWarnings("try")
    void closingFreesAllNativeMemory() {
        long nativeBefore = NativeLibrary.nativeAllocatedBytes();
        long handlesBefore = NativeHandle.openHandles();
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot batch = VectorSchemaRoot.create(SCHEMA, allocator)) {
            IntVector a = (IntVector) batch.getVector(0);
            for (int i = 0; i < 10_000; i++) {
                a.setSafe(i, i);
            }
            batch.setRowCount(10_000);
            try (NativeProjection projection = NativeProjection.create(allocator, SCHEMA, new int[] {0})) {
                projection.project(batch);
                assertThat(NativeLibrary.nativeAllocatedBytes()).isGreaterThan(nativeBefore);
                assertThat(NativeHandle.openHandles()).isEqualTo(handlesBefore + 1);
                projection.close();
                assertThat(NativeHandle.openHandles()).as("a second close frees nothing more").isEqualTo(handlesBefore);
            }
        }
        assertThat(NativeLibrary.nativeAllocatedBytes()).isEqualTo(nativeBefore);
        assertThat(NativeHandle.openHandles()).isEqualTo(handlesBefore);
    }

    @Test
    void aBatchOfAnotherSchemaIsRefusedBeforeItCrosses() {
        Schema strings = new Schema(List.of(Field.nullable("a", ArrowType.Utf8.INSTANCE)));
        Schema wider = new Schema(List.of(
                Field.nullable("a", new ArrowType.Int(32, true)), Field.nullable("b", new ArrowType.Int(32, true))));
        try (BufferAllocator allocator = new RootAllocator();
                NativeProjection projection = NativeProjection.create(allocator, SCHEMA, new int[] {0});
                VectorSchemaRoot text = VectorSchemaRoot.create(strings, allocator);
                VectorSchemaRoot two = VectorSchemaRoot.create(wider, allocator);
                VectorSchemaRoot renamed = VectorSchemaRoot.create(
                        new Schema(List.of(Field.nullable("other", new ArrowType.Int(32, true)))), allocator)) {
            assertThatThrownBy(() -> projection.project(text))
                    .isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("column 0 is Utf8, not Int(32, true)");
            assertThatThrownBy(() -> projection.project(two))
                    .isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the batch has 2 children, not 1");
            // Names aside, the same layout crosses.
            ((IntVector) renamed.getVector(0)).setSafe(0, 7);
            renamed.setRowCount(1);
            assertThat(((IntVector) projection.project(renamed).getVector(0)).get(0)).isEqualTo(7);
        }
    }

    /** A handle its owner lost without closing it frees its native object once unreachable. */
    @Test
    void anUnclosedHandleIsFreedOnceUnreachable() throws InterruptedException {
        AtomicLong freed = new AtomicLong();
        Runnable lose = () -> {
            NativeHandle lost = new NativeHandle("test object", 42, freed::set) {};
            assertThat(lost.isClosed()).isFalse();
        };
        lose.run();
        for (int i = 0; i < 100 && freed.get() == 0; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(freed.get()).isEqualTo(42);

        // A closed handle is freed once, by its close.
        AtomicInteger frees = new AtomicInteger();
        NativeHandle closed = new NativeHandle("test object", 7, address -> frees.incrementAndGet()) {};
        closed.close();
        closed.close();
        assertThat(frees.get()).isEqualTo(1);
    }
}
