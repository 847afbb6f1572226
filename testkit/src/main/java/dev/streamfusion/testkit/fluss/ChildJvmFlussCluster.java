package dev.streamfusion.testkit.fluss;

import dev.streamfusion.testkit.fluss.server.FlussClusterMain;
import dev.streamfusion.testkit.process.ChildJvm;

import org.apache.flink.annotation.PublicEvolving;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A real Apache Fluss cluster (ZooKeeper, a coordinator and one tablet server, 0.9.1-incubating)
 * in a child JVM, on ports the system picks, its data in a fresh temporary directory that {@link
 * #close()} deletes. The child JVM runs the {@code fluss-server} jar alone, so neither its shaded
 * libraries nor its unshaded ones meet the test JVM's classpath; it stops when the test JVM closes
 * its standard input or goes away.
 */
@PublicEvolving
public final class ChildJvmFlussCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChildJvmFlussCluster.class);

    static final String MAIN_CLASS = "dev.streamfusion.testkit.fluss.server.FlussClusterMain";
    private static final String CLASSPATH_FILE = "dev/streamfusion/testkit/fluss/server/fluss-server.classpath";
    private static final String LOG_FILE = "cluster.log";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration GRACEFUL_STOP = Duration.ofSeconds(10);
    private static final long POLL_MILLIS = 100;

    private final Path directory;
    private final Process process;
    private final Thread shutdownHook;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile String bootstrapServers;

    private ChildJvmFlussCluster(Path directory, Process process) {
        this.directory = directory;
        this.process = process;
        this.shutdownHook = new Thread(this::close, "fluss-cluster-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
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
        String classpath = ChildJvm.classpath(CLASSPATH_FILE, "streamfusion-testkit-fluss-server");
        Path directory = ChildJvm.newDirectory("streamfusion-fluss-");
        List<String> command = new ArrayList<>(List.of(
                ChildJvm.java(),
                "-Xmx768m",
                "-XX:+ExitOnOutOfMemoryError",
                // Fluss's (shaded) Arrow reads direct buffers' addresses.
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-Dzookeeper.admin.enableServer=false",
                "-cp",
                classpath,
                MAIN_CLASS,
                directory.toString()));
        serverOptions.forEach((key, value) -> command.add(key + "=" + value));
        Process process;
        try {
            process = ChildJvm.spawn(command, directory, directory.resolve(LOG_FILE));
        } catch (IOException e) {
            ChildJvm.deleteDirectory(directory);
            throw new UncheckedIOException("Could not launch the Fluss cluster's JVM in " + directory, e);
        }
        ChildJvmFlussCluster cluster = new ChildJvmFlussCluster(directory, process);
        try {
            cluster.awaitReady();
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** The coordinator's {@code host:port}: Fluss's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The cluster's temporary directory (data, log); deleted by {@link #close()}. */
    public Path directory() {
        return directory;
    }

    /** The cluster JVM's standard output and error. */
    public Path logFile() {
        return directory.resolve(LOG_FILE);
    }

    private void awaitReady() {
        long started = System.nanoTime();
        long deadline = started + START_TIMEOUT.toNanos();
        Path bootstrap = directory.resolve(FlussClusterMain.BOOTSTRAP_FILE);
        try {
            while (!Files.exists(bootstrap)) {
                if (!process.isAlive()) {
                    throw failedStart("its JVM exited with code " + process.exitValue() + " before it served");
                }
                if (System.nanoTime() > deadline) {
                    throw failedStart("it did not serve within " + START_TIMEOUT.toSeconds() + " s");
                }
                Thread.sleep(POLL_MILLIS);
            }
            bootstrapServers = new String(Files.readAllBytes(bootstrap), StandardCharsets.UTF_8).trim();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failedStart("the test thread was interrupted while waiting for it");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + bootstrap, e);
        }
        LOG.info("Started a Fluss cluster at {} in {} ms (directory {})", bootstrapServers,
                (System.nanoTime() - started) / 1_000_000, directory);
    }

    private IllegalStateException failedStart(String reason) {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new IllegalStateException("The Fluss cluster did not start: " + reason + ". From its log ("
                + logFile() + ", deleted when it is closed):\n" + ChildJvm.excerpt(ChildJvm.readLog(logFile()), "ERROR"));
    }

    /** Stops the cluster (its servers first, then its JVM) and deletes its directory. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ChildJvm.removeShutdownHook(shutdownHook);
        // Closing standard input stops the servers; then the JVM goes.
        ChildJvm.closeQuietly(process.getOutputStream());
        ChildJvm.stop(process, true, GRACEFUL_STOP, "The Fluss cluster at " + bootstrapServers);
        ChildJvm.deleteDirectory(directory);
        LOG.info("Stopped the Fluss cluster at {}", bootstrapServers);
    }
}
