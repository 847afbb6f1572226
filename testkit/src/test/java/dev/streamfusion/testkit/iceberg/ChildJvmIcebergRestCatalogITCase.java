package dev.streamfusion.testkit.iceberg;

import dev.streamfusion.testkit.process.ChildJvm;

import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

import org.junit.jupiter.api.Test;

import java.io.Closeable;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ChildJvmIcebergRestCatalogITCase {

    @Test
    void servesIcebergsRestProtocolThenStopsAndCleansUp() throws Exception {
        ChildJvmIcebergRestCatalog rest = ChildJvmIcebergRestCatalog.start();
        Path directory = rest.directory();
        URI uri = URI.create(rest.uri());
        try {
            assertThat(uri.getHost()).isEqualTo("127.0.0.1");
            // The client only asks the catalog: a FileIO without Hadoop (the server writes the metadata).
            Catalog client = CatalogUtil.buildIcebergCatalog("client", Map.of("catalog-impl", "org.apache.iceberg.rest.RESTCatalog",
                    "uri", rest.uri(), "io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO"), null);
            try {
                ((SupportsNamespaces) client).createNamespace(Namespace.of("db"));
                client.createTable(TableIdentifier.of("db", "t"), new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
                assertThat(client.listTables(Namespace.of("db"))).containsExactly(TableIdentifier.of("db", "t"));
                assertThat(client.loadTable(TableIdentifier.of("db", "t")).location())
                        .contains(directory.resolve("warehouse").toString());
            } finally {
                ((Closeable) client).close();
            }
        } finally {
            rest.close();
        }
        assertThat(Files.exists(directory)).isFalse();
        assertThat(ChildJvm.portOpen(uri.getHost(), uri.getPort())).isFalse();
    }
}
