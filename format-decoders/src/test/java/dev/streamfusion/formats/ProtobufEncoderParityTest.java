package dev.streamfusion.formats;

import dev.streamfusion.bridge.NativeConfigException;
import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.RowDataValues;
import dev.streamfusion.formats.testproto.Everything;
import dev.streamfusion.formats.testproto2.LegacyProto.Legacy;
import dev.streamfusion.formats.testproto2.LegacyProto.Strict;

import org.apache.flink.formats.protobuf.PbFormatConfig;
import org.apache.flink.formats.protobuf.serialize.PbRowDataSerializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native protobuf encoder against Flink's {@code protobuf} serializer: the same rows give the
 * same bytes, under proto3's and proto2's presence rules, with NULL elements, keys and values,
 * unknown enum constants, competing oneof members and maps large enough to make Java's {@code
 * HashMap} grow.
 */
class ProtobufEncoderParityTest {

    private static final String EVERYTHING = Everything.class.getName();
    private static final String LEGACY = Legacy.class.getName();
    private static final String STRICT = Strict.class.getName();

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    @Test
    void randomRowsEncodeToFlinksBytes() throws Exception {
        for (boolean enumAsInt : new boolean[] {false, true}) {
            for (String literal : new String[] {"", "NULL"}) {
                RowType type = ProtobufFormatParityTest.everythingType(enumAsInt);
                List<RowData> rows = new RandomRows(enumAsInt ? 61 : 62, 0.2).rows(type, 400);
                assertSameBytes(type, EVERYTHING, literal, rows);
            }
        }
    }

    @Test
    void proto2WritesEverySetValueAndPacksOnlyWhereDeclared() throws Exception {
        RowType type = ProtobufFormatParityTest.legacyType();
        List<RowData> rows = new ArrayList<>(new RandomRows(63, 0.3).rows(type, 300));
        // Values equal to the declared defaults are still written, since the fields were set.
        rows.add(
                row(
                        type,
                        "i", 7,
                        "s", "dflt",
                        "k", "K_ONE",
                        "inner", GenericRowData.of((Object) null),
                        "r", array(1, null, 3),
                        "m", map("a", null, null, "b"),
                        "b", new byte[0],
                        "u", -1,
                        "rp", array(-1, 0, 1)));
        rows.add(row(type, "k", "k_one", "r", array(), "rp", array()));
        for (String literal : new String[] {"", "NULL"}) {
            assertSameBytes(type, LEGACY, literal, rows);
        }
    }

    @Test
    void nullElementsKeysAndValuesAreWrittenAsDefaults() throws Exception {
        for (boolean enumAsInt : new boolean[] {false, true}) {
            RowType type = ProtobufFormatParityTest.everythingType(enumAsInt);
            List<RowData> rows =
                    List.of(
                            row(
                                    type,
                                    "ri", array(1, null, 3),
                                    "rs", array(str("a"), null, str("")),
                                    "rinner", array(null, GenericRowData.of(null, str("x"))),
                                    "m", map(null, 1, "x", null),
                                    "mi", map(null, null, 4, GenericRowData.of(2, null)),
                                    "rcolor", array(null, null)),
                            // All columns NULL: the empty message.
                            new GenericRowData(type.getFieldCount()),
                            // Present but empty collections write nothing.
                            row(type, "ri", array(), "rs", array(), "m", map(), "inner", GenericRowData.of(null, null)));
            for (String literal : new String[] {"", "NULL"}) {
                assertSameBytes(type, EVERYTHING, literal, rows);
            }
        }
    }

    @Test
    void unknownEnumsCompetingOneofMembersAndNegativeZeroAreWrittenAsJavaWritesThem() throws Exception {
        RowType names = ProtobufFormatParityTest.everythingType(false);
        assertSameBytes(
                names,
                EVERYTHING,
                "",
                List.of(
                        row(names, "color", "blue", "rcolor", array(str("BLUE"), str("nope"), str("GREEN"))),
                        row(names, "color", "GREEN", "cs", "first", "ci", 0),
                        row(names, "ci", 5, "cs", ""),
                        row(names, "fl", -0.0f, "db", -0.0d, "oi", 0, "bo", false, "st", "", "by", new byte[0]),
                        row(names, "i32", Integer.MIN_VALUE, "s32", -1, "u32", -1, "f32", -1, "far", Long.MIN_VALUE)));
        RowType numbers = ProtobufFormatParityTest.everythingType(true);
        assertSameBytes(
                numbers,
                EVERYTHING,
                "",
                List.of(row(numbers, "color", 7, "rcolor", array(2, -1, 0, 1)), row(numbers, "color", 0)));
    }

