package dev.streamfusion.iceberg;

import org.apache.iceberg.inmemory.InMemoryFileIO;

/**
 * Iceberg's {@link InMemoryFileIO} (files in one map per JVM, at {@code memory://} locations) that
 * stays usable after its catalog closes it. A closed {@code InMemoryFileIO} refuses every call and
 * carries that state into its serialized copies, which the jobs of both connectors read with after
 * planning closed the catalog; the files themselves are shared by every instance anyway.
 */
public final class SharedInMemoryFileIO extends InMemoryFileIO {

    @Override
    public void close() {}
}
