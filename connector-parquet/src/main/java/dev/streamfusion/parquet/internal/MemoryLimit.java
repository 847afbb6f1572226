package dev.streamfusion.parquet.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;

import java.io.IOException;
import java.io.Serializable;

/**
 * A bound on the memory one subtask's Parquet readers or writers hold outside the Java heap:
 * native buffers (row groups being encoded, column chunks being decoded) and Arrow batches. Set by
 * {@code streamfusion.memory-limit} (a table of connector {@code streamfusion-parquet}) or {@code
 * streamfusion-parquet.memory-limit} (format {@code streamfusion-parquet}); unset, nothing is
 * bounded but what the files and {@code parquet.block.size} bound.
 */
@Internal
public final class MemoryLimit implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The option of a {@code streamfusion-parquet} table. */
    public static final String TABLE_OPTION = "streamfusion.memory-limit";

    /** The option of format {@code streamfusion-parquet}, without the format's prefix. */
    public static final String FORMAT_OPTION = "memory-limit";

    /** No bound. */
    public static final MemoryLimit NONE = new MemoryLimit(Long.MAX_VALUE);

    private final long bytes;

    private MemoryLimit(long bytes) {
        this.bytes = bytes;
    }

    /**
     * The bound {@code option} sets in {@code options}, or none when it is not set.
     *
     * @throws ValidationException naming {@code table} and the option when it is malformed or 0
     */
    public static MemoryLimit of(ReadableConfig options, ConfigOption<MemorySize> option, String table) {
        MemorySize size;
        try {
            size = options.getOptional(option).orElse(null);
        } catch (IllegalArgumentException e) {
            throw new ValidationException("Invalid option of table " + table + ": " + e.getMessage(), e);
        }
        if (size == null) {
            return NONE;
        }
        if (size.getBytes() <= 0) {
            throw new ValidationException(
                    "Invalid option of table " + table + ": '" + option.key() + "' = '" + size + "' must be more than 0 bytes");
        }
        return new MemoryLimit(size.getBytes());
    }

    /** Whether there is a bound. */
    public boolean bounded() {
        return bytes != Long.MAX_VALUE;
    }

    /** Whether {@code held} bytes are more than the bound. */
    public boolean exceededBy(long held) {
        return held > bytes;
    }

    /**
     * Fails naming the option when {@code held} bytes are more than the bound.
     *
     * @param holder who holds them, as an error names it ("the Parquet reader of file f")
     * @param remedy what the user may change besides the bound
     */
    public void check(long held, String holder, String remedy) throws IOException {
        if (exceededBy(held)) {
            throw new IOException(
                    holder + " holds " + held + " bytes outside the Java heap, more than '" + TABLE_OPTION
                            + "' (format option 'streamfusion-parquet." + FORMAT_OPTION + "') = "
                            + new MemorySize(bytes).toHumanReadableString() + " allows: raise it, or " + remedy);
        }
    }
}
