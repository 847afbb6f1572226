package dev.streamfusion.operators.internal;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.binary.BinaryStringDataUtil;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native {@code CAST(text AS DECIMAL(p, s))} against Flink's own {@code
 * BinaryStringDataUtil.toDecimal} on generated texts, for compact and wide DECIMALs: numbers of every
 * length, with signs, points, exponents, leading zeros, blanks at either end, Unicode digits, and a
 * stray character in every place. Texts Flink reads give the same unscaled value (kept even where
 * Flink rounds past the precision); the others fail with the same exception and message.
 */
class NativeCalcTextToDecimalTest {

    private static final int[][] TYPES = {{10, 2}, {2, 1}, {18, 0}, {18, 18}, {5, 5}, {19, 3}, {38, 10}, {38, 0}};

    private static final String DIGITS = "0123456789";

    /** Characters a number's text might hold by mistake, or in a form only one of Flink's parsers reads. */
    private static final String STRAY = "x .eE+-\t\r,_٣１";

    private static String cast(int precision, int scale) {
        return "{\"filter\": null, \"projections\": [{\"kind\":\"cast\",\"type\":\"DECIMAL(" + precision + "," + scale
                + ")\",\"parses\":true,\"input\":{\"kind\":\"column\",\"index\":0}}], \"names\": [\"d\"]}";
    }

    /** A text that is, or is close to, a decimal number. */
    private static String text(Random random) {
        StringBuilder text = new StringBuilder();
        if (random.nextInt(6) == 0) {
            text.append(" \t\n".charAt(random.nextInt(3)));
        }
        if (random.nextInt(4) == 0) {
            text.append(random.nextBoolean() ? '-' : '+');
        }
        int kind = random.nextInt(4);
        if (random.nextInt(6) == 0) {
            text.append("000000000000".substring(random.nextInt(12)));
        }
        digits(text, random, random.nextInt(kind == 0 ? 40 : 12));
        if (random.nextInt(3) > 0) {
            digits(text.append('.'), random, random.nextInt(kind == 1 ? 25 : 8));
        }
        if (random.nextInt(3) == 0) {
            text.append(random.nextBoolean() ? 'e' : 'E');
            if (random.nextBoolean()) {
                text.append(random.nextBoolean() ? '-' : '+');
            }
            int exponent = random.nextInt(5);
            if (exponent > 0) {
                text.append(exponent == 1 ? random.nextInt(45) : exponent == 2 ? random.nextInt(500) : random.nextInt(25));
            }
            if (random.nextInt(8) == 0) {
                text.append("00000000000000");
            }
        }
        if (random.nextInt(5) == 0) {
            text.insert(random.nextInt(text.length() + 1), STRAY.charAt(random.nextInt(STRAY.length())));
        }
        if (random.nextInt(6) == 0) {
            text.append(" \t\n".charAt(random.nextInt(3)));
        }
        return text.toString();
    }

    private static void digits(StringBuilder text, Random random, int count) {
        for (int i = 0; i < count; i++) {
            int digit = random.nextInt(10);
            // Now and then an Arabic-Indic or a fullwidth digit, which only BigDecimal reads as one.
            int kind = random.nextInt(40);
            text.append(kind == 0 ? (char) ('٠' + digit) : kind == 1 ? (char) ('０' + digit) : DIGITS.charAt(digit));
        }
    }

    /**
     * Whether Flink's wide parser would read {@code text} as a number of more than a thousand
     * digits' exponent: setting its scale then computes a power of ten of that many digits, which
     * for a stray digit in a long exponent takes Flink minutes (the native cast answers at once).
     */
    private static boolean takesFlinkLong(String text) {
        try {
            return Math.abs(new BigDecimal(text.replaceAll("^[ \\n\\t]+|[ \\n\\t]+$", "")).scale()) > 1_000;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    @Test
    void generatedTextsParseAsFlinkParsesThem() {
        Random random = new Random(20261205);
        List<String> texts = new ArrayList<>();
        while (texts.size() < 4_000) {
            String text = text(random);
            if (!takesFlinkLong(text)) {
                texts.add(text);
            }
        }
        int parsedCount = 0;
        int failingCount = 0;
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int[] type : TYPES) {
                List<String> parsed = new ArrayList<>();
                List<BigDecimal> expected = new ArrayList<>();
                List<String> failing = new ArrayList<>();
                List<Throwable> errors = new ArrayList<>();
                for (String text : texts) {
                    DecimalData value;
                    try {
                        value = BinaryStringDataUtil.toDecimal(BinaryStringData.fromString(text), type[0], type[1]);
                    } catch (RuntimeException e) {
                        failing.add(text);
                        errors.add(e);
                        continue;
                    }
                    parsed.add(text);
                    // A compact value by its unscaled long, so one Flink rounds past its precision compares as
                    // Flink holds it.
                    expected.add(type[0] <= 18 ? BigDecimal.valueOf(value.toUnscaledLong(), type[1]) : value.toBigDecimal());
                }
                parsedCount += parsed.size();
                failingCount += failing.size();
                String description = "DECIMAL(" + type[0] + ", " + type[1] + ")";
                try (VectorSchemaRoot root = TextBatches.of(allocator, parsed);
                        NativeCalc calc = NativeCalc.create(allocator, root.getSchema(), cast(type[0], type[1]))) {
                    DecimalVector decimals = (DecimalVector) calc.apply(root).getVector(0);
                    for (int i = 0; i < parsed.size(); i++) {
                        assertThat(decimals.getObject(i)).as("%s as %s", parsed.get(i), description).isEqualTo(expected.get(i));
                    }
                    for (int i = 0; i < failing.size(); i++) {
                        Throwable error = errors.get(i);
                        // After a text every type reads (leading zeros count against a compact precision).
                        try (VectorSchemaRoot bad = TextBatches.of(allocator, List.of(".1", failing.get(i)))) {
                            // The test JVMs run with -XX:-OmitStackTraceInFastThrow (the root pom), so Flink's
                            // index error keeps its message however hot its parser is.
                            assertThatThrownBy(() -> calc.apply(bad))
                                    .as("%s as %s", failing.get(i), description)
                                    .isExactlyInstanceOf(error.getClass())
                                    .hasMessage(error.getMessage());
                        }
                    }
                }
            }
        }
        // Both ways are exercised for every type, many times over.
        assertThat(parsedCount).isGreaterThan(TYPES.length * 1_000);
        assertThat(failingCount).isGreaterThan(TYPES.length * 500);
    }
}
