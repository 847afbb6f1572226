package dev.streamfusion.e2e;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Command-line options of the harness's programs: {@code --key value}, flags, one positional argument. */
final class Args {

    /** The key the positional argument is under. */
    static final String POSITIONAL = "";

    private Args() {}

    /**
     * The options of {@code given} (which may also come as one argument of them all, from Maven):
     * {@code flags} take no value (and map to "true"), every other {@code --key} takes one.
     */
    static Map<String, String> parse(String[] given, Set<String> flags) {
        String joined = String.join(" ", given).trim();
        String[] args = joined.isEmpty() ? new String[0] : joined.split("\\s+");
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                if (options.putIfAbsent(POSITIONAL, args[i]) != null) {
                    throw new IllegalArgumentException("unexpected argument " + args[i]);
                }
                continue;
            }
            String key = args[i].substring(2);
            if (flags.contains(key)) {
                options.put(key, "true");
            } else if (i + 1 < args.length) {
                options.put(key, args[++i]);
            } else {
                throw new IllegalArgumentException("--" + key + " needs a value");
            }
        }
        return options;
    }
}
