package dev.streamfusion.formats;

import dev.streamfusion.bridge.NativeConfigException;
import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.RowDataValues;

import org.apache.flink.formats.csv.CsvRowDataDeserializationSchema;
import org.apache.flink.formats.csv.CsvRowDataSerializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native CSV format against Flink's: Flink writes random rows of every CSV-capable type, both
 * decoders read the same bytes (whole and projected), and the native encoder writes Flink's
 * bytes (FLOAT and DOUBLE aside, whose digits Java 17 prints differently), for several option sets.
 */
class CsvFormatParityTest {

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    static RowType csvTypes() {
        return (RowType)
                DataTypes.ROW(
                                FIELD("b", DataTypes.BOOLEAN()),
                                FIELD("ti", DataTypes.TINYINT()),
                                FIELD("si", DataTypes.SMALLINT()),
                                FIELD("i", DataTypes.INT()),
                                FIELD("bi", DataTypes.BIGINT()),
                                FIELD("f", DataTypes.FLOAT()),
                                FIELD("d", DataTypes.DOUBLE()),
                                FIELD("dec_10_2", DataTypes.DECIMAL(10, 2)),
                                FIELD("dec_38_18", DataTypes.DECIMAL(38, 18)),
                                FIELD("ch", DataTypes.CHAR(5)),
                                FIELD("vc", DataTypes.VARCHAR(20)),
                                FIELD("s", DataTypes.STRING()),
                                FIELD("bytes", DataTypes.BYTES()),
                                FIELD("dt", DataTypes.DATE()),
                                FIELD("t0", DataTypes.TIME(0)),
                                FIELD("t3", DataTypes.TIME(3)),
                                FIELD("ts0", DataTypes.TIMESTAMP(0)),
                                FIELD("ts3", DataTypes.TIMESTAMP(3)),
                                FIELD("ts6", DataTypes.TIMESTAMP(6)),
                                FIELD("ts9", DataTypes.TIMESTAMP(9)),
                                FIELD("ltz3", DataTypes.TIMESTAMP_LTZ(3)),
                                FIELD("ltz9", DataTypes.TIMESTAMP_LTZ(9)),
                                FIELD("arr_i", DataTypes.ARRAY(DataTypes.INT())),
                                FIELD("arr_s", DataTypes.ARRAY(DataTypes.STRING())),
                                FIELD(
                                        "r",
                                        DataTypes.ROW(
                                                FIELD("x", DataTypes.INT()),
                                                FIELD("y", DataTypes.STRING()),
                                                FIELD("z", DataTypes.DECIMAL(10, 2)))))
                        .notNull()
                        .getLogicalType();
    }

    /** One option set, as table options and as the same settings on Flink's builders. */
    private static final class Options {
        final Map<String, String> table = new HashMap<>();
        final List<Consumer<CsvRowDataSerializationSchema.Builder>> writer = new ArrayList<>();
        final List<Consumer<CsvRowDataDeserializationSchema.Builder>> reader = new ArrayList<>();

        Options delimiter(char c, String tableValue) {
            table.put("field-delimiter", tableValue);
            writer.add(b -> b.setFieldDelimiter(c));
            reader.add(b -> b.setFieldDelimiter(c));
            return this;
        }

        Options nullLiteral(String literal) {
            table.put("null-literal", literal);
            writer.add(b -> b.setNullLiteral(literal));
            reader.add(b -> b.setNullLiteral(literal));
            return this;
        }

        Options escape(char c) {
            table.put("escape-character", String.valueOf(c));
            writer.add(b -> b.setEscapeCharacter(c));
            reader.add(b -> b.setEscapeCharacter(c));
            return this;
        }

        Options noQuotes() {
            table.put("disable-quote-character", "true");
            writer.add(CsvRowDataSerializationSchema.Builder::disableQuoteCharacter);
            reader.add(CsvRowDataDeserializationSchema.Builder::disableQuoteCharacter);
            return this;
        }

