package dev.streamfusion.formats;

import dev.streamfusion.bridge.NativeConfigException;
import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.RowDataValues;

import org.apache.flink.formats.avro.AvroFormatOptions.AvroEncoding;
import org.apache.flink.formats.avro.AvroRowDataDeserializationSchema;
import org.apache.flink.formats.avro.AvroRowDataSerializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native Avro format against Flink's {@code avro} format: the same datums decode to the same
 * rows (whole and projected, with both timestamp mappings), Flink reads what the native encoder
 * writes exactly as its own output, and without maps the bytes are identical (Flink writes map
 * entries in {@code HashMap} order).
 */
class AvroFormatParityTest {

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    static RowType avroTypes(boolean legacyTimestamps) {
        List<DataTypes.Field> fields =
                new ArrayList<>(
                        Arrays.asList(
                                FIELD("b", DataTypes.BOOLEAN()),
                                FIELD("ti", DataTypes.TINYINT()),
                                FIELD("si", DataTypes.SMALLINT()),
                                FIELD("i", DataTypes.INT()),
                                FIELD("i_nn", DataTypes.INT().notNull()),
                                FIELD("bi", DataTypes.BIGINT()),
                                FIELD("f", DataTypes.FLOAT()),
                                FIELD("d", DataTypes.DOUBLE()),
                                FIELD("dec_1_0", DataTypes.DECIMAL(1, 0)),
                                FIELD("dec_10_2", DataTypes.DECIMAL(10, 2)),
                                FIELD("dec_38_18", DataTypes.DECIMAL(38, 18)),
                                FIELD("ch", DataTypes.CHAR(5)),
                                FIELD("s", DataTypes.STRING()),
                                FIELD("s_nn", DataTypes.STRING().notNull()),
                                FIELD("bin", DataTypes.BINARY(4)),
                                FIELD("bytes", DataTypes.BYTES()),
                                FIELD("dt", DataTypes.DATE()),
                                FIELD("t0", DataTypes.TIME(0)),
                                FIELD("t3", DataTypes.TIME(3)),
                                FIELD("ts0", DataTypes.TIMESTAMP(0)),
                                FIELD("ts3", DataTypes.TIMESTAMP(3)),
                                FIELD("arr_i", DataTypes.ARRAY(DataTypes.INT())),
                                FIELD("arr_nn", DataTypes.ARRAY(DataTypes.STRING().notNull())),
                                FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.BIGINT())),
                                FIELD("ms", DataTypes.MULTISET(DataTypes.STRING())),
                                FIELD(
                                        "r",
                                        DataTypes.ROW(
                                                FIELD("x", DataTypes.INT()),
                                                FIELD("y", DataTypes.STRING()),
                                                FIELD("z", DataTypes.ROW(FIELD("q", DataTypes.DOUBLE()))))),
                                FIELD(
                                        "deep",
                                        DataTypes.ARRAY(
                                                DataTypes.ROW(
                                                        FIELD("k", DataTypes.STRING()),
                                                        FIELD("v", DataTypes.MAP(DataTypes.STRING(), DataTypes.ARRAY(DataTypes.DECIMAL(10, 2)))))))));
        if (!legacyTimestamps) {
            fields.add(FIELD("ts6", DataTypes.TIMESTAMP(6)));
            fields.add(FIELD("ltz3", DataTypes.TIMESTAMP_LTZ(3)));
        }
        return (RowType) DataTypes.ROW(fields.toArray(new DataTypes.Field[0])).notNull().getLogicalType();
    }

    @Test
    void decodesWhatFlinkDecodesWithEitherTimestampMapping() throws Exception {
        for (boolean legacy : new boolean[] {true, false}) {
            RowType type = avroTypes(legacy);
            List<byte[]> messages = flinkSerialize(type, new RandomRows(legacy ? 31 : 32, 0.2).rows(type, 300), legacy);
            assertSameDecoding(type, type, legacy, messages);
        }
    }

    @Test
    void projectionStepsOverUnreadColumns() throws Exception {
        RowType type = avroTypes(true);
        List<byte[]> messages = flinkSerialize(type, new RandomRows(33, 0.2).rows(type, 200), true);
        assertSameDecoding(type, FormatTestRows.project(type, "deep", "s_nn", "dec_38_18", "ts3"), true, messages);
    }

    @Test
    void flinkReadsNativeOutputAsItReadsItsOwn() throws Exception {
        for (boolean legacy : new boolean[] {true, false}) {
            RowType type = avroTypes(legacy);
            List<RowData> rows = new RandomRows(legacy ? 34 : 35, 0.2).rows(type, 300);
            List<byte[]> nativeBytes = nativeEncode(type, rows, legacy);
            RowDataValues.assertSameRows(
                    flinkDeserialize(type, nativeBytes, legacy),
                    flinkDeserialize(type, flinkSerialize(type, rows, legacy), legacy));
        }
    }

    @Test
    void withoutMapsTheBytesAreFlinks() throws Exception {
        RowType type = withoutMaps(avroTypes(true));
        List<RowData> rows = new RandomRows(36, 0.2).rows(type, 300);
        List<byte[]> expected = flinkSerialize(type, rows, true);
        List<byte[]> actual = nativeEncode(type, rows, true);
        for (int r = 0; r < rows.size(); r++) {
            assertThat(HexFormat.of().formatHex(actual.get(r)))
                    .as("row %d", r)
                    .isEqualTo(HexFormat.of().formatHex(expected.get(r)));
        }
    }

    @Test
    void truncatedDatumIsAnErrorAndUnsupportedTypesAreRejected() throws Exception {
        RowType type = avroTypes(true);
        byte[] good = flinkSerialize(type, new RandomRows(37, 0.0).rows(type, 1), true).get(0);
        byte[] truncated = Arrays.copyOf(good, good.length / 2);
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(arrow.allocator(), "avro", Map.of(), type)) {
            assertThatThrownBy(() -> decoder.decode(List.of(good, truncated)))
                    .isInstanceOf(NativeDecodeException.class)
                    .hasMessageContaining("record 1 of the batch")
                    .hasMessageContaining("unexpected end of the datum");
        }
        RowType ltz = (RowType) DataTypes.ROW(FIELD("t", DataTypes.TIMESTAMP_LTZ(3))).notNull().getLogicalType();
        assertThatThrownBy(() -> NativeFormatDecoder.create(arrow.allocator(), "avro", Map.of(), ltz))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("TIMESTAMP_LTZ");
        RowType intKeys =
                (RowType) DataTypes.ROW(FIELD("m", DataTypes.MAP(DataTypes.INT(), DataTypes.INT()))).notNull().getLogicalType();
        assertThatThrownBy(() -> NativeFormatEncoder.create(arrow.allocator(), "avro", Map.of(), intKeys))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("non-string as key type of map");
    }

    private void assertSameDecoding(RowType physical, RowType produced, boolean legacy, List<byte[]> messages)
            throws Exception {
        List<List<Object>> expected =
                FormatTestRows.project(flinkDeserialize(physical, messages, legacy), physical, produced);
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(arrow.allocator(), "avro", options(legacy), physical, produced)) {
            List<List<Object>> actual = FormatTestRows.rows(decoder.decode(messages), produced);
            RowDataValues.assertSameRows(actual, expected);
        }
    }

    private List<byte[]> nativeEncode(RowType type, List<RowData> rows, boolean legacy) {
        try (NativeFormatEncoder encoder = NativeFormatEncoder.create(arrow.allocator(), "avro", options(legacy), type)) {
            return encoder.encode(rows);
        }
    }

    private static Map<String, String> options(boolean legacy) {
        return Map.of("timestamp_mapping.legacy", Boolean.toString(legacy));
    }

    static List<byte[]> flinkSerialize(RowType type, List<RowData> rows, boolean legacy) throws Exception {
        AvroRowDataSerializationSchema serializer = new AvroRowDataSerializationSchema(type, AvroEncoding.BINARY, legacy);
        serializer.open(null);
        List<byte[]> out = new ArrayList<>();
        for (RowData row : rows) {
            out.add(serializer.serialize(row));
        }
        return out;
    }

    private static List<List<Object>> flinkDeserialize(RowType type, List<byte[]> messages, boolean legacy)
            throws Exception {
        AvroRowDataDeserializationSchema deserializer =
                new AvroRowDataDeserializationSchema(type, InternalTypeInfo.of(type), AvroEncoding.BINARY, legacy);
        deserializer.open(null);
        List<RowData> rows = new ArrayList<>();
        for (byte[] message : messages) {
            rows.add(deserializer.deserialize(message));
        }
        return RowDataValues.ofRows(rows, type);
    }

    private static RowType withoutMaps(RowType type) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (RowType.RowField field : type.getFields()) {
            if (!LogicalTypeChecks.hasNested(
                    field.getType(), t -> t.is(LogicalTypeRoot.MAP) || t.is(LogicalTypeRoot.MULTISET))) {
                fields.add(field);
            }
        }
        return new RowType(false, fields);
    }
}
