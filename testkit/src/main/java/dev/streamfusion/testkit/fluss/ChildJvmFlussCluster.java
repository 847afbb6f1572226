package dev.streamfusion.testkit.fluss;

import dev.streamfusion.testkit.fluss.server.FlussClusterMain;
import dev.streamfusion.testkit.process.ChildJvmServer;

import org.apache.flink.annotation.PublicEvolving;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real Apache Fluss cluster (ZooKeeper, a coordinator and one tablet server, 0.9.1-incubating)
 * in a child JVM, on ports the system picks, its data in a fresh temporary directory that {@link
 * #close()} deletes. The child JVM runs the {@code fluss-server} jar alone, so neither its shaded
 * libraries nor its unshaded ones meet the test JVM's classpath; it stops when the test JVM closes
 * its standard input or goes away.
 */
@PublicEvolving
public final class ChildJvmFlussCluster implements AutoCloseable {

    static final String MAIN_CLASS = "dev.streamfusion.testkit.fluss.server.FlussClusterMain";
    private static final String CLASSPATH_FILE = "dev/streamfusion/testkit/fluss/server/fluss-server.classpath";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final ChildJvmServer server;

    private ChildJvmFlussCluster(ChildJvmServer server) {
        this.server = server;
    }

    /** Starts a cluster with the default options; see {@link #start(Map)}. */
    public static ChildJvmFlussCluster start() {
        return start(Map.of());
    }

    /**
     * Starts a cluster whose servers also get {@code serverOptions} (Fluss server options, such as
     * {@code kv.snapshot.interval}), and waits until its coordinator counts the tablet server
     * alive. Takes a few seconds.
     *
     * @throws IllegalStateException if the cluster does not start; the message holds its log
     */
    public static ChildJvmFlussCluster start(Map<String, String> serverOptions) {
        List<String> options = new ArrayList<>();
        serverOptions.forEach((key, value) -> options.add(key + "=" + value));
        return new ChildJvmFlussCluster(ChildJvmServer.start(
                "The Fluss cluster",
                "streamfusion-testkit-fluss-server",
                CLASSPATH_FILE,
                MAIN_CLASS,
                List.of("-Xmx768m",
                        "-XX:+ExitOnOutOfMemoryError",
                        // Fluss's (shaded) Arrow reads direct buffers' addresses.
                        "--add-opens=java.base/java.nio=ALL-UNNAMED",
                        "-Dzookeeper.admin.enableServer=false"),
                "streamfusion-fluss-",
                options,
                FlussClusterMain.BOOTSTRAP_FILE,
                START_TIMEOUT));
    }

    /** The coordinator's {@code host:port}: Fluss's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return server.address();
    }

    /** The cluster's temporary directory (data, log); deleted by {@link #close()}. */
    public Path directory() {
        return server.directory();
    }

    /** The cluster JVM's standard output and error. */
    public Path logFile() {
        return server.logFile();
    }

    /** Stops the cluster (its servers first, then its JVM) and deletes its directory. */
    @Override
    public void close() {
        server.close();
    }
}