    @Test
    void mapEntriesComeInJavaHashMapOrder() throws Exception {
        RowType type = ProtobufFormatParityTest.everythingType(false);
        Map<Object, Object> strings = new LinkedHashMap<>();
        Map<Object, Object> ints = new LinkedHashMap<>();
        for (int i = 0; i < 200; i++) {
            strings.put(str("key-" + (i * 7919 % 1000)), i);
            // Multiples of 16 crowd one bucket of a small table, which makes it grow early.
            ints.put(i < 20 ? i * 16 : i * 7 + 1000, GenericRowData.of(i, null));
        }
        assertSameBytes(
                type,
                EVERYTHING,
                "",
                List.of(row(type, "m", new GenericMapData(strings), "mi", new GenericMapData(ints))));
    }

    /**
     * Nine or more keys in one bucket of a table of 64 buckets or more make a tree of that bucket,
     * whose iteration order the encoder does not reproduce: the bytes differ in entry order only,
     * and read back as the same map.
     */
    @Test
    void crowdedBucketsInLargeMapsReadBackAsTheSameMap() throws Exception {
        RowType type = ProtobufFormatParityTest.everythingType(false);
        Map<Object, Object> crowded = new LinkedHashMap<>();
        for (int i = 0; i < 200; i++) {
            crowded.put(i * 64 - 5000, GenericRowData.of(i, str("v" + i)));
        }
        List<RowData> rows = List.of(row(type, "mi", new GenericMapData(crowded)));
        List<byte[]> expected = flinkSerialize(type, EVERYTHING, "", rows);
        try (NativeFormatEncoder encoder =
                NativeFormatEncoder.create(arrow.allocator(), "protobuf", options(EVERYTHING, ""), type)) {
            List<byte[]> actual = encoder.encode(rows);
            assertThat(actual.get(0)).hasSameSizeAs(expected.get(0));
            RowDataValues.assertSameRows(
                    ProtobufFormatParityTest.flinkDeserialize(type, EVERYTHING, false, actual),
                    ProtobufFormatParityTest.flinkDeserialize(type, EVERYTHING, false, expected));
        }
    }

    @Test
    void requiredFieldsMustBeWritten() throws Exception {
        RowType full =
                (RowType)
                        DataTypes.ROW(
                                        FIELD("id", DataTypes.INT()),
                                        FIELD("note", DataTypes.STRING()),
                                        FIELD("children", DataTypes.ARRAY(DataTypes.ROW(FIELD("id", DataTypes.INT())))))
                                .notNull()
                                .getLogicalType();
        List<RowData> good = List.of(row(full, "id", 1), row(full, "id", 2, "children", array(GenericRowData.of(0))));
        assertSameBytes(full, STRICT, "", good);
        for (RowData bad :
                List.of(
                        row(full, "note", "no id"),
                        row(full, "id", 3, "children", array((Object) null)),
                        row(full, "id", 4, "children", array(GenericRowData.of((Object) null))))) {
            assertThatThrownBy(() -> flinkSerialize(full, STRICT, "", List.of(bad)))
                    .hasStackTraceContaining("missing required fields");
            try (NativeFormatEncoder encoder = NativeFormatEncoder.create(arrow.allocator(), "protobuf", options(STRICT, ""), full)) {
                assertThatThrownBy(() -> encoder.encode(List.of(good.get(0), bad)))
                        .isInstanceOf(NativeDecodeException.class)
                        .hasMessageContaining("record 1 of the batch")
                        .hasMessageContaining("missing required fields");
            }
        }
        RowType noId = (RowType) DataTypes.ROW(FIELD("note", DataTypes.STRING())).notNull().getLogicalType();
        assertThatThrownBy(() -> NativeFormatEncoder.create(arrow.allocator(), "protobuf", options(STRICT, ""), noId))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("id");
    }