        Options allowComments() {
            table.put("allow-comments", "true");
            reader.add(b -> b.setAllowComments(true));
            return this;
        }

        Options scientific() {
            table.put("write-bigdecimal-in-scientific-notation", "true");
            writer.add(b -> b.setWriteBigDecimalInScientificNotation(true));
            return this;
        }
    }

    private static List<Options> optionSets() {
        return List.of(
                new Options(),
                new Options().delimiter('\t', "\\t").nullLiteral("NULL").escape('\\'),
                new Options().delimiter('|', "|").scientific(),
                new Options().noQuotes().nullLiteral(""));
    }

    @Test
    void decodesWhatFlinkDecodesForEveryOptionSet() throws Exception {
        RowType type = csvTypes();
        long seed = 100;
        for (Options options : optionSets()) {
            // Without a null literal a NULL number is written empty, which no reader accepts:
            // those messages are checked to fail for both, and mostly non-NULL rows keep the
            // comparison meaningful.
            double nullRate = options.table.containsKey("null-literal") ? 0.15 : 0.005;
            List<RowData> rows = new RandomRows(++seed, nullRate).rows(type, 300);
            List<byte[]> messages = flinkSerialize(type, rows, options);
            assertSameDecoding(type, type, options, messages);
        }
    }

    @Test
    void projectionReadsColumnsByPositionInThePhysicalRecord() throws Exception {
        RowType physical = csvTypes();
        List<RowData> rows = new RandomRows(7, 0.15).rows(physical, 200);
        Options options = new Options().nullLiteral("N/A");
        List<byte[]> messages = flinkSerialize(physical, rows, options);
        RowType projected = FormatTestRows.project(physical, "r", "s", "dec_38_18", "ts9");
        assertSameDecoding(physical, projected, options, messages);
    }

    /**
     * Hand-written records at the edges of Jackson's CSV parser, which Flink's format reads them
     * with: what it skips before a record where comments are allowed, what it trims (Java's
     * {@code String.trim}: characters up to U+0020, not U+00A0) before reading an empty array or
     * row, and an escape character with nothing after it.
     */
    @Test
    void recordsAtTheParsersEdgesDecodeAsFlinkDecodesThem() throws Exception {
        RowType pair =
                (RowType) DataTypes.ROW(FIELD("s", DataTypes.STRING()), FIELD("i", DataTypes.INT())).notNull().getLogicalType();
        List<byte[]> commented = List.of(utf8("  x,1"), utf8("\n\ny,2"), utf8("# note\nz,3"), utf8("\t#a,4"),
                utf8(" # note\r\n w,5"), utf8("v,6"));
        assertSameDecoding(pair, pair, new Options().allowComments(), commented);

        RowType nested = (RowType) DataTypes.ROW(
                        FIELD("a", DataTypes.ARRAY(DataTypes.STRING())),
                        FIELD("r", DataTypes.ROW(FIELD("x", DataTypes.STRING()), FIELD("y", DataTypes.STRING()))))
                .notNull()
                .getLogicalType();
        List<byte[]> blank = List.of(utf8("\u00a0,p;q"), utf8("\u0001,p;q"), utf8("p;\u0001,\u0001"), utf8(" ,\u00a0;q"));
        assertSameDecoding(nested, nested, new Options(), blank);

        RowType texts =
                (RowType) DataTypes.ROW(FIELD("s", DataTypes.STRING()), FIELD("t", DataTypes.STRING())).notNull().getLogicalType();
        List<byte[]> escaped = List.of(utf8("x,y\\"), utf8("x,y\\,"), utf8("x\\,y,z"), utf8("\\n,\\t"));
        assertSameDecoding(texts, texts, new Options().escape('\\'), escaped);
    }

