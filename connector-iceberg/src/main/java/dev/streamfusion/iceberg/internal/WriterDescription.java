package dev.streamfusion.iceberg.internal;

import dev.streamfusion.bridge.batch.NativeBatchRouter;

import org.apache.flink.annotation.Internal;

import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where and how the native writer writes a table's data files (JSON, the fields of the Rust
 * crate's {@code WriterDescription}): the table's schema and partition spec, its data location, a
 * file-name prefix unique to the writer, and the table's write properties ({@code
 * write.target-file-size-bytes}, {@code write.parquet.compression-codec} and {@code -level}).
 */
@Internal
public final class WriterDescription implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String schema;
    private final String spec;
    private final int specId;
    private final String dataLocation;
    private final long targetFileSize;
    private final String compression;
    private final Integer compressionLevel;
    private final String filePrefix;
    /**
     * The table's Parquet layout: {@code write.parquet.row-group-size-bytes}, {@code
     * page-size-bytes}, {@code page-row-limit} and {@code dict-size-bytes}, in that order.
     */
    private final long[] layout;
    /** The equality fields' ids of a changelog write, empty for an append-only one. */
    private final int[] equalityIds;
    private final boolean upsert;

    private WriterDescription(
            String schema, String spec, int specId, String dataLocation, long targetFileSize, String compression,
            Integer compressionLevel, String filePrefix, long[] layout, int[] equalityIds, boolean upsert) {
        this.schema = schema;
        this.spec = spec;
        this.specId = specId;
        this.dataLocation = dataLocation;
        this.targetFileSize = targetFileSize;
        this.compression = compression;
        this.compressionLevel = compressionLevel;
        this.filePrefix = filePrefix;
        this.layout = layout;
        this.equalityIds = equalityIds;
        this.upsert = upsert;
    }

    /**
     * iceberg-flink's write options (a Flink table's options, a query's hints, the job's
     * configuration) and the table properties they override.
     */
    private static final Map<String, String> WRITE_OPTIONS = Map.of(
            "write-format", TableProperties.DEFAULT_FILE_FORMAT,
            "target-file-size-bytes", TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
            "compression-codec", TableProperties.PARQUET_COMPRESSION,
            "compression-level", TableProperties.PARQUET_COMPRESSION_LEVEL,
            "upsert-enabled", TableProperties.UPSERT_ENABLED,
            "distribution-mode", TableProperties.WRITE_DISTRIBUTION_MODE);

    /**
     * The table's write properties: its own properties, overridden only by iceberg-flink's write
     * options in {@code writeOptions} ({@code write-format}, {@code target-file-size-bytes},
     * {@code compression-codec}, {@code compression-level}, {@code upsert-enabled}, {@code
     * distribution-mode}). Any other key is not a table property here, even one named like a
     * table property ({@code write.upsert.enabled}, say): iceberg-flink reads those from the table
     * alone.
     */
    public static Map<String, String> writeProperties(Table table, Map<String, String> writeOptions) {
        Map<String, String> props = new HashMap<>(table.properties());
        WRITE_OPTIONS.forEach((option, property) -> {
            String value = writeOptions.get(option);
            if (value != null) {
                props.put(property, value);
            }
        });
        return props;
    }

    /**
     * The description of append-only writes into {@code table} under its properties, overridden
     * by iceberg-flink's write options in {@code writeOptions} (see {@link #writeProperties}).
     *
     * @throws UnsupportedOperationException when the table's write format is not Parquet, or it has
     *     a uuid or VARIANT column
     */
    public static WriterDescription of(Table table, Map<String, String> writeOptions) {
        Map<String, String> props = writeProperties(table, writeOptions);
        String format = props.getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT);
        if (FileFormat.fromString(format) != FileFormat.PARQUET) {
            throw new UnsupportedOperationException("Table " + table.name() + " is written as " + format
                    + " (write.format.default); streamfusion-iceberg writes Parquet only");
        }
        for (Types.NestedField field : TypeUtil.indexById(table.schema().asStruct()).values()) {
            if (field.type().typeId() == Type.TypeID.UUID) {
                // iceberg-rust 0.10.1 writes uuid columns without Parquet's UUID annotation, and
                // Iceberg Java then reads them as bytes, not UUIDs.
                throw new UnsupportedOperationException("Table " + table.name() + " has the uuid column '"
                        + table.schema().findColumnName(field.fieldId())
                        + "', which streamfusion-iceberg does not write natively; write it with the iceberg connector");
            }
            if (field.type().typeId() == Type.TypeID.VARIANT) {
                // iceberg-rust 0.10.1 has no variant type: its writer cannot take the table's schema.
                throw new UnsupportedOperationException("Table " + table.name() + " has the VARIANT column '"
                        + table.schema().findColumnName(field.fieldId())
                        + "', which streamfusion-iceberg does not write natively; write it with the iceberg connector");
            }
        }
        String location = props.getOrDefault(TableProperties.WRITE_DATA_LOCATION, table.location() + "/data");
        String level = props.get(TableProperties.PARQUET_COMPRESSION_LEVEL);
        return new WriterDescription(
                SchemaParser.toJson(table.schema()),
                PartitionSpecParser.toJson(table.spec()),
                table.spec().specId(),
                location.endsWith("/") ? location.substring(0, location.length() - 1) : location,
                PropertyUtil.propertyAsLong(props, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
                        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT),
                props.getOrDefault(TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT)
                        .toLowerCase(Locale.ROOT),
                level == null ? null : Integer.valueOf(level),
                "",
                new long[] {
                    PropertyUtil.propertyAsLong(props, TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
                            TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES_DEFAULT),
                    PropertyUtil.propertyAsLong(props, TableProperties.PARQUET_PAGE_SIZE_BYTES,
                            TableProperties.PARQUET_PAGE_SIZE_BYTES_DEFAULT),
                    PropertyUtil.propertyAsLong(props, TableProperties.PARQUET_PAGE_ROW_LIMIT,
                            TableProperties.PARQUET_PAGE_ROW_LIMIT_DEFAULT),
                    PropertyUtil.propertyAsLong(props, TableProperties.PARQUET_DICT_SIZE_BYTES,
                            TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT),
                },
                new int[0],
                false);
    }

    /** This description, its files named from {@code prefix} on (unique among the table's writers). */
    public WriterDescription withFilePrefix(String prefix) {
        return new WriterDescription(schema, spec, specId, dataLocation, targetFileSize, compression, compressionLevel,
                prefix, layout, equalityIds, upsert);
    }

    /**
     * This description for changelogs: rows deleted by the equality fields {@code equalityIds}
     * (top-level field ids), and, when {@code upsert}, inserted rows replacing their key's row.
     */
    public WriterDescription withChanges(int[] equalityIds, boolean upsert) {
        return new WriterDescription(schema, spec, specId, dataLocation, targetFileSize, compression, compressionLevel,
                filePrefix, layout, equalityIds.clone(), upsert);
    }

    /** Whether changelog rows are written (the table has equality fields). */
    public boolean writesChanges() {
        return equalityIds.length > 0;
    }

    /** The id of the partition spec files are written with. */
    public int specId() {
        return specId;
    }

    /** The key the island's batches are routed to this table's writers by: their partition. */
    public NativeBatchRouter.Keys partitionKeys() {
        return NativeBatchRouter.Keys.icebergPartition(json());
    }

    String json() {
        return "{\"schema\":" + schema
                + ",\"spec\":" + spec
                + ",\"data-location\":" + TaskDescription.quote(dataLocation)
                + ",\"file-prefix\":" + TaskDescription.quote(filePrefix)
                + ",\"target-file-size\":" + targetFileSize
                + ",\"compression\":" + TaskDescription.quote(compression)
                + (compressionLevel == null ? "" : ",\"compression-level\":" + compressionLevel)
                + ",\"row-group-size\":" + layout[0]
                + ",\"page-size\":" + layout[1]
                + ",\"page-row-limit\":" + layout[2]
                + ",\"dict-size\":" + layout[3]
                + ",\"equality-ids\":" + java.util.Arrays.toString(equalityIds)
                + ",\"upsert\":" + upsert
                + "}";
    }
}
