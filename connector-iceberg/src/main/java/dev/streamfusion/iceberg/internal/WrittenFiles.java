package dev.streamfusion.iceberg.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.MetricsModes;
import org.apache.iceberg.MetricsUtil;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.BinaryUtil;
import org.apache.iceberg.util.UnicodeUtil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * The data and delete files the native writer describes (JSON), rebuilt field by field as
 * Iceberg Java's {@link DataFile}s and {@link DeleteFile}s for a commit: content (data, position
 * or equality deletes with their equality field ids), path, size, rows, split offsets, column
 * metrics with bounds in Iceberg's single-value binary form, and partition values in the partition
 * type's Java forms.
 */
@Internal
public final class WrittenFiles {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The path and position columns of a position delete file. */
    private static final Set<Integer> POSITION_FIELDS =
            Set.of(MetadataColumns.DELETE_FILE_PATH.fieldId(), MetadataColumns.DELETE_FILE_POS.fieldId());

    /** The data files. */
    public final List<DataFile> data;
    /** The delete files. */
    public final List<DeleteFile> deletes;

    private WrittenFiles(List<DataFile> data, List<DeleteFile> deletes) {
        this.data = data;
        this.deletes = deletes;
    }

    /**
     * The files all of {@code jsons} describe, the metrics of their data and equality delete files
     * as Iceberg Java's writers record them under the table's metrics modes ({@link #underModes});
     * position delete files keep every metric, as Iceberg Java's position delete writer does.
     */
    public static WrittenFiles of(Iterable<String> jsons, PartitionSpec spec, Schema schema, MetricsConfig config) {
        List<DataFile> data = new ArrayList<>();
        List<DeleteFile> deletes = new ArrayList<>();
        for (String json : jsons) {
            WrittenFiles files = of(json, spec, metrics -> underModes(metrics, schema, config));
            data.addAll(files.data);
            deletes.addAll(files.deletes);
        }
        return new WrittenFiles(data, deletes);
    }

    /** The files {@code json} (what {@code NativeIcebergWriter.finish()} returned) describes. */
    public static WrittenFiles of(String json, PartitionSpec spec) {
        return of(json, spec, java.util.function.UnaryOperator.identity());
    }

    /**
     * The files {@code json} describes, the metrics of each data and equality delete file passed
     * through {@code tableMetrics}.
     */
    private static WrittenFiles of(String json, PartitionSpec spec, java.util.function.UnaryOperator<Metrics> tableMetrics) {
        JsonNode files;
        try {
            files = JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("Unreadable description of written data files", e);
        }
        List<DataFile> data = new ArrayList<>(files.size());
        List<DeleteFile> deletes = new ArrayList<>();
        for (JsonNode file : files) {
            JsonNode content = file.get("content");
            String kind = content == null ? "data" : content.asText();
            switch (kind) {
                case "data":
                    data.add(dataFile(file, spec, tableMetrics.apply(metrics(file))));
                    break;
                case "position-deletes":
                    // As Iceberg Java's position delete writer: no counts of the path and position.
                    deletes.add(deleteFile(file, spec, kind, MetricsUtil.copyWithoutFieldCounts(metrics(file), POSITION_FIELDS)));
                    break;
                case "equality-deletes":
                    deletes.add(deleteFile(file, spec, kind, tableMetrics.apply(metrics(file))));
                    break;
                default:
                    throw new IllegalStateException("A written file has the unknown content '" + kind + "'");
            }
        }
        return new WrittenFiles(data, deletes);
    }

    private static DataFile dataFile(JsonNode file, PartitionSpec spec, Metrics metrics) {
        DataFiles.Builder builder = DataFiles.builder(spec)
                .withPath(file.get("path").asText())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(file.get("file-size").asLong())
                .withMetrics(metrics);
        List<Long> offsets = splitOffsets(file);
        if (offsets != null) {
            builder.withSplitOffsets(offsets);
        }
        if (spec.isPartitioned()) {
            builder.withPartition(partition(file.get("partition"), spec));
        }
        return builder.build();
    }

