package dev.streamfusion.bridge;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A record could not be decoded. {@link #position()} is the record's index within the batch that
 * was handed to native code, so the caller can name the record in its own terms (topic, partition
 * and offset; file and row).
 *
 * @since 0.1
 */
@PublicEvolving
public class NativeDecodeException extends NativeException {
    private static final long serialVersionUID = 1L;

    private final long position;

    public NativeDecodeException(String message, long position) {
        super(message);
        this.position = position;
    }

    /** Index of the failing record within its batch. */
    public long position() {
        return position;
    }
}
