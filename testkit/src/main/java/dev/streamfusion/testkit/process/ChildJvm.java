package dev.streamfusion.testkit.process;

import org.apache.flink.annotation.Internal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.JarURLConnection;
import java.net.Socket;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the testkit's servers in child JVMs share: their classpath (read from a file their
 * launcher artifact carries), their temporary directory, starting the JVM with its output in a log
 * file, stopping it, and the part of its log a failed start reports.
 */
@Internal
public final class ChildJvm {

    private static final Logger LOG = LoggerFactory.getLogger(ChildJvm.class);

    private static final int LOG_TAIL_LINES = 60;
    private static final int FIRST_ERROR_LINES = 30;

    private ChildJvm() {}

    /** This JVM's {@code java} executable, which the child JVMs run on. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** A fresh temporary directory for a server's configuration, data and log. */
    public static Path newDirectory(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create a temporary directory " + prefix + "*", e);
        }
    }

    /**
     * The {@code -cp} of a server's child JVM: the launcher artifact holding {@code classpathFile}
     * (a resource listing absolute jar paths), then those jars.
     *
     * @throws IllegalStateException if the artifact is not on this JVM's classpath, or it names
     *     jars that are gone from the local Maven repository
     */
    public static String classpath(String classpathFile, String artifact) {
        URL listing = ChildJvm.class.getClassLoader().getResource(classpathFile);
        if (listing == null) {
            throw new IllegalStateException(classpathFile + " is not on the classpath: add dev.streamfusion:" + artifact
                    + " (with all of its dependencies excluded) to the test dependencies.");
        }
        List<String> entries = new ArrayList<>();
        entries.add(artifactRoot(listing, classpathFile).toString());
        for (String jar : read(listing).trim().split(File.pathSeparator)) {
            if (jar.isBlank()) {
                continue;
            }
            if (!Files.exists(Path.of(jar))) {
                throw new IllegalStateException("The classpath of " + artifact + " names " + jar
                        + ", which does not exist. Rebuild it with 'mvn install' of that module so that its jars are in"
                        + " the local Maven repository.");
            }
            entries.add(jar);
        }
        return String.join(File.pathSeparator, entries);
    }

    /**
     * Starts {@code command} in {@code directory}, its output appended to {@code log}. Its standard
     * input stays a pipe held by this JVM: a launcher that reads it stops when this JVM goes.
     */
    public static Process spawn(List<String> command, Path directory, Path log) throws IOException {
        return new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
    }

    /**
     * Stops {@code process}: when {@code graceful}, asks it to (SIGTERM, so its shutdown hooks run)
     * and waits up to {@code grace}; then kills it.
     */
    public static void stop(Process process, boolean graceful, Duration grace, String what) {
        try {
            if (graceful) {
                process.destroy();
                if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                    LOG.warn("{} did not stop within {} s; killing it", what, grace.toSeconds());
                }
            }
            process.destroyForcibly();
            process.waitFor();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        closeQuietly(process.getOutputStream());
    }

    /** Removes {@code hook}; during the JVM's shutdown (when it may be this very hook) does nothing. */
    public static void removeShutdownHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // The JVM is shutting down: the hook runs or has run, and finds its server closed.
        }
    }

    /** Whether something accepts connections at {@code host}:{@code port}. */
    public static boolean portOpen(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The whole of {@code log}, or why it cannot be read. */
    public static String readLog(Path log) {
        try {
            return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(could not read the log: " + e + ")";
        }
    }

    /**
     * The last lines of {@code log}, preceded by its first line containing {@code errorMarker} when
     * that came earlier: a server that fails during start-up logs its whole shutdown afterwards,
     * which can push the cause out of the tail.
     */
    public static String excerpt(String log, String errorMarker) {
        List<String> lines = Arrays.asList(log.split("\\R"));
        int tailStart = Math.max(0, lines.size() - LOG_TAIL_LINES);
        StringBuilder excerpt = new StringBuilder();
        for (int i = 0; i < tailStart; i++) {
            if (lines.get(i).contains(errorMarker)) {
                excerpt.append("First error:\n")
                        .append(String.join("\n", lines.subList(i, Math.min(i + FIRST_ERROR_LINES, tailStart))))
                        .append("\n...\nLast lines:\n");
                break;
            }
        }
        return excerpt.append(String.join("\n", lines.subList(tailStart, lines.size()))).toString();
    }

    /** Deletes {@code directory} and everything under it; a failure is logged, not thrown. */
    public static void deleteDirectory(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not delete the directory {}", directory, e);
        }
    }

    /** Closes {@code stream} (a pipe to a child JVM), ignoring a pipe that is already broken. */
    public static void closeQuietly(OutputStream stream) {
        try {
            stream.close();
        } catch (IOException e) {
            // The pipe to a dead process: nothing to release.
        }
    }

    private static String read(URL url) {
        try (InputStream in = url.openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + url, e);
        }
    }

    /** The jar or directory {@code listing} (the resource {@code path}) was found in. */
    private static Path artifactRoot(URL listing, String path) {
        try {
            switch (listing.getProtocol()) {
                case "jar":
                    // Reads the jar's location from the URL; nothing is opened.
                    return Path.of(((JarURLConnection) listing.openConnection()).getJarFileURL().toURI());
                case "file":
                    Path root = Path.of(listing.toURI());
                    for (int i = path.split("/").length; i > 0; i--) {
                        root = root.getParent();
                    }
                    return root;
                default:
                    throw new IllegalStateException("Cannot run a child JVM from " + listing
                            + ": it must be a jar or directory on disk.");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not locate the jar of " + listing, e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("Could not locate the jar of " + listing, e);
        }
    }
}
