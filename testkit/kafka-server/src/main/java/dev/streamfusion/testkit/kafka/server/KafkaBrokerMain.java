package dev.streamfusion.testkit.kafka.server;

import org.apache.flink.annotation.Internal;

import kafka.Kafka;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Entry point of the child JVM that runs a test Kafka broker: formats the KRaft storage named by
 * the given {@code server.properties} with a fresh cluster id (unless it holds a broker's data
 * already, as after a restart), then runs the broker (combined broker and controller) until the
 * JVM is told to stop.
 *
 * <p>Formatting here rather than in a separate {@code kafka-storage} process saves one JVM start
 * (with Scala) per broker.
 *
 * <p>The broker also stops when its standard input reaches end of file. The launcher keeps that
 * pipe open for the broker's lifetime, and the operating system closes it when the launching JVM
 * dies however it dies, so a killed test run does not leave a broker running.
 *
 * <p>Usage: {@code java -cp <broker classpath> dev.streamfusion.testkit.kafka.server.KafkaBrokerMain
 * <server.properties>}.
 */
@Internal
public final class KafkaBrokerMain {

    private KafkaBrokerMain() {}

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: KafkaBrokerMain <server.properties>");
            System.exit(2);
        }
        String config = args[0];
        exitWhenStdinCloses();

        int formatted;
        try {
            formatted = isFormatted(config) ? 0 :
                    StorageTool.execute(
                            new String[] {
                                "format",
                                "--config", config,
                                "--cluster-id", Uuid.randomUuid().toString(),
                                "--ignore-formatted"
                            },
                            System.out);
        } catch (Throwable t) {
            // StorageTool reports bad configuration by throwing; print it for the launcher's log tail.
            System.err.println("Formatting the KRaft storage for " + config + " failed:");
            t.printStackTrace();
            formatted = 1;
        }
        if (formatted != 0) {
            System.exit(formatted);
        }
        Kafka.main(new String[] {config});
    }

    /** Whether the storage ({@code log.dirs}) already holds a formatted broker's data. */
    private static boolean isFormatted(String config) throws IOException {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(config))) {
            properties.load(in);
        }
        String logDirs = properties.getProperty("log.dirs");
        return logDirs != null && Files.exists(Path.of(logDirs.split(",")[0], "meta.properties"));
    }

    private static void exitWhenStdinCloses() {
        Thread watcher =
                new Thread(
                        () -> {
                            InputStream in = System.in;
                            try {
                                while (in.read() != -1) {
                                    // Nothing is ever sent; only the end of the stream matters.
                                }
                            } catch (IOException e) {
                                // A broken pipe means the same as end of file: the launcher is gone.
                            }
                            System.out.println("Standard input closed: the launching JVM is gone, stopping the broker.");
                            // Runs the broker's shutdown hook, which stops it cleanly.
                            System.exit(0);
                        },
                        "launcher-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }
}
