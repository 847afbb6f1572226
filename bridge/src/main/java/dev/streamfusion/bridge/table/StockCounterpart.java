package dev.streamfusion.bridge.table;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.table.factories.Factory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * A StreamFusion table factory that reads the tables of one of Flink's connectors with the same
 * options: it says how a table's options look for either connector, and how to bound a read of it
 * to a sample. The advisor runs a query both ways with it.
 *
 * <p>Every method takes a table's whole option map ({@code connector} included), in either form.
 *
 * @since 0.1
 */
@PublicEvolving
public interface StockCounterpart {

    /** The prefix of the options only StreamFusion reads; Flink's connectors do not know them. */
    String OWN_PREFIX = "streamfusion.";

    /** The option naming a table's connector. */
    String CONNECTOR = "connector";

    /**
     * The options of the same table for StreamFusion's connector, if {@code options} are those of
     * a table it reads (its own, or the stock connector's); empty otherwise.
     */
    Optional<Map<String, String>> streamFusion(Map<String, String> options);

    /**
     * The options of the same table for Flink's connector, if {@code options} are those of a table
     * it reads (its own, or StreamFusion's); empty otherwise.
     */
    Optional<Map<String, String>> stock(Map<String, String> options);

    /**
     * {@code options} (in either form) changed so that a read ends, having read about {@code rows}
     * records of the table's data, the same records in either form.
     *
     * @return the options, and what the sample is, in words
     * @throws IllegalArgumentException naming the option, when a read of the table cannot be bounded
     */
    Sample sample(Map<String, String> options, long rows);

    /**
     * A counterpart that takes the stock connector's options as they are: a table turns from one
     * into the other by its {@code connector} alone (and StreamFusion's own options dropped for the
     * stock one). Implemented by a table factory, whose identifier is {@link #factoryIdentifier()}.
     */
    @PublicEvolving
    interface SameOptions extends StockCounterpart {

        /** The identifier of Flink's connector whose options these are. */
        String stockIdentifier();

        /** StreamFusion's identifier (the table factory's). */
        String factoryIdentifier();

        @Override
        default Optional<Map<String, String>> streamFusion(Map<String, String> options) {
            return sameOptions(options, stockIdentifier(), factoryIdentifier(), false);
        }

        @Override
        default Optional<Map<String, String>> stock(Map<String, String> options) {
            return sameOptions(options, stockIdentifier(), factoryIdentifier(), true);
        }
    }

    /** Bounded options, and what they read. */
    @PublicEvolving
    final class Sample {
        private final Map<String, String> options;
        private final String description;

        public Sample(Map<String, String> options, String description) {
            this.options = Map.copyOf(options);
            this.description = description;
        }

        public Map<String, String> options() {
            return options;
        }

        /** What the sample reads, e.g. "the last 500 records of each of 2 partitions". */
        public String description() {
            return description;
        }
    }

    /**
     * Every counterpart among the table factories {@code loader} finds (a factory that cannot be
     * loaded, for a class missing from the class path, is passed over, as Flink's discovery does).
     */
    static List<StockCounterpart> discover(ClassLoader loader) {
        List<StockCounterpart> counterparts = new ArrayList<>();
        Iterator<Factory> factories = ServiceLoader.load(Factory.class, loader).iterator();
        while (true) {
            try {
                if (!factories.hasNext()) {
                    return counterparts;
                }
                Factory factory = factories.next();
                if (factory instanceof StockCounterpart) {
                    counterparts.add((StockCounterpart) factory);
                }
            } catch (ServiceConfigurationError | LinkageError e) {
                // not a factory this class path can build: neither can Flink's planner
            }
        }
    }

    /**
     * For a connector whose options are the stock one's: {@code options} as a table of {@code
     * toStock ? stockIdentifier : ownIdentifier} (without StreamFusion's own options for the stock
     * one), if their {@code connector} is either; empty otherwise.
     */
    private static Optional<Map<String, String>> sameOptions(
            Map<String, String> options, String stockIdentifier, String ownIdentifier, boolean toStock) {
        String connector = options.get(CONNECTOR);
        if (!stockIdentifier.equals(connector) && !ownIdentifier.equals(connector)) {
            return Optional.empty();
        }
        Map<String, String> result = toStock ? withoutOwnOptions(options) : new HashMap<>(options);
        result.put(CONNECTOR, toStock ? stockIdentifier : ownIdentifier);
        return Optional.of(result);
    }

    /** {@code options} without the options only StreamFusion reads. */
    static Map<String, String> withoutOwnOptions(Map<String, String> options) {
        Map<String, String> stock = new HashMap<>(options);
        stock.keySet().removeIf(key -> key.startsWith(OWN_PREFIX));
        return stock;
    }
}
