package dev.streamfusion.testkit.iceberg;

import org.apache.flink.annotation.PublicEvolving;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that starts one {@link ChildJvmIcebergRestCatalog} before the tests of a class
 * and stops it after them. Register it in a {@code static} field.
 */
@PublicEvolving
public final class IcebergRestCatalogExtension implements BeforeAllCallback, AfterAllCallback {

    private ChildJvmIcebergRestCatalog catalog;

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (catalog == null) {
            catalog = ChildJvmIcebergRestCatalog.start();
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        // Stopped after the top-level class that registered it (whose parent is the engine's
        // context); a nested class's callbacks leave it running.
        if (catalog != null && context.getParent().flatMap(ExtensionContext::getParent).isEmpty()) {
            catalog.close();
            catalog = null;
        }
    }

    /**
     * The catalog's URI.
     *
     * @throws IllegalStateException outside the tests of the class that registered the extension
     */
    public synchronized String uri() {
        if (catalog == null) {
            throw new IllegalStateException("The Iceberg REST catalog is not running: register "
                    + "IcebergRestCatalogExtension with @RegisterExtension on a static field and use it from that class's tests.");
        }
        return catalog.uri();
    }
}
