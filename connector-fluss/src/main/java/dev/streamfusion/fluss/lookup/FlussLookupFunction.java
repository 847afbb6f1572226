package dev.streamfusion.fluss.lookup;

import dev.streamfusion.fluss.internal.FlinkRowAsFluss;
import dev.streamfusion.fluss.internal.FlussRowCopier;
import dev.streamfusion.fluss.internal.FlussTableRef;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.AsyncLookupFunction;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.lookup.Lookup;
import org.apache.fluss.client.lookup.Lookuper;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.row.InternalRow;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Looks a Fluss primary-key table's rows up by their primary key, or by a prefix of it (the bucket
 * key, with the partition keys: every row under it), asynchronously, through the Fluss client's
 * lookuper (which batches the keys of concurrent lookups into one request per bucket). The lookup
 * key arrives in the join's order and is put in the lookup columns' order; each row found is copied
 * out of the client's row and projected to the columns the query reads. Caching, where asked for,
 * is Flink's, around this function.
 */
@Internal
public final class FlussLookupFunction extends AsyncLookupFunction {

    private static final long serialVersionUID = 1L;

    private final FlussTableRef table;
    private final RowType tableType;
    private final RowType keyType;
    /** For each primary key column (in the key's order), its position in the lookup key row. */
    private final int[] keyOrder;
    /** The table columns the produced rows hold, in their order. */
    private final int[] projection;
    /** The columns of a prefix lookup, in the key's order; {@code null} for the primary key. */
    private final List<String> prefix;
    /** Whether a primary-key lookup that finds nothing inserts the key (its other columns NULL). */
    private final boolean insertIfNotExists;

    private transient Connection connection;
    private transient Table opened;
    private transient Lookuper lookuper;
    private transient RowData.FieldGetter[] keyGetters;
    /** The join key's columns beyond the lookup's: positions in the key row, and in the rows produced. */
    private final int[] remainingKeys;
    private final int[] remainingFields;
    private transient RowData.FieldGetter[] remainingKeyGetters;
    private transient RowData.FieldGetter[] remainingFieldGetters;
    /**
     * Copies the projected columns of each row found out of the client's memory: one copier per
     * thread, as the client completes lookups on its network threads at once and a copier
     * reuses its view and serializers.
     */
    private transient ThreadLocal<FlussRowCopier> copiers;

    /**
     * @param keyType the lookup columns (the primary key's, or {@code prefix}), in the key's order
     * @param keyOrder for each of them, its position in the join's lookup key row
     * @param projection the table columns of the rows produced
     * @param prefix the columns of a prefix lookup (the bucket key, then the partition keys), or
     *     {@code null} for the primary key
     * @param insertIfNotExists whether a primary-key lookup that finds no row inserts one holding
     *     the key, and gives it
     * @param remainingKeys positions in the join's key row of columns the lookup is not by (the
     *     rows found are kept where each equals the row's column at the same index of {@code
     *     remainingFields}, positions in the rows produced), as fluss-flink filters them
     */
    public FlussLookupFunction(
            FlussTableRef table, RowType tableType, RowType keyType, int[] keyOrder, int[] projection, List<String> prefix,
            boolean insertIfNotExists, int[] remainingKeys, int[] remainingFields) {
        if (remainingKeys.length != remainingFields.length || (remainingKeys.length > 0 && insertIfNotExists)) {
            throw new IllegalArgumentException("remaining key columns " + Arrays.toString(remainingKeys) + " and fields "
                    + Arrays.toString(remainingFields) + (insertIfNotExists ? ", inserting rows" : ""));
        }
        this.remainingKeys = remainingKeys.clone();
        this.remainingFields = remainingFields.clone();
        if (prefix != null && insertIfNotExists) {
            throw new IllegalArgumentException("a lookup by a prefix of the primary key cannot insert rows");
        }
        this.insertIfNotExists = insertIfNotExists;
        this.prefix = prefix == null ? null : List.copyOf(prefix);
        this.table = table;
        this.tableType = tableType;
        this.keyType = keyType;
        this.keyOrder = keyOrder.clone();
        this.projection = projection.clone();
    }

    @Override
    public void open(FunctionContext context) throws Exception {
        super.open(context);
        connection = table.connect();
        opened = connection.getTable(table.path());
        Lookup lookup = opened.newLookup();
        if (prefix != null) {
            lookup = lookup.lookupBy(prefix);
        } else if (insertIfNotExists) {
            lookup = lookup.enableInsertIfNotExists();
        }
        lookuper = lookup.createLookuper();
        copiers = ThreadLocal.withInitial(() -> new FlussRowCopier(tableType, projection));
        keyGetters = new RowData.FieldGetter[keyOrder.length];
        for (int i = 0; i < keyOrder.length; i++) {
            keyGetters[i] = RowData.createFieldGetter(keyType.getTypeAt(i), keyOrder[i]);
        }
        remainingKeyGetters = new RowData.FieldGetter[remainingKeys.length];
        remainingFieldGetters = new RowData.FieldGetter[remainingKeys.length];
        for (int i = 0; i < remainingKeys.length; i++) {
            LogicalType type = tableType.getTypeAt(projection[remainingFields[i]]);
            remainingKeyGetters[i] = RowData.createFieldGetter(type, remainingKeys[i]);
            remainingFieldGetters[i] = RowData.createFieldGetter(type, remainingFields[i]);
        }
    }

    /** Whether {@code row} holds the join key's values of the columns the lookup is not by (NULL equals nothing). */
    private boolean matchesRemaining(RowData joinKey, RowData row) {
        for (int i = 0; i < remainingKeys.length; i++) {
            Object key = remainingKeyGetters[i].getFieldOrNull(joinKey);
            Object value = remainingFieldGetters[i].getFieldOrNull(row);
            if (key == null || value == null || !(key instanceof byte[] ? Arrays.equals((byte[]) key, (byte[]) value)
                    : key.equals(value))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public CompletableFuture<Collection<RowData>> asyncLookup(RowData joinKey) {
        GenericRowData key = new GenericRowData(keyGetters.length);
        for (int i = 0; i < keyGetters.length; i++) {
            key.setField(i, keyGetters[i].getFieldOrNull(joinKey));
        }
        return lookuper.lookup(new FlinkRowAsFluss().wrap(key)).thenApply(result -> {
            List<InternalRow> found = result.getRowList();
            List<RowData> produced = new ArrayList<>(found.size());
            FlussRowCopier copier = copiers.get();
            for (InternalRow row : found) {
                if (row != null) {
                    RowData copy = copier.copy(row);
                    if (matchesRemaining(joinKey, copy)) {
                        produced.add(copy);
                    }
                }
            }
            return produced;
        });
    }

    public FlussTableRef table() {
        return table;
    }

    // The resources are only closed, never used, in the try.
    @SuppressWarnings("try")
    @Override
    public void close() throws Exception {
        try (AutoCloseable c = connection; AutoCloseable t = opened) {
            // Closed in reverse order: the table, then the connection.
        } finally {
            super.close();
        }
    }
}