    @Test
    void configurationErrorsNameTheOptionOrColumn() {
        RowType type = ProtobufFormatParityTest.everythingType(false);
        assertThatThrownBy(() -> NativeFormatEncoder.create(arrow.allocator(), "protobuf", Map.of(), type))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("protobuf.message-class-name");
        RowType wrongType = (RowType) DataTypes.ROW(FIELD("st", DataTypes.INT())).notNull().getLogicalType();
        assertThatThrownBy(() -> NativeFormatEncoder.create(arrow.allocator(), "protobuf", options(EVERYTHING, ""), wrongType))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("st");
        Map<String, String> unknown = new HashMap<>(options(EVERYTHING, ""));
        unknown.put("write-nulls", "true");
        assertThatThrownBy(() -> NativeFormatEncoder.create(arrow.allocator(), "protobuf", unknown, type))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("protobuf.write-nulls");
    }

    /**
     * Flink writes {@code write-null-string-literal} into the Java source of the serializer it
     * generates, so a backslash there is an escape and {@code \\N} does not compile. A literal
     * with a backslash or a quote is left to Flink's format: the native encoder refuses it.
     */
    @Test
    void aNullLiteralThatFlinkReadsAsJavaSourceIsLeftToFlink() {
        RowType type = ProtobufFormatParityTest.everythingType(false);
        List<RowData> rows = new RandomRows(5, 0.3).rows(type, 5);
        assertThatThrownBy(() -> flinkSerialize(type, EVERYTHING, "\\N", rows))
                .as("Flink's generated serializer does not compile with the literal \\N");
        for (String literal : List.of("\\N", "\\t", "a\"b")) {
            assertThatThrownBy(() -> NativeFormatEncoder.create(arrow.allocator(), "protobuf", options(EVERYTHING, literal), type))
                    .isInstanceOf(NativeConfigException.class)
                    .hasMessageContaining("protobuf.write-null-string-literal");
        }
    }

    private void assertSameBytes(RowType type, String messageClass, String literal, List<RowData> rows)
            throws Exception {
        List<byte[]> expected = flinkSerialize(type, messageClass, literal, rows);
        try (NativeFormatEncoder encoder =
                NativeFormatEncoder.create(arrow.allocator(), "protobuf", options(messageClass, literal), type)) {
            List<byte[]> actual = encoder.encode(rows);
            assertThat(actual).hasSameSizeAs(expected);
            for (int i = 0; i < rows.size(); i++) {
                assertThat(actual.get(i)).as("row %d: %s", i, rows.get(i)).isEqualTo(expected.get(i));
            }
        }
    }

    private static Map<String, String> options(String messageClass, String literal) {
        return Map.of("message-class-name", messageClass, "write-null-string-literal", literal);
    }

    static List<byte[]> flinkSerialize(RowType type, String messageClass, String literal, List<RowData> rows)
            throws Exception {
        PbRowDataSerializationSchema serializer =
                new PbRowDataSerializationSchema(type, new PbFormatConfig(messageClass, false, false, literal));
        serializer.open(null);
        List<byte[]> out = new ArrayList<>();
        for (RowData row : rows) {
            out.add(serializer.serialize(row));
        }
        return out;
    }

    /** A row of {@code type} with the named columns set (Java strings become STRING data) and the rest NULL. */
    private static GenericRowData row(RowType type, Object... namesAndValues) {
        GenericRowData row = new GenericRowData(type.getFieldCount());
        for (int i = 0; i < namesAndValues.length; i += 2) {
            Object value = namesAndValues[i + 1];
            row.setField(
                    type.getFieldIndex((String) namesAndValues[i]),
                    value instanceof String ? str((String) value) : value);
        }
        return row;
    }

    private static GenericArrayData array(Object... elements) {
        return new GenericArrayData(elements);
    }

    /** A map of alternating keys and values (Java strings become STRING data); keys may be NULL. */
    private static GenericMapData map(Object... keysAndValues) {
        Map<Object, Object> entries = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            Object key = keysAndValues[i];
            Object value = keysAndValues[i + 1];
            entries.put(
                    key instanceof String ? str((String) key) : key,
                    value instanceof String ? str((String) value) : value);
        }
        return new GenericMapData(entries);
    }

    private static StringData str(String s) {
        return StringData.fromString(s);
    }
}
