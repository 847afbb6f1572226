package dev.streamfusion.formats;

import dev.streamfusion.bridge.testing.ArrowAllocatorExtension;
import dev.streamfusion.bridge.testing.RandomRows;
import dev.streamfusion.formats.testing.MalformedMessage;

import org.apache.flink.formats.csv.CsvRowDataDeserializationSchema;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Malformed and odd CSV lines, message by message, through Flink's CSV format and through
 * StreamFusion's: the same rows and the same failures, with {@code ignore-parse-errors} off and on.
 */
class CsvMalformedInputTest {

    @RegisterExtension final ArrowAllocatorExtension arrow = new ArrowAllocatorExtension();

    private static final RowType TYPE = CsvFormatParityTest.csvTypes();

    /** Flink's own lines of random rows without NULLs (Flink cannot read an empty number it writes): the seeds, read natively. */
    private static List<MalformedMessage> valid() throws Exception {
        List<MalformedMessage> valid = new ArrayList<>();
        List<byte[]> lines = CsvFormatParityTest.flinkSerialize(TYPE, new RandomRows(7, 0.0).rows(TYPE, 40));
        for (int i = 0; i < lines.size(); i++) {
            valid.add(new MalformedMessage("valid line " + i, lines.get(i)));
        }
        return valid;
    }

    private static List<MalformedMessage> corpus() throws Exception {
        List<MalformedMessage> corpus = new ArrayList<>(valid());
        String good = new String(corpus.get(0).bytes, StandardCharsets.UTF_8);
        String[] fields = good.split(",", -1);
        for (String[] bad :
                new String[][] {
                    {"empty", ""},
                    {"whitespace", "   "},
                    {"newline", "\n"},
                    {"one field", "true"},
                    {"too few fields", "true,1,2"},
                    {"too many fields", good + ",extra"},
                    {"two lines", good + "\n" + good},
                    {"crlf", good + "\r\n"},
                    {"unterminated quote", "true,1,2,3,4,\"5"},
                    {"quote inside a field", "true,1,2,3,4,5\"6,7"},
                    {"bad boolean", replace(fields, 0, "yes")},
                    {"tinyint out of range", replace(fields, 1, "300")},
                    {"bad int", replace(fields, 3, "x")},
                    {"int with spaces", replace(fields, 3, " 7 ")},
                    {"bigint overflow", replace(fields, 4, "9223372036854775808")},
                    {"bad float", replace(fields, 5, "1.5.5")},
                    {"decimal overflow", replace(fields, 7, "123456789012.5")},
                    {"bad decimal", replace(fields, 7, "abc")},
                    {"bad date", replace(fields, 13, "2020-13-01")},
                    {"bad timestamp", replace(fields, 17, "yesterday")},
                    {"empty number", replace(fields, 3, "")},
                    {"quoted number", replace(fields, 3, "\"12\"")},
                    {"byte order mark", "\ufeff" + good},
                    // Before 1583 Java's lenient calendar is Julian: a day moves, or a leap day fails.
                    {"date in the calendar change", replace(fields, 13, "1582-10-10")},
                    {"julian leap day", replace(fields, 13, "1500-02-29")},
                    {"date of year 0", replace(fields, 13, "0000-01-01")},
                    {"day past the month's end", replace(fields, 13, "2023-02-30")},
                    // Jackson reads whitespace between base64's 4-character units only.
                    {"base64 with a space inside a unit", replace(fields, 12, "QU JD")},
                    {"base64 with a line break between units", replace(fields, 12, "QUJD\nQUJD")},
                }) {
            corpus.add(new MalformedMessage(bad[0], bad[1].getBytes(StandardCharsets.UTF_8)));
        }
        byte[] invalidUtf8 = good.getBytes(StandardCharsets.UTF_8).clone();
        invalidUtf8[invalidUtf8.length / 2] = (byte) 0xff;
        corpus.add(new MalformedMessage("invalid UTF-8", invalidUtf8));
        // Zero bytes at the start: Jackson's encoding detection reads UTF-16.
        corpus.add(new MalformedMessage("UTF-16LE", good.getBytes(StandardCharsets.UTF_16LE)));
        corpus.add(new MalformedMessage("UTF-16BE", good.getBytes(StandardCharsets.UTF_16BE)));
        return corpus;
    }

    private static String replace(String[] fields, int index, String value) {
        String[] copy = fields.clone();
        copy[index] = value;
        return String.join(",", copy);
    }

    @Test
    void everyLineMeansWhatItMeansToFlink() throws Exception {
        int[][] all = MalformedInputParity.everyColumn(TYPE);
        Set<String> deferred = parity(all).assertSameOutcomes(corpus());
        for (MalformedMessage message : valid()) {
            assertThat(deferred).as("read natively").doesNotContain(message.name);
        }
    }

    @Test
    void randomlyDamagedLinesMeanWhatTheyMeanToFlink() throws Exception {
        int[][] some = {{3}, {11}, {24}, {17}};
        parity(some).assertSameOutcomesReadingSeedsNatively(valid(), MalformedInputParity.mutations(valid(), 5000, 13));
    }

    private MalformedInputParity parity(int[][] projection) {
        return new MalformedInputParity(
                arrow.allocator(),
                "csv",
                Map.of(),
                TYPE,
                projection,
                ignore ->
                        new CsvRowDataDeserializationSchema.Builder(TYPE, TYPE, InternalTypeInfo.of(TYPE))
                                .setIgnoreParseErrors(ignore)
                                .build());
    }
}
