package dev.streamfusion.bridge.writer;

import org.apache.flink.annotation.Internal;

import java.nio.charset.StandardCharsets;

/**
 * What {@link RowDataArrowWriter} does with a NULL map key, which Arrow maps cannot hold:
 * reject the row (the default), drop the entry, or write a literal string key instead. Formats
 * with a NULL-key option (JSON's {@code map-null-key.mode}) choose the matching policy.
 */
@Internal
public final class NullMapKeys {

    /** A NULL key is an error naming the column. */
    public static final NullMapKeys REJECT = new NullMapKeys(null, false);

    /** Entries with a NULL key are left out. */
    public static final NullMapKeys DROP = new NullMapKeys(null, true);

    private final byte[] literal;
    private final boolean drop;

    private NullMapKeys(byte[] literal, boolean drop) {
        this.literal = literal;
        this.drop = drop;
    }

    /** A NULL key becomes {@code literal} (string-keyed maps only). */
    public static NullMapKeys replaceWith(String literal) {
        return new NullMapKeys(literal.getBytes(StandardCharsets.UTF_8), false);
    }

    boolean drops() {
        return drop;
    }

    /** The replacement key's UTF-8 bytes, or {@code null} when NULL keys are not replaced. */
    byte[] literal() {
        return literal;
    }
}
