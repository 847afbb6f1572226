package dev.streamfusion.formats;

import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.formats.testing.MalformedMessage;
import dev.streamfusion.testkit.registry.SchemaRegistryServer;

import org.apache.flink.formats.avro.AvroRowDataDeserializationSchema;
import org.apache.flink.formats.avro.AvroToRowDataConverters;
import org.apache.flink.formats.avro.RegistryAvroDeserializationSchema;
import org.apache.flink.formats.avro.SchemaCoder;
import org.apache.flink.formats.avro.typeutils.AvroSchemaConverter;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Damaged Confluent-framed Avro messages (the frame and the datum), message by message, through
 * Flink's registry Avro deserializer and through StreamFusion's {@code avro-confluent} decoder
 * against the same registry: the same rows and the same failures.
 *
 * <p>Flink's side is its own {@link RegistryAvroDeserializationSchema} and converters, as Flink's
 * {@code avro-confluent} format builds them; only the registry lookup is this test's, reading the
 * frame as Flink's Confluent coder does (a zero magic byte, a four-byte schema id) and looking the
 * id up in the registry this test runs, since Confluent's registry client is not on Maven Central.
 * Frames naming an unknown schema id fail both as registry errors (see {@code
 * AvroConfluentFormatTest}), not as malformed records, and are left out here.
 */
class AvroConfluentMalformedInputTest {

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    private static final RowType TYPE = AvroFormatParityTest.avroTypes(true);

    private static SchemaRegistryServer registry;
    private static int id;

    @BeforeAll
    static void start() throws IOException {
        registry = SchemaRegistryServer.start();
        id = registry.register("malformed-value", AvroSchemaConverter.convertToSchema(TYPE).toString());
    }

    @AfterAll
    static void stop() {
        registry.close();
    }

    /** Flink's datums of random rows, unframed. */
    private static List<MalformedMessage> datums() throws Exception {
        List<MalformedMessage> datums = new ArrayList<>();
        List<byte[]> serialized = AvroFormatParityTest.flinkSerialize(TYPE, new RandomRows(23, 0.2).rows(TYPE, 40), true);
        for (int i = 0; i < serialized.size(); i++) {
            datums.add(new MalformedMessage("valid datum " + i, serialized.get(i)));
        }
        return datums;
    }

    private static byte[] framed(int schemaId, byte[] datum) {
        return ByteBuffer.allocate(5 + datum.length).put((byte) 0).putInt(schemaId).put(datum).array();
    }

    private static List<MalformedMessage> framed(List<MalformedMessage> datums) {
        List<MalformedMessage> framed = new ArrayList<>();
        for (MalformedMessage datum : datums) {
            framed.add(new MalformedMessage(datum.name, framed(id, datum.bytes)));
        }
        return framed;
    }

    private static List<MalformedMessage> corpus() throws Exception {
        List<MalformedMessage> datums = datums();
        List<MalformedMessage> corpus = new ArrayList<>(framed(datums));
        byte[] good = datums.get(0).bytes;
        byte[] frame = framed(id, good);
        corpus.add(new MalformedMessage("empty", new byte[0]));
        corpus.add(new MalformedMessage("a magic byte alone", new byte[] {0}));
        corpus.add(new MalformedMessage("a frame cut inside the schema id", Arrays.copyOf(frame, 3)));
        corpus.add(new MalformedMessage("a frame without a datum", Arrays.copyOf(frame, 5)));
        byte[] magic = frame.clone();
        magic[0] = 1;
        corpus.add(new MalformedMessage("magic byte 1", magic));
        corpus.add(new MalformedMessage("a datum cut in half", framed(id, Arrays.copyOf(good, good.length / 2))));
        corpus.add(new MalformedMessage("a datum one byte short", framed(id, Arrays.copyOf(good, good.length - 1))));
        corpus.add(new MalformedMessage("bytes after the datum", framed(id, Arrays.copyOf(good, good.length + 3))));
        byte[] union = good.clone();
        union[0] = 0x7f;
        corpus.add(new MalformedMessage("union index out of range", framed(id, union)));
        byte[] endless = new byte[good.length];
        Arrays.fill(endless, (byte) 0xff);
        corpus.add(new MalformedMessage("a varint that never ends", framed(id, endless)));
        return corpus;
    }

    @Test
    void everyMessageMeansWhatItMeansToFlink() throws Exception {
        int[][] all = MalformedInputParity.everyColumn(TYPE);
        Set<String> deferred = parity(all).assertSameOutcomes(corpus());
        for (MalformedMessage message : datums()) {
            assertThat(deferred).as("read natively").doesNotContain(message.name);
        }
    }

    @Test
    void randomlyDamagedDatumsMeanWhatTheyMeanToFlink() throws Exception {
        int[][] some = {{3}, {12}, {21}, {25}};
        parity(some).assertSameOutcomesReadingSeedsNatively(
                framed(datums()), framed(MalformedInputParity.mutations(datums(), 3000, 29)));
    }

    private MalformedInputParity parity(int[][] projection) {
        Schema reader = AvroSchemaConverter.convertToSchema(TYPE);
        return new MalformedInputParity(
                arrow.allocator(),
                "avro-confluent",
                Map.of("url", registry.url()),
                TYPE,
                projection,
                ignore ->
                        new AvroRowDataDeserializationSchema(
                                new RegistryAvroDeserializationSchema<>(GenericRecord.class, reader, RegistryCoder::new),
                                AvroToRowDataConverters.createRowConverter(TYPE),
                                InternalTypeInfo.of(TYPE)));
    }

    /** The frame as Flink's Confluent coder reads it; the schema from this test's registry. */
    private static final class RegistryCoder implements SchemaCoder {

        @Override
        public Schema readSchema(InputStream in) throws IOException {
            DataInputStream data = new DataInputStream(in);
            if (data.readByte() != 0) {
                throw new IOException("Unknown data format. Magic number does not match");
            }
            int schemaId = data.readInt();
            String schema = registry.schema(schemaId);
            if (schema == null) {
                throw new IOException("Could not find schema with id " + schemaId + " in registry");
            }
            return new Schema.Parser().parse(schema);
        }

        @Override
        public void writeSchema(Schema schema, OutputStream out) {
            throw new UnsupportedOperationException("reads only");
        }
    }
}
