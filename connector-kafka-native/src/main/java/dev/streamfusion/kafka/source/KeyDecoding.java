package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;

/**
 * How a table with a key format reads record keys natively, and where the key's fields go: each
 * produced column comes either from the key's batch or from the value's, at a given column.
 *
 * <p>Rows follow Flink's kafka connector: every value row of a record is paired with every key
 * row of it (a record whose key gives no row, such as a null JSON key, gives no rows), and a
 * column both formats read (`value.fields-include` = ALL) is taken from the value.
 */
@Internal
public final class KeyDecoding implements Serializable {

    private static final long serialVersionUID = 1L;

    private final FormatDecoding key;
    private final boolean[] fromKey;
    private final int[] column;

    /**
     * @param fromKey per produced physical column, whether it is the key's
     * @param column per produced physical column, its index among its part's decoded columns
     */
    public KeyDecoding(FormatDecoding key, boolean[] fromKey, int[] column) {
        this.key = key;
        this.fromKey = fromKey.clone();
        this.column = column.clone();
    }

    FormatDecoding key() {
        return key;
    }

    /** A row view over one key row and one value row, reused for every pair. */
    KeyValueRowData newRow() {
        return new KeyValueRowData(fromKey, column);
    }
}