    private static DeleteFile deleteFile(JsonNode file, PartitionSpec spec, String kind, Metrics metrics) {
        FileMetadata.Builder builder = FileMetadata.deleteFileBuilder(spec);
        if (kind.equals("position-deletes")) {
            builder.ofPositionDeletes();
        } else {
            JsonNode ids = file.get("equality-ids");
            int[] equalityIds = new int[ids == null ? 0 : ids.size()];
            for (int i = 0; i < equalityIds.length; i++) {
                equalityIds[i] = ids.get(i).asInt();
            }
            builder.ofEqualityDeletes(equalityIds);
        }
        // The fields a delete file shares with a data file, read once.
        DataFile fields = dataFile(file, spec, metrics);
        builder.withPath(fields.location())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(fields.fileSizeInBytes())
                .withMetrics(metrics);
        if (fields.splitOffsets() != null) {
            builder.withSplitOffsets(fields.splitOffsets());
        }
        if (spec.isPartitioned()) {
            builder.withPartition(fields.partition());
        }
        return builder.build();
    }

    private static Metrics metrics(JsonNode file) {
        return new Metrics(
                file.get("record-count").asLong(),
                longs(file.get("column-sizes")),
                longs(file.get("value-counts")),
                longs(file.get("null-value-counts")),
                longs(file.get("nan-value-counts")),
                bytes(file.get("lower-bounds")),
                bytes(file.get("upper-bounds")));
    }

    /**
     * {@code metrics} (every column's, as the native writer gives them) as Iceberg Java's Parquet
     * writer records them under {@code config} ({@code write.metadata.metrics.*}): nothing for a
     * column in mode {@code none}, counts without bounds in {@code counts}, string and binary bounds
     * cut to the length of {@code truncate(n)} (the upper one rounded up, or left out where it
     * cannot be), everything in {@code full}; only the column size for a field of a list or a map.
     */
    static Metrics underModes(Metrics metrics, Schema schema, MetricsConfig config) {
        Map<Integer, Long> sizes = new HashMap<>();
        Map<Integer, Long> values = new HashMap<>();
        Map<Integer, Long> nulls = new HashMap<>();
        Map<Integer, Long> nans = new HashMap<>();
        Map<Integer, ByteBuffer> lower = new HashMap<>();
        Map<Integer, ByteBuffer> upper = new HashMap<>();
        java.util.Set<Integer> ids = new java.util.TreeSet<>();
        for (Map<Integer, ?> map : java.util.Arrays.asList(metrics.columnSizes(), metrics.valueCounts(),
                metrics.nullValueCounts(), metrics.nanValueCounts(), metrics.lowerBounds(), metrics.upperBounds())) {
            if (map != null) {
                ids.addAll(map.keySet());
            }
        }
        java.util.Set<Integer> repeated = inListsOrMaps(schema);
        for (int id : ids) {
            MetricsModes.MetricsMode mode = MetricsUtil.metricsMode(schema, config, id);
            if (mode == MetricsModes.None.get()) {
                continue;
            }
            // Iceberg Java's Parquet writer records the size of every column, and no other metrics
            // for the fields of lists and maps.
            copy(metrics.columnSizes(), sizes, id);
            if (repeated.contains(id)) {
                continue;
            }
            copy(metrics.valueCounts(), values, id);
            copy(metrics.nullValueCounts(), nulls, id);
            copy(metrics.nanValueCounts(), nans, id);
            if (mode == MetricsModes.Counts.get()) {
                continue;
            }
            ByteBuffer low = metrics.lowerBounds() == null ? null : metrics.lowerBounds().get(id);
            ByteBuffer high = metrics.upperBounds() == null ? null : metrics.upperBounds().get(id);
            Type type = schema.findType(id);
            if (mode instanceof MetricsModes.Truncate && type != null) {
                int length = ((MetricsModes.Truncate) mode).length();
                if (type.typeId() == Type.TypeID.STRING) {
                    low = low == null ? null : text(UnicodeUtil.truncateStringMin(string(low), length));
                    high = high == null ? null : text(UnicodeUtil.truncateStringMax(string(high), length));
                } else if (type.typeId() == Type.TypeID.BINARY) {
                    low = low == null ? null : BinaryUtil.truncateBinaryMin(low, length);
                    high = high == null ? null : BinaryUtil.truncateBinaryMax(high, length);
                }
            }
            if (low != null) {
                lower.put(id, low);
            }
            if (high != null) {
                upper.put(id, high);
            }
        }
        return new Metrics(metrics.recordCount(), sizes, values, nulls, nans, lower, upper);
    }

