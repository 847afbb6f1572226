package dev.streamfusion.iceberg.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

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
import java.util.UUID;
import java.util.function.Function;

/**
 * The data files the native writer describes (JSON), rebuilt field by field as Iceberg Java's
 * {@link DataFile}s for a commit: path, size, rows, split offsets, column metrics with bounds in
 * Iceberg's single-value binary form, and partition values in the partition type's Java forms.
 */
@Internal
public final class WrittenFiles {

    private static final ObjectMapper JSON = new ObjectMapper();

    private WrittenFiles() {}

    /** The files {@code json} (what {@code NativeIcebergWriter.finish()} returned) describes. */
    public static List<DataFile> of(String json, PartitionSpec spec) {
        JsonNode files;
        try {
            files = JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("Unreadable description of written data files", e);
        }
        List<DataFile> out = new ArrayList<>(files.size());
        for (JsonNode file : files) {
            out.add(dataFile(file, spec));
        }
        return out;
    }

    private static DataFile dataFile(JsonNode file, PartitionSpec spec) {
        long rows = file.get("record-count").asLong();
        Metrics metrics = new Metrics(
                rows,
                longs(file.get("column-sizes")),
                longs(file.get("value-counts")),
                longs(file.get("null-value-counts")),
                longs(file.get("nan-value-counts")),
                bytes(file.get("lower-bounds")),
                bytes(file.get("upper-bounds")));
        DataFiles.Builder builder = DataFiles.builder(spec)
                .withPath(file.get("path").asText())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(file.get("file-size").asLong())
                .withMetrics(metrics);
        JsonNode offsets = file.get("split-offsets");
        if (offsets != null && offsets.isArray()) {
            List<Long> splitOffsets = new ArrayList<>();
            offsets.forEach(o -> splitOffsets.add(o.asLong()));
            builder.withSplitOffsets(splitOffsets);
        }
        if (spec.isPartitioned()) {
            builder.withPartition(partition(file.get("partition"), spec));
        }
        return builder.build();
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
