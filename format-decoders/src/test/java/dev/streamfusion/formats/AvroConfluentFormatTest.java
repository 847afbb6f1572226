package dev.streamfusion.formats;

import dev.streamfusion.bridge.NativeDecodeException;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.bridge.testing.RowDataValues;
import dev.streamfusion.formats.registry.SchemaRegistryException;
import dev.streamfusion.testkit.registry.SchemaRegistryServer;

import org.apache.flink.formats.avro.AvroFormatOptions.AvroEncoding;
import org.apache.flink.formats.avro.AvroRowDataDeserializationSchema;
import org.apache.flink.formats.avro.AvroRowDataSerializationSchema;
import org.apache.flink.formats.avro.AvroToRowDataConverters;
import org.apache.flink.formats.avro.typeutils.AvroSchemaConverter;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;


import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native {@code avro-confluent} decoder against a real HTTP schema registry on localhost:
 * Confluent framing, writer schemas fetched once per id, and Avro schema resolution equal to what
 * Flink computes (Avro's resolving reader, then Flink's converters).
 */
class AvroConfluentFormatTest {

    private SchemaRegistryServer registry;
    private BufferAllocator allocator;

    @BeforeEach
    void start() throws IOException {
        allocator = new RootAllocator();
        registry = SchemaRegistryServer.start();
    }

    @AfterEach
    void stop() {
        registry.close();
        allocator.close();
    }

