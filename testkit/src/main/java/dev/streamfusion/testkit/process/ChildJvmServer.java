package dev.streamfusion.testkit.process;

import org.apache.flink.annotation.Internal;

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
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A server in a child JVM whose launcher writes its address to a file in its directory once it
 * serves, and stops when its standard input closes: started with its output in a log file in that
 * directory, waited for, and stopped (with the directory deleted) by {@link #close()}, by a
 * shutdown hook, or when the test JVM goes away.
 */
@Internal
public final class ChildJvmServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChildJvmServer.class);

    private static final String LOG_FILE = "server.log";
    private static final Duration GRACEFUL_STOP = Duration.ofSeconds(10);
    private static final long POLL_MILLIS = 100;

    private final String what;
    private final Path directory;
    private final Process process;
    private final Thread shutdownHook;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile String address;

    private ChildJvmServer(String what, Path directory, Process process) {
        this.what = what;
        this.directory = directory;
        this.process = process;
        this.shutdownHook = new Thread(this::close, what + " stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts {@code mainClass} of the launcher artifact {@code artifact} (whose {@code
     * classpathFile} lists its jars) with {@code jvmOptions}, then a fresh directory (named from
     * {@code prefix}) and {@code arguments} as arguments, and waits up to {@code timeout} for the
     * file {@code readyFile} in that directory: its content is the server's address.
     *
     * @throws IllegalStateException if the server does not start; the message holds its log
     */
    public static ChildJvmServer start(
            String what, String artifact, String classpathFile, String mainClass, List<String> jvmOptions, String prefix,
            List<String> arguments, String readyFile, Duration timeout) {
        String classpath = ChildJvm.classpath(classpathFile, artifact);
        Path directory = ChildJvm.newDirectory(prefix);
        List<String> command = new ArrayList<>();
        command.add(ChildJvm.java());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classpath, mainClass, directory.toString()));
        command.addAll(arguments);
        Process process;
        try {
            process = ChildJvm.spawn(command, directory, directory.resolve(LOG_FILE));
        } catch (IOException e) {
            ChildJvm.deleteDirectory(directory);
            throw new UncheckedIOException("Could not launch the JVM of " + what + " in " + directory, e);
        }
        ChildJvmServer server = new ChildJvmServer(what, directory, process);
        try {
            server.awaitReady(directory.resolve(readyFile), timeout);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** What the launcher wrote to its ready file. */
    public String address() {
        return address;
    }

    /** The server's temporary directory; deleted by {@link #close()}. */
    public Path directory() {
        return directory;
    }

    /** The server JVM's standard output and error. */
    public Path logFile() {
        return directory.resolve(LOG_FILE);
    }

    private void awaitReady(Path ready, Duration timeout) {
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        try {
            while (!Files.exists(ready)) {
                if (!process.isAlive()) {
                    throw failedStart("its JVM exited with code " + process.exitValue() + " before it served");
                }
                if (System.nanoTime() > deadline) {
                    throw failedStart("it did not serve within " + timeout.toSeconds() + " s");
                }
                Thread.sleep(POLL_MILLIS);
            }
            address = new String(Files.readAllBytes(ready), StandardCharsets.UTF_8).trim();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failedStart("the test thread was interrupted while waiting for it");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + ready, e);
        }
        LOG.info("Started {} at {} in {} ms (directory {})", what, address, (System.nanoTime() - started) / 1_000_000,
                directory);
    }

    private IllegalStateException failedStart(String reason) {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new IllegalStateException(what + " did not start: " + reason + ". From its log (" + logFile()
                + ", deleted when it is closed):\n" + ChildJvm.excerpt(ChildJvm.readLog(logFile()), "ERROR"));
    }

    /** Stops the server (closing its standard input, then its JVM) and deletes its directory. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ChildJvm.removeShutdownHook(shutdownHook);
        ChildJvm.closeQuietly(process.getOutputStream());
        ChildJvm.stop(process, true, GRACEFUL_STOP, what + " at " + address);
        ChildJvm.deleteDirectory(directory);
        LOG.info("Stopped {} at {}", what, address);
    }
}
