package dev.streamfusion.operators;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlScriptTest {

    @Test
    void semicolonsInStringsIdentifiersAndCommentsDoNotEndAStatement() {
        String script = "-- the bids; from Kafka\n"
                + "CREATE TABLE `odd;name` (a INT) WITH ('scan.startup.specific-offsets' = 'partition:0,offset:1;partition:1,offset:2');\n"
                + "/* a comment; with a semicolon */ SET 'k' = 'it''s; fine' ;\n"
                + ";  ;\n"
                + "SELECT \"x;y\" FROM t -- trailing; comment\n";
        assertThat(SqlScript.statements(script))
                .containsExactly(
                        "-- the bids; from Kafka\nCREATE TABLE `odd;name` (a INT) WITH "
                                + "('scan.startup.specific-offsets' = 'partition:0,offset:1;partition:1,offset:2')",
                        "/* a comment; with a semicolon */ SET 'k' = 'it''s; fine'",
                        "SELECT \"x;y\" FROM t -- trailing; comment");
    }

    @Test
    void onlyCommentsAndBlanksAreNoStatement() {
        assertThat(SqlScript.statements("-- nothing\n  /* here */ ;\n")).isEmpty();
    }

    @Test
    void anUnclosedQuoteOrCommentIsNamed() {
        assertThatThrownBy(() -> SqlScript.statements("SELECT 'open"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("quote ' opened at character 7");
        assertThatThrownBy(() -> SqlScript.statements("SELECT 1 /* open"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("comment opened at character 9");
    }
}
