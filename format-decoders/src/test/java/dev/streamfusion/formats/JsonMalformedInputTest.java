package dev.streamfusion.formats;

import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.formats.testing.JsonCorpus;
import dev.streamfusion.formats.testing.MalformedMessage;

import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonParserRowDataDeserializationSchema;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.streamfusion.formats.testing.JsonCorpus.PHYSICAL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Malformed and odd JSON ({@link JsonCorpus}), message by message, through Flink's JSON format
 * and through StreamFusion's: the same rows and the same failures, with {@code
 * ignore-parse-errors} off and on, whether the query reads every column or a few (nested) ones.
 */
class JsonMalformedInputTest {

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    @Test
    void everyMessageMeansWhatItMeansToFlinkReadingEveryColumn() throws Exception {
        int[][] all = MalformedInputParity.everyColumn(PHYSICAL);
        Set<String> deferred = parity(all).assertSameOutcomes(JsonCorpus.corpus());
        // The valid messages are read natively; the others were handed to Flink's format.
        for (MalformedMessage message : JsonCorpus.corpus()) {
            if (message.valid()) {
                assertThat(deferred).as("read natively").doesNotContain(message.name);
            }
        }
        assertThat(deferred).contains("object for a boolean", "repeated key", "garbage after the object");
    }

    @Test
    void everyMessageMeansWhatItMeansToFlinkReadingSomeColumns() throws Exception {
        // a, r.y, and s: the failures of unread columns still count, as Flink decodes them.
        int[][] some = {{0}, {6, 1}, {2}};
        Set<String> deferred = parity(some).assertSameOutcomes(JsonCorpus.corpus());
        for (MalformedMessage message : JsonCorpus.corpus()) {
            if (message.valid()) {
                assertThat(deferred).as("read natively").doesNotContain(message.name);
            }
        }
    }

    @Test
    void randomlyDamagedMessagesMeanWhatTheyMeanToFlink() throws Exception {
        List<MalformedMessage> seeds = new ArrayList<>();
        for (MalformedMessage message : JsonCorpus.corpus()) {
            if (message.valid()) {
                seeds.add(message);
            }
        }
        int[][] some = {{7}, {6, 0}, {9}, {5}};
        parity(some).assertSameOutcomesReadingSeedsNatively(seeds, MalformedInputParity.mutations(seeds, 20000, 11));
    }

    private MalformedInputParity parity(int[][] projection) {
        return new MalformedInputParity(
                arrow.allocator(),
                "json",
                Map.of(),
                PHYSICAL,
                projection,
                ignore ->
                        new JsonParserRowDataDeserializationSchema(
                                PHYSICAL, InternalTypeInfo.of(PHYSICAL), false, ignore, TimestampFormat.SQL));
    }
}
