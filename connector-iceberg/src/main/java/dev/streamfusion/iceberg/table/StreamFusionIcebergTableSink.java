package dev.streamfusion.iceberg.table;

import dev.streamfusion.bridge.batch.ArrowBatch;
import dev.streamfusion.bridge.batch.BatchSinkTarget;
import dev.streamfusion.iceberg.internal.IcebergTableRef;
import dev.streamfusion.iceberg.internal.WriterDescription;
import dev.streamfusion.iceberg.sink.Distribution;
import dev.streamfusion.iceberg.sink.IcebergSink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A streamfusion-iceberg table written: rows become Parquet data files written natively, and
 * Iceberg Java commits them when checkpoints complete (at the end of the input, bounded), exactly
 * once. As iceberg-flink's sink: a table with equality fields (the Flink table's primary key, or
 * else the Iceberg table's identifier fields) takes changelogs, deleted rows written as delete
 * files, and with {@code upsert-enabled} every inserted row replaces its key's row; rows reach the
 * writers by the hash of their equality fields, or of their partition under {@code
 * distribution-mode} {@code hash}; {@code INSERT OVERWRITE} replaces the partitions written, and
 * so does any write with {@code overwrite-enabled} {@code true} ({@code false} makes an {@code
 * INSERT OVERWRITE} append). A table of format version 3 or later with equality fields is refused:
 * its position deletes must be deletion vectors, which are not written.
 */
