package dev.streamfusion.iceberg.internal;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;

/** Data files the native writer describes, rebuilt as Iceberg Java's. */
class WrittenFilesTest {

    private static final Schema SCHEMA = new Schema(
            required(1, "id", Types.LongType.get()),
            optional(2, "category", Types.StringType.get()),
            optional(3, "ts", Types.TimestampType.withoutZone()),
            optional(4, "amount", Types.DecimalType.of(10, 2)));

    @Test
    void metricsAndPartitionValuesReadInIcebergJavasForms() {
        PartitionSpec spec = PartitionSpec.builderFor(SCHEMA)
                .identity("category")
                .bucket("id", 4)
                .day("ts")
                .identity("amount")
                .build();
        // -1234.56 unscaled is -123456: 0xfe1dc0 in three bytes of two's complement.
        String json = "[{\"path\":\"file:/w/data/a.parquet\",\"file-size\":1234,\"record-count\":3,\"split-offsets\":[4],"
                + "\"column-sizes\":{\"1\":40},\"value-counts\":{\"1\":3,\"2\":3},\"null-value-counts\":{\"1\":0,\"2\":1},"
                + "\"nan-value-counts\":{},\"lower-bounds\":{\"1\":\"0100000000000000\"},\"upper-bounds\":{\"1\":\"0300000000000000\"},"
                + "\"partition\":[\"c1\",2,19723,{\"hex\":\"fe1dc0\"}]},"
                + "{\"path\":\"file:/w/data/b.parquet\",\"file-size\":99,\"record-count\":1,\"split-offsets\":null,"
                + "\"column-sizes\":{},\"value-counts\":{},\"null-value-counts\":{},\"nan-value-counts\":{},"
                + "\"lower-bounds\":{},\"upper-bounds\":{},\"partition\":[null,0,null,null]}]";
        List<DataFile> files = WrittenFiles.of(json, spec).data;
        assertThat(files).hasSize(2);
        DataFile a = files.get(0);
        assertThat(a.location()).isEqualTo("file:/w/data/a.parquet");
        assertThat(a.fileSizeInBytes()).isEqualTo(1234);
        assertThat(a.recordCount()).isEqualTo(3);
        assertThat(a.splitOffsets()).containsExactly(4L);
        assertThat(a.valueCounts()).isEqualTo(Map.of(1, 3L, 2, 3L));
        assertThat(a.nullValueCounts()).isEqualTo(Map.of(1, 0L, 2, 1L));
        assertThat(a.lowerBounds()).isEqualTo(Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 1L)));
        assertThat(a.upperBounds()).isEqualTo(Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 3L)));
        assertThat(a.partition().get(0, String.class)).isEqualTo("c1");
        assertThat(a.partition().get(1, Integer.class)).isEqualTo(2);
        assertThat(a.partition().get(2, Integer.class)).isEqualTo(19723);
        assertThat(a.partition().get(3, BigDecimal.class)).isEqualTo(new BigDecimal("-1234.56"));
        assertThat(spec.partitionToPath(a.partition())).isEqualTo("category=c1/id_bucket=2/ts_day=2024-01-01/amount=-1234.56");
        DataFile b = files.get(1);
        assertThat(b.splitOffsets()).isNull();
        assertThat(b.partition().get(0, String.class)).isNull();
        assertThat(b.partition().get(3, ByteBuffer.class)).isNull();
    }

    @Test
    void deleteFilesKeepTheirContentAndEqualityFields() {
        PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("category").build();
        String json = "[{\"content\":\"equality-deletes\",\"equality-ids\":[1],\"path\":\"file:/w/data/e.parquet\","
                + "\"file-size\":10,\"record-count\":2,\"split-offsets\":[4],\"column-sizes\":{},\"value-counts\":{},"
                + "\"null-value-counts\":{},\"nan-value-counts\":{},\"lower-bounds\":{},\"upper-bounds\":{},\"partition\":[\"c\"]},"
                + "{\"content\":\"position-deletes\",\"equality-ids\":null,\"path\":\"file:/w/data/p.parquet\","
                + "\"file-size\":11,\"record-count\":3,\"split-offsets\":[4],\"column-sizes\":{\"2147483545\":8},"
                + "\"value-counts\":{\"2147483546\":3,\"2147483545\":3},\"null-value-counts\":{\"2147483546\":0,\"2147483545\":0},"
                + "\"nan-value-counts\":{},\"lower-bounds\":{\"2147483545\":\"0100000000000000\"},"
                + "\"upper-bounds\":{\"2147483545\":\"0900000000000000\"},\"partition\":[\"c\"]},"
                + "{\"content\":\"data\",\"equality-ids\":null,\"path\":\"file:/w/data/d.parquet\","
                + "\"file-size\":12,\"record-count\":5,\"split-offsets\":[4],\"column-sizes\":{},\"value-counts\":{},"
                + "\"null-value-counts\":{},\"nan-value-counts\":{},\"lower-bounds\":{},\"upper-bounds\":{},\"partition\":[\"c\"]}]";
        WrittenFiles files = WrittenFiles.of(json, spec);
        assertThat(files.data).hasSize(1);
        assertThat(files.data.get(0).recordCount()).isEqualTo(5);
        assertThat(files.deletes).hasSize(2);
        DeleteFile equality = files.deletes.get(0);
        assertThat(equality.content()).isEqualTo(FileContent.EQUALITY_DELETES);
        assertThat(equality.equalityFieldIds()).containsExactly(1);
        assertThat(equality.recordCount()).isEqualTo(2);
        assertThat(equality.partition().get(0, String.class)).isEqualTo("c");
        DeleteFile position = files.deletes.get(1);
        assertThat(position.content()).isEqualTo(FileContent.POSITION_DELETES);
        assertThat(position.location()).isEqualTo("file:/w/data/p.parquet");
        assertThat(position.recordCount()).isEqualTo(3);
        // Iceberg Java's position delete writer keeps no counts of the path and the position.
        assertThat(position.valueCounts()).isNull();
        assertThat(position.nullValueCounts()).isNull();
        assertThat(position.columnSizes()).isEqualTo(Map.of(2147483545, 8L));
        assertThat(position.lowerBounds()).containsOnlyKeys(2147483545);
    }

    /**
     * Under the table's metrics modes, the fields of lists and maps keep their column sizes (and
     * nothing else), as Iceberg Java's Parquet writer records them; a field in mode {@code none}
     * keeps nothing.
     */
    @Test
    void fieldsOfListsAndMapsKeepTheirColumnSizesOnly() {
        Schema schema = new Schema(
                required(1, "id", Types.LongType.get()),
                optional(2, "tags", Types.ListType.ofOptional(4, Types.StringType.get())),
                optional(3, "attrs", Types.MapType.ofOptional(5, 6, Types.StringType.get(), Types.IntegerType.get())));
        ByteBuffer low = Conversions.toByteBuffer(Types.LongType.get(), 1L);
        ByteBuffer high = Conversions.toByteBuffer(Types.LongType.get(), 9L);
        Metrics written = new Metrics(
                10L,
                Map.of(1, 80L, 4, 40L, 5, 50L, 6, 60L),
                Map.of(1, 10L, 4, 30L, 5, 20L, 6, 20L),
                Map.of(1, 0L, 4, 2L, 5, 0L, 6, 1L),
                Map.of(),
                Map.of(1, low, 4, low, 5, low, 6, low),
                Map.of(1, high, 4, high, 5, high, 6, high));

        Metrics byDefault = WrittenFiles.underModes(written, schema, MetricsConfig.from(Map.of(), schema, SortOrder.unsorted()));
        assertThat(byDefault.columnSizes()).isEqualTo(Map.of(1, 80L, 4, 40L, 5, 50L, 6, 60L));
        assertThat(byDefault.valueCounts()).isEqualTo(Map.of(1, 10L));
        assertThat(byDefault.nullValueCounts()).isEqualTo(Map.of(1, 0L));
        assertThat(byDefault.lowerBounds()).isEqualTo(Map.of(1, low));
        assertThat(byDefault.upperBounds()).isEqualTo(Map.of(1, high));

        Metrics unmeasured = WrittenFiles.underModes(written, schema, MetricsConfig.from(
                Map.of("write.metadata.metrics.column.attrs.value", "none"), schema, SortOrder.unsorted()));
        assertThat(unmeasured.columnSizes()).isEqualTo(Map.of(1, 80L, 4, 40L, 5, 50L));
    }
}