    @Test
    void encodesFlinksBytesForEveryOptionSet() throws Exception {
        RowType type = withoutFloatingPoint(csvTypes());
        long seed = 200;
        for (Options options : optionSets()) {
            List<RowData> rows = new RandomRows(++seed, 0.15).rows(type, 300);
            assertEncodesAsFlink(type, rows, options, flinkSerialize(type, rows, options));
        }
    }

    private void assertEncodesAsFlink(RowType type, List<RowData> rows, Options options, List<byte[]> expected) {
        try (NativeFormatEncoder encoder = NativeFormatEncoder.create(arrow.allocator(), "csv", options.table, type)) {
            List<byte[]> actual = encoder.encode(rows);
            for (int r = 0; r < rows.size(); r++) {
                assertThat(new String(actual.get(r), StandardCharsets.UTF_8))
                        .as("options %s, row %d", options.table, r)
                        .isEqualTo(new String(expected.get(r), StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * Jackson quotes a value by its characters alone, also where its text is the null literal:
     * only a NULL is written as the bare literal. With {@code \\N} or {@code (null)} as the
     * literal, a value or an array holding one NULL spelled as the literal is quoted (the
     * backslash and the parenthesis need it), so it tells itself apart from a NULL column.
     */
    @Test
    void aValueSpelledAsTheNullLiteralIsQuotedAsJacksonQuotesIt() throws Exception {
        RowType type =
                (RowType)
                        DataTypes.ROW(
                                        FIELD("s", DataTypes.STRING()),
                                        FIELD("a", DataTypes.ARRAY(DataTypes.INT())),
                                        FIELD("t", DataTypes.ARRAY(DataTypes.STRING())))
                                .notNull()
                                .getLogicalType();
        StringData literal = StringData.fromString("\\N");
        List<RowData> rows =
                List.of(
                        GenericRowData.of(literal, new GenericArrayData(new Integer[] {null}), new GenericArrayData(new Object[] {literal})),
                        GenericRowData.of(null, new GenericArrayData(new Integer[] {null, 1}), null),
                        GenericRowData.of(StringData.fromString("(null)"), null, new GenericArrayData(new Object[] {null})));
        for (Options options :
                List.of(new Options().nullLiteral("\\N"), new Options().nullLiteral("\\N").escape('\\'), new Options().nullLiteral("(null)"))) {
            List<byte[]> expected = flinkSerialize(type, rows, options);
            assertThat(new String(expected.get(0), StandardCharsets.UTF_8))
                    .as("Flink quotes a value spelled as the literal where its characters need it")
                    .startsWith("\"");
            assertEncodesAsFlink(type, rows, options, expected);
        }
    }

    @Test
    void badRecordsAreErrorsOrSkippedAndCounted() {
        RowType type =
                (RowType) DataTypes.ROW(FIELD("a", DataTypes.INT()), FIELD("b", DataTypes.STRING())).notNull().getLogicalType();
        List<byte[]> batch = List.of(utf8("1,x"), utf8("2,y,z"), utf8("oops,w"), utf8("\"unterminated,v"), utf8("5,\"q\"\"q\""));
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(arrow.allocator(), "csv", Map.of(), type)) {
            assertThatThrownBy(() -> decoder.decode(batch))
                    .isInstanceOf(NativeDecodeException.class)
                    .hasMessageContaining("record 1 of the batch")
                    .hasMessageContaining("Too many entries");
        }
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(arrow.allocator(), "csv", Map.of("ignore-parse-errors", "true"), type)) {
            ArrowColumnarBatch rows = ArrowColumnarBatch.of(decoder.decode(batch), type);
            // "oops" becomes a NULL field, as in Flink; the structurally bad records are skipped.
            assertThat(rows.rowCount()).isEqualTo(3);
            assertThat(rows.row(1).isNullAt(0)).isTrue();
            assertThat(rows.row(2).getString(1).toString()).isEqualTo("q\"q");
            assertThat(decoder.skipped()).isEqualTo(2);
        }
    }

    @Test
    void invalidOptionsAndTypesAreRejected() {
        RowType type = (RowType) DataTypes.ROW(FIELD("a", DataTypes.INT())).notNull().getLogicalType();
        assertThatThrownBy(() -> NativeFormatDecoder.create(arrow.allocator(), "csv", Map.of("field-delimiter", ";;"), type))
                .isInstanceOf(NativeConfigException.class)
                .hasMessage("Option 'csv.field-delimiter' must be a string with single character, but was: ;;");
        assertThatThrownBy(
                        () ->
                                NativeFormatDecoder.create(
                                        arrow.allocator(),
                                        "csv",
                                        Map.of("disable-quote-character", "true", "quote-character", "'"),
                                        type))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("cannot define a quote character and disabled quote character");
        RowType map =
                (RowType) DataTypes.ROW(FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))).notNull().getLogicalType();
        assertThatThrownBy(() -> NativeFormatEncoder.create(arrow.allocator(), "csv", Map.of(), map))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("Unsupported type");
    }

    private void assertSameDecoding(RowType physical, RowType produced, Options options, List<byte[]> messages)
            throws Exception {
        CsvRowDataDeserializationSchema.Builder builder =
                new CsvRowDataDeserializationSchema.Builder(physical, produced, InternalTypeInfo.of(produced));
        options.reader.forEach(setting -> setting.accept(builder));
        CsvRowDataDeserializationSchema flink = builder.build();
        flink.open(null);
        // Flink cannot read all it writes (an empty, NULL number without a null literal): each
        // message must be a row for both or an error for both.
        List<byte[]> readable = new ArrayList<>();
        List<RowData> expected = new ArrayList<>();
        int errors = 0;
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(arrow.allocator(), "csv", options.table, physical, produced)) {
            for (byte[] message : messages) {
                RowData row;
                try {
                    row = flink.deserialize(message);
                } catch (java.io.IOException e) {
                    errors++;
                    assertThatThrownBy(() -> decoder.decode(List.of(message)))
                            .as("Flink rejects %s", new String(message, StandardCharsets.UTF_8))
                            .isInstanceOfSatisfying(NativeDecodeException.class, failure -> {
                                assertThat(failure.position()).isZero();
                                assertThat(failure.getMessage()).isNotBlank();
                            });
                    continue;
                }
                readable.add(message);
                expected.add(row);
            }
            List<List<Object>> actual = FormatTestRows.rows(decoder.decode(readable), produced);
            RowDataValues.assertSameRows(actual, RowDataValues.ofRows(expected, produced));
        }
        assertThat(expected.size()).as("rows both read (%d rejected by both)", errors).isGreaterThan(messages.size() / 4);
    }

    /** The rows as Flink's CSV format writes them with its default options. */
    static List<byte[]> flinkSerialize(RowType type, List<RowData> rows) throws Exception {
        return flinkSerialize(type, rows, new Options());
    }

    private static List<byte[]> flinkSerialize(RowType type, List<RowData> rows, Options options) throws Exception {
        CsvRowDataSerializationSchema.Builder builder = new CsvRowDataSerializationSchema.Builder(type);
        options.writer.forEach(setting -> setting.accept(builder));
        CsvRowDataSerializationSchema serializer = builder.build();
        serializer.open(null);
        List<byte[]> out = new ArrayList<>();
        for (RowData row : rows) {
            out.add(serializer.serialize(row));
        }
        return out;
    }

    private static RowType withoutFloatingPoint(RowType type) {
        List<RowType.RowField> fields = new ArrayList<>();
        for (RowType.RowField field : type.getFields()) {
            if (!LogicalTypeChecks.hasNested(
                    field.getType(), t -> t.is(LogicalTypeRoot.FLOAT) || t.is(LogicalTypeRoot.DOUBLE))) {
                fields.add(field);
            }
        }
        return new RowType(false, fields);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
