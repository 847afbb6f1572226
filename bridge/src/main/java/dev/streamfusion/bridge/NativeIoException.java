package dev.streamfusion.bridge;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Native reading or writing outside the process (files, network) failed.
 *
 * @since 0.1
 */
@PublicEvolving
public class NativeIoException extends NativeException {
    private static final long serialVersionUID = 1L;

    public NativeIoException(String message) {
        super(message);
    }
}
