package dev.streamfusion.kafka.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import java.io.Serializable;

/**
 * How a table with a key format reads record keys natively, and where the key's fields go: each
 * produced column comes either from the key's batch or from the value's, at a given column.
 *
 * <p>Rows follow Flink's kafka connector: every value row of a record is paired with every key
 * row of it (a record whose key gives no row, such as a null JSON key, gives no rows), and a
 * column both formats read (`value.fields-include` = ALL) is taken from the value.
 *
 * <p>An upsert table ({@link #upsert}) reads a record with a null value (a tombstone) as a delete
 * of its key, as Flink's upsert-kafka connector does: one DELETE row per key row, the key's
 * columns from the key (also those the value carries too) and every other column NULL.
 */
@Internal
public final class KeyDecoding implements Serializable {

    private static final long serialVersionUID = 1L;

    private final FormatDecoding key;
    private final boolean[] fromKey;
    private final int[] column;
    /** For tombstones of an upsert table: each column's index in the key's batch, or -1; else {@code null}. */
    private final int[] deleteKeyColumn;
    /** How many columns the value's batch has. */
    private final int valueColumns;

    /**
     * @param fromKey per produced physical column, whether it is the key's
     * @param column per produced physical column, its index among its part's decoded columns
     */
    public KeyDecoding(FormatDecoding key, boolean[] fromKey, int[] column) {
        this(key, fromKey, column, null, 0);
    }

    private KeyDecoding(FormatDecoding key, boolean[] fromKey, int[] column, int[] deleteKeyColumn, int valueColumns) {
        this.key = key;
        this.fromKey = fromKey.clone();
        this.column = column.clone();
        this.deleteKeyColumn = deleteKeyColumn == null ? null : deleteKeyColumn.clone();
        this.valueColumns = valueColumns;
    }

    /**
     * An upsert table's key decoding: as {@link #KeyDecoding}, and tombstones read as deletes.
     *
     * @param deleteKeyColumn per produced physical column, its index among the key's decoded
     *     columns if the key carries it, else -1
     * @param valueColumns how many columns the value's batch has
     */
    public static KeyDecoding upsert(
            FormatDecoding key, boolean[] fromKey, int[] column, int[] deleteKeyColumn, int valueColumns) {
        return new KeyDecoding(key, fromKey, column, deleteKeyColumn, valueColumns);
    }

    /** Whether a record with a null value is a delete of its key (an upsert table). */
    boolean upsert() {
        return deleteKeyColumn != null;
    }

    /**
     * The view of a tombstone's DELETE rows: over a key row and {@link #nullValue()}, each column
     * from the key where it carries it, else NULL.
     */
    KeyValueRowData newDeleteRow() {
        boolean[] deleteFromKey = new boolean[column.length];
        int[] deleteColumn = new int[column.length];
        for (int c = 0; c < column.length; c++) {
            deleteFromKey[c] = deleteKeyColumn[c] >= 0;
            deleteColumn[c] = deleteFromKey[c] ? deleteKeyColumn[c] : column[c];
        }
        KeyValueRowData row = new KeyValueRowData(deleteFromKey, deleteColumn);
        row.setRowKind(RowKind.DELETE);
        return row;
    }

    /** A value row of NULLs, which a tombstone's DELETE rows read their other columns from. */
    RowData nullValue() {
        return new GenericRowData(valueColumns);
    }

    FormatDecoding key() {
        return key;
    }

    /** A row view over one key row and one value row, reused for every pair. */
    KeyValueRowData newRow() {
        return new KeyValueRowData(fromKey, column);
    }
}
