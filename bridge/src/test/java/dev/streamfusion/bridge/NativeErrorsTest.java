package dev.streamfusion.bridge;

import dev.streamfusion.bridge.NativeDiagnostics.ErrorKind;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Native failures arrive as typed Java exceptions and the JVM and library keep working. */
class NativeErrorsTest {

    @Test
    void panicBecomesJavaExceptionWithItsMessage() {
        assertThatThrownBy(() -> NativeDiagnostics.panic("index 7 out of range \u00fc"))
                .isExactlyInstanceOf(NativePanicException.class)
                .hasMessageContaining("index 7 out of range \u00fc")
                .hasMessageContaining("native_diagnostics.rs:");

        // The JVM survived and the next call works, repeatedly.
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> NativeDiagnostics.panic("again"))
                    .isExactlyInstanceOf(NativePanicException.class);
        }
        assertThat(NativeLibrary.load().profile()).isIn("debug", "release");
    }

    @Test
    void typedErrorsBecomeTheirJavaExceptions() {
        assertThatThrownBy(() -> NativeDiagnostics.fail(ErrorKind.CONFIG, "option 'x' is bad", 0))
                .isExactlyInstanceOf(NativeConfigException.class)
                .hasMessage("option 'x' is bad");
        assertThatThrownBy(() -> NativeDiagnostics.fail(ErrorKind.DECODE, "unexpected end of input", 41))
                .isExactlyInstanceOf(NativeDecodeException.class)
                .hasMessage("record 41 of the batch: unexpected end of input")
                .satisfies(e -> assertThat(((NativeDecodeException) e).position()).isEqualTo(41));
        assertThatThrownBy(() -> NativeDiagnostics.fail(ErrorKind.IO, "file /x is gone", 0))
                .isExactlyInstanceOf(NativeIoException.class)
                .hasMessage("file /x is gone");
        assertThatThrownBy(() -> NativeDiagnostics.fail(ErrorKind.ARROW, "bad layout", 0))
                .isExactlyInstanceOf(NativeException.class)
                .hasMessageContaining("bad layout");
    }

    @Test
    void badProjectionIsAConfigErrorAndLeaksNothing() {
        long nativeBefore = NativeLibrary.nativeAllocatedBytes();
        try (BufferAllocator allocator = new RootAllocator()) {
            Schema schema = new Schema(List.of(Field.nullable("a", new ArrowType.Int(32, true))));
            assertThatThrownBy(() -> NativeProjection.create(allocator, schema, new int[] {0, 3}))
                    .isExactlyInstanceOf(NativeConfigException.class)
                    .hasMessageContaining("projection column 3 is out of range for a schema of 1 columns");
        }
        assertThat(NativeLibrary.nativeAllocatedBytes()).isEqualTo(nativeBefore);
    }
}
