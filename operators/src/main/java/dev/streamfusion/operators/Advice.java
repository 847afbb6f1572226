package dev.streamfusion.operators;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.table.catalog.ObjectIdentifier;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What {@link StreamFusion#advise} found for one statement: the tables and the connectors that
 * read them, where the island runs and why the rest stays stock (with what would admit it), and
 * how a sample ran stock and with StreamFusion.
 *
 * @since 0.1
 */
@PublicEvolving
public final class Advice {

    /** How the advice samples: how many records per table, how many rounds, how long at most. */
    @PublicEvolving
    public static final class Options {
        private final long sampleRows;
        private final int rounds;
        private final Duration timeout;

        private Options(long sampleRows, int rounds, Duration timeout) {
            if (sampleRows < 0 || rounds < 1 || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException(
                        "a sample of 0 or more rows, 1 or more rounds and a positive timeout, not "
                                + sampleRows + ", " + rounds + ", " + timeout);
            }
            this.sampleRows = sampleRows;
            this.rounds = rounds;
            this.timeout = timeout;
        }

        /** 10,000 records per table, one round, at most 10 minutes a run. */
        public static Options defaults() {
            return new Options(10_000, 1, Duration.ofMinutes(10));
        }

        /** About {@code rows} records of each table StreamFusion has a counterpart for; 0: no sample run. */
        public Options sampleRows(long rows) {
            return new Options(rows, rounds, timeout);
        }

        /** Runs each way {@code rounds} times, alternating, and keeps each way's best time. */
        public Options rounds(int rounds) {
            return new Options(sampleRows, rounds, timeout);
        }

        /** How long one run may take before it is cancelled and the advice fails saying so. */
        public Options timeout(Duration timeout) {
            return new Options(sampleRows, rounds, timeout);
        }

        public long sampleRows() {
            return sampleRows;
        }

        public int rounds() {
            return rounds;
        }

        public Duration timeout() {
            return timeout;
        }
    }

    /** How much of a statement runs in the island. */
    @PublicEvolving
    public enum Coverage {
        /** The island runs, and nothing the island considered stayed stock. */
        FULL,
        /** The island runs some of it; some candidates stayed stock. */
        PARTIAL,
        /** The island runs none of it. */
        NONE
    }

    /** A table the statement reads or writes. */
    @PublicEvolving
    public static final class Table {
        private final ObjectIdentifier identifier;
        private final boolean written;
        private final String declaredConnector;
        private final String plannedConnector;
        private final String summary;

        Table(ObjectIdentifier identifier, boolean written, String declaredConnector, String plannedConnector, String summary) {
            this.identifier = identifier;
            this.written = written;
            this.declaredConnector = declaredConnector;
            this.plannedConnector = plannedConnector;
            this.summary = summary;
        }

        public ObjectIdentifier identifier() {
            return identifier;
        }

        /** Whether the statement writes it (else reads it). */
        public boolean written() {
            return written;
        }

        /** The {@code connector} option the table has (empty for a catalog's own tables). */
        public String declaredConnector() {
            return declaredConnector;
        }

        /** The connector the advice planned it with: StreamFusion's where it has one for the table. */
        public String plannedConnector() {
            return plannedConnector;
        }

        /** What the planned source or sink says of itself: the reader or writer (rung) it chose. */
        public String summary() {
            return summary;
        }
    }

    /** A candidate that stays stock Flink. */
    @PublicEvolving
    public static final class Fallback {
        private final String reason;
        private final Optional<String> admit;

        Fallback(String reason, Optional<String> admit) {
            this.reason = reason;
            this.admit = admit;
        }

        public String reason() {
            return reason;
        }

        /** What would admit it (an option, a type, a function); empty when nothing does yet. */
        public Optional<String> admit() {
            return admit;
        }
    }

    /** How the two runs' rows compared. */
    @PublicEvolving
    public enum Verdict {
        /** Stock Flink and StreamFusion gave the same rows. */
        EQUAL,
        /** They differ, and two stock runs agree: a defect to report. */
        DIFFERENT,
        /** They differ, and so do two stock runs: the rows depend on the order rows arrive in. */
        ORDER_DEPENDENT
    }

    /** The statement run on a sample, stock and with StreamFusion. */
    @PublicEvolving
    public static final class SampleRun {
        private final List<String> samples;
        private final Duration stock;
        private final Duration streamFusion;
        private final long rows;
        private final Verdict verdict;
        private final List<String> differences;

        SampleRun(List<String> samples, Duration stock, Duration streamFusion, long rows, Verdict verdict,
                List<String> differences) {
            this.samples = List.copyOf(samples);
            this.stock = stock;
            this.streamFusion = streamFusion;
            this.rows = rows;
            this.verdict = verdict;
            this.differences = List.copyOf(differences);
        }

        /** What each table's sample read, one line per table. */
        public List<String> samples() {
            return samples;
        }

        /** The stock run's time, from submission to its last row (the best of the rounds). */
        public Duration stock() {
            return stock;
        }

        /** StreamFusion's time, measured as {@link #stock()} is. */
        public Duration streamFusion() {
            return streamFusion;
        }

        /** Stock time over StreamFusion's time. */
        public double speedup() {
            return (double) stock.toNanos() / Math.max(1, streamFusion.toNanos());
        }

        /** The rows of the stock result (its changelog applied). */
        public long rows() {
            return rows;
        }

        public Verdict verdict() {
            return verdict;
        }

        /** Rows one run has and the other does not (a few of each), when they differ. */
        public List<String> differences() {
            return differences;
        }
    }

    private final String plan;
    private final List<String> nativeNodes;
    private final List<Fallback> fallbacks;
    private final List<Table> tables;
    private final Optional<SampleRun> sampleRun;

    Advice(String plan, List<String> nativeNodes, List<Fallback> fallbacks, List<Table> tables,
            Optional<SampleRun> sampleRun) {
        this.plan = plan;
        this.nativeNodes = List.copyOf(nativeNodes);
        this.fallbacks = List.copyOf(fallbacks);
        this.tables = List.copyOf(tables);
        this.sampleRun = sampleRun;
    }

    /** Flink's EXPLAIN of the statement as StreamFusion runs it. */
    public String plan() {
        return plan;
    }

    /** The island's nodes, in plan order. */
    public List<String> nativeNodes() {
        return nativeNodes;
    }

    /** Why each candidate stays stock, once per reason. */
    public List<Fallback> fallbacks() {
        return fallbacks;
    }

    public List<Table> tables() {
        return tables;
    }

    /** The sample run, unless the advice was asked for without one. */
    public Optional<SampleRun> sampleRun() {
        return sampleRun;
    }

    public Coverage coverage() {
        if (nativeNodes.isEmpty()) {
            return Coverage.NONE;
        }
        return fallbacks.isEmpty() ? Coverage.FULL : Coverage.PARTIAL;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        out.append("Tables\n");
        for (Table table : tables) {
            out.append("  ").append(table.written ? "writes " : "reads  ").append(table.identifier.asSummaryString());
            if (!table.plannedConnector.equals(table.declaredConnector)) {
                out.append(String.format(
                        "  ('connector' = '%s'; as '%s' with the same options)", table.declaredConnector, table.plannedConnector));
            } else if (!table.declaredConnector.isEmpty()) {
                out.append("  ('connector' = '").append(table.declaredConnector).append("')");
            }
            out.append("\n      ").append(table.summary).append('\n');
        }
        out.append("\nIsland (").append(coverage().name().toLowerCase(Locale.ROOT)).append(")\n");
        out.append(nativeNodes.isEmpty() ? "  no native nodes" : "  " + String.join(" -> ", nativeNodes)).append('\n');
        if (!fallbacks.isEmpty()) {
            out.append("\nStays stock Flink\n");
            for (Fallback fallback : fallbacks) {
                out.append("  - ").append(fallback.reason).append('\n');
                out.append("      ")
                        .append(fallback.admit.map(a -> "native with: " + a).orElse("no query change admits it yet"))
                        .append('\n');
            }
        }
        out.append("\nPlan\n").append(plan.strip()).append('\n');
        sampleRun.ifPresent(run -> {
            out.append("\nSample run\n");
            run.samples.forEach(sample -> out.append("  ").append(sample).append('\n'));
            out.append(String.format(
                    Locale.ROOT,
                    "  stock Flink %d ms, StreamFusion %d ms: %.2fx; %d rows; %s%n",
                    run.stock.toMillis(),
                    run.streamFusion.toMillis(),
                    run.speedup(),
                    run.rows,
                    verdictText(run.verdict)));
            run.differences.forEach(difference -> out.append("    ").append(difference).append('\n'));
        });
        return out.toString();
    }

    private static String verdictText(Verdict verdict) {
        switch (verdict) {
            case EQUAL:
                return "the rows are equal";
            case ORDER_DEPENDENT:
                return "the rows differ, as they do between two stock runs: they depend on the order rows arrive in";
            default:
                return "THE ROWS DIFFER (two stock runs agree): please report it with this output";
        }
    }
}
