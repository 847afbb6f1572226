package dev.streamfusion.operators;

import dev.streamfusion.testkit.flink.MiniClusters;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.streamfusion.operators.IslandTesting.nativeCalcGivesStockRows;
import static dev.streamfusion.operators.IslandTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every function the native calc admits, against Flink's own generated code over the same rows:
 * edge values (NULLs, the empty string, non-ASCII text, separators at the ends, timestamps before
 * 1970 and at the ends of Flink's range, DECIMAL overflow) and generated ones.
 *
 * <p>Both sides read the file through streamfusion-parquet (its reader's parity with Flink's is
 * tested with the connector), one with the island and one without: Flink's own Parquet reader
 * fails on timestamps before 1970 that have a fraction of a second, whichever way they are
 * stored.
 */
class IslandFunctionsITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = MiniClusters.withSlots(2);

    private static final String COLUMNS = "s STRING, ts TIMESTAMP(3), price DECIMAL(10, 2), amount BIGINT, qty INT";

    private static final String[] STRINGS = {
        "AbC", "ΟΔΟΣ", "straße", "İstanbul", "ǅemal", "", " padded ", "https://www.nexmark.com/apple/item.htm?query=1",
        "https://www.nexmark.com/abc/def/ghi/item.htm?query=1&channel_id=123", "channel_id=&x", "q=1&channel_id=7&channel_id=8",
        "a//b/", "/", "//", "a::b::", "::", "x\ry", "xzy", "x\ny", "word.42", "ab١2", "a", "b", "ab", "Apple", "GOOGLE",
        "a_b", "abc", "a\nc", "aXbYc", "a!_b", " 12 ", "+7", ".5", "1.5", "-", "1.x", "-2147483648", "2147483648", "127",
        "-129", "32768", "9223372036854775807", "٣", "TRUE", "yEs", "n", "0", "f", " true", "1e5",
        "-0x1.8p1", "NaN", "-Infinity", "2.5d", " 4.5E-3 ", "0x1p-1075", "1x", "e5", "9.99", "-2.455", "0.049999999999",
        "١٢.٥", "99999999999999999999.5", "1e-30", " 12.5 ",
        // A capital sigma's small form, which Java picks by its word boundaries, not by Unicode's rule.
        "ΟΔΟΣ-ΠΑΡΟΔΟΣ", "ΑΘΗΝΑΣ:ΟΔΟΣ", "ΤΜΗΜΑ1Σ", "A_Σ", "AΣ1B", "ªΣ", "AΣª", "Σ", "ΣΑ Σ",
        // Groups repeated where an iteration can be empty, whose captures Java and Rust tell apart.
        "john.smith@example.com", "ab.cd@x", "aab",
    };

    private static final String[] TIMES = {
        "1970-01-01 00:00:00", "1969-12-31 23:59:59.999", "1000-01-01 00:00:00", "9999-12-31 23:59:59.999",
        "2024-02-29 08:00:00.5", "1900-03-01 18:59:59", "2000-01-01 06:30:00.001", "2023-11-14 22:13:20.123",
        "1960-06-15 19:00:00", "2038-01-19 03:14:07.999",
    };

    /** Queries the native calc admits, each with functions of one family; {@code %s} is the table. */
    private static final String[] QUERIES = {
        "SELECT s, LOWER(s), UPPER(s), CHAR_LENGTH(s) FROM %s WHERE CHAR_LENGTH(s) < 40 OR s IS NULL",
        "SELECT s, SUBSTRING(s, 2), SUBSTRING(s FROM 0 FOR 3), SUBSTR(s, -3), SUBSTRING(s, -30, 2), SUBSTRING(s, 3, 0), "
                + "SUBSTRING(s, 2, -1) FROM %s",
        "SELECT s, REGEXP_EXTRACT(s, '(&|^|\\?)channel_id=([^&]*)', 2), REGEXP_EXTRACT(s, '([a-z]+)\\.(\\d+)', 2), "
                + "REGEXP_EXTRACT(s, 'x(.)y', 1), REGEXP_EXTRACT(s, '(a)|(b)', 2), REGEXP_EXTRACT(s, '(a)', 5), "
                + "REGEXP_EXTRACT(s, '^[A-Z]\\w*', 0), REGEXP_EXTRACT(s, '[0-9]+') FROM %s",
        "SELECT s, SPLIT_INDEX(s, '/', 0), SPLIT_INDEX(s, '/', 1), SPLIT_INDEX(s, '/', 3), SPLIT_INDEX(s, '::', 1), "
                + "SPLIT_INDEX(s, '/', 40) FROM %s",
        "SELECT ts, EXTRACT(YEAR FROM ts), MONTH(ts), DAYOFMONTH(ts), HOUR(ts), MINUTE(ts), SECOND(ts), "
                + "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss.SSS'), DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH:mm') FROM %s",
        "SELECT ts, CASE WHEN HOUR(ts) >= 8 AND HOUR(ts) <= 18 THEN 'dayTime' WHEN HOUR(ts) <= 6 OR HOUR(ts) >= 20 "
                + "THEN 'nightTime' ELSE 'otherTime' END FROM %s",
        "SELECT price, amount, qty, price * 2, price + 0.005, price - price * price, 0.908 * amount, qty * price, "
                + "CAST(price AS DECIMAL(20, 4)), CAST(qty AS DECIMAL(12, 0)), amount + CAST(1 AS DECIMAL(5, 1)) FROM %s "
                + "WHERE price > 100 OR 0.908 * amount < 1000000 OR price IS NULL",
        "SELECT s, s LIKE 'a_c', s LIKE '%%b%%', s LIKE 'A%%', s LIKE '%%/', s LIKE 'x_y', s LIKE '', s LIKE '%%', "
                + "s LIKE 'a%%b%%c', s LIKE 'a!_b' ESCAPE '!', s NOT LIKE 'http%%channel_id=%%' FROM %s",
        "SELECT ts, ts + INTERVAL '1' HOUR, ts - INTERVAL '0.5' SECOND, INTERVAL '3' DAY + ts, ts + INTERVAL '1' MONTH, "
                + "ts - INTERVAL '13' MONTH, ts + INTERVAL '2-1' YEAR TO MONTH, HOUR(ts + INTERVAL '90' MINUTE) FROM %s "
                + "WHERE ts IS NULL OR ts < TIMESTAMP '9990-01-01 00:00:00'",
        "SELECT ts, CAST(ts AS STRING), CAST(ts AS VARCHAR(23)), CONCAT('at ', CAST(ts AS STRING)) FROM %s",
        "SELECT ts, ts > TIMESTAMP '2000-01-01 00:00:00', CASE WHEN ts < TIMESTAMP '1970-01-01 00:00:00.001' THEN ts "
                + "ELSE CAST(NULL AS TIMESTAMP(3)) END FROM %s WHERE ts <> TIMESTAMP '1900-03-01 18:59:59' OR ts IS NULL",
        "SELECT amount, qty, price, amount / 7, qty / -1, qty / 2, price / 3, price / 0.7, 0.908 * amount / 100, "
                + "CAST(amount AS STRING), CAST(qty AS STRING), CAST(price AS STRING), s || '!', CONCAT(s, '/', CAST(qty AS STRING)) "
                + "FROM %s",
        // Division by columns that hold zeros, where Flink's code never divides by them.
        "SELECT amount, qty, price, CASE WHEN qty <> 0 THEN amount / qty END, CASE WHEN qty = 0 THEN -1 ELSE MOD(amount, qty) END, "
                + "CASE WHEN price <> 0 THEN price / price END, CASE WHEN price = 0 THEN NULL WHEN qty > 0 THEN qty / price "
                + "ELSE amount / price END, CAST(amount AS DOUBLE) / qty, CAST(qty AS DOUBLE) / CAST(amount AS DOUBLE) FROM %s "
                + "WHERE qty = 0 OR amount / qty <> 1",
        "SELECT amount, qty FROM %s WHERE qty <> 0 AND MOD(amount, qty) > 0 OR price IS NULL",
        // Casts between numbers that change values: narrowed, saturated, truncated, rounded, NULL on overflow.
        "SELECT amount, qty, price, CAST(amount AS INT), CAST(amount AS TINYINT), CAST(qty AS SMALLINT), CAST(price AS INT), "
                + "CAST(price AS BIGINT), CAST(price AS TINYINT), CAST(price AS DOUBLE), CAST(price AS FLOAT), "
                + "CAST(CAST(amount AS DOUBLE) / 3 AS INT), CAST(CAST(amount AS DOUBLE) AS SMALLINT), "
                + "CAST(CAST(qty AS DOUBLE) / CAST(qty - qty AS DOUBLE) AS BIGINT), CAST(qty AS DECIMAL(5, 1)), "
                + "CAST(price AS DECIMAL(6, 1)), CAST(price AS DECIMAL(12, 1)), CAST(amount AS DECIMAL(10, 2)), "
                + "CAST(CAST(amount AS DOUBLE) AS FLOAT), CAST(CAST(price AS DECIMAL(20, 3)) AS DOUBLE) FROM %s",
        // Text cast to integers where it parses (elsewhere the cast fails: see below).
        "SELECT s, CASE WHEN s IN (' 12 ', '+7', '.5', '1.5', '-2147483648', '2147483648', '127', '-129', '32768', "
                + "'9223372036854775807') THEN CAST(s AS BIGINT) END, CASE WHEN s IN (' 12 ', '+7', '.5', '1.5', '-2147483648', "
                + "'127', '-129', '32768') THEN CAST(s AS INT) END, CASE WHEN s IN (' 12 ', '+7', '1.5', '127', '-129') "
                + "THEN CAST(s AS SMALLINT) END, IF(s IN ('.5', '127', ' 12 '), CAST(s AS TINYINT), CAST(-1 AS TINYINT)) FROM %s",
        // Text cast to BOOLEAN where it reads as one (elsewhere the cast fails: see below).
        "SELECT s, CASE WHEN s IN ('TRUE', 'yEs', 'n', '0', 'f') THEN CAST(s AS BOOLEAN) END FROM %s",
        // Text cast to DOUBLE where it parses as Java parses it (elsewhere the cast fails: see below).
        "SELECT s, CASE WHEN s IN (' 12 ', '+7', '.5', '1.5', '9223372036854775807', '0', '1e5', '-0x1.8p1', 'NaN', "
                + "'-Infinity', '2.5d', ' 4.5E-3 ', '0x1p-1075') THEN CAST(s AS DOUBLE) END FROM %s",
        // Text cast to DECIMAL where it parses, short text into a compact DECIMAL read Flink's lenient way and
        // other text as BigDecimal reads it (elsewhere the cast fails: see below); '9.99' as DECIMAL(2, 1) is
        // rounded past its precision, and kept so, by Flink.
        "SELECT s, CASE WHEN s IN ('1x', 'e5', '9.99', ' 12.5 ', '-2.455', '1.5', '.5', '0.049999999999', '+7', '127', "
                + "'1e5') THEN CAST(s AS DECIMAL(10, 2)) END, CASE WHEN s IN ('1x', '9.99', '.5', '+7', '1.5') "
                + "THEN CAST(s AS DECIMAL(2, 1)) END, CASE WHEN s IN ('9.99', ' 12.5 ', '-2.455', '1.5', '.5', "
                + "'0.049999999999', '١٢.٥', '99999999999999999999.5', '+7', '127', '1e5', '1e-30') "
                + "THEN CAST(s AS DECIMAL(38, 10)) END, CASE WHEN s IN ('-2.455', '0.049999999999', '١٢.٥', '9.99') "
                + "THEN CAST(s AS DECIMAL(20, 0)) END FROM %s",
        // A DECIMAL parsed past its precision ('9.99' as DECIMAL(2, 1) is 10.0) through ABS into text keeps every
        // digit, cast to a wider DECIMAL it does not fit is NULL, and handed to Flink it stays 10.0, as in Flink.
        "SELECT s, CAST(ABS(CAST(s AS DECIMAL(2, 1))) AS VARCHAR(10)), CAST(CAST(s AS DECIMAL(2, 1)) AS DECIMAL(3, 2)), "
                + "COALESCE(CAST(s AS DECIMAL(2, 1)), price), ABS(CAST(s AS DECIMAL(2, 1))) FROM %s WHERE s IN ('9.99', '1.5', '.5', '+7', '1x') OR s IS NULL",
        // Compared as they are, also past their precision ('9.99' as DECIMAL(2, 1) is 10.0, greater than 0.50
        // and not NULL), in the rows kept too.
        "SELECT s, CASE WHEN s IN ('9.99', '1.5', '.5', '+7') THEN CAST(s AS DECIMAL(2, 1)) > CAST(0.5 AS DECIMAL(2, 2)) END, "
                + "CASE WHEN s IN ('9.99', '1.5') THEN CAST(s AS DECIMAL(2, 1)) = CAST(0.1 AS DECIMAL(2, 2)) END, "
                + "CASE WHEN s IN ('9.99', '.5') THEN CAST(s AS DECIMAL(2, 1)) <= price END FROM %s "
                + "WHERE s IS NULL OR s IN ('9.99', '1.5', '.5', '+7') AND CAST(s AS DECIMAL(2, 1)) > CAST(0.5 AS DECIMAL(2, 2))",
        "SELECT s, TRIM(s), TRIM(LEADING 'ab' FROM s), TRIM(BOTH '/:' FROM s), TRIM(TRAILING 'x' FROM s), LTRIM(s), RTRIM(s), "
                + "LTRIM(s, 'aA'), RTRIM(s, '/'), REPLACE(s, 'a', 'XY'), REPLACE(s, '::', ''), REPLACE(s, 'ß', 'ss') FROM %s",
        "SELECT amount, qty, price, ABS(amount), ABS(qty), ABS(price), ABS(CAST(qty AS DOUBLE) / 0), ABS(CAST(qty AS SMALLINT)), "
                + "IF(qty > 0, 'pos', 'other'), IF(qty <> 0, amount / qty, -1), IF(price > 0, price, price * 2) FROM %s",
        "SELECT s, amount FROM %s WHERE LOWER(s) IN ('apple', 'google', 'straße') "
                + "OR REGEXP_EXTRACT(s, '(&|^|\\?)channel_id=([^&]*)', 2) IS NOT NULL OR HOUR(ts) = 23",
    };

    /**
     * Flink's Parquet format with timestamps as INT64: its reader fails on its own INT96 values
     * before 1970 (a negative nano-of-second).
     */
    private static final String PARQUET =
            ", 'format' = 'parquet', 'parquet.write.int64.timestamp' = 'true', 'parquet.timestamp.time.unit' = 'millis'";

    @TempDir static Path tables;

    @BeforeAll
    static void writeWithFlink() throws Exception {
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        env.executeSql("CREATE TABLE gen (" + COLUMNS + ") WITH ('connector' = 'datagen', 'number-of-rows' = '3000', "
                + "'fields.s.length' = '4', 'fields.ts.max-past' = '36500 d', 'fields.s.null-rate' = '0.05', "
                + "'fields.ts.null-rate' = '0.05', 'fields.price.null-rate' = '0.05', 'fields.amount.null-rate' = '0.05')");
        env.executeSql(table("written", "filesystem"));
        env.executeSql("INSERT INTO written SELECT * FROM gen").await();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < STRINGS.length * 2; i++) {
            String s = i < STRINGS.length ? "'" + STRINGS[i].replace("'", "''") + "'" : "CAST(NULL AS STRING)";
            String ts = i % (TIMES.length + 1) == TIMES.length
                    ? "CAST(NULL AS TIMESTAMP(3))"
                    : "TIMESTAMP '" + TIMES[i % (TIMES.length + 1)] + "'";
            String price = i % 7 == 6 ? "CAST(NULL AS DECIMAL(10, 2))"
                    : "CAST(" + (i % 7 == 3 ? "0" : i % 2 == 0 ? "99999999.99" : "-" + i + ".05") + " AS DECIMAL(10, 2))";
            String amount = i % 5 == 4 ? "CAST(NULL AS BIGINT)" : (i % 3 == 0 ? "9223372036854775807" : i % 3 == 1 ? "-9223372036854775808" : String.valueOf(i));
            String qty = i % 4 == 0 ? "2147483647" : i % 6 == 1 ? "-1" : i % 6 == 3 ? "0" : "-" + i;
            values.add("(" + s + ", " + ts + ", " + price + ", " + amount + ", " + qty + ")");
        }
        // A few statements of 50 rows: the planner makes an operator of each row of a VALUES, and one job of all of
        // them would need more network buffers than a test's MiniCluster has.
        for (int from = 0; from < values.size(); from += 50) {
            env.executeSql("INSERT INTO written VALUES "
                            + String.join(", ", values.subList(from, Math.min(from + 50, values.size()))))
                    .await();
        }
    }

    private static String table(String name, String connector) {
        return "CREATE TABLE " + name + " (" + COLUMNS + ") WITH ('connector' = '" + connector + "', 'path' = '"
                + tables.resolve("t") + "'" + (connector.equals("filesystem") ? PARQUET : "") + ")";
    }

    private static TableEnvironment env(boolean streaming, int parallelism, boolean island) {
        return IslandTesting.env(streaming, parallelism, island, table("stock", "filesystem"), table("fused", "streamfusion-parquet"));
    }

    @ParameterizedTest(name = "streaming={0}, parallelism={1}")
    @CsvSource({"true, 1", "false, 2"})
    void everyAdmittedFunctionGivesFlinksValues(boolean streaming, int parallelism) throws Exception {
        TableEnvironment stock = env(streaming, parallelism, false);
        TableEnvironment island = env(streaming, parallelism, true);
        for (String query : QUERIES) {
            // Both sides over streamfusion-parquet (see the class comment).
            nativeCalcGivesStockRows(stock, island, query, "fused", "fused", 20);
        }
    }

    /**
     * A division by zero, or text that does not parse as the number or BOOLEAN a CAST asks for, fails the job
     * with Flink's exception and message, natively too: the edge rows hold a zero {@code qty}
     * under a non-NULL {@code amount}, zero prices, and texts that are not numbers or overflow (and one whose
     * exponent makes Flink's compact DECIMAL parser index past its table of powers of ten).
     */
    @Test
    void badValuesFailAsInFlink() throws Exception {
        TableEnvironment stock = env(true, 1, false);
        TableEnvironment island = env(true, 1, true);
        Object[][] failing = {
            {"SELECT amount / qty FROM %s", ArithmeticException.class, "/ by zero"},
            {"SELECT MOD(amount, qty) FROM %s", ArithmeticException.class, "/ by zero"},
            {"SELECT price / price FROM %s WHERE price IS NULL OR price < 1", ArithmeticException.class, "Division undefined"},
            {"SELECT s FROM %s WHERE amount IS NULL OR amount / qty > 0", ArithmeticException.class, "/ by zero"},
            {"SELECT CAST(s AS INT) FROM %s WHERE s IN (' 12 ', '1.x')", NumberFormatException.class,
                "For input string: '1.x'. Invalid character found."},
            {"SELECT CAST(s AS SMALLINT) FROM %s WHERE s IN ('127', '32768')", NumberFormatException.class,
                "For input string: '32768'. Overflow."},
            {"SELECT CAST(s AS BIGINT) FROM %s WHERE s = '-'", NumberFormatException.class,
                "For input string: '-'. Input has only positive or negative symbol."},
            {"SELECT CAST(s AS BOOLEAN) FROM %s WHERE s IN ('yEs', ' true')", TableException.class,
                "Cannot parse ' true' as BOOLEAN."},
            {"SELECT CAST(s AS DOUBLE) FROM %s WHERE s IN ('1e5', '1.x')", NumberFormatException.class,
                "For input string: \"1.x\""},
            {"SELECT CAST(s AS DECIMAL(10, 2)) FROM %s WHERE s IN ('1.5', 'abc')", NumberFormatException.class,
                "For input string: 'abc'. Overflow."},
            {"SELECT CAST(s AS DECIMAL(38, 10)) FROM %s WHERE s IN ('1.5', '1x')", NumberFormatException.class,
                "Character x is neither a decimal digit number, decimal point, nor \"e\" notation exponential mark."},
            {"SELECT CAST(s AS DECIMAL(10, 2)) FROM %s WHERE s IN ('1.5', '1e-30')", ArrayIndexOutOfBoundsException.class,
                "Index 27 out of bounds for length 19"},
        };
        for (Object[] query : failing) {
            String sql = String.format((String) query[0], "fused");
            @SuppressWarnings("unchecked")
            Class<? extends Throwable> type = (Class<? extends Throwable>) query[1];
            assertThat(StreamFusion.explain(island, sql).nativeNodes()).as(sql).contains("NativeCalc");
            for (TableEnvironment env : List.of(stock, island)) {
                assertThatThrownBy(() -> rows(env, sql))
                        .as(sql)
                        .satisfies(e -> assertThat(ExceptionUtils.findThrowable(e, type))
                                .hasValueSatisfying(cause -> assertThat(cause).hasMessage((String) query[2])));
            }
        }
    }

    @Test
    void patternsThatMeanSomethingElseInJavaStayStock() throws Exception {
        TableEnvironment stock = env(true, 1, false);
        TableEnvironment island = env(true, 1, true);
        String[][] refused = {
            {"SELECT REGEXP_EXTRACT(s, 'y$', 0) FROM %s", "Java's `$` also matches before a final line terminator"},
            {"SELECT REGEXP_EXTRACT(s, '(a)\\1', 1) FROM %s", "REGEXP_EXTRACT with the pattern \"(a)\\\\1\" is not evaluated natively"},
            {"SELECT DATE_FORMAT(ts, 'EEE, d MMM yyyy') FROM %s", "DATE_FORMAT with the pattern \"EEE, d MMM yyyy\" is not evaluated natively"},
            {"SELECT SPLIT_INDEX(s, '', 1) FROM %s", "SPLIT_INDEX by an empty separator is not evaluated natively"},
            // Java rejects the space in the braces (Flink: NULL); Rust would read `{1,3}`.
            {"SELECT REGEXP_EXTRACT(s, '[0-9]{1, 3}', 0) FROM %s", "a counted repetition Java does not read as Rust does"},
            // Java ends the repetition with an empty iteration and captures '' from it; Rust keeps 'smith'.
            {"SELECT REGEXP_EXTRACT(s, '(\\w*\\.?)*@', 1) FROM %s",
                "a group repeated where an iteration can match empty text is captured differently in Java"},
            {"SELECT REGEXP_EXTRACT(s, '(a?)*b', 1) FROM %s",
                "a group repeated where an iteration can match empty text is captured differently in Java"},
            // Flink narrows a BIGINT index as Java's cast does: group 1 here.
            {"SELECT REGEXP_EXTRACT(s, '(a)(b)', 4294967297) FROM %s", "the argument 4294967297:BIGINT is not of type INT"},
            {"SELECT s FROM %s WHERE s IN ('9.99', '1.5') AND CAST(s AS DECIMAL(2, 1)) NOT IN (1.0, 2.0)",
                "a DECIMAL parsed from text tested against a set of values"},
            {"SELECT IF(s IN ('1.5', '.5'), CAST(s AS DECIMAL(2, 1)), CAST(0 AS DECIMAL(2, 1))) FROM %s",
                "IF of a DECIMAL parsed from text is not evaluated natively"},
        };
        for (String[] query : refused) {
            StreamFusion.Explanation explained = StreamFusion.explain(island, String.format(query[0], "fused"));
            assertThat(explained.nativeNodes()).as(query[0]).isEmpty();
            assertThat(explained.fallbacks()).as(query[0]).singleElement().asString().contains(query[1]);
            assertThat(rows(island, String.format(query[0], "fused")))
                    .as(query[0])
                    .containsExactlyElementsOf(rows(stock, String.format(query[0], "fused")));
        }
    }

    /** A function registered under a built-in's name. */
    public static final class Shout extends ScalarFunction {
        public String eval(String s) {
            return s == null ? null : s + "!";
        }
    }

    /**
     * What only looks like a native function stays stock: a user's function named as a built-in
     * (it shadows Flink's), and text casts under {@code table.exec.legacy-cast-behaviour}, where
     * text that does not parse gives NULL.
     */
    @Test
    void functionsThatOnlyLookNativeStayStock() throws Exception {
        TableEnvironment stock = env(true, 1, false);
        TableEnvironment island = env(true, 1, true);
        for (TableEnvironment env : List.of(stock, island)) {
            env.createTemporarySystemFunction("upper", Shout.class);
        }
        String shouted = "SELECT UPPER(s) FROM fused";
        StreamFusion.Explanation explained = StreamFusion.explain(island, shouted);
        assertThat(explained.nativeNodes()).isEmpty();
        assertThat(explained.fallbacks()).singleElement().asString().contains("not Flink's built-in one");
        assertThat(rows(island, shouted)).containsExactlyInAnyOrderElementsOf(rows(stock, shouted)).contains("+I[AbC!]");

        TableEnvironment legacyStock = env(true, 1, false);
        TableEnvironment legacyIsland = env(true, 1, true);
        for (TableEnvironment env : List.of(legacyStock, legacyIsland)) {
            env.getConfig().set("table.exec.legacy-cast-behaviour", "ENABLED");
        }
        String parsed = "SELECT CAST(s AS INT), CAST(s AS BOOLEAN), CAST(s AS DECIMAL(10, 2)) FROM fused";
        explained = StreamFusion.explain(legacyIsland, parsed);
        assertThat(explained.nativeNodes()).isEmpty();
        assertThat(explained.fallbacks()).singleElement().asString().contains("legacy-cast-behaviour");
        assertThat(rows(legacyIsland, parsed)).containsExactlyInAnyOrderElementsOf(rows(legacyStock, parsed))
                .contains("+I[null, null, null]");
    }
}
