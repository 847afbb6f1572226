package dev.streamfusion.formats;

import dev.streamfusion.bridge.NativeConfigException;
import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.RowDataValues;
import dev.streamfusion.bridge.writer.RowDataArrowWriter;

import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native JSON encoder against Flink's own: what it writes is read back by Flink's JSON
 * deserializer exactly as Flink's own output is, and (for every type but FLOAT and DOUBLE, whose
 * digits Java 17 prints differently) it is byte-identical to Flink's serializer.
 */
class JsonEncoderParityTest {

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    @Test
    void flinkReadsNativeOutputAsItReadsItsOwn() throws Exception {
        RowType type = JsonFormatParityTest.jsonTypes();
        List<RowData> rows = new RandomRows(21, 0.2).rows(type, 300);
        for (TimestampFormat timestamps : TimestampFormat.values()) {
            Map<String, String> options =
                    Map.of("timestamp-format.standard", timestamps == TimestampFormat.SQL ? "SQL" : "ISO-8601");
            List<byte[]> flinkBytes = flinkSerialize(type, rows, timestamps, false, false);
            List<byte[]> nativeBytes = nativeEncode(type, rows, options);
            RowDataValues.assertSameRows(
                    flinkDeserialize(type, nativeBytes, timestamps),
                    flinkDeserialize(type, flinkBytes, timestamps));
        }
    }

    @Test
    void bytesAreIdenticalToFlinksForEveryOptionCombination() throws Exception {
        RowType type = withoutFloatingPoint(JsonFormatParityTest.jsonTypes());
        List<RowData> rows = new RandomRows(22, 0.25).rows(type, 300);
        for (boolean plainDecimals : new boolean[] {false, true}) {
            for (boolean ignoreNulls : new boolean[] {false, true}) {
                Map<String, String> options =
                        Map.of(
                                "encode.decimal-as-plain-number", Boolean.toString(plainDecimals),
                                "encode.ignore-null-fields", Boolean.toString(ignoreNulls),
                                "timestamp-format.standard", "ISO-8601");
                List<byte[]> expected =
                        flinkSerialize(type, rows, TimestampFormat.ISO_8601, plainDecimals, ignoreNulls);
                List<byte[]> actual = nativeEncode(type, rows, options);
                for (int r = 0; r < rows.size(); r++) {
                    assertThat(new String(actual.get(r), StandardCharsets.UTF_8))
                            .as("row %d, plain decimals %s, ignore nulls %s", r, plainDecimals, ignoreNulls)
                            .isEqualTo(new String(expected.get(r), StandardCharsets.UTF_8));
                }
            }
        }
    }

    @Test
    void escapesAndNumberFormsMatchFlink() throws Exception {
        RowType type =
                (RowType)
                        DataTypes.ROW(
                                        FIELD("s", DataTypes.STRING()),
                                        FIELD("d", DataTypes.DECIMAL(10, 2)),
                                        FIELD("x", DataTypes.DOUBLE()),
                                        FIELD("f", DataTypes.FLOAT()))
                                .notNull()
                                .getLogicalType();
        List<RowData> rows =
                List.of(
                        GenericRowData.of(
                                StringData.fromString("\"q\" \\ \u0001 \n \u00e9 \ud83d\ude00 / \u007f"),
                                org.apache.flink.table.data.DecimalData.fromBigDecimal(new java.math.BigDecimal("100.00"), 10, 2),
                                Double.NaN,
                                Float.NEGATIVE_INFINITY),
                        GenericRowData.of(
                                StringData.fromString(""),
                                org.apache.flink.table.data.DecimalData.fromBigDecimal(new java.math.BigDecimal("-0.10"), 10, 2),
                                1.0E7,
                                0.001f));
        List<byte[]> expected = flinkSerialize(type, rows, TimestampFormat.SQL, false, false);
        List<byte[]> actual = nativeEncode(type, rows, Map.of());
        for (int r = 0; r < rows.size(); r++) {
            assertThat(new String(actual.get(r), StandardCharsets.UTF_8))
                    .isEqualTo(new String(expected.get(r), StandardCharsets.UTF_8));
        }
    }

