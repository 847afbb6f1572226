package dev.streamfusion.bridge;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A failure inside StreamFusion's native library. Subclasses say what kind of failure it was;
 * this class itself stands for failures with no more specific kind (for example Arrow rejecting
 * data).
 *
 * @since 0.1
 */
@PublicEvolving
public class NativeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NativeException(String message) {
        super(message);
    }

    public NativeException(String message, Throwable cause) {
        super(message, cause);
    }
}
