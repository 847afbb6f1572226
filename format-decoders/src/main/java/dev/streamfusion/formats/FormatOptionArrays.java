package dev.streamfusion.formats;

import org.apache.flink.annotation.Internal;

import java.util.Map;

/** A format's options as the two parallel string arrays the native constructors take. */
@Internal
final class FormatOptionArrays {

    final String[] keys;
    final String[] values;

    FormatOptionArrays(Map<String, String> options) {
        keys = options.keySet().toArray(new String[0]);
        values = new String[keys.length];
        for (int i = 0; i < keys.length; i++) {
            values[i] = options.get(keys[i]);
        }
    }
}
