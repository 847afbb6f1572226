package dev.streamfusion.operators.planner;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.planner.plan.nodes.calcite.Sink;
import org.apache.flink.table.planner.plan.nodes.physical.common.CommonPhysicalTableSourceScan;

import org.apache.calcite.rel.RelNode;
import org.checkerframework.checker.nullness.qual.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one optimization did with the island: the native nodes it placed, and why each candidate
 * stayed stock. Collected per plan, logged once, and handed to {@code StreamFusion.explain}.
 */
@Internal
public final class IslandReport {

    private static final ThreadLocal<List<IslandReport>> COLLECTED = new ThreadLocal<>();

    private final List<String> nativeNodes = new ArrayList<>();
    /** Why each candidate stayed stock, and what would admit it (null: nothing a query can change yet). */
    private final Map<String, String> fallbacks = new LinkedHashMap<>();
    private final Map<ObjectIdentifier, String> sources = new LinkedHashMap<>();
    private final Map<ObjectIdentifier, String> sinks = new LinkedHashMap<>();

    void placed(String node) {
        nativeNodes.add(node);
    }

    void fellBack(String reason, @Nullable String admit) {
        fallbacks.putIfAbsent(reason, admit);
    }

    /** Lists the tables {@code plan} reads and writes, with the summaries their connectors give. */
    void tablesOf(RelNode plan) {
        listTables(plan, Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    private void listTables(RelNode rel, Set<RelNode> seen) {
        if (!seen.add(rel)) {
            return;
        }
        rel.getInputs().forEach(input -> listTables(input, seen));
        if (rel instanceof CommonPhysicalTableSourceScan) {
            CommonPhysicalTableSourceScan scan = (CommonPhysicalTableSourceScan) rel;
            sources.putIfAbsent(
                    scan.tableSourceTable().contextResolvedTable().getIdentifier(), scan.tableSource().asSummaryString());
        } else if (rel instanceof Sink) {
            Sink sink = (Sink) rel;
            sinks.putIfAbsent(sink.contextResolvedTable().getIdentifier(), sink.tableSink().asSummaryString());
        }
    }

    /** The island's nodes, as EXPLAIN names them, with what they read. */
    public List<String> nativeNodes() {
        return List.copyOf(nativeNodes);
    }

    /** Why each candidate for the island stayed stock Flink, once per reason. */
    public List<String> fallbacks() {
        return List.copyOf(fallbacks.keySet());
    }

    /**
     * What would admit each fallback into the island (an option, a type, a function), by reason;
     * a reason maps to nothing when no change to the query admits it yet.
     */
    public Map<String, Optional<String>> admits() {
        Map<String, Optional<String>> admits = new LinkedHashMap<>();
        fallbacks.forEach((reason, admit) -> admits.put(reason, Optional.ofNullable(admit)));
        return admits;
    }

    /** The tables the plan reads, with their sources' summaries. */
    public Map<ObjectIdentifier, String> sources() {
        return Collections.unmodifiableMap(sources);
    }

    /** The tables the plan writes, with their sinks' summaries. */
    public Map<ObjectIdentifier, String> sinks() {
        return Collections.unmodifiableMap(sinks);
    }

    boolean isEmpty() {
        return nativeNodes.isEmpty() && fallbacks.isEmpty();
    }

    void publish() {
        List<IslandReport> collecting = COLLECTED.get();
        if (collecting != null) {
            collecting.add(this);
        }
    }

    /**
     * Runs {@code planning} on this thread and returns the reports of every plan it optimized.
     *
     * @param <E> what {@code planning} may throw
     */
    public static <E extends Exception> List<IslandReport> collect(Planning<E> planning) throws E {
        List<IslandReport> previous = COLLECTED.get();
        List<IslandReport> reports = new ArrayList<>();
        COLLECTED.set(reports);
        try {
            planning.run();
            return reports;
        } finally {
            COLLECTED.set(previous);
        }
    }

    /**
     * Planning work whose reports are collected.
     *
     * @param <E> what it may throw
     */
    @FunctionalInterface
    public interface Planning<E extends Exception> {
        void run() throws E;
    }

    @Override
    public String toString() {
        return "island " + nativeNodes + ", stock: " + fallbacks;
    }
}