@Internal
final class StreamFusionIcebergTableSink
        implements DynamicTableSink, SupportsOverwrite, SupportsPartitioning, BatchSinkTarget {

    private final IcebergTableRef table;
    private final RowType rowType;
    /**
     * The table's options and the query's hints, with the job's configuration for the write
     * options iceberg-flink reads from it ({@link IcebergOptions#writeOptions}).
     */
    private final Map<String, String> options;
    /** The table's equality field names (the primary key, else the identifier fields). */
    private final List<String> equalityColumns;
    /** Whether the statement is an {@code INSERT OVERWRITE}. */
    private boolean overwrite;
    /** The topology {@link #batchesUnsupported} planned and accepted, so the table is loaded once. */
    private IcebergSink batchSink;

    private StreamFusionIcebergTableSink(
            IcebergTableRef table, RowType rowType, Map<String, String> options, List<String> equalityColumns) {
        this.table = table;
        this.rowType = rowType;
        this.options = options;
        this.equalityColumns = equalityColumns;
    }

    /**
     * The sink of {@code table}, whose Flink table has the primary key {@code primaryKey} (empty
     * for none) and whose Iceberg table has the schema {@code schema}.
     */
    static StreamFusionIcebergTableSink of(
            IcebergTableRef table, RowType rowType, Map<String, String> options, List<String> primaryKey, Schema schema) {
        List<String> equalityColumns = new ArrayList<>(primaryKey);
        if (equalityColumns.isEmpty()) {
            schema.identifierFieldIds().forEach(id -> equalityColumns.add(schema.findColumnName(id)));
        }
        return new StreamFusionIcebergTableSink(table, rowType, options, equalityColumns);
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        if (equalityColumns.isEmpty()) {
            return ChangelogMode.insertOnly();
        }
        ChangelogMode.Builder mode = ChangelogMode.newBuilder();
        for (RowKind kind : requestedMode.getContainedKinds()) {
            mode.addContainedKind(kind);
        }
        return mode.build();
    }

    @Override
    public void applyOverwrite(boolean overwrite) {
        this.overwrite = overwrite;
    }

    @Override
    public void applyStaticPartition(Map<String, String> partition) {
        // The planner puts a static partition's values into the rows, which the writers partition.
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        IcebergSink sink = plan(context.isBounded());
        return (DataStreamSinkProvider) (providerContext, rows) -> sink.consume(rows, providerContext::generateUid);
    }

    @Override
    public Optional<String> batchesUnsupported(RowType input, boolean streaming) {
        IcebergSink sink;
        try {
            sink = plan(!streaming);
        } catch (ValidationException e) {
            // The row path raises it, as it would without the island.
            return Optional.of(e.getMessage());
        }
        Optional<String> reason = sink.batchesUnsupported();
        if (reason.isEmpty()) {
            reason = BatchSinkTarget.columnsDiffer(input, rowType);
        }
        batchSink = reason.isEmpty() ? sink : null;
        return reason;
    }

    @Override
    public DataStreamSink<?> consumeBatches(DataStream<ArrowBatch> batches) {
        // The topology batchesUnsupported accepted (planned again only for a copy of this sink).
        return (batchSink != null ? batchSink : plan(true)).consumeBatches(batches);
    }

    /** The writing topology, from the table as the catalog has it now. */
    private IcebergSink plan(boolean bounded) {
        try {
            return table.withTable(loaded -> plan(loaded, bounded));
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            throw new ValidationException("Table " + table + ": " + e.getMessage(), e);
        }
    }

    /** The writing topology for {@code loaded}, refused when the table cannot be written as asked. */
    private IcebergSink plan(Table loaded, boolean bounded) {
        // Batches reach the writer by position: the Flink table's columns must be the Iceberg
        // table's, in its order.
        List<String> icebergColumns = new ArrayList<>();
        loaded.schema().columns().forEach(c -> icebergColumns.add(c.name()));
        if (!icebergColumns.equals(rowType.getFieldNames())) {
            throw new IllegalArgumentException("the Iceberg table has the columns " + icebergColumns
                    + ", and the Flink table writes " + rowType.getFieldNames()
                    + "; declare the Iceberg table's columns, in its order");
        }
        Map<String, String> props = WriterDescription.writeProperties(loaded, options);
        boolean upsert = PropertyUtil.propertyAsBoolean(props, TableProperties.UPSERT_ENABLED, TableProperties.UPSERT_ENABLED_DEFAULT);
        boolean replacing = replacesPartitions();
        // As iceberg-flink's sink: the statement's INSERT OVERWRITE, not 'overwrite-enabled', needs a
        // bounded input; with the option, an unbounded write replaces partitions at every commit.
        if (overwrite && !bounded) {
            throw new IllegalArgumentException("INSERT OVERWRITE needs a bounded input (batch execution)");
        }
        if (upsert && equalityColumns.isEmpty()) {
            throw new IllegalArgumentException("'upsert-enabled' needs equality fields: declare a PRIMARY KEY");
        }
        if (upsert && replacing) {
            throw new IllegalArgumentException("an overwrite (INSERT OVERWRITE, or 'overwrite-enabled' = 'true') "
                    + "cannot be combined with 'upsert-enabled'");
        }
        int[] equalityIds = equalityIds(loaded.schema());
        int formatVersion = TableUtil.formatVersion(loaded);
        if (equalityIds.length > 0 && formatVersion > 2) {
            // Iceberg refuses position delete files in a table of format version 3 at commit: its
            // position deletes are deletion vectors (Puffin), which the native writer does not
            // write. A table with equality fields takes changelogs and upserts, written with
            // position deletes, so it is refused before any file is written.
            throw new UnsupportedOperationException("the Iceberg table has format version " + formatVersion
                    + " and the equality fields " + equalityColumns + ": a write with equality fields (changelogs, "
                    + "upserts) may delete rows by position, and a table of format version " + formatVersion
                    + " takes position deletes only as deletion vectors, which streamfusion-iceberg does not write; "
                    + "write it with the iceberg connector, or into a table of format version 2");
        }
        if (upsert) {
            for (PartitionField field : loaded.spec().fields()) {
                if (!contains(equalityIds, field.sourceId())) {
                    throw new IllegalArgumentException("with 'upsert-enabled', the source column '"
                            + loaded.schema().findColumnName(field.sourceId()) + "' of the partition field '" + field.name()
                            + "' must be one of the equality fields " + equalityColumns);
                }
            }
        }
        WriterDescription description = WriterDescription.of(loaded, options);
        // Types as iceberg-flink checks them: the Flink table's may be the Iceberg table's or
        // promote to them (INT to BIGINT, FLOAT to DOUBLE, a DECIMAL to one of more digits at the
        // same scale); a nullable column cannot fill a required one. Anything else (another
        // DECIMAL scale, a timestamp's zone, a struct's other fields) would be cast or dropped.
        TypeUtil.validateWriteSchema(
                loaded.schema(), TypeUtil.reassignIds(IcebergTypes.toSchema(rowType, List.of()), loaded.schema()), true, true);
        // A table of format version 1 has no delete files: written append-only, its writers refuse
        // a changelog's retractions.
        boolean changes = equalityIds.length > 0 && formatVersion >= 2;
        if (upsert && !changes) {
            throw new IllegalArgumentException("'upsert-enabled' needs row-level deletes, which a table of format version 1 has not");
        }
        if (changes) {
            description = description.withChanges(equalityIds, upsert);
        }
        String branch = options.get(IcebergOptions.BRANCH.key());
        String parallelism = options.get(IcebergOptions.WRITE_PARALLELISM.key());
        return new IcebergSink(table, description, rowType, branch, distribution(loaded, props, equalityIds),
                parallelism == null ? null : Integer.valueOf(parallelism), replacing);
    }

    /**
     * Whether the write replaces the partitions it writes: {@code overwrite-enabled} (a table
     * option or a hint) where it is set, else whether the statement is an {@code INSERT
     * OVERWRITE}. iceberg-flink's sink takes the statement's, then lets its write options (the
     * table's options and hints) replace it.
     */
    private boolean replacesPartitions() {
        String option = options.get(IcebergOptions.OVERWRITE_ENABLED.key());
        return option == null ? overwrite : Boolean.parseBoolean(option);
    }

    /** The equality fields' ids, each a top-level column of a type deletes can compare. */
    private int[] equalityIds(Schema schema) {
        int[] ids = new int[equalityColumns.size()];
        for (int i = 0; i < ids.length; i++) {
            String name = equalityColumns.get(i);
            Types.NestedField field = schema.findField(name);
            if (field == null || !schema.columns().contains(field)) {
                throw new IllegalArgumentException("the equality field '" + name + "' is not a top-level column of the Iceberg table");
            }
            Type type = field.type();
            if (!type.isPrimitiveType() || type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE) {
                throw new IllegalArgumentException("the equality field '" + name + "' is of type " + type
                        + "; equality fields are primitive and not floating-point");
            }
            ids[i] = field.fieldId();
        }
        return ids;
    }

    /** How rows reach the writers, as iceberg-flink distributes them; {@code null} to keep the input's. */
    private Distribution distribution(Table loaded, Map<String, String> props, int[] equalityIds) {
        String name = props.getOrDefault(TableProperties.WRITE_DISTRIBUTION_MODE, TableProperties.WRITE_DISTRIBUTION_MODE_NONE);
        DistributionMode mode;
        try {
            mode = DistributionMode.fromName(name.toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'distribution-mode' '" + name + "' is not one of none, hash, range", e);
        }
        int[] keyColumns = new int[equalityIds.length];
        for (int i = 0; i < equalityIds.length; i++) {
            keyColumns[i] = rowType.getFieldNames().indexOf(loaded.schema().findColumnName(equalityIds[i]));
        }
        switch (mode) {
            case NONE:
                return equalityIds.length == 0 ? null : Distribution.byColumns(rowType, keyColumns);
            case HASH:
                if (loaded.spec().isUnpartitioned()) {
                    return equalityIds.length == 0 ? null : Distribution.byColumns(rowType, keyColumns);
                }
                for (PartitionField field : loaded.spec().fields()) {
                    if (equalityIds.length > 0 && !contains(equalityIds, field.sourceId())) {
                        throw new IllegalArgumentException("with 'distribution-mode' hash and equality fields " + equalityColumns
                                + ", the source column '" + loaded.schema().findColumnName(field.sourceId())
                                + "' of the partition field '" + field.name() + "' must be an equality field");
                    }
                }
                return Distribution.byPartition(rowType, loaded.schema(), loaded.spec());
            default:
                throw new UnsupportedOperationException("'distribution-mode' " + name
                        + " is not supported by streamfusion-iceberg; use none or hash");
        }
    }

    private static boolean contains(int[] ids, int id) {
        for (int each : ids) {
            if (each == id) {
                return true;
            }
        }
        return false;
    }

    @Override
    public DynamicTableSink copy() {
        StreamFusionIcebergTableSink copy = new StreamFusionIcebergTableSink(table, rowType, options, equalityColumns);
        copy.overwrite = overwrite;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "StreamFusionIceberg(" + table + ")";
    }
}
