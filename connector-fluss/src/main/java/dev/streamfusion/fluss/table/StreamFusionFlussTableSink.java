package dev.streamfusion.fluss.table;

import dev.streamfusion.fluss.internal.FlussTableRef;
import dev.streamfusion.fluss.sink.FlussSink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.types.RowKind;

/**
 * A streamfusion-fluss table written through the Fluss client: a log table takes inserts (and,
 * with {@code sink.ignore-delete}, drops retractions), a primary-key table takes upserts and
 * deletes, as fluss-flink's sink does.
 */
@Internal
final class StreamFusionFlussTableSink implements DynamicTableSink {

    private final FlussTableRef table;
    private final boolean primaryKey;
    private final boolean ignoreDelete;

    StreamFusionFlussTableSink(FlussTableRef table, boolean primaryKey, boolean ignoreDelete) {
        this.table = table;
        this.primaryKey = primaryKey;
        this.ignoreDelete = ignoreDelete;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        if (primaryKey) {
            return ChangelogMode.upsert();
        }
        if (ignoreDelete) {
            ChangelogMode.Builder mode = ChangelogMode.newBuilder();
            requestedMode.getContainedKinds().forEach(mode::addContainedKind);
            return mode.build();
        }
        return ChangelogMode.newBuilder().addContainedKind(RowKind.INSERT).build();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        return SinkV2Provider.of(new FlussSink(table, primaryKey, ignoreDelete));
    }

    @Override
    public DynamicTableSink copy() {
        return new StreamFusionFlussTableSink(table, primaryKey, ignoreDelete);
    }

    @Override
    public String asSummaryString() {
        return "StreamFusionFluss(" + table + ")";
    }
}
