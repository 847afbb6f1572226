package dev.streamfusion.testkit.flink;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * The Flink MiniCluster a test class shares: one TaskManager with the slots its jobs need,
 * registered as a static JUnit extension.
 */
@Internal
public final class MiniClusters {

    private MiniClusters() {}

    /** A cluster of one TaskManager with {@code slots} slots. */
    public static MiniClusterExtension withSlots(int slots) {
        return withSlots(slots, new Configuration());
    }

    /** A cluster of one TaskManager with {@code slots} slots, configured by {@code configuration}. */
    public static MiniClusterExtension withSlots(int slots, Configuration configuration) {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setConfiguration(configuration)
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(slots)
                        .build());
    }
}
