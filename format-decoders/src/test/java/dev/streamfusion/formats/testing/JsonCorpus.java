package dev.streamfusion.formats.testing;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.RowType;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.apache.flink.table.api.DataTypes.FIELD;

/**
 * Malformed and odd JSON messages of rows of {@link #PHYSICAL}: truncated, wrong field types,
 * content after the object, not UTF-8, arrays at the top, empty, duplicate keys, deep nesting,
 * numbers out of range, escapes, and the syntax errors between. The messages named "valid ..."
 * are well-formed rows.
 */
public final class JsonCorpus {

    private JsonCorpus() {}

    public static final RowType PHYSICAL =
            (RowType)
                    DataTypes.ROW(
                                    FIELD("a", DataTypes.INT()),
                                    FIELD("b", DataTypes.BIGINT()),
                                    FIELD("s", DataTypes.STRING()),
                                    FIELD("f", DataTypes.DOUBLE()),
                                    FIELD("flag", DataTypes.BOOLEAN()),
                                    FIELD("ts", DataTypes.TIMESTAMP(3)),
                                    FIELD("r", DataTypes.ROW(FIELD("x", DataTypes.INT()), FIELD("y", DataTypes.STRING()))),
                                    FIELD("arr", DataTypes.ARRAY(DataTypes.INT())),
                                    FIELD("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT())),
                                    FIELD("d", DataTypes.DECIMAL(10, 2)),
                                    FIELD("bin", DataTypes.BYTES()),
                                    FIELD("t", DataTypes.TINYINT()))
                            .notNull()
                            .getLogicalType();

    public static final String VALID =
            "{\"a\":1,\"b\":2,\"s\":\"x\",\"f\":1.5,\"flag\":true,\"ts\":\"2020-01-01 00:00:00.123\","
                    + "\"r\":{\"x\":1,\"y\":\"z\"},\"arr\":[1,2],\"m\":{\"k\":1},\"d\":1.25,\"bin\":\"AQI=\",\"t\":5}";

    /** The corpus: valid messages first (read natively), then every kind of trouble. */
    public static List<MalformedMessage> corpus() {
        List<MalformedMessage> corpus = new ArrayList<>();
        // Valid: these must be decoded natively.
        add(corpus, "valid", VALID);
        add(corpus, "valid, fields reordered and unknown ones", "{\"zz\":[1,{\"q\":null}],\"t\":-1,\"a\":-7,\"r\":null}");
        add(corpus, "valid array of objects", "[{\"a\":1},{\"a\":2,\"s\":\"two\"}]");
        add(corpus, "valid empty array", "[]");
        add(corpus, "valid empty object", "{}");
        add(corpus, "valid string of an object", "{\"s\":{\"z\":[1,2.50,\"q\"],\"n\":null}}");
        add(corpus, "valid escapes", "{\"s\":\"\\u00e9\\n\\t\\\" \\ud83d\\ude00 \\u0000\"}");
        add(corpus, "valid float to int", "{\"a\":1.9,\"b\":-2.5e3}");
        add(corpus, "valid decimal overflow is NULL", "{\"d\":123456789012.5}");
        add(corpus, "valid negative zero", "{\"a\":-0,\"f\":-0.0}");
        add(corpus, "valid numbers from strings", "{\"a\":\" 12 \",\"b\":\"+3\",\"f\":\"NaN\",\"flag\":\"TRUE\"}");
        add(corpus, "valid whitespace around", " \n\t{\"a\":1}\r\n ");
        add(corpus, "valid map with a repeated key", "{\"m\":{\"k\":1,\"k\":2,\"j\":null}}");
        // Truncated.
        add(corpus, "truncated after a colon", "{\"a\":1,\"b\":");
        add(corpus, "truncated in a number", "{\"a\":1");
        add(corpus, "truncated array", "[{\"a\":1},{\"a\":2}");
        add(corpus, "truncated nested row", "{\"r\":{\"x\":1");
        add(corpus, "truncated string", "{\"s\":\"abc");
        // Wrong field types.
        add(corpus, "string for an int", "{\"a\":\"x\",\"b\":5}");
        add(corpus, "object for an int", "{\"a\":{\"k\":1},\"b\":5}");
        add(corpus, "object for a boolean", "{\"flag\":{\"a\":7},\"a\":3}");
        add(corpus, "array for a boolean", "{\"flag\":[1,2],\"a\":3}");
        add(corpus, "empty object for a boolean", "{\"flag\":{},\"a\":3}");
        add(corpus, "number for an array", "{\"arr\":5,\"a\":1}");
        add(corpus, "bad array element", "{\"arr\":[1,\"x\",3],\"a\":1}");
        add(corpus, "string for a row", "{\"r\":\"str\",\"a\":1}");
        add(corpus, "array for a map", "{\"m\":[1],\"a\":1}");
        add(corpus, "bad decimal", "{\"d\":\"abc\",\"a\":1}");
        add(corpus, "bad timestamp", "{\"ts\":\"nope\",\"a\":1}");
        add(corpus, "number for a timestamp", "{\"ts\":123,\"a\":1}");
        add(corpus, "timestamp with micros", "{\"ts\":\"2020-01-01 00:00:00.123456\"}");
        add(corpus, "bad base64", "{\"bin\":\"!!\",\"a\":1}");
        add(corpus, "base64 with a space inside a unit", "{\"bin\":\"AQ ID\",\"a\":1}");
        add(corpus, "valid base64 with whitespace between units", "{\"bin\":\"AQID\\nBA==\",\"a\":1}");
        // Jackson's limit on a field name's length (50,000 characters).
        add(corpus, "field name too long", "{\"" + "k".repeat(50_001) + "\":1,\"a\":2}");
        add(corpus, "valid long field name", "{\"" + "k".repeat(50_000) + "\":1,\"a\":2}");
        add(corpus, "tinyint out of range", "{\"t\":300,\"a\":1}");
        add(corpus, "fraction for a tinyint", "{\"t\":1.5,\"a\":1}");
        add(corpus, "bigint out of range", "{\"b\":1e30,\"a\":1}");
        add(corpus, "int out of range", "{\"a\":2147483648}");
        add(corpus, "bigint beyond long", "{\"b\":9223372036854775808}");
        add(corpus, "double overflow", "{\"f\":1e400}");
        add(corpus, "bad value in a nested row", "{\"r\":{\"x\":\"q\",\"y\":\"w\"},\"a\":1}");
        add(corpus, "bad value in an unread map", "{\"m\":{\"k\":\"v\"},\"a\":1}");
        // Content after the root value.
        add(corpus, "garbage after the object", "{\"a\":1} garbage");
        add(corpus, "two objects", "{\"a\":1}{\"a\":2}");
        add(corpus, "a closer after the object", "{\"a\":1}]");
        // Not UTF-8.
        add(corpus, "invalid UTF-8 in a string", bytes("{\"s\":\"", 0xff, "\",\"a\":1}"));
        add(corpus, "overlong UTF-8 in a string", bytes("{\"s\":\"", 0xc0, 0x80, "\",\"a\":1}"));
        add(corpus, "invalid UTF-8 in an unknown field", bytes("{\"zz\":\"", 0xff, "\",\"a\":1}"));
        add(corpus, "invalid UTF-8 before the object", bytes("", 0xff, "{\"a\":1}"));
        add(corpus, "encoded surrogates", bytes("{\"s\":\"", 0xed, 0xa0, 0x80, "\",\"a\":1}"));
        add(corpus, "byte order mark", bytes("", 0xef, 0xbb, 0xbf, "{\"a\":1}"));
        // Arrays at the top.
        add(corpus, "array of numbers", "[1,2]");
        add(corpus, "array with a null", "[{\"a\":1},null]");
        add(corpus, "array with a number", "[{\"a\":1},5]");
        add(corpus, "nested arrays", "[[{\"a\":1}]]");
        // Empty and not an object.
        add(corpus, "empty", "");
        add(corpus, "whitespace only", "   ");
        add(corpus, "newline only", "\n");
        add(corpus, "null", "null");
        add(corpus, "a string", "\"str\"");
        add(corpus, "a number", "5");
        add(corpus, "true", "true");
        // Duplicate keys.
        add(corpus, "repeated key", "{\"a\":1,\"a\":2}");
        add(corpus, "repeated key with a bad value", "{\"a\":1,\"a\":\"bad\",\"b\":3}");
        add(corpus, "repeated key in a row", "{\"r\":{\"x\":1,\"x\":2},\"a\":1}");
        add(corpus, "every field, then a repeat", VALID.substring(0, VALID.length() - 1) + ",\"a\":99}");
        // Deep nesting.
        add(corpus, "deep in an unknown field", "{\"zz\":" + "[".repeat(998) + "]".repeat(998) + ",\"a\":1}");
        add(corpus, "too deep in an unknown field", "{\"zz\":" + "[".repeat(1000) + "]".repeat(1000) + ",\"a\":1}");
        add(corpus, "too deep in a string column", "{\"s\":" + "[".repeat(1001) + "]".repeat(1001) + "}");
        // Long numbers.
        add(corpus, "1000 digits", "{\"zz\":1" + "0".repeat(999) + ",\"a\":1}");
        add(corpus, "1001 digits", "{\"zz\":1" + "0".repeat(1000) + ",\"a\":1}");
        add(corpus, "long number as a string column", "{\"s\":1" + "0".repeat(1000) + "}");
        // In a string column of a table with a DECIMAL, Jackson reads a float as a BigDecimal.
        add(corpus, "valid decimal in an array for a string", "{\"s\":[1.50e3, -0.0, 12.3400],\"a\":1}");
        add(corpus, "42 digits in an array for a string", "{\"s\":[1.00000000000000000000000000000000000000001e5],\"a\":1}");
        // Escapes.
        add(corpus, "lone surrogate", "{\"s\":\"\\ud800\",\"a\":1}");
        add(corpus, "low surrogate first", "{\"s\":\"\\udc00\\ud800\",\"a\":1}");
        add(corpus, "invalid escape", "{\"s\":\"\\x\",\"a\":1}");
        add(corpus, "short unicode escape", "{\"s\":\"\\u12\",\"a\":1}");
        add(corpus, "raw control character", bytes("{\"s\":\"a", 0x01, "b\",\"a\":1}"));
        add(corpus, "raw newline in a string", "{\"s\":\"a\nb\",\"a\":1}");
        // Other syntax.
        add(corpus, "leading zero", "{\"a\":01}");
        add(corpus, "trailing comma", "{\"a\":1,}");
        add(corpus, "leading comma", "{,\"a\":1}");
        add(corpus, "single quotes", "{'a':1}");
        add(corpus, "NaN literal", "{\"f\":NaN,\"a\":1}");
        add(corpus, "broken literal", "{\"flag\":tru,\"a\":1}");
        add(corpus, "unquoted key", "{a:1}");
        add(corpus, "missing comma", "{\"a\":1 \"b\":2}");
        add(corpus, "missing colon", "{\"a\" 1}");
        add(corpus, "comment", "{\"a\":1 /* c */}");
        return corpus;
    }

    private static void add(List<MalformedMessage> corpus, String name, String text) {
        corpus.add(new MalformedMessage(name, text.getBytes(StandardCharsets.UTF_8)));
    }

    private static void add(List<MalformedMessage> corpus, String name, byte[] bytes) {
        corpus.add(new MalformedMessage(name, bytes));
    }

    /** Text and raw bytes, in order: strings as UTF-8, integers as single bytes. */
    private static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object part : parts) {
            if (part instanceof String) {
                out.writeBytes(((String) part).getBytes(StandardCharsets.UTF_8));
            } else {
                out.write((Integer) part);
            }
        }
        return out.toByteArray();
    }
}
