package dev.streamfusion.formats;

import dev.streamfusion.bridge.NativeConfigException;
import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.RowDataValues;
import dev.streamfusion.formats.testproto.Color;
import dev.streamfusion.formats.testproto.Everything;
import dev.streamfusion.formats.testproto.Inner;
import dev.streamfusion.formats.testproto.Node;
import dev.streamfusion.formats.testproto2.LegacyProto.Legacy;
import dev.streamfusion.formats.testproto2.LegacyProto.LegacyInner;

import org.apache.flink.formats.protobuf.PbFormatConfig;
import org.apache.flink.formats.protobuf.deserialize.PbRowDataDeserializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import com.google.protobuf.ByteString;
import com.google.protobuf.Int32Value;
import com.google.protobuf.Timestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native protobuf format against Flink's {@code protobuf} format: the same messages decode to
 * the same rows, whole and projected, under proto3's and proto2's presence rules and both settings
 * of {@code read-default-values}; malformed messages fail naming their position or are skipped.
 */
class ProtobufFormatParityTest {

    private static final String EVERYTHING = Everything.class.getName();
    private static final String LEGACY = Legacy.class.getName();

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    private static DataTypes.Field[] innerFields() {
        return new DataTypes.Field[] {FIELD("a", DataTypes.INT()), FIELD("b", DataTypes.STRING())};
    }

    static RowType everythingType(boolean enumAsInt) {
        return (RowType)
                DataTypes.ROW(
                                FIELD("i32", DataTypes.INT()),
                                FIELD("i64", DataTypes.BIGINT()),
                                FIELD("u32", DataTypes.INT()),
                                FIELD("u64", DataTypes.BIGINT()),
                                FIELD("s32", DataTypes.INT()),
                                FIELD("s64", DataTypes.BIGINT()),
                                FIELD("f32", DataTypes.INT()),
                                FIELD("f64", DataTypes.BIGINT()),
                                FIELD("sf32", DataTypes.INT()),
                                FIELD("sf64", DataTypes.BIGINT()),
                                FIELD("fl", DataTypes.FLOAT()),
                                FIELD("db", DataTypes.DOUBLE()),
                                FIELD("bo", DataTypes.BOOLEAN()),
                                FIELD("st", DataTypes.STRING()),
                                FIELD("by", DataTypes.BYTES()),
                                FIELD("color", enumAsInt ? DataTypes.INT() : DataTypes.STRING()),
                                FIELD("inner", DataTypes.ROW(innerFields())),
                                FIELD("ri", DataTypes.ARRAY(DataTypes.INT())),
                                FIELD("rs", DataTypes.ARRAY(DataTypes.STRING())),
                                FIELD("rinner", DataTypes.ARRAY(DataTypes.ROW(innerFields()))),
                                FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
                                FIELD("mi", DataTypes.MAP(DataTypes.INT(), DataTypes.ROW(innerFields()))),
                                FIELD("oi", DataTypes.INT()),
                                FIELD("cs", DataTypes.STRING()),
                                FIELD("ci", DataTypes.INT()),
                                FIELD(
                                        "ts",
                                        DataTypes.ROW(
                                                FIELD("seconds", DataTypes.BIGINT()),
                                                FIELD("nanos", DataTypes.INT()))),
                                FIELD("wi", DataTypes.ROW(FIELD("value", DataTypes.INT()))),
                                FIELD("rcolor", DataTypes.ARRAY(enumAsInt ? DataTypes.INT() : DataTypes.STRING())),
                                FIELD("far", DataTypes.BIGINT()))
                        .notNull()
                        .getLogicalType();
    }

