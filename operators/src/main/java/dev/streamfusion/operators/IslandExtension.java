package dev.streamfusion.operators;

import dev.streamfusion.bridge.table.PlannerExtension;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.TableConfig;

/**
 * Installs the island, when {@link StreamFusion#ISLAND_ENABLED} is set, into the table config a
 * StreamFusion table is planned in: this is how the option alone turns the island on in the SQL
 * Client, {@code flink run} or a table environment with no StreamFusion code.
 */
@Internal
public final class IslandExtension implements PlannerExtension {

    @Override
    public void tablePlanned(ReadableConfig config) {
        if (config instanceof TableConfig && config.get(StreamFusion.ISLAND_ENABLED)) {
            StreamFusion.installInto((TableConfig) config);
        }
    }
}
