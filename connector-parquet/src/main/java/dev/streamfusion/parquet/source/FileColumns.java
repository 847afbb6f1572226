package dev.streamfusion.parquet.source;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.utils.JoinedRowData;
import org.apache.flink.table.data.utils.ProjectedRowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.table.utils.PartitionPathUtils;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The columns of a produced row that do not come from the file's contents: partition values from
 * the file's directories ({@code k=v}, as Flink's filesystem connector writes them) and metadata of
 * the file. Says which columns are read natively, and assembles each produced row from the
 * natively read row and the file's constants.
 */
@Internal
public final class FileColumns implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The metadata columns a table can declare, as Flink's filesystem connector names them. */
    public enum Metadata {
        PATH("file.path", DataTypes.STRING().notNull()),
        NAME("file.name", DataTypes.STRING().notNull()),
        SIZE("file.size", DataTypes.BIGINT().notNull()),
        MODIFICATION_TIME("file.modification-time", DataTypes.TIMESTAMP_LTZ(3).notNull());

        public final String key;
        public final DataType type;

        Metadata(String key, DataType type) {
            this.key = key;
            this.type = type;
        }

        static Metadata of(String key) {
            for (Metadata m : values()) {
                if (m.key.equals(key)) {
                    return m;
                }
            }
            throw new IllegalArgumentException("Unknown metadata key " + key);
        }

        Object valueOf(RowGroupSplit split) {
            switch (this) {
                case PATH:
                    // As Flink's filesystem connector gives it: the path part of the file's URI.
                    return StringData.fromString(new Path(split.path).getPath());
                case NAME:
                    return StringData.fromString(new Path(split.path).getName());
                case SIZE:
                    return split.fileSize;
                default:
                    return TimestampData.fromEpochMillis(split.modificationTime);
            }
        }
    }

    private final RowType readType;
    /** Per read column: the path of names of the file's column (nested fields decoded alone). */
    private final String[][] readPaths;
    private final String[] partitionColumns;
    private final LogicalType[] partitionTypes;
    private final String defaultPartitionName;
    private final Metadata[] metadata;
    /** Per produced column: its position in the read row joined with the constants. */
    private final int[] positions;

    private FileColumns(
            RowType readType,
            String[][] readPaths,
            String[] partitionColumns,
            LogicalType[] partitionTypes,
            String defaultPartitionName,
            Metadata[] metadata,
            int[] positions) {
        this.readType = readType;
        this.readPaths = readPaths;
        this.partitionColumns = partitionColumns;
        this.partitionTypes = partitionTypes;
        this.defaultPartitionName = defaultPartitionName;
        this.metadata = metadata;
        this.positions = positions;
    }

    /**
     * The layout of rows of {@code produced}: its physical columns first (partition columns among
     * them), then one column per key of {@code metadataKeys}. Physical column {@code i} is the
     * table's column, or nested field, at the path of names {@code physicalPaths[i]}.
     */
    public static FileColumns of(
            RowType produced,
            String[][] physicalPaths,
            List<String> partitionKeys,
            List<String> metadataKeys,
            String defaultPartitionName) {
        int physical = produced.getFieldCount() - metadataKeys.size();
        List<RowType.RowField> read = new ArrayList<>();
        List<String[]> readPaths = new ArrayList<>();
        List<Integer> partitionAt = new ArrayList<>();
        for (int i = 0; i < physical; i++) {
            RowType.RowField field = produced.getFields().get(i);
            String[] path = physicalPaths[i];
            if (path.length == 1 && partitionKeys.contains(path[0])) {
                partitionAt.add(i);
            } else {
                read.add(field);
                readPaths.add(path);
            }
        }
        String[] partitionColumns = new String[partitionAt.size()];
        LogicalType[] partitionTypes = new LogicalType[partitionAt.size()];
        int[] positions = new int[produced.getFieldCount()];
        int readIndex = 0;
        for (int i = 0; i < physical; i++) {
            int p = partitionAt.indexOf(i);
            if (p >= 0) {
                partitionColumns[p] = produced.getFieldNames().get(i);
                partitionTypes[p] = produced.getTypeAt(i);
                positions[i] = read.size() + p;
            } else {
                positions[i] = readIndex++;
            }
        }
        Metadata[] metadata = new Metadata[metadataKeys.size()];
        for (int m = 0; m < metadata.length; m++) {
            metadata[m] = Metadata.of(metadataKeys.get(m));
            positions[physical + m] = read.size() + partitionColumns.length + m;
        }
        return new FileColumns(
                new RowType(false, read),
                readPaths.toArray(new String[0][]),
                partitionColumns,
                partitionTypes,
                defaultPartitionName,
                metadata,
                positions);
    }

    /** The columns read from the file's contents. */
    public RowType readType() {
        return readType;
    }

    /** Per read column, the path of names of the file's column or nested field. */
    public String[][] readPaths() {
        return readPaths;
    }

    /** Whether every produced column is read from the file, in order. */
    public boolean allRead() {
        return partitionColumns.length == 0 && metadata.length == 0;
    }

    /** The file's values of the columns not read from its contents. */
    GenericRowData constants(RowGroupSplit split) {
        GenericRowData row = new GenericRowData(partitionColumns.length + metadata.length);
        if (partitionColumns.length > 0) {
            LinkedHashMap<String, String> spec = PartitionPathUtils.extractPartitionSpecFromPath(new Path(split.path));
            for (int p = 0; p < partitionColumns.length; p++) {
                row.setField(p, partitionValue(spec, partitionColumns[p], partitionTypes[p]));
            }
        }
        for (int m = 0; m < metadata.length; m++) {
            row.setField(partitionColumns.length + m, metadata[m].valueOf(split));
        }
        return row;
    }

    private Object partitionValue(Map<String, String> spec, String column, LogicalType type) {
        String value = spec.get(column);
        if (value == null || value.equals(defaultPartitionName)) {
            return null;
        }
        return PartitionPathUtils.convertStringToInternalValue(value, TypeConversions.fromLogicalToDataType(type));
    }

    /** Assembles produced rows of one reader; reuses one row, as the reader's views do. */
    final class Assembler {
        private final JoinedRowData joined = new JoinedRowData();
        private final ProjectedRowData projected = ProjectedRowData.from(positions);

        RowData assemble(RowData read, RowData constants) {
            return projected.replaceRow(joined.replace(read, constants));
        }
    }
}
