package dev.streamfusion.testkit.fluss;

import org.apache.flink.annotation.PublicEvolving;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Map;

/**
 * JUnit 5 extension that starts one {@link ChildJvmFlussCluster} before the tests of a class and
 * stops it after them. Register it in a {@code static} field; {@code @Nested} classes share it.
 */
@PublicEvolving
public final class FlussClusterExtension implements BeforeAllCallback, AfterAllCallback {

    private final Map<String, String> serverOptions;
    private ChildJvmFlussCluster cluster;
    /** The test class context that started the cluster; nested classes' callbacks leave it alone. */
    private String owner;

    /** A cluster with the default options. */
    public FlussClusterExtension() {
        this(Map.of());
    }

    /** A cluster whose servers get {@code serverOptions} too. */
    public FlussClusterExtension(Map<String, String> serverOptions) {
        this.serverOptions = serverOptions;
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (cluster == null) {
            cluster = ChildJvmFlussCluster.start(serverOptions);
            owner = context.getUniqueId();
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (cluster != null && context.getUniqueId().equals(owner)) {
            cluster.close();
            cluster = null;
            owner = null;
        }
    }

    /**
     * The coordinator's {@code host:port}.
     *
     * @throws IllegalStateException outside the tests of the class that registered the extension
     */
    public synchronized String bootstrapServers() {
        if (cluster == null) {
            throw new IllegalStateException("The Fluss cluster is not running: register FlussClusterExtension with"
                    + " @RegisterExtension on a static field and use it from that class's tests.");
        }
        return cluster.bootstrapServers();
    }
}
