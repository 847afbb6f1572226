package dev.streamfusion.testkit.iceberg;

import dev.streamfusion.testkit.iceberg.rest.IcebergRestCatalogMain;
import dev.streamfusion.testkit.process.ChildJvmServer;

import org.apache.flink.annotation.PublicEvolving;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real Iceberg REST catalog in a child JVM: Iceberg 1.11's own server side of the protocol in
 * Jetty, on a port the system picks, over a JDBC catalog in SQLite whose warehouse (local files)
 * is in a fresh temporary directory that {@link #close()} deletes. It stops when the test JVM
 * closes its standard input or goes away.
 */
@PublicEvolving
public final class ChildJvmIcebergRestCatalog implements AutoCloseable {

    static final String MAIN_CLASS = "dev.streamfusion.testkit.iceberg.rest.IcebergRestCatalogMain";
    private static final String CLASSPATH_FILE = "dev/streamfusion/testkit/iceberg/rest/iceberg-rest.classpath";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final ChildJvmServer server;

    private ChildJvmIcebergRestCatalog(ChildJvmServer server) {
        this.server = server;
    }

    /**
     * Starts a catalog and waits until it serves. Takes a second or two.
     *
     * @throws IllegalStateException if it does not start; the message holds its log
     */
    public static ChildJvmIcebergRestCatalog start() {
        return new ChildJvmIcebergRestCatalog(ChildJvmServer.start(
                "The Iceberg REST catalog",
                "streamfusion-testkit-iceberg-rest",
                CLASSPATH_FILE,
                MAIN_CLASS,
                List.of("-Xmx256m", "-XX:+ExitOnOutOfMemoryError"),
                "streamfusion-iceberg-rest-",
                List.of(),
                IcebergRestCatalogMain.URI_FILE,
                START_TIMEOUT));
    }

    /** The catalog's URI: Iceberg's {@code uri} catalog property, with {@code catalog-type} rest. */
    public String uri() {
        return server.address();
    }

    /** The directory of the catalog's database and warehouse; deleted by {@link #close()}. */
    public Path directory() {
        return server.directory();
    }

    @Override
    public void close() {
        server.close();
    }
}