    /**
     * Floats and doubles with few binary fraction digits, whose exact value is often halfway
     * between the two shortest decimals that read back as it (1739.03125f: 1739.0312 and
     * 1739.0313): Java prints the one ending in an even digit, on every Java version since 17,
     * and so does the native encoder.
     */
    @Test
    void shortestDigitsTieAsJavaBreaksTheTie() throws Exception {
        RowType type =
                (RowType)
                        DataTypes.ROW(FIELD("f", DataTypes.FLOAT()), FIELD("x", DataTypes.DOUBLE()))
                                .notNull()
                                .getLogicalType();
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            float f = (float) (random.nextInt(1 << 24) - (1 << 23)) / (1 << random.nextInt(1, 12));
            double x = (double) (random.nextLong(1L << 53) - (1L << 52)) / (1L << random.nextInt(1, 20));
            rows.add(GenericRowData.of(f, x));
        }
        List<byte[]> expected = flinkSerialize(type, rows, TimestampFormat.SQL, false, false);
        List<byte[]> actual = nativeEncode(type, rows, Map.of());
        int ties = 0;
        for (int r = 0; r < rows.size(); r++) {
            assertThat(new String(actual.get(r), StandardCharsets.UTF_8))
                    .isEqualTo(new String(expected.get(r), StandardCharsets.UTF_8));
            String f = Float.toString(rows.get(r).getFloat(0));
            // A tie broken downwards: the last digit is even and one more digit would have been 5.
            java.math.BigDecimal exact = new java.math.BigDecimal(rows.get(r).getFloat(0));
            if (exact.precision() == new java.math.BigDecimal(f).precision() + 1
                    && exact.unscaledValue().mod(java.math.BigInteger.TEN).intValue() == 5) {
                ties++;
            }
        }
        assertThat(ties).as("rows whose float is a tie").isGreaterThan(100);
    }

    @Test
    void nullMapKeysFollowMapNullKeyMode() throws Exception {
        RowType type =
                (RowType)
                        DataTypes.ROW(FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())))
                                .notNull()
                                .getLogicalType();
        java.util.Map<Object, Object> map = new java.util.LinkedHashMap<>();
        map.put(StringData.fromString("a"), 1);
        map.put(null, 2);
        List<RowData> rows = List.of(GenericRowData.of(new org.apache.flink.table.data.GenericMapData(map)));
        for (JsonFormatOptions.MapNullKeyMode mode :
                new JsonFormatOptions.MapNullKeyMode[] {
                    JsonFormatOptions.MapNullKeyMode.DROP, JsonFormatOptions.MapNullKeyMode.LITERAL
                }) {
            JsonRowDataSerializationSchema flink =
                    new JsonRowDataSerializationSchema(type, TimestampFormat.SQL, mode, "N/A", false, false);
            flink.open(null);
            byte[] expected = flink.serialize(rows.get(0));
            List<byte[]> actual =
                    nativeEncode(type, rows, Map.of("map-null-key.mode", mode.name(), "map-null-key.literal", "N/A"));
            assertThat(new String(actual.get(0), StandardCharsets.UTF_8))
                    .as(mode.name())
                    .isEqualTo(new String(expected, StandardCharsets.UTF_8));
        }
        assertThatThrownBy(() -> nativeEncode(type, rows, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("column m: a MAP key is NULL");
    }

    @Test
    void aBatchOfAnotherRowTypeIsRefusedBeforeItCrosses() {
        RowType type = (RowType) DataTypes.ROW(FIELD("a", DataTypes.INT()), FIELD("b", DataTypes.STRING())).getLogicalType();
        RowType other = (RowType) DataTypes.ROW(FIELD("a", DataTypes.INT()), FIELD("b", DataTypes.BIGINT())).getLogicalType();
        try (NativeFormatEncoder encoder = NativeFormatEncoder.create(arrow.allocator(), "json", Map.of(), type);
                RowDataArrowWriter writer = RowDataArrowWriter.create(other, arrow.allocator())) {
            VectorSchemaRoot batch = writer.write(List.of(GenericRowData.of(1, 2L)));
            assertThatThrownBy(() -> encoder.encode(batch))
                    .isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("format encoder")
                    .hasMessageContaining("column 1 is Int(64, true), not Utf8");
        }
    }

    @Test
    void invalidEncodeOptionsAreRejected() {
        RowType type = (RowType) DataTypes.ROW(FIELD("a", DataTypes.BIGINT())).notNull().getLogicalType();
        assertThatThrownBy(() -> NativeFormatEncoder.create(arrow.allocator(), "json", Map.of("map-null-key.mode", "keep"), type))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("Unsupported value 'keep' for option map-null-key.mode");
    }

    private List<byte[]> nativeEncode(RowType type, List<RowData> rows, Map<String, String> options) {
        try (NativeFormatEncoder encoder = NativeFormatEncoder.create(arrow.allocator(), "json", options, type)) {
            return encoder.encode(rows);
        }
    }

    private static List<byte[]> flinkSerialize(
            RowType type, List<RowData> rows, TimestampFormat timestamps, boolean plainDecimals, boolean ignoreNulls)
            throws Exception {
        JsonRowDataSerializationSchema serializer =
                new JsonRowDataSerializationSchema(
                        type, timestamps, JsonFormatOptions.MapNullKeyMode.FAIL, "null", plainDecimals, ignoreNulls);
        serializer.open(null);
        List<byte[]> out = new ArrayList<>();
        for (RowData row : rows) {
            out.add(serializer.serialize(row));
        }
        return out;
    }

    private static List<List<Object>> flinkDeserialize(RowType type, List<byte[]> messages, TimestampFormat timestamps)
            throws Exception {
        JsonParserRowDataDeserializationSchema deserializer =
                new JsonParserRowDataDeserializationSchema(type, InternalTypeInfo.of(type), false, false, timestamps);
        deserializer.open(null);
        List<RowData> rows = new ArrayList<>();
        ListCollector<RowData> collector = new ListCollector<>(rows);
        for (byte[] message : messages) {
            deserializer.deserialize(message, collector);
        }
        assertThat(rows).hasSize(messages.size());
        return RowDataValues.ofRows(rows, type);
    }

    private static RowType withoutFloatingPoint(RowType type) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (RowType.RowField field : type.getFields()) {
            boolean floating =
                    LogicalTypeChecks.hasNested(
                            field.getType(),
                            t -> t.is(LogicalTypeRoot.FLOAT) || t.is(LogicalTypeRoot.DOUBLE));
            if (!floating) {
                fields.add(field);
            }
        }
        return new RowType(false, fields);
    }
}
