package dev.streamfusion.bridge;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A native component rejected a setting or an argument; the message names it.
 *
 * @since 0.1
 */
@PublicEvolving
public class NativeConfigException extends NativeException {
    private static final long serialVersionUID = 1L;

    public NativeConfigException(String message) {
        super(message);
    }
}
