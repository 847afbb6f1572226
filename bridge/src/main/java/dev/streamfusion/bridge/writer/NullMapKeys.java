package dev.streamfusion.bridge.writer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;

import java.nio.charset.StandardCharsets;

/**
 * What {@link RowDataArrowWriter} does with a NULL map key, which Arrow maps cannot hold:
 * reject the row (the default), drop the entry, write a literal string key instead, or write the
 * key type's default. Formats with a NULL-key rule (JSON's {@code map-null-key.mode}, protobuf's
 * defaults) choose the matching policy.
 */
@Internal
public final class NullMapKeys {

    /** A NULL key is an error naming the column. */
    public static final NullMapKeys REJECT = new NullMapKeys(null, false);

    /** Entries with a NULL key are left out. */
    public static final NullMapKeys DROP = new NullMapKeys(null, true);

    private final byte[] literal;
    private final boolean drop;
    private final boolean typeDefaults;

    private NullMapKeys(byte[] literal, boolean drop) {
        this(literal, drop, false);
    }

    private NullMapKeys(byte[] literal, boolean drop, boolean typeDefaults) {
        this.literal = literal;
        this.drop = drop;
        this.typeDefaults = typeDefaults;
    }

    /** A NULL key becomes {@code literal} (string-keyed maps only). */
    public static NullMapKeys replaceWith(String literal) {
        return new NullMapKeys(literal.getBytes(StandardCharsets.UTF_8), false);
    }

    /**
     * A NULL key becomes {@code stringLiteral} in string-keyed maps, and its type's default
     * ({@code 0}, {@code false}) in maps with integer or boolean keys.
     */
    public static NullMapKeys typeDefaults(String stringLiteral) {
        return new NullMapKeys(stringLiteral.getBytes(StandardCharsets.UTF_8), false, true);
    }

    /**
     * The key written for a NULL key of {@code keyType}, as element 0 of an array, or {@code null}
     * when NULL keys are not replaced.
     *
     * @throws IllegalArgumentException if this policy has no replacement for {@code keyType}
     */
    ArrayData replacementFor(String column, LogicalType keyType) {
        if (literal == null) {
            return null;
        }
        if (keyType.is(LogicalTypeFamily.CHARACTER_STRING)) {
            return new GenericArrayData(new Object[] {StringData.fromBytes(literal)});
        }
        if (typeDefaults) {
            switch (keyType.getTypeRoot()) {
                case BOOLEAN:
                    return new GenericArrayData(new Object[] {false});
                case TINYINT:
                    return new GenericArrayData(new Object[] {(byte) 0});
                case SMALLINT:
                    return new GenericArrayData(new Object[] {(short) 0});
                case INTEGER:
                    return new GenericArrayData(new Object[] {0});
                case BIGINT:
                    return new GenericArrayData(new Object[] {0L});
                default:
                    break;
            }
        }
        throw new IllegalArgumentException(
                "column " + column + ": no replacement for a NULL map key of type " + keyType.asSummaryString());
    }

    boolean drops() {
        return drop;
    }

}
