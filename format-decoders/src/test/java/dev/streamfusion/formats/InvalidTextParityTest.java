package dev.streamfusion.formats;

import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.formats.testproto.Inner;

import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.avro.AvroFormatOptions.AvroEncoding;
import org.apache.flink.formats.avro.AvroRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.formats.raw.RawFormatDeserializationSchema;
import org.apache.flink.formats.raw.RawFormatSerializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Text whose bytes are not UTF-8 (a Flink {@code STRING} holds any bytes: Flink's raw format in
 * UTF-8 reads a value's bytes as they are) written by each native format as Flink's own format
 * writes it. Flink's formats write a {@code STRING} through {@code StringData.toString()}, which reads such
 * bytes as Java's UTF-8 decoder does, each malformed sequence one U+FFFD. Both ways rows reach an
 * encoder are checked: rows in Flink's binary layout (read natively) and generic rows (the Java
 * writer's batch, whose text is read again as it crosses to the encoder).
 */
class InvalidTextParityTest {

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    private static final RowType TEXT_AND_LIST = rowType(
            FIELD("s", DataTypes.STRING()), FIELD("list", DataTypes.ARRAY(DataTypes.STRING())));
    private static final RowType TEXT = rowType(FIELD("s", DataTypes.STRING()));
    private static final RowType INNER = rowType(FIELD("a", DataTypes.INT()), FIELD("b", DataTypes.STRING()));

    /**
     * Texts that end a malformed sequence at each of the decoder's rules (a stray byte, a lead
     * cut short inside the text or by its end, an overlong form, an encoded surrogate, a code point
     * past U+10FFFF), then random runs of leads, continuations and ASCII.
     */
    private static List<byte[]> texts() {
        List<byte[]> texts = new ArrayList<>();
        for (String hex : List.of(
                "61eda0806280", "c080", "f888808080", "c378", "c3c3a9", "78c3", "e08080", "e4b878", "e478ad",
                "edbfbf7a", "e4b8", "e4", "e478", "e09f", "f08fbfbf", "f4908080", "f5808080", "f09f9878",
                "f09f7878", "f09f98", "f09f", "f09f78", "f08f", "f580", "f0", "e4b8ad", "f09f9880")) {
            texts.add(HexFormat.of().parseHex(hex));
        }
        int[] alphabet = {
            'a', 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xa9, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xdf, 0xe0, 0xe4, 0xed,
            0xef, 0xf0, 0xf4, 0xf5, 0xf7, 0xf8, 0xff
        };
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 3_000; i++) {
            byte[] text = new byte[random.nextInt(9)];
            for (int b = 0; b < text.length; b++) {
                text[b] = (byte) alphabet[random.nextInt(alphabet.length)];
            }
            texts.add(text);
        }
        long malformed = texts.stream().filter(t -> !isUtf8(t)).count();
        assertThat(malformed).as("texts that are not UTF-8").isGreaterThan(2_500);
        return texts;
    }

    private static boolean isUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    @Test
    void jsonWritesTextAndListedTextAsFlinkDoes() throws Exception {
        List<RowData> rows = textAndListRows();
        JsonRowDataSerializationSchema flink = new JsonRowDataSerializationSchema(
                TEXT_AND_LIST, TimestampFormat.SQL, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
        flink.open(null);
        assertWritesAsFlink("json", Map.of(), TEXT_AND_LIST, rows, each(rows, flink::serialize));
    }

    @Test
    void avroWritesTextAndListedTextAsFlinkDoes() throws Exception {
        List<RowData> rows = textAndListRows();
        assertWritesAsFlink("avro", Map.of(), TEXT_AND_LIST, rows, AvroFormatParityTest.flinkSerialize(TEXT_AND_LIST, rows, false));
    }

    @Test
    void csvWritesTextAsFlinkDoes() throws Exception {
        List<RowData> rows = textRows();
        assertWritesAsFlink("csv", Map.of(), TEXT, rows, CsvFormatParityTest.flinkSerialize(TEXT, rows));
    }

    @Test
    void rawWritesTextAsFlinkDoesInCharsetsButUtf8() throws Exception {
        for (String charset : List.of("ISO-8859-1", "UTF-16LE", "US-ASCII")) {
            RawFormatSerializationSchema flink = new RawFormatSerializationSchema(TEXT.getTypeAt(0), charset, true);
            flink.open(null);
            List<RowData> rows = textRows();
            assertWritesAsFlink("raw", Map.of("charset", charset), TEXT, rows, each(rows, flink::serialize));
        }
    }

    /**
     * Flink's raw format writes a STRING in UTF-8 with the value's bytes as they are, which Arrow
     * text cannot hold: such a value is an error naming the column, both ways rows arrive, never
     * other bytes than Flink's.
     */
    @Test
    void rawInUtf8RefusesTextThatIsNotUtf8NamingTheColumn() throws Exception {
        byte[] text = HexFormat.of().parseHex("61eda0806280");
        RowData generic = GenericRowData.of(StringData.fromBytes(text));
        RowData binary = new RowDataSerializer(TEXT).toBinaryRow(generic).copy();
        RowData good = GenericRowData.of(StringData.fromString("fine"));
        // The native encoder decides, for its reader too: every spelling it takes for UTF-8.
        for (String charset : List.of("UTF-8", "utf8", "UTF_8")) {
            try (NativeFormatEncoder encoder =
                    NativeFormatEncoder.create(arrow.allocator(), "raw", Map.of("charset", charset), TEXT)) {
                assertThatThrownBy(() -> encoder.encode(List.of(good, generic)))
                        .hasMessageContaining("column s: ");
                assertThatThrownBy(() -> encoder.encode(List.of(binary)))
                        .hasMessageContaining("column s, value 0: text is not UTF-8");
                assertThat(encoder.encode(List.of(good))).singleElement().isEqualTo("fine".getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * Avro strings are read as Flink reads them, through Java's UTF-8 decoder: each malformed
     * sequence one U+FFFD by the JDK's rules, not Rust's. The raw format's UTF-8 value is kept by
     * Flink as its bytes ({@code StringData.fromBytes}: two different malformed texts stay apart),
     * which an Arrow string cannot hold, so the native decoder hands each such message back to
     * Flink's format and reads the valid ones.
     */
    @Test
    void avroAndRawReadTextThatIsNotUtf8AsFlinkDoes() throws Exception {
        List<byte[]> texts = texts();
        List<byte[]> avro = new ArrayList<>();
        for (byte[] text : texts) {
            // The union's second branch (string), the length, the bytes: zig-zag varints.
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            out.write(2);
            out.write(text.length << 1);
            out.write(text);
            avro.add(out.toByteArray());
        }
        AvroRowDataDeserializationSchema avroFlink =
                new AvroRowDataDeserializationSchema(TEXT, InternalTypeInfo.of(TEXT), AvroEncoding.BINARY, true);
        avroFlink.open(null);
        RawFormatDeserializationSchema rawFlink =
                new RawFormatDeserializationSchema(TEXT.getTypeAt(0), InternalTypeInfo.of(TEXT), "UTF-8", true);
        rawFlink.open(null);
        try (NativeFormatDecoder avroNative = NativeFormatDecoder.create(arrow.allocator(), "avro", Map.of(), TEXT);
                NativeFormatDecoder rawNative =
                        NativeFormatDecoder.createDeferring(arrow.allocator(), "raw", Map.of(), TEXT, TEXT)) {
            List<List<Object>> avroRows = FormatTestRows.rows(avroNative.decode(avro), TEXT);
            List<List<Object>> rawRows = FormatTestRows.rows(rawNative.decode(texts), TEXT);
            List<Integer> handedBack = new ArrayList<>();
            for (int i : rawNative.deferred()) {
                handedBack.add(i);
            }
            List<Integer> malformed = new ArrayList<>();
            for (int i = 0, row = 0; i < texts.size(); i++) {
                String hex = HexFormat.of().formatHex(texts.get(i));
                assertThat(String.valueOf(avroRows.get(i).get(0)))
                        .as("avro %s", hex)
                        .isEqualTo(avroFlink.deserialize(avro.get(i)).getString(0).toString());
                StringData flinkRaw = rawFlink.deserialize(texts.get(i)).getString(0);
                assertThat(flinkRaw.toBytes()).as("Flink keeps the bytes of %s", hex).isEqualTo(texts.get(i));
                if (isUtf8(texts.get(i))) {
                    assertThat(String.valueOf(rawRows.get(row++).get(0))).as("raw %s", hex).isEqualTo(flinkRaw.toString());
                } else {
                    malformed.add(i);
                }
            }
            assertThat(handedBack).isEqualTo(malformed);
            assertThat(rawRows).hasSize(texts.size() - malformed.size());
        }
    }

    @Test
    void protobufWritesTextAsFlinkDoes() throws Exception {
        List<byte[]> texts = texts();
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            rows.add(GenericRowData.of(i, StringData.fromBytes(texts.get(i))));
        }
        assertWritesAsFlink(
                "protobuf", Map.of("message-class-name", Inner.class.getName()), INNER, rows,
                ProtobufEncoderParityTest.flinkSerialize(INNER, Inner.class.getName(), "", rows));
    }

    /** Each text, and a list of the next text and a NULL. */
    private static List<RowData> textAndListRows() {
        List<byte[]> texts = texts();
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            StringData next = StringData.fromBytes(texts.get((i + 1) % texts.size()));
            rows.add(GenericRowData.of(StringData.fromBytes(texts.get(i)), new GenericArrayData(new Object[] {next, null})));
        }
        return rows;
    }

    private static List<RowData> textRows() {
        List<RowData> rows = new ArrayList<>();
        for (byte[] text : texts()) {
            rows.add(GenericRowData.of(StringData.fromBytes(text)));
        }
        return rows;
    }

    private static List<byte[]> each(List<RowData> rows, Function<RowData, byte[]> serialize) {
        List<byte[]> out = new ArrayList<>();
        rows.forEach(row -> out.add(serialize.apply(row)));
        return out;
    }

    /**
     * The native encoder's message for each row equals Flink's ({@code flink}, one per row), whether
     * the rows reach it as they are (the Java writer) or in Flink's binary layout (read natively).
     */
    private void assertWritesAsFlink(
            String format, Map<String, String> options, RowType type, List<RowData> rows, List<byte[]> flink) {
        assertThat(flink).hasSameSizeAs(rows);
        List<String> expected = new ArrayList<>();
        flink.forEach(message -> expected.add(hex(message)));
        RowDataSerializer binary = new RowDataSerializer(type);
        List<RowData> binaryRows = new ArrayList<>();
        rows.forEach(row -> binaryRows.add(binary.toBinaryRow(row).copy()));
        try (NativeFormatEncoder encoder = NativeFormatEncoder.create(arrow.allocator(), format, options, type)) {
            for (List<RowData> input : List.of(rows, binaryRows)) {
                List<byte[]> actual = encoder.encode(input);
                for (int r = 0; r < rows.size(); r++) {
                    assertThat(hex(actual.get(r)))
                            .as("%s, %s row %d: %s", format, input == rows ? "generic" : "binary", r, rows.get(r))
                            .isEqualTo(expected.get(r));
                }
            }
        }
    }

    private static RowType rowType(DataTypes.Field... fields) {
        return (RowType) DataTypes.ROW(fields).notNull().getLogicalType();
    }

    private static String hex(byte[] bytes) {
        return bytes == null ? "null" : HexFormat.of().formatHex(bytes);
    }
}
