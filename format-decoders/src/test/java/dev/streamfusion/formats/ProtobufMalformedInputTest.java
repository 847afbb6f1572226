package dev.streamfusion.formats;

import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.formats.testing.MalformedMessage;
import dev.streamfusion.formats.testproto.Everything;
import dev.streamfusion.formats.testproto2.LegacyProto.Legacy;

import org.apache.flink.formats.protobuf.PbFormatConfig;
import org.apache.flink.formats.protobuf.deserialize.PbRowDataDeserializationSchema;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Truncated, padded and damaged protobuf messages, one by one, through Flink's protobuf format
 * and through StreamFusion's: the same rows and the same failures, with {@code
 * ignore-parse-errors} off and on, for proto3 and proto2 messages and both settings of {@code
 * read-default-values}.
 */
class ProtobufMalformedInputTest {

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    private static RowType type(boolean proto2) {
        return proto2 ? ProtobufFormatParityTest.legacyType() : ProtobufFormatParityTest.everythingType(false);
    }

    private static String messageClass(boolean proto2) {
        return (proto2 ? Legacy.class : Everything.class).getName();
    }

    /** Flink's own messages of random rows: the seeds, read natively. */
    private static List<MalformedMessage> valid(boolean proto2) throws Exception {
        RowType type = type(proto2);
        List<MalformedMessage> valid = new ArrayList<>();
        List<byte[]> messages =
                ProtobufEncoderParityTest.flinkSerialize(
                        type, messageClass(proto2), "", new RandomRows(21, 0.2).rows(type, 40));
        for (int i = 0; i < messages.size(); i++) {
            valid.add(new MalformedMessage("valid message " + i, messages.get(i)));
        }
        return valid;
    }

    private static List<MalformedMessage> corpus(boolean proto2) throws Exception {
        List<MalformedMessage> corpus = new ArrayList<>(valid(proto2));
        byte[] good = corpus.get(0).bytes;
        corpus.add(new MalformedMessage("empty", new byte[0]));
        corpus.add(new MalformedMessage("cut in half", Arrays.copyOf(good, good.length / 2)));
        corpus.add(new MalformedMessage("one byte short", Arrays.copyOf(good, good.length - 1)));
        corpus.add(new MalformedMessage("a zero byte after", Arrays.copyOf(good, good.length + 1)));
        corpus.add(new MalformedMessage("field number zero", new byte[] {0x00, 0x01}));
        corpus.add(new MalformedMessage("end group without start", new byte[] {0x0c}));
        corpus.add(new MalformedMessage("wire type 6", new byte[] {0x0e, 0x01}));
        corpus.add(new MalformedMessage("a length past the end", new byte[] {0x72, 0x7f, 0x41}));
        corpus.add(new MalformedMessage("a varint that never ends", new byte[] {0x08, (byte) 0xff, (byte) 0xff}));
        // Field 14 (a string in proto3's message) holding bytes that are not UTF-8.
        corpus.add(new MalformedMessage("a string that is not UTF-8", new byte[] {0x72, 0x02, (byte) 0xc3, 0x28}));
        // An int32 field as a 64-bit varint, and a repeated field the message does not repeat.
        corpus.add(new MalformedMessage("a wide varint", new byte[] {0x08, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x01}));
        byte[] twice = new byte[good.length * 2];
        System.arraycopy(good, 0, twice, 0, good.length);
        System.arraycopy(good, 0, twice, good.length, good.length);
        corpus.add(new MalformedMessage("the same fields twice", twice));
        // Both members of oneof choice (cs = 24, ci = 25), in each order: protobuf-java keeps the last.
        corpus.add(new MalformedMessage("string then int of one oneof",
                new byte[] {(byte) 0xc2, 0x01, 0x01, 0x78, (byte) 0xc8, 0x01, 0x04}));
        corpus.add(new MalformedMessage("int then string of one oneof",
                new byte[] {(byte) 0xc8, 0x01, 0x04, (byte) 0xc2, 0x01, 0x01, 0x78}));
        return corpus;
    }

    @ParameterizedTest
    @CsvSource({"false, false", "false, true", "true, false", "true, true"})
    void everyMessageMeansWhatItMeansToFlink(boolean proto2, boolean readDefaults) throws Exception {
        RowType type = type(proto2);
        int[][] all = MalformedInputParity.everyColumn(type);
        Set<String> deferred = parity(proto2, readDefaults, all).assertSameOutcomes(corpus(proto2));
        for (MalformedMessage message : valid(proto2)) {
            assertThat(deferred).as("read natively").doesNotContain(message.name);
        }
    }

    @ParameterizedTest
    @CsvSource({"false, false", "true, true"})
    void randomlyDamagedMessagesMeanWhatTheyMeanToFlink(boolean proto2, boolean readDefaults) throws Exception {
        int[][] some = proto2 ? new int[][] {{1}, {3}, {5}} : new int[][] {{13}, {16}, {19}, {24}};
        parity(proto2, readDefaults, some)
                .assertSameOutcomesReadingSeedsNatively(valid(proto2), MalformedInputParity.mutations(valid(proto2), 5000, 19));
    }

    private MalformedInputParity parity(boolean proto2, boolean readDefaults, int[][] projection) {
        RowType type = type(proto2);
        String messageClass = messageClass(proto2);
        // Flink's protobuf deserializer parses each message into a new message object and converts
        // it with static generated code: a failed message leaves nothing behind, and opening one
        // compiles that code, so one serves every message of a mode.
        return new MalformedInputParity(
                        arrow.allocator(),
                        "protobuf",
                        Map.of("message-class-name", messageClass, "read-default-values", String.valueOf(readDefaults)),
                        type,
                        projection,
                        ignore ->
                                new PbRowDataDeserializationSchema(
                                        type, InternalTypeInfo.of(type), new PbFormatConfig(messageClass, ignore, readDefaults, "")))
                .ofAStatelessFormat();
    }
}
