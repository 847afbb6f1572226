package dev.streamfusion.bridge.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ReadableConfig;

import java.util.ServiceLoader;

/**
 * Something that takes part in planning a query that uses a StreamFusion table (the operator
 * island installs itself this way). Every StreamFusion table factory calls {@link #tablePlanned}
 * of the extensions its class loader finds, with the configuration the table is planned in,
 * before the planner optimizes the query.
 */
@Internal
public interface PlannerExtension {

    /** Called once per StreamFusion table in a query, with the table config it is planned in. */
    void tablePlanned(ReadableConfig config);

    /** Calls every extension {@code loader} finds (registered under {@code META-INF/services}). */
    static void tablePlanned(ReadableConfig config, ClassLoader loader) {
        for (PlannerExtension extension : ServiceLoader.load(PlannerExtension.class, loader)) {
            extension.tablePlanned(config);
        }
    }
}
