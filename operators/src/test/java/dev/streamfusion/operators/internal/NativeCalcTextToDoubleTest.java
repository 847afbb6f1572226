package dev.streamfusion.operators.internal;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native {@code CAST(text AS DOUBLE)} against this JVM's {@code Double.parseDouble} (what
 * Flink's {@code BinaryStringDataUtil.toDouble} calls) on generated texts: decimal and hexadecimal
 * numbers of every length and exponent, signs, suffixes, spaces and malformed ones. Parsed texts
 * give the same bits; the others fail with the same message.
 */
class NativeCalcTextToDoubleTest {

    private static final String CAST =
            "{\"filter\": null, \"projections\": [{\"kind\":\"cast\",\"type\":\"DOUBLE\",\"parses\":true,"
                    + "\"input\":{\"kind\":\"column\",\"index\":0}}], \"names\": [\"d\"]}";

    private static final String HEX = "0123456789abcdefABCDEF";

    /** A text that is, or is close to, a number as Java writes one. */
    private static String text(Random random) {
        StringBuilder text = new StringBuilder();
        if (random.nextInt(5) == 0) {
            text.append(random.nextBoolean() ? '-' : '+');
        }
        int kind = random.nextInt(6);
        if (kind == 0) {
            text.append(random.nextBoolean() ? "0x" : "0X");
            digits(text, random, random.nextInt(30), HEX);
            if (random.nextBoolean()) {
                digits(text.append('.'), random, random.nextInt(20), HEX);
            }
            text.append(random.nextBoolean() ? 'p' : 'P');
            if (random.nextBoolean()) {
                text.append(random.nextBoolean() ? '-' : '+');
            }
            text.append(random.nextInt(random.nextBoolean() ? 30 : 1200));
        } else {
            digits(text, random, random.nextInt(kind == 1 ? 40 : 18), "0123456789");
            if (random.nextInt(3) > 0) {
                digits(text.append('.'), random, random.nextInt(20), "0123456789");
            }
            if (random.nextBoolean()) {
                text.append(random.nextBoolean() ? 'e' : 'E');
                if (random.nextBoolean()) {
                    text.append(random.nextBoolean() ? '-' : '+');
                }
                if (random.nextInt(10) > 0) {
                    text.append(random.nextInt(kind == 2 ? 400 : 30));
                }
            }
        }
        if (random.nextInt(8) == 0) {
            text.append("fFdDx ".charAt(random.nextInt(6)));
        }
        if (random.nextInt(10) == 0) {
            text.insert(0, random.nextBoolean() ? ' ' : '\t');
        }
        return text.toString();
    }

    private static void digits(StringBuilder text, Random random, int count, String alphabet) {
        for (int i = 0; i < count; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
    }

    @Test
    void generatedTextsParseAsJavaParsesThem() {
        Random random = new Random(20261203);
        List<String> parsed = new ArrayList<>();
        List<Double> expected = new ArrayList<>();
        List<String> failing = new ArrayList<>();
        List<String> messages = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            String text = text(random);
            try {
                expected.add(Double.parseDouble(text));
                parsed.add(text);
            } catch (NumberFormatException e) {
                failing.add(text);
                messages.add(e.getMessage());
            }
        }
        assertThat(parsed).hasSizeGreaterThan(10_000);
        assertThat(failing).hasSizeGreaterThan(1_000);
        try (BufferAllocator allocator = new RootAllocator()) {
            try (VectorSchemaRoot root = TextBatches.of(allocator, parsed);
                    NativeCalc calc = NativeCalc.create(allocator, root.getSchema(), CAST)) {
                Float8Vector doubles = (Float8Vector) calc.apply(root).getVector(0);
                for (int i = 0; i < parsed.size(); i++) {
                    assertThat(Double.doubleToLongBits(doubles.get(i)))
                            .as("%s", parsed.get(i))
                            .isEqualTo(Double.doubleToLongBits(expected.get(i)));
                }
            }
            for (int i = 0; i < failing.size(); i++) {
                try (VectorSchemaRoot root = TextBatches.of(allocator, List.of("1.5", failing.get(i)));
                        NativeCalc calc = NativeCalc.create(allocator, root.getSchema(), CAST)) {
                    assertThatThrownBy(() -> calc.apply(root))
                            .as("%s", failing.get(i))
                            .isInstanceOf(NumberFormatException.class)
                            .hasMessage(messages.get(i));
                }
            }
        }
    }
}
