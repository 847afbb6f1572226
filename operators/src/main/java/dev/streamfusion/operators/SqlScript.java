package dev.streamfusion.operators;

import org.apache.flink.annotation.Internal;

import java.util.ArrayList;
import java.util.List;

/**
 * A SQL script cut into its statements at the semicolons that end them: not those inside quoted
 * strings ({@code '...'}, with {@code ''} for a quote), quoted identifiers ({@code `...`} or
 * {@code "..."}) or comments ({@code -- ...} to the end of the line, {@code /* ... *}{@code /}).
 * Comments are kept in the statement they are in; statements of only blanks and comments are
 * dropped.
 */
@Internal
public final class SqlScript {

    private SqlScript() {}

    /** The statements of {@code script}, without their semicolons, trimmed. */
    public static List<String> statements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean blank = true;
        int i = 0;
        while (i < script.length()) {
            char c = script.charAt(i);
            int end;
            if (c == '\'' || c == '`' || c == '"') {
                end = closing(script, i, c);
                blank = false;
            } else if (c == '-' && script.startsWith("--", i)) {
                int newline = script.indexOf('\n', i);
                end = newline < 0 ? script.length() : newline;
            } else if (c == '/' && script.startsWith("/*", i)) {
                int close = script.indexOf("*/", i + 2);
                if (close < 0) {
                    throw new IllegalArgumentException("a comment opened at character " + i + " is not closed");
                }
                end = close + 2;
            } else if (c == ';') {
                if (!blank) {
                    statements.add(current.toString().strip());
                }
                current.setLength(0);
                blank = true;
                i++;
                continue;
            } else {
                end = i + 1;
                blank &= Character.isWhitespace(c);
            }
            current.append(script, i, end);
            i = end;
        }
        if (!blank) {
            statements.add(current.toString().strip());
        }
        return statements;
    }

    /** Where the quote opened at {@code start} ends (after its closing quote); doubled quotes stay inside. */
    private static int closing(String script, int start, char quote) {
        int i = start + 1;
        while (i < script.length()) {
            if (script.charAt(i) == quote) {
                if (i + 1 < script.length() && script.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        throw new IllegalArgumentException("a quote " + quote + " opened at character " + start + " is not closed");
    }
}