    static RowType legacyType() {
        return (RowType)
                DataTypes.ROW(
                                FIELD("i", DataTypes.INT()),
                                FIELD("s", DataTypes.STRING()),
                                FIELD("k", DataTypes.STRING()),
                                FIELD("inner", DataTypes.ROW(FIELD("a", DataTypes.INT()))),
                                FIELD("r", DataTypes.ARRAY(DataTypes.INT())),
                                FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.STRING())),
                                FIELD("b", DataTypes.BYTES()),
                                FIELD("u", DataTypes.INT()),
                                FIELD("rp", DataTypes.ARRAY(DataTypes.INT())))
                        .notNull()
                        .getLogicalType();
    }

    /** Hand-built messages reaching what random rows do not: enum values, unsigned extremes, oneofs. */
    static List<byte[]> craftedEverything() {
        List<byte[]> messages = new ArrayList<>();
        messages.add(Everything.getDefaultInstance().toByteArray());
        messages.add(
                Everything.newBuilder()
                        .setI32(-1)
                        .setU32(-1)
                        .setU64(-1L)
                        .setF32(-7)
                        .setF64(Long.MIN_VALUE)
                        .setS32(Integer.MIN_VALUE)
                        .setS64(Long.MAX_VALUE)
                        .setFl(Float.NaN)
                        .setDb(Double.NEGATIVE_INFINITY)
                        .setBo(true)
                        .setSt("grüße \u0000 ✓")
                        .setBy(ByteString.copyFrom(new byte[] {0, -1, 2}))
                        .setColor(Color.BLUE)
                        .setInner(Inner.newBuilder().setA(3))
                        .addAllRi(Arrays.asList(1, -2, 3))
                        .addRs("")
                        .addRs("x")
                        .addRinner(Inner.getDefaultInstance())
                        .addRinner(Inner.newBuilder().setB("y"))
                        .putM("k", 0)
                        .putMi(5, Inner.newBuilder().setA(9).build())
                        .setOi(0)
                        .setCi(4)
                        .setTs(Timestamp.newBuilder().setSeconds(1_700_000_000L).setNanos(5))
                        .setWi(Int32Value.of(0))
                        .addRcolor(Color.GREEN)
                        .addRcolor(Color.RED)
                        .setFar(-2)
                        .build()
                        .toByteArray());
        messages.add(Everything.newBuilder().setCs("chosen").setColor(Color.GREEN).build().toByteArray());
        return messages;
    }

    @Test
    void decodesWhatFlinkDecodes() throws Exception {
        for (boolean readDefaults : new boolean[] {false, true}) {
            RowType type = everythingType(false);
            List<byte[]> messages = new ArrayList<>(craftedEverything());
            messages.addAll(flinkSerialize(type, EVERYTHING, new RandomRows(41, 0.2).rows(type, 300)));
            assertSameDecoding(type, type, EVERYTHING, readDefaults, messages);
        }
    }

    @Test
    void enumsReadAsNumbersIntoIntColumns() throws Exception {
        RowType type = everythingType(true);
        assertSameDecoding(type, type, EVERYTHING, false, craftedEverything());
    }

    @Test
    void unknownProto3EnumNumberReadsAsUnrecognizedOrFailsIntoInt() throws Exception {
        List<byte[]> messages = List.of(Everything.newBuilder().setColorValue(7).addRcolorValue(9).build().toByteArray());
        RowType strings = everythingType(false);
        assertSameDecoding(strings, strings, EVERYTHING, false, messages);
        RowType ints = everythingType(true);
        assertThatThrownBy(() -> flinkDeserialize(ints, EVERYTHING, false, messages))
                .hasMessageContaining("Failed to deserialize PB object");
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(arrow.allocator(), "protobuf", options(EVERYTHING, false), ints)) {
            assertThatThrownBy(() -> decoder.decode(messages))
                    .isInstanceOf(NativeDecodeException.class)
                    .hasMessageContaining("record 0 of the batch");
        }
    }

    @Test
    void recursiveTypesReadToTheTablesDepthAndNestingIsLimitedAsInFlink() throws Exception {
        RowType type =
                (RowType)
                        DataTypes.ROW(
                                        FIELD("v", DataTypes.INT()),
                                        FIELD(
                                                "child",
                                                DataTypes.ROW(
                                                        FIELD("v", DataTypes.INT()),
                                                        FIELD("child", DataTypes.ROW(FIELD("v", DataTypes.INT()))))))
                                .notNull()
                                .getLogicalType();
        List<byte[]> shallow =
                List.of(
                        Node.getDefaultInstance().toByteArray(),
                        Node.newBuilder().setV(1).setChild(Node.newBuilder().setV(2)).build().toByteArray());
        String node = Node.class.getName();
        assertSameDecoding(type, type, node, false, shallow);
        // protobuf-java parses levels the table does not read, and allows 100 below the top one.
        assertSameDecoding(type, type, node, false, List.of(chain(100)));
        byte[] tooDeep = chain(101);
        assertThatThrownBy(() -> flinkDeserialize(type, node, false, List.of(tooDeep)))
                .hasMessageContaining("Failed to deserialize PB object");
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(arrow.allocator(), "protobuf", options(node, false), type)) {
            assertThatThrownBy(() -> decoder.decode(List.of(tooDeep)))
                    .isInstanceOf(NativeDecodeException.class)
                    .hasMessageContaining("too many levels of nesting");
        }
    }

    /** A {@link Node} with {@code levels} nested children below it. */
    private static byte[] chain(int levels) {
        Node node = Node.newBuilder().setV(-1).build();
        for (int level = 0; level < levels; level++) {
            node = Node.newBuilder().setV(level).setChild(node).build();
        }
        return node.toByteArray();
    }

    @Test
    void corruptedMessagesAreRejectedOrReadExactlyAsFlinkDoes() throws Exception {
        RowType type = everythingType(false);
        Random random = new Random(44);
        List<byte[]> garbage = new ArrayList<>();
        byte[] good = craftedEverything().get(1);
        for (int i = 0; i < 2000; i++) {
            byte[] message = good.clone();
            for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                message[random.nextInt(message.length)] = (byte) random.nextInt(256);
            }
            garbage.add(i % 2 == 0 ? message : Arrays.copyOf(message, random.nextInt(message.length)));
        }
        Map<String, String> ignore = new HashMap<>(options(EVERYTHING, false));
        ignore.put("ignore-parse-errors", "true");
        List<List<Object>> expected = new ArrayList<>();
        long rejected = 0;
        for (byte[] message : garbage) {
            try {
                expected.addAll(flinkDeserialize(type, EVERYTHING, false, List.of(message)));
            } catch (Exception e) {
                rejected++;
            }
        }
        assertThat(rejected).isPositive();
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(arrow.allocator(), "protobuf", ignore, type)) {
            List<List<Object>> actual = FormatTestRows.rows(decoder.decode(garbage), type);
            assertThat(decoder.skipped()).isEqualTo(rejected);
            RowDataValues.assertSameRows(actual, expected);
        }
    }

    @Test
    void projectionStepsOverUnreadFields() throws Exception {
        RowType type = everythingType(false);
        List<byte[]> messages = new ArrayList<>(craftedEverything());
        messages.addAll(flinkSerialize(type, EVERYTHING, new RandomRows(42, 0.2).rows(type, 200)));
        assertSameDecoding(type, FormatTestRows.project(type, "mi", "st", "far", "u64", "ts", "color"), EVERYTHING, false, messages);
    }

    /**
     * proto2 enums are closed: protobuf-java keeps a number the enum does not declare as an
     * unknown field, so the field reads as absent (NULL, or its default with read-default-values)
     * and an earlier known value stays.
     */
    @Test
    void unknownProto2EnumNumbersReadAsAbsentAsInFlink() throws Exception {
        RowType type = legacyType();
        List<byte[]> messages = List.of(
                new byte[] {0x18, 0x05},
                new byte[] {0x18, 0x00, 0x18, 0x05},
                new byte[] {0x08, 0x03, 0x18, 0x7f, 0x18, 0x01});
        for (boolean readDefaults : new boolean[] {false, true}) {
            assertSameDecoding(type, type, LEGACY, readDefaults, messages);
        }
        // In a packed list the element is left out; in a map the entry (a map of none is NULL).
        RowType listed = (RowType) DataTypes.ROW(
                        FIELD("i", DataTypes.INT()),
                        FIELD("rk", DataTypes.ARRAY(DataTypes.STRING())),
                        FIELD("mk", DataTypes.MAP(DataTypes.STRING(), DataTypes.STRING())))
                .notNull()
                .getLogicalType();
        List<byte[]> collections = List.of(
                // rk packed [1, 9, 0]; mk {"a": 1}, {"b": 9}.
                new byte[] {0x52, 0x03, 0x01, 0x09, 0x00, 0x5a, 0x05, 0x0a, 0x01, 'a', 0x10, 0x01, 0x5a, 0x05, 0x0a, 0x01, 'b', 0x10, 0x09},
                // mk {"c": 7} only; rk unpacked 7 then 0.
                new byte[] {0x5a, 0x05, 0x0a, 0x01, 'c', 0x10, 0x07, 0x50, 0x07, 0x50, 0x00});
        for (boolean readDefaults : new boolean[] {false, true}) {
            assertSameDecoding(listed, listed, LEGACY, readDefaults, collections);
        }
    }

    @Test
    void proto2PresenceAndDeclaredDefaultsFollowReadDefaultValues() throws Exception {
        RowType type = legacyType();
        List<byte[]> messages = new ArrayList<>();
        messages.add(Legacy.getDefaultInstance().toByteArray());
        messages.add(
                Legacy.newBuilder()
                        .setI(0)
                        .setS("")
                        .setK(dev.streamfusion.formats.testproto2.LegacyProto.Kind.K_ZERO)
                        .setInner(LegacyInner.getDefaultInstance())
                        .addR(1)
                        .putM("a", "b")
                        .setB(ByteString.EMPTY)
                        .setU(-1)
                        .addRp(-3)
                        .build()
                        .toByteArray());
        messages.addAll(flinkSerialize(type, LEGACY, new RandomRows(43, 0.3).rows(type, 200)));
        for (boolean readDefaults : new boolean[] {false, true}) {
            assertSameDecoding(type, type, LEGACY, readDefaults, messages);
        }
    }

    @Test
    void malformedMessageNamesItsPositionOrIsSkipped() throws Exception {
        RowType type = everythingType(false);
        byte[] good = craftedEverything().get(1);
        byte[] truncated = Arrays.copyOf(good, good.length - 3);
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(arrow.allocator(), "protobuf", options(EVERYTHING, false), type)) {
            assertThatThrownBy(() -> decoder.decode(List.of(good, truncated)))
                    .isInstanceOf(NativeDecodeException.class)
                    .hasMessageContaining("record 1 of the batch")
                    .hasMessageContaining("Failed to deserialize PB object");
        }
        Map<String, String> ignore = new HashMap<>(options(EVERYTHING, false));
        ignore.put("ignore-parse-errors", "true");
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(arrow.allocator(), "protobuf", ignore, type)) {
            assertThat(decoder.decode(List.of(truncated, good, truncated)).getRowCount()).isEqualTo(1);
            assertThat(decoder.skipped()).isEqualTo(2);
        }
        // Flink agrees that the truncated message, and a null (tombstone) one, are malformed.
        assertThatThrownBy(() -> flinkDeserialize(type, EVERYTHING, false, List.of(truncated)))
                .hasMessageContaining("Failed to deserialize PB object");
        List<byte[]> tombstone = Arrays.asList(good, null);
        assertThatThrownBy(() -> flinkDeserialize(type, EVERYTHING, false, tombstone))
                .hasMessageContaining("Failed to deserialize PB object");
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(arrow.allocator(), "protobuf", options(EVERYTHING, false), type)) {
            assertThatThrownBy(() -> decoder.decode(tombstone))
                    .isInstanceOf(NativeDecodeException.class)
                    .hasMessageContaining("record 1 of the batch")
                    .hasMessageContaining("null");
        }
    }

    @Test
    void configurationErrorsNameTheOptionOrField() {
        RowType type = everythingType(false);
        assertThatThrownBy(() -> NativeFormatDecoder.create(arrow.allocator(), "protobuf", Map.of(), type))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("protobuf.message-class-name");
        assertThatThrownBy(
                        () ->
                                NativeFormatDecoder.create(
                                        arrow.allocator(), "protobuf", options("no.such.Message", false), type))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("no.such.Message")
                .hasMessageContaining("not on the class path");
        RowType unknownField =
                (RowType) DataTypes.ROW(FIELD("nope", DataTypes.INT())).notNull().getLogicalType();
        assertThatThrownBy(
                        () ->
                                NativeFormatDecoder.create(
                                        arrow.allocator(), "protobuf", options(EVERYTHING, false), unknownField))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("nope");
        RowType wrongType =
                (RowType) DataTypes.ROW(FIELD("i32", DataTypes.BIGINT())).notNull().getLogicalType();
        assertThatThrownBy(
                        () ->
                                NativeFormatDecoder.create(
                                        arrow.allocator(), "protobuf", options(EVERYTHING, false), wrongType))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("i32");
    }

    private void assertSameDecoding(
            RowType physical, RowType produced, String messageClass, boolean readDefaults, List<byte[]> messages)
            throws Exception {
        List<List<Object>> expected =
                FormatTestRows.project(flinkDeserialize(physical, messageClass, readDefaults, messages), physical, produced);
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(
                        arrow.allocator(), "protobuf", options(messageClass, readDefaults), physical, produced)) {
            List<List<Object>> actual = FormatTestRows.rows(decoder.decode(messages), produced);
            RowDataValues.assertSameRows(actual, expected);
        }
    }

    private static Map<String, String> options(String messageClass, boolean readDefaults) {
        return Map.of("message-class-name", messageClass, "read-default-values", Boolean.toString(readDefaults));
    }

    private static List<byte[]> flinkSerialize(RowType type, String messageClass, List<RowData> rows)
            throws Exception {
        return ProtobufEncoderParityTest.flinkSerialize(type, messageClass, "", rows);
    }

    static List<List<Object>> flinkDeserialize(
            RowType type, String messageClass, boolean readDefaults, List<byte[]> messages) throws Exception {
        PbRowDataDeserializationSchema deserializer =
                new PbRowDataDeserializationSchema(
                        type, InternalTypeInfo.of(type), new PbFormatConfig(messageClass, false, readDefaults, ""));
        deserializer.open(null);
        List<RowData> rows = new ArrayList<>();
        for (byte[] message : messages) {
            rows.add(deserializer.deserialize(message));
        }
        return RowDataValues.ofRows(rows, type);
    }
}