    @Test
    void decodesFlinkDatumsWithTheirRegisteredSchemaAndCachesIt() throws Exception {
        RowType type = AvroFormatParityTest.avroTypes(true);
        int id = registry.register("bids-value", AvroSchemaConverter.convertToSchema(type).toString());
        AvroRowDataSerializationSchema flinkWriter = new AvroRowDataSerializationSchema(type, AvroEncoding.BINARY, true);
        flinkWriter.open(null);
        AvroRowDataDeserializationSchema flinkReader =
                new AvroRowDataDeserializationSchema(type, InternalTypeInfo.of(type), AvroEncoding.BINARY, true);
        flinkReader.open(null);

        List<RowData> rows = new RandomRows(41, 0.2).rows(type, 200);
        List<byte[]> messages = new ArrayList<>();
        List<RowData> expected = new ArrayList<>();
        for (RowData row : rows) {
            byte[] datum = flinkWriter.serialize(row);
            messages.add(framed(id, datum));
            expected.add(flinkReader.deserialize(datum));
        }
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(allocator, "avro-confluent", options(), type)) {
            RowDataValues.assertSameRows(read(decoder.decode(messages.subList(0, 100)), type), RowDataValues.ofRows(expected.subList(0, 100), type));
            RowDataValues.assertSameRows(read(decoder.decode(messages.subList(100, 200)), type), RowDataValues.ofRows(expected.subList(100, 200), type));
        }
        assertThat(registry.requests()).as("one registry request for the one schema id").isEqualTo(1);
    }

    @Test
    void resolvesAnEvolvedWriterSchemaAsFlinkDoes() throws Exception {
        RowType table =
                (RowType)
                        DataTypes.ROW(
                                        FIELD("name", DataTypes.STRING()),
                                        FIELD("id", DataTypes.BIGINT().notNull()),
                                        FIELD("score", DataTypes.DOUBLE()),
                                        FIELD("added", DataTypes.INT()))
                                .notNull()
                                .getLogicalType();
        Schema writer =
                new Schema.Parser()
                        .parse(
                                "{\"type\":\"record\",\"name\":\"v1\",\"fields\":["
                                        + "{\"name\":\"id\",\"type\":\"int\"},"
                                        + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
                                        + "{\"name\":\"name\",\"type\":[\"null\",\"string\"],\"default\":null},"
                                        + "{\"name\":\"score\",\"type\":[\"null\",\"float\"],\"default\":null}]}");
        int id = registry.register("evolved-value", writer.toString());
        Schema reader = AvroSchemaConverter.convertToSchema(table);
        AvroToRowDataConverters.AvroToRowDataConverter converter = AvroToRowDataConverters.createRowConverter(table);

        List<byte[]> messages = new ArrayList<>();
        List<RowData> expected = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            GenericRecord record = new GenericData.Record(writer);
            record.put("id", i - 25);
            record.put("tags", List.of("t" + i, "u"));
            record.put("name", i % 3 == 0 ? null : "name-" + i);
            record.put("score", i % 4 == 0 ? null : i * 1.5f);
            byte[] datum = write(writer, record);
            messages.add(framed(id, datum));
            GenericRecord resolved =
                    new GenericDatumReader<GenericRecord>(writer, reader)
                            .read(null, DecoderFactory.get().binaryDecoder(datum, null));
            expected.add((RowData) converter.convert(resolved));
        }
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(allocator, "avro-confluent", options(), table)) {
            RowDataValues.assertSameRows(read(decoder.decode(messages), table), RowDataValues.ofRows(expected, table));
        }
    }

    /**
     * Avro's resolution promotes no enum and no fixed into the string, bytes or decimal schemas
     * Flink derives, and no long into an int: Flink's reader fails on such a record, and so does
     * the native decoder, also where the query does not read the column (Flink resolves its whole
     * physical row). A string promoted to bytes reads into a DECIMAL as Flink reads it.
     */
    @Test
    void resolvesEnumsFixedAndPromotionsAsFlinkDoes() throws Exception {
        RowType table =
                (RowType)
                        DataTypes.ROW(
                                        FIELD("id", DataTypes.INT().notNull()),
                                        FIELD("kind", DataTypes.STRING()),
                                        FIELD("tag", DataTypes.BYTES()),
                                        FIELD("amount", DataTypes.DECIMAL(10, 2)),
                                        FIELD("count", DataTypes.INT()))
                                .notNull()
                                .getLogicalType();
        RowType idOnly = (RowType) DataTypes.ROW(FIELD("id", DataTypes.INT().notNull())).notNull().getLogicalType();
        Schema reader = AvroSchemaConverter.convertToSchema(table);
        AvroToRowDataConverters.AvroToRowDataConverter converter = AvroToRowDataConverters.createRowConverter(table);
        Map<String, Object> values =
                Map.of(
                        "{\"type\":\"enum\",\"name\":\"Kind\",\"symbols\":[\"A\",\"B\"]}", "B",
                        "{\"type\":\"fixed\",\"name\":\"Tag\",\"size\":2}", new byte[] {1, 2},
                        "{\"type\":\"fixed\",\"name\":\"Amount\",\"size\":2,\"logicalType\":\"decimal\","
                                + "\"precision\":4,\"scale\":2}", new byte[] {4, (byte) 0xd2},
                        "\"string\"", "\u04d2",
                        "\"long\"", 7L);
        Map<String, String> fields =
                Map.of(
                        "{\"type\":\"enum\",\"name\":\"Kind\",\"symbols\":[\"A\",\"B\"]}", "kind",
                        "{\"type\":\"fixed\",\"name\":\"Tag\",\"size\":2}", "tag",
                        "{\"type\":\"fixed\",\"name\":\"Amount\",\"size\":2,\"logicalType\":\"decimal\","
                                + "\"precision\":4,\"scale\":2}", "amount",
                        "\"string\"", "amount",
                        "\"long\"", "count");
        int read = 0;
        for (Map.Entry<String, Object> value : values.entrySet()) {
            String field = fields.get(value.getKey());
            Schema writer =
                    new Schema.Parser()
                            .parse(
                                    "{\"type\":\"record\",\"name\":\"w\",\"fields\":["
                                            + "{\"name\":\"id\",\"type\":\"int\"},"
                                            + "{\"name\":\"" + field + "\",\"type\":" + value.getKey() + "}]}");
            int id = registry.register("resolved-" + read++ + "-value", writer.toString());
            GenericRecord record = new GenericData.Record(writer);
            record.put("id", 3);
            Schema fieldSchema = writer.getField(field).schema();
            Object avroValue = value.getValue();
            if (fieldSchema.getType() == Schema.Type.ENUM) {
                avroValue = new GenericData.EnumSymbol(fieldSchema, avroValue);
            } else if (fieldSchema.getType() == Schema.Type.FIXED) {
                avroValue = new GenericData.Fixed(fieldSchema, (byte[]) avroValue);
            }
            record.put(field, avroValue);
            byte[] datum = write(writer, record);
            RowData flinkRow;
            try {
                GenericRecord resolved =
                        new GenericDatumReader<GenericRecord>(writer, reader)
                                .read(null, DecoderFactory.get().binaryDecoder(datum, null));
                flinkRow = (RowData) converter.convert(resolved);
            } catch (org.apache.avro.AvroTypeException e) {
                flinkRow = null;
            }
            String what = field + " written as " + value.getKey();
            boolean flinkReads = field.equals("amount") && fieldSchema.getType() == Schema.Type.STRING;
            assertThat(flinkRow != null).as("Flink reads %s", what).isEqualTo(flinkReads);
            for (RowType produced : List.of(table, idOnly)) {
                try (NativeFormatDecoder decoder =
                        NativeFormatDecoder.create(allocator, "avro-confluent", options(), table, produced)) {
                    List<byte[]> message = List.of(framed(id, datum));
                    if (flinkRow == null) {
                        assertThatThrownBy(() -> decoder.decode(message))
                                .as("%s into %s", what, produced)
                                .isInstanceOf(NativeDecodeException.class)
                                .hasMessageContaining("field '" + field + "'");
                    } else {
                        RowData expected = produced == table ? flinkRow : GenericRowData.of(flinkRow.getInt(0));
                        RowDataValues.assertSameRows(
                                read(decoder.decode(message), produced), RowDataValues.ofRows(List.of(expected), produced));
                    }
                }
            }
        }
    }

    @Test
    void sinkRegistersFlinksDerivedSchemaAndFramesItsDatums() throws Exception {
        RowType type = AvroFormatParityTest.avroTypes(true);
        List<RowData> rows = new RandomRows(42, 0.2).rows(type, 200);
        Map<String, String> options = Map.of("url", registryUrl(), "subject", "bids-value");
        List<byte[]> messages;
        try (NativeFormatEncoder encoder = NativeFormatEncoder.create(allocator, "avro-confluent", options, type)) {
            messages = encoder.encode(rows);
        }
        assertThat(registry.subjects()).containsExactly("bids-value");
        int id = registry.latestId("bids-value");
        assertThat(new Schema.Parser().parse(registry.schema(id)))
                .as("the registered schema is the one Flink derives")
                .isEqualTo(AvroSchemaConverter.convertToSchema(type));

        AvroRowDataSerializationSchema flinkWriter = new AvroRowDataSerializationSchema(type, AvroEncoding.BINARY, true);
        flinkWriter.open(null);
        AvroRowDataDeserializationSchema flinkReader =
                new AvroRowDataDeserializationSchema(type, InternalTypeInfo.of(type), AvroEncoding.BINARY, true);
        flinkReader.open(null);
        List<RowData> fromNative = new ArrayList<>();
        List<RowData> fromFlink = new ArrayList<>();
        for (int r = 0; r < rows.size(); r++) {
            ByteBuffer message = ByteBuffer.wrap(messages.get(r));
            assertThat(message.get()).isZero();
            assertThat(message.getInt()).isEqualTo(id);
            byte[] datum = new byte[message.remaining()];
            message.get(datum);
            fromNative.add(flinkReader.deserialize(datum));
            fromFlink.add(flinkReader.deserialize(flinkWriter.serialize(rows.get(r))));
        }
        RowDataValues.assertSameRows(RowDataValues.ofRows(fromNative, type), RowDataValues.ofRows(fromFlink, type));

        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(allocator, "avro-confluent", options(), type)) {
            RowDataValues.assertSameRows(read(decoder.decode(messages), type), RowDataValues.ofRows(fromFlink, type));
        }
    }

    /**
     * As Confluent's client takes them: several registries in {@code avro-confluent.url} (calls
     * go on past one that cannot be reached), and a subject sent as one path segment (a space as
     * {@code %20}, which the registry reads back as a space).
     */
    @Test
    void registriesAreTriedInTurnAndSubjectsKeepTheirSpelling() throws Exception {
        int closed;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        String urls = "http://127.0.0.1:" + closed + ", " + registryUrl() + "/";
        RowType type = (RowType) DataTypes.ROW(FIELD("a", DataTypes.BIGINT())).notNull().getLogicalType();
        List<RowData> rows = new RandomRows(3, 0.2).rows(type, 20);
        List<byte[]> messages;
        try (NativeFormatEncoder encoder =
                NativeFormatEncoder.create(allocator, "avro-confluent", Map.of("url", urls, "subject", "my bids+x-value"), type)) {
            messages = encoder.encode(rows);
        }
        assertThat(registry.subjects()).containsExactly("my bids+x-value");
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(allocator, "avro-confluent", Map.of("url", urls), type)) {
            RowDataValues.assertSameRows(read(decoder.decode(messages), type), RowDataValues.ofRows(rows, type));
        }
        try (NativeFormatDecoder decoder =
                NativeFormatDecoder.create(
                        allocator, "avro-confluent", Map.of("url", "http://127.0.0.1:" + closed + ",http://127.0.0.1:" + closed), type)) {
            assertThatThrownBy(() -> decoder.decode(messages.subList(0, 1)))
                    .isInstanceOf(SchemaRegistryException.class)
                    .hasMessageContaining("could not be reached for schema id");
        }
    }

    @Test
    void sinkWithoutSubjectIsAClearError() {
        RowType table = (RowType) DataTypes.ROW(FIELD("a", DataTypes.BIGINT())).notNull().getLogicalType();
        assertThatThrownBy(() -> NativeFormatEncoder.create(allocator, "avro-confluent", options(), table))
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("'avro-confluent.subject' is required");
    }

    @Test
    void unknownSchemaIdsAndBadFramingAreClearErrors() {
        RowType table = (RowType) DataTypes.ROW(FIELD("a", DataTypes.BIGINT())).notNull().getLogicalType();
        try (NativeFormatDecoder decoder = NativeFormatDecoder.create(allocator, "avro-confluent", options(), table)) {
            assertThatThrownBy(() -> decoder.decode(List.of(framed(99, new byte[] {2}))))
                    .isInstanceOf(SchemaRegistryException.class)
                    .hasMessageContaining("answered 404 for schema id 99")
                    .hasMessageContaining(registryUrl());
            assertThatThrownBy(() -> decoder.decode(List.of(new byte[] {7, 0, 0, 0, 1, 2})))
                    .isInstanceOf(NativeDecodeException.class)
                    .hasMessageContaining("Unknown magic byte 7");
        }
    }

    private Map<String, String> options() {
        return Map.of("url", registryUrl());
    }

    private String registryUrl() {
        return registry.url();
    }

    private static List<List<Object>> read(org.apache.arrow.vector.VectorSchemaRoot root, RowType type) {
        List<List<Object>> rows = FormatTestRows.rows(root, type);
        return rows;
    }

    private static byte[] framed(int id, byte[] datum) {
        return ByteBuffer.allocate(5 + datum.length).put((byte) 0).putInt(id).put(datum).array();
    }

    private static byte[] write(Schema schema, GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
