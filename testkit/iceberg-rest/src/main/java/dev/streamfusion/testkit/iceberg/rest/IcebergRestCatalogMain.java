package dev.streamfusion.testkit.iceberg.rest;

import org.apache.flink.annotation.Internal;

import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/**
 * Serves an Iceberg REST catalog: Iceberg's own server side of the protocol ({@code
 * RESTCatalogAdapter} behind {@code RESTCatalogServlet}) in Jetty, on a port the system picks, over
 * a JDBC catalog in SQLite whose warehouse is under the directory it is given. Writes {@code
 * http://127.0.0.1:<port>/} to the file {@value #URI_FILE} there once it serves, and stops when its
 * standard input closes.
 *
 * <p>Arguments: the directory.
 */
@Internal
public final class IcebergRestCatalogMain {

    /** The file the catalog's URI is written to once it serves. */
    public static final String URI_FILE = "uri";

    private IcebergRestCatalogMain() {}

    public static void main(String[] args) throws Exception {
        Path directory = Path.of(args[0]);
        Path warehouse = Files.createDirectories(directory.resolve("warehouse"));
        Catalog backend = CatalogUtil.buildIcebergCatalog(
                "rest_backend",
                Map.of("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog",
                        "uri", "jdbc:sqlite:" + directory.resolve("catalog.sqlite"),
                        "jdbc.schema-version", "V1",
                        "warehouse", warehouse.toUri().toString()),
                new org.apache.hadoop.conf.Configuration());
        try (RESTCatalogAdapter adapter = new RESTCatalogAdapter(backend)) {
            Server server = new Server();
            ServerConnector connector = new ServerConnector(server);
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler();
            context.addServlet(new ServletHolder(new RESTCatalogServlet(adapter)), "/*");
            server.setHandler(context);
            server.start();
            String uri = "http://127.0.0.1:" + connector.getLocalPort() + "/";
            Path pending = directory.resolve(URI_FILE + ".tmp");
            Files.write(pending, uri.getBytes(StandardCharsets.UTF_8));
            Files.move(pending, directory.resolve(URI_FILE), StandardCopyOption.ATOMIC_MOVE);
            while (System.in.read() != -1) {
                // Serves until the test JVM closes the pipe (or goes away).
            }
            server.stop();
        }
    }
}
