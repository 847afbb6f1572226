package dev.streamfusion.fluss.lookup;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;

import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.ExecutionException;

/**
 * {@code 'lookup.async' = 'false'}: a {@link FlussLookupFunction}'s lookups, one key at a time,
 * each waited for before the join goes on.
 */
@Internal
public final class FlussSyncLookupFunction extends LookupFunction {

    private static final long serialVersionUID = 1L;

    private final FlussLookupFunction lookups;

    public FlussSyncLookupFunction(FlussLookupFunction lookups) {
        this.lookups = lookups;
    }

    @Override
    public void open(FunctionContext context) throws Exception {
        super.open(context);
        lookups.open(context);
    }

    @Override
    public Collection<RowData> lookup(RowData keyRow) throws IOException {
        try {
            return lookups.asyncLookup(keyRow).get();
        } catch (ExecutionException e) {
            throw new IOException("Looking up " + keyRow + " in Fluss table " + lookups.table() + " failed: " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted looking up " + keyRow + " in Fluss table " + lookups.table(), e);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            lookups.close();
        } finally {
            super.close();
        }
    }
}