    /** The ids of the fields of {@code schema} that are, or are inside, a list's or a map's. */
    private static java.util.Set<Integer> inListsOrMaps(Schema schema) {
        java.util.Set<Integer> ids = new java.util.HashSet<>();
        for (Types.NestedField field : org.apache.iceberg.types.TypeUtil.indexById(schema.asStruct()).values()) {
            if (field.type().isListType() || field.type().isMapType()) {
                for (Types.NestedField inner : field.type().asNestedType().fields()) {
                    ids.add(inner.fieldId());
                    if (inner.type().isNestedType()) {
                        ids.addAll(org.apache.iceberg.types.TypeUtil.indexById(
                                Types.StructType.of(inner.type().asNestedType().fields())).keySet());
                    }
                }
            }
        }
        return ids;
    }

    private static <V> void copy(Map<Integer, V> from, Map<Integer, V> to, int id) {
        if (from != null && from.containsKey(id)) {
            to.put(id, from.get(id));
        }
    }

    private static String string(ByteBuffer utf8) {
        return java.nio.charset.StandardCharsets.UTF_8.decode(utf8.duplicate()).toString();
    }

    private static ByteBuffer text(String value) {
        return value == null ? null : ByteBuffer.wrap(value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static List<Long> splitOffsets(JsonNode file) {
        JsonNode offsets = file.get("split-offsets");
        if (offsets == null || !offsets.isArray()) {
            return null;
        }
        List<Long> splitOffsets = new ArrayList<>();
        offsets.forEach(o -> splitOffsets.add(o.asLong()));
        return splitOffsets;
    }

    private static PartitionData partition(JsonNode values, PartitionSpec spec) {
        Types.StructType type = spec.partitionType();
        PartitionData partition = new PartitionData(type);
        List<Types.NestedField> fields = type.fields();
        if (values == null || values.size() != fields.size()) {
            throw new IllegalStateException("A written file's partition has " + (values == null ? 0 : values.size())
                    + " values for " + fields.size() + " partition fields");
        }
        for (int i = 0; i < fields.size(); i++) {
            partition.set(i, value(values.get(i), fields.get(i).type()));
        }
        return partition;
    }

    /** A partition value in the Java form Iceberg keeps for {@code type}. */
    private static Object value(JsonNode value, Type type) {
        if (value == null || value.isNull()) {
            return null;
        }
        switch (type.typeId()) {
            case BOOLEAN:
                return value.asBoolean();
            case INTEGER:
            case DATE:
                return value.asInt();
            case LONG:
            case TIME:
            case TIMESTAMP:
            case TIMESTAMP_NANO:
                return value.asLong();
            case FLOAT:
                return (float) number(value);
            case DOUBLE:
                return number(value);
            case STRING:
                return value.asText();
            case BINARY:
            case FIXED:
                return ByteBuffer.wrap(hex(value.get("hex").asText()));
            case DECIMAL:
                return new BigDecimal(new BigInteger(hex(value.get("hex").asText())), ((Types.DecimalType) type).scale());
            case UUID:
                ByteBuffer uuid = ByteBuffer.wrap(hex(value.get("hex").asText()));
                return new UUID(uuid.getLong(), uuid.getLong());
            default:
                throw new IllegalStateException("Partition values of type " + type + " are not written natively");
        }
    }

    /** A number, or {@code {"non-finite": "NaN" | "Infinity" | "-Infinity"}}. */
    private static double number(JsonNode value) {
        return value.isObject() ? Double.parseDouble(value.get("non-finite").asText()) : value.asDouble();
    }

    private static Map<Integer, Long> longs(JsonNode map) {
        return fields(map, JsonNode::asLong);
    }

    private static Map<Integer, ByteBuffer> bytes(JsonNode map) {
        return fields(map, v -> ByteBuffer.wrap(hex(v.asText())));
    }

    private static <T> Map<Integer, T> fields(JsonNode map, Function<JsonNode, T> value) {
        Map<Integer, T> out = new HashMap<>();
        if (map == null) {
            return out;
        }
        Iterator<Map.Entry<String, JsonNode>> entries = map.fields();
        while (entries.hasNext()) {
            Map.Entry<String, JsonNode> entry = entries.next();
            out.put(Integer.valueOf(entry.getKey()), value.apply(entry.getValue()));
        }
        return out;
    }

    private static byte[] hex(String text) {
        byte[] out = new byte[text.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
