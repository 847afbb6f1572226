package dev.streamfusion.formats;

import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.formats.testing.MalformedMessage;

import org.apache.flink.formats.avro.AvroFormatOptions.AvroEncoding;
import org.apache.flink.formats.avro.AvroRowDataDeserializationSchema;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Truncated, padded and damaged Avro datums, message by message, through Flink's Avro format and
 * through StreamFusion's: the same rows and the same failures.
 */
class AvroMalformedInputTest {

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    private static final RowType TYPE = AvroFormatParityTest.avroTypes(true);

    /** Flink's own datums of random rows: the seeds, read natively. */
    private static List<MalformedMessage> valid() throws Exception {
        List<MalformedMessage> valid = new ArrayList<>();
        List<byte[]> datums = AvroFormatParityTest.flinkSerialize(TYPE, new RandomRows(9, 0.2).rows(TYPE, 40), true);
        for (int i = 0; i < datums.size(); i++) {
            valid.add(new MalformedMessage("valid datum " + i, datums.get(i)));
        }
        return valid;
    }

    private static List<MalformedMessage> corpus() throws Exception {
        List<MalformedMessage> corpus = new ArrayList<>(valid());
        byte[] good = corpus.get(0).bytes;
        corpus.add(new MalformedMessage("empty", new byte[0]));
        corpus.add(new MalformedMessage("one byte", new byte[] {0}));
        corpus.add(new MalformedMessage("cut in half", Arrays.copyOf(good, good.length / 2)));
        corpus.add(new MalformedMessage("one byte short", Arrays.copyOf(good, good.length - 1)));
        corpus.add(new MalformedMessage("trailing bytes", Arrays.copyOf(good, good.length + 3)));
        byte[] badUnion = good.clone();
        badUnion[0] = 0x7f;
        corpus.add(new MalformedMessage("union index out of range", badUnion));
        byte[] negative = good.clone();
        negative[good.length / 3] = (byte) 0x81;
        corpus.add(new MalformedMessage("a varint that never ends", fill(good.length, (byte) 0xff)));
        corpus.add(new MalformedMessage("a byte changed", negative));
        return corpus;
    }

    private static byte[] fill(int length, byte value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, value);
        return bytes;
    }

    @Test
    void everyDatumMeansWhatItMeansToFlink() throws Exception {
        int[][] all = MalformedInputParity.everyColumn(TYPE);
        Set<String> deferred = parity(all).assertSameOutcomes(corpus());
        for (MalformedMessage message : valid()) {
            assertThat(deferred).as("read natively").doesNotContain(message.name);
        }
    }

    @Test
    void randomlyDamagedDatumsMeanWhatTheyMeanToFlink() throws Exception {
        int[][] some = {{3}, {12}, {21}, {25}};
        parity(some).assertSameOutcomesReadingSeedsNatively(valid(), MalformedInputParity.mutations(valid(), 5000, 17));
    }

    private MalformedInputParity parity(int[][] projection) {
        return new MalformedInputParity(
                arrow.allocator(),
                "avro",
                Map.of("timestamp_mapping.legacy", "true"),
                TYPE,
                projection,
                ignore -> new AvroRowDataDeserializationSchema(TYPE, InternalTypeInfo.of(TYPE), AvroEncoding.BINARY, true));
    }
}
