package dev.streamfusion.formats;

import dev.streamfusion.bridge.NativeConfigException;
import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.bridge.columnar.ArrowColumnarBatch;
import dev.streamfusion.bridge.columnar.NestedProjection;
import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.RowDataValues;
import dev.streamfusion.bridge.testing.TestSchemas;

import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native JSON decoder against Flink's own JSON format on the same bytes: Flink serializes
 * random rows of every type JSON supports, both Flink's default deserializer and the native
 * decoder read the bytes back, and the rows must be equal value by value.
 */
class JsonFormatParityTest {

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    /** Every type of the bridge's test schema that Flink's JSON format supports. */
    static RowType jsonTypes() {
        RowType all = TestSchemas.allTypes();
        List<DataTypes.Field> fields = new ArrayList<>();
        Set<String> unsupported = Set.of("m_dec", "deep");
        for (RowType.RowField field : all.getFields()) {
            if (!unsupported.contains(field.getName())) {
                fields.add(FIELD(field.getName(), DataTypes.of(field.getType())));
            }
        }
        fields.add(FIELD("m_str", DataTypes.MAP(DataTypes.STRING(), DataTypes.DECIMAL(10, 2))));
        fields.add(
                FIELD(
                        "deep",
                        DataTypes.ARRAY(
                                DataTypes.MAP(
                                        DataTypes.STRING(),
                                        DataTypes.ROW(
                                                FIELD("q", DataTypes.ARRAY(DataTypes.INT())),
                                                FIELD("bin", DataTypes.BYTES()),
                                                FIELD("ms", DataTypes.MULTISET(DataTypes.STRING())))))));
        return (RowType) DataTypes.ROW(fields.toArray(new DataTypes.Field[0])).notNull().getLogicalType();
    }

    @Test
    void decodesWhatFlinkDecodesSqlTimestamps() throws Exception {
        assertParity(jsonTypes(), TimestampFormat.SQL, Map.of(), 1);
    }

    @Test
    void decodesWhatFlinkDecodesIsoTimestamps() throws Exception {
        assertParity(jsonTypes(), TimestampFormat.ISO_8601, Map.of("timestamp-format.standard", "ISO-8601"), 2);
    }

    @Test
    void projectionReadsOnlyTheRequestedColumnsOfTheSameBytes() throws Exception {
        RowType full = jsonTypes();
        List<byte[]> messages = serialize(full, new RandomRows(3, 0.2).rows(full, 200), TimestampFormat.SQL);
        RowType projected = FormatTestRows.project(full, "deep", "s", "dec_38_18", "ts9", "r");

        assertSameDecoding(projected, TimestampFormat.SQL, Map.of(), messages);
    }

