package dev.streamfusion.testkit.kafka;

import org.apache.flink.annotation.Internal;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The classpath of the broker's child JVM: the streamfusion-testkit-kafka-server artifact itself
 * (for its entry point and logging configuration) followed by the jars listed in the classpath file
 * that artifact carries.
 */
@Internal
final class KafkaServerClasspath {

    static final String MAIN_CLASS = "dev.streamfusion.testkit.kafka.server.KafkaBrokerMain";
    static final String LOG4J_CONFIGURATION = "dev/streamfusion/testkit/kafka/server/log4j2.properties";
    private static final String CLASSPATH_FILE =
            "dev/streamfusion/testkit/kafka/server/kafka-server.classpath";

    private KafkaServerClasspath() {}

    /**
     * Returns the child JVM's {@code -cp} value.
     *
     * @throws IllegalStateException if the server artifact is not on this JVM's classpath or names
     *     jars that are no longer in the local Maven repository
     */
    static String resolve() {
        URL listing = KafkaServerClasspath.class.getClassLoader().getResource(CLASSPATH_FILE);
        if (listing == null) {
            throw new IllegalStateException(
                    CLASSPATH_FILE
                            + " is not on the classpath: add dev.streamfusion:streamfusion-testkit-kafka-server"
                            + " (with all of its dependencies excluded) to the test dependencies.");
        }
        List<String> entries = new ArrayList<>();
        entries.add(artifactRoot(listing).toString());
        for (String jar : read(listing).trim().split(File.pathSeparator)) {
            if (jar.isBlank()) {
                continue;
            }
            if (!Files.exists(Path.of(jar))) {
                throw new IllegalStateException(
                        "The Kafka broker's classpath names "
                                + jar
                                + ", which does not exist. Rebuild it with"
                                + " 'mvn install -pl testkit/kafka-server' so that the broker's jars are in"
                                + " the local Maven repository.");
            }
            entries.add(jar);
        }
        return String.join(File.pathSeparator, entries);
    }

    private static String read(URL url) {
        try (InputStream in = url.openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + url, e);
        }
    }

    /** The jar or directory the classpath file was found in. */
    private static Path artifactRoot(URL listing) {
        try {
            switch (listing.getProtocol()) {
                case "jar":
                    // Reads the jar's location from the URL; nothing is opened.
                    return Path.of(((JarURLConnection) listing.openConnection()).getJarFileURL().toURI());
                case "file":
                    Path root = Path.of(listing.toURI());
                    for (int i = CLASSPATH_FILE.split("/").length; i > 0; i--) {
                        root = root.getParent();
                    }
                    return root;
                default:
                    throw new IllegalStateException(
                            "Cannot run the Kafka broker from " + listing + ": it must be a jar or directory on disk.");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not locate the jar of " + listing, e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("Could not locate the jar of " + listing, e);
        }
    }
}
