package dev.streamfusion.kafka.internal;

import org.apache.flink.annotation.Internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a librdkafka client said, logged through SLF4J under the logger {@code librdkafka}: its
 * log lines at their levels, and the errors it retries by itself (a broker down, a timeout), each
 * distinct one once. The natives collect the lines; the thread that uses the client drains them
 * after each call.
 */
@Internal
public final class LibrdkafkaLog {

    private static final Logger LOG = LoggerFactory.getLogger("librdkafka");

    private LibrdkafkaLog() {}

    /** Logs {@code lines} (each its level's letter, then the text; {@code null} for none) of {@code client}. */
    public static void log(String client, String[] lines) {
        if (lines == null) {
            return;
        }
        for (String line : lines) {
            if (line == null || line.isEmpty()) {
                continue;
            }
            String text = line.substring(1);
            switch (line.charAt(0)) {
                case 'E':
                    LOG.error("{}: {}", client, text);
                    break;
                case 'W':
                    LOG.warn("{}: {}", client, text);
                    break;
                case 'I':
                    LOG.info("{}: {}", client, text);
                    break;
                default:
                    LOG.debug("{}: {}", client, text);
                    break;
            }
        }
    }
}