    @Test
    void nestedProjectionDecodesOnlyTheReachedFields() throws Exception {
        RowType full = jsonTypes();
        List<byte[]> messages = serialize(full, new RandomRows(4, 0.2).rows(full, 200), TimestampFormat.SQL);
        int r = full.getFieldIndex("r");
        int[][] paths = {
            {r, 2, 0}, // r.z.zz: two levels down
            {full.getFieldIndex("s")},
            {r, 1}, // r.y
            {r, 2}, // r.z as a whole row
            {full.getFieldIndex("deep")}
        };
        NestedProjection projection = NestedProjection.of(full, paths);
        String[][] names = new String[paths.length][];
        for (int p = 0; p < paths.length; p++) {
            names[p] = new String[paths[p].length];
            RowType type = full;
            for (int d = 0; d < paths[p].length; d++) {
                names[p][d] = type.getFieldNames().get(paths[p][d]);
                if (d < paths[p].length - 1) {
                    type = (RowType) type.getTypeAt(paths[p][d]);
                }
            }
        }
        RowType produced = projection.producedType();
        JsonParserRowDataDeserializationSchema flink =
                new JsonParserRowDataDeserializationSchema(
                        produced, InternalTypeInfo.of(produced), false, false, TimestampFormat.SQL, names);
        flink.open(null);
        List<RowData> decoded = new ArrayList<>();
        ListCollector<RowData> collector = new ListCollector<>(decoded);
        for (byte[] message : messages) {
            flink.deserialize(message, collector);
        }

        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(arrow.allocator(), "json", Map.of(), full, projection.prunedType())) {
            assertThat(projection.prunedType().getFieldCount()).isEqualTo(3);
            ArrowColumnarBatch batch = ArrowColumnarBatch.of(decoder.decode(messages), projection);
            List<List<Object>> actual = new ArrayList<>();
            for (int row = 0; row < batch.rowCount(); row++) {
                actual.add(RowDataValues.ofRow(batch.row(row), produced));
            }
            RowDataValues.assertSameRows(actual, RowDataValues.ofRows(decoded, produced));
        }
    }

    @Test
    void malformedMessageIsAnErrorNamingItsPosition() {
        RowType type = (RowType) DataTypes.ROW(FIELD("a", DataTypes.BIGINT())).notNull().getLogicalType();
        List<byte[]> batch = List.of(utf8("{\"a\": 1}"), utf8("{\"a\": 2}"), utf8("{\"a\": oops}"));
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(arrow.allocator(), "json", Map.of(), type)) {
            assertThatThrownBy(() -> decoder.decode(batch))
                    .isInstanceOf(NativeDecodeException.class)
                    .hasMessageContaining("record 2 of the batch")
                    .hasMessageContaining("{\"a\": oops}")
                    .satisfies(e -> assertThat(((NativeDecodeException) e).position()).isEqualTo(2));
            // The decoder is still usable and kept nothing of the failed batch.
            assertThat(decoder.decode(List.of(utf8("{\"a\": 3}"))).getRowCount()).isEqualTo(1);
        }
    }

    /**
     * A message giving a NOT NULL column no value (missing or {@code null}): Flink's format makes
     * a row holding a NULL there, which no Arrow batch can hold, so the native decoder fails the
     * message naming it and the column (a connector then hands it to Flink's format), or skips
     * and counts it under ignore-parse-errors.
     */
    @Test
    void aMessageWithoutAValueForANotNullColumnIsTheMessagesError() throws Exception {
        RowType type =
                (RowType)
                        DataTypes.ROW(FIELD("a", DataTypes.BIGINT().notNull()), FIELD("b", DataTypes.STRING()))
                                .notNull()
                                .getLogicalType();
        List<byte[]> batch = List.of(utf8("{\"a\": 1}"), utf8("{\"b\": \"x\"}"), utf8("{\"a\": null}"));
        JsonParserRowDataDeserializationSchema flink =
                new JsonParserRowDataDeserializationSchema(type, InternalTypeInfo.of(type), false, false, TimestampFormat.SQL);
        flink.open(null);
        List<RowData> decoded = new ArrayList<>();
        for (byte[] message : batch) {
            flink.deserialize(message, new ListCollector<>(decoded));
        }
        assertThat(decoded).extracting(row -> row.isNullAt(0)).containsExactly(false, true, true);

        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(arrow.allocator(), "json", Map.of(), type)) {
            assertThatThrownBy(() -> decoder.decode(batch))
                    .isInstanceOfSatisfying(NativeDecodeException.class, e -> assertThat(e.position()).isEqualTo(1))
                    .hasMessageContaining("record 1 of the batch")
                    .hasMessageContaining("the column 'a' is NOT NULL, but the record gives it no value");
            assertThat(decoder.decode(List.of(utf8("{\"a\": 3}"))).getRowCount()).isEqualTo(1);
        }
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(arrow.allocator(), "json", Map.of("ignore-parse-errors", "true"), type)) {
            assertThat(decoder.decode(batch).getRowCount()).isEqualTo(1);
            assertThat(decoder.skipped()).isEqualTo(2);
        }
    }

    @Test
    void ignoreParseErrorsSkipsAndCountsBadMessages() {
        RowType type = (RowType) DataTypes.ROW(FIELD("a", DataTypes.BIGINT())).notNull().getLogicalType();
        List<byte[]> batch = new ArrayList<>();
        batch.add(utf8("{\"a\": 1}"));
        batch.add(utf8("{\"a\": \"x\"}"));
        batch.add(null);
        batch.add(new byte[] {(byte) 0xff, '{'});
        batch.add(utf8("{\"a\": 4}"));
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(arrow.allocator(), "json", Map.of("ignore-parse-errors", "true"), type)) {
            VectorSchemaRoot rows = decoder.decode(batch);
            assertThat(rows.getRowCount()).isEqualTo(2);
            assertThat(decoder.skipped()).isEqualTo(2);
        }
    }

    @Test
    void rowStartsTellWhichRowsEachMessageGave() {
        RowType type = (RowType) DataTypes.ROW(FIELD("a", DataTypes.BIGINT())).notNull().getLogicalType();
        // A skipped message gives no row, an array one row per element (as in Flink).
        List<byte[]> batch =
                List.of(utf8("{\"a\": 1}"), utf8("oops"), utf8("[{\"a\": 2}, {\"a\": 3}]"), utf8("{\"a\": 4}"));
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(arrow.allocator(), "json", Map.of("ignore-parse-errors", "true"), type)) {
            int[] starts = new int[batch.size() + 1];
            assertThat(decoder.decode(batch, starts).getRowCount()).isEqualTo(4);
            assertThat(starts).containsExactly(0, 1, 1, 3, 4);
            assertThatThrownBy(() -> decoder.decode(batch, new int[batch.size()]))
                    .isInstanceOf(NativeConfigException.class)
                    .hasMessageContaining("row-start array");
        }
    }

    /**
     * A STRING given an object spells its floats as Flink's deserializer of the whole value row
     * decides, whatever columns the query reads (Flink's Kafka source pushes no projection into its
     * format): with a DECIMAL in the row as BigDecimals ({@code 1E+2}), else as doubles ({@code
     * 100.0}).
     */
    @Test
    void aStringOfAnObjectSpellsItsFloatsAsTheWholeRowDecides() throws Exception {
        List<byte[]> messages = List.of(
                utf8("{\"s\":{\"x\":100.0,\"y\":[1.50]},\"d\":1}"),
                // Integers as Jackson's tree holds them: -0 is 0, past 64 bits a BigInteger's digits.
                utf8("{\"s\":[18446744073709551616,-0,12,-9223372036854775809,9223372036854775808,1.5e3],\"d\":2}"));
        for (DataType d : List.of(DataTypes.DECIMAL(10, 2), DataTypes.BIGINT())) {
            RowType physical = (RowType) DataTypes.ROW(FIELD("s", DataTypes.STRING()), FIELD("d", d))
                    .notNull()
                    .getLogicalType();
            JsonParserRowDataDeserializationSchema flink = new JsonParserRowDataDeserializationSchema(
                    physical, InternalTypeInfo.of(physical), false, false, TimestampFormat.SQL,
                    physical.getFieldNames().stream().map(n -> new String[] {n}).toArray(String[][]::new));
            flink.open(null);
            List<RowData> decoded = new ArrayList<>();
            for (byte[] message : messages) {
                flink.deserialize(message, new ListCollector<>(decoded));
            }
            List<List<Object>> whole = RowDataValues.ofRows(decoded, physical);
            for (RowType produced : List.of(FormatTestRows.project(physical, "s"), physical)) {
                try (NativeFormatDecoder decoder =
                        NativeFormatDecoder.create(arrow.allocator(), "json", Map.of(), physical, produced)) {
                    List<List<Object>> actual = FormatTestRows.rows(decoder.decode(messages), produced);
                    RowDataValues.assertSameRows(actual, FormatTestRows.project(whole, physical, produced));
                }
            }
        }
    }

    /**
     * An integer token past a Java long, however close to its range, is an error for Flink (Jackson
     * reads it as a BigInteger) and for the native decoder; a float token at the range's edge is
     * read by both.
     */
    @Test
    void integersPastALongFailAsInFlink() throws Exception {
        RowType type = (RowType) DataTypes.ROW(FIELD("b", DataTypes.BIGINT())).notNull().getLogicalType();
        JsonParserRowDataDeserializationSchema flink =
                new JsonParserRowDataDeserializationSchema(type, InternalTypeInfo.of(type), false, false, TimestampFormat.SQL);
        flink.open(null);
        for (String past : List.of("-9223372036854775809", "-9223372036854775900", "9223372036854775808")) {
            byte[] message = utf8("{\"b\":" + past + "}");
            assertThatThrownBy(() -> flink.deserialize(message, new ListCollector<>(new ArrayList<>()))).as(past);
            try (NativeFormatDecoder decoder = NativeFormatDecoder.create(arrow.allocator(), "json", Map.of(), type)) {
                assertThatThrownBy(() -> decoder.decode(List.of(message)))
                        .as(past)
                        .isInstanceOfSatisfying(NativeDecodeException.class, e -> {
                            assertThat(e.position()).isZero();
                            assertThat(e.getMessage()).contains("(" + past + ") out of range of Java long");
                        });
            }
        }
        assertSameDecoding(type, TimestampFormat.SQL, Map.of(), List.of(utf8("{\"b\":-9223372036854775809.0}")));
    }

    @Test
    void invalidOptionsAreRejectedWhenTheDecoderIsCreated() {
        RowType type = (RowType) DataTypes.ROW(FIELD("a", DataTypes.BIGINT())).notNull().getLogicalType();
        assertThatThrownBy(
                        () ->
                                NativeFormatDecoder.create(
                                        arrow.allocator(),
                                        "json",
                                        Map.of("fail-on-missing-field", "true", "ignore-parse-errors", "true"),
                                        type))
                .isInstanceOf(NativeConfigException.class)
                .hasMessage("fail-on-missing-field and ignore-parse-errors shouldn't both be true.");
        RowType intKeys =
                (RowType)
                        DataTypes.ROW(FIELD("m", DataTypes.MAP(DataTypes.INT(), DataTypes.INT())))
                                .notNull()
                                .getLogicalType();
        assertThatThrownBy(() -> NativeFormatDecoder.create(arrow.allocator(), "json", Map.of(), intKeys))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("non-string as key type of map");
        // Flink's tree-model decoder spells some values its own way: read by Flink, not natively.
        assertThatThrownBy(
                        () -> NativeFormatDecoder.create(arrow.allocator(), "json", Map.of("decode.json-parser.enabled", "false"), type))
                .isInstanceOf(NativeConfigException.class)
                .hasMessageContaining("json.decode.json-parser.enabled");
        try (NativeFormatDecoder parser =
                NativeFormatDecoder.create(arrow.allocator(), "json", Map.of("decode.json-parser.enabled", "true"), type)) {
            assertThat(parser).isNotNull();
        }
    }

    private void assertParity(RowType type, TimestampFormat timestamps, Map<String, String> options, long seed)
            throws Exception {
        List<RowData> rows = new RandomRows(seed, 0.2).rows(type, 300);
        assertSameDecoding(type, timestamps, options, serialize(type, rows, timestamps));
    }

    private void assertSameDecoding(
            RowType type, TimestampFormat timestamps, Map<String, String> options, List<byte[]> messages)
            throws Exception {
        JsonParserRowDataDeserializationSchema flink =
                new JsonParserRowDataDeserializationSchema(
                        type, InternalTypeInfo.of(type), false, false, timestamps);
        flink.open(null);
        List<RowData> decoded = new ArrayList<>();
        ListCollector<RowData> collector = new ListCollector<>(decoded);
        for (byte[] message : messages) {
            flink.deserialize(message, collector);
        }
        assertThat(decoded).hasSize(messages.size());
        List<List<Object>> expected = RowDataValues.ofRows(decoded, type);

        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(arrow.allocator(), "json", options, type)) {
            VectorSchemaRoot root = decoder.decode(messages);
            List<List<Object>> actual = FormatTestRows.rows(root, type);
            RowDataValues.assertSameRows(actual, expected);
        }
    }

    private static List<byte[]> serialize(RowType type, List<RowData> rows, TimestampFormat timestamps)
            throws Exception {
        JsonRowDataSerializationSchema serializer =
                new JsonRowDataSerializationSchema(
                        type, timestamps, JsonFormatOptions.MapNullKeyMode.FAIL, "null", false, false);
        serializer.open(null);
        List<byte[]> messages = new ArrayList<>();
        for (RowData row : rows) {
            messages.add(serializer.serialize(row));
        }
        return messages;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
