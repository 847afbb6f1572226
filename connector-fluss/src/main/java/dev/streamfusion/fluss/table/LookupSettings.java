package dev.streamfusion.fluss.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.connector.source.lookup.cache.LookupCache;

/** How a table's rows are looked up for lookup joins: the {@code lookup.*} options. */
@Internal
final class LookupSettings {

    /** Flink's cache of looked up rows ({@code lookup.cache} = PARTIAL), or {@code null}. */
    final LookupCache cache;
    /** {@code lookup.async}. */
    final boolean async;
    /** {@code lookup.insert-if-not-exists}. */
    final boolean insertIfNotExists;

    LookupSettings(LookupCache cache, boolean async, boolean insertIfNotExists) {
        this.cache = cache;
        this.async = async;
        this.insertIfNotExists = insertIfNotExists;
    }
}
