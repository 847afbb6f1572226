package dev.streamfusion.bridge;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Native code hit a bug (a Rust panic). The panic was caught at the JNI boundary, so the JVM keeps
 * running and the library stays usable; the message carries the panic's own text.
 *
 * @since 0.1
 */
@PublicEvolving
public class NativePanicException extends NativeException {
    private static final long serialVersionUID = 1L;

    public NativePanicException(String message) {
        super(message);
    }
}
