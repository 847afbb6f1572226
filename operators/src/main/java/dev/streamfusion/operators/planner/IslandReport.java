package dev.streamfusion.operators.planner;

import org.apache.flink.annotation.Internal;

import java.util.ArrayList;
import java.util.List;

/**
 * What one optimization did with the island: the native nodes it placed, and why each candidate
 * stayed stock. Collected per plan, logged once, and handed to {@code StreamFusion.explain}.
 */
@Internal
public final class IslandReport {

    private static final ThreadLocal<List<IslandReport>> COLLECTED = new ThreadLocal<>();

    private final List<String> nativeNodes = new ArrayList<>();
    private final List<String> fallbacks = new ArrayList<>();

    void placed(String node) {
        nativeNodes.add(node);
    }

    void fellBack(String reason) {
        if (!fallbacks.contains(reason)) {
            fallbacks.add(reason);
        }
    }

    /** The island's nodes, as EXPLAIN names them, with what they read. */
    public List<String> nativeNodes() {
        return List.copyOf(nativeNodes);
    }

    /** Why each candidate for the island stayed stock Flink, once per reason. */
    public List<String> fallbacks() {
        return List.copyOf(fallbacks);
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
