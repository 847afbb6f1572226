package dev.streamfusion.bridge;

import org.apache.flink.annotation.PublicEvolving;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jar's library as jobs that each bring the jar load it: two class loaders of this module's
 * classes, without {@code -Dstreamfusion.native.library}. The first extracts the library once
 * into the cache under its hash and loads it from there; the second loads a copy of the cached
 * file, without extracting it again.
 */
class NativeLibraryCacheTest {

    @TempDir Path cache;

    private String configuredLibrary;

    @BeforeEach
    void useTheJarsLibrary() {
        configuredLibrary = System.clearProperty(NativeLibrary.LIBRARY_PROPERTY);
        System.setProperty(NativeLibrary.CACHE_PROPERTY, cache.toString());
    }

    @AfterEach
    void restore() {
        if (configuredLibrary != null) {
            System.setProperty(NativeLibrary.LIBRARY_PROPERTY, configuredLibrary);
        }
        System.clearProperty(NativeLibrary.CACHE_PROPERTY);
    }

    @Test
    void theJarsLibraryIsExtractedOnceAndEachClassLoaderLoadsItsOwnCopy() throws Exception {
        Path resources = Paths.get(NativeLibrary.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path library = resources.resolve("native/linux-x86_64/libstreamfusion.so");
        String hash = Files.readString(resources.resolve("native/linux-x86_64/libstreamfusion.so.sha256"), StandardCharsets.US_ASCII)
                .trim();
        assertThat(hash).matches("[0-9a-f]{64}");

        String first = loadInFreshClassLoader();
        Path cached = cache.resolve(hash + "-libstreamfusion.so");
        assertThat(first).startsWith("StreamFusion native ").contains("from jar:/native/linux-x86_64/libstreamfusion.so (cached at " + cached + ")");
        assertThat(Files.size(cached)).isEqualTo(Files.size(library));
        assertThat(Files.mismatch(cached, library)).isEqualTo(-1L);
        Object extracted = Files.readAttributes(cached, BasicFileAttributes.class).fileKey();

        String second = loadInFreshClassLoader();
        assertThat(second).contains("(cached at " + cached + ", copied for class loader ");
        // Neither extracted again (which would rename a new file into place) nor left a partial
        // file behind.
        assertThat(Files.readAttributes(cached, BasicFileAttributes.class).fileKey()).isEqualTo(extracted);
        try (Stream<Path> files = Files.list(cache)) {
            assertThat(files.map(p -> p.getFileName().toString()).collect(Collectors.toList()))
                    .containsExactly(cached.getFileName().toString());
        }
    }

    /** {@code NativeLibrary.load().toString()} in a class loader of its own. */
    private static String loadInFreshClassLoader() throws Exception {
        List<URL> urls =
                Stream.of(NativeLibrary.class, PublicEvolving.class, Logger.class)
                        .map(c -> c.getProtectionDomain().getCodeSource().getLocation())
                        .collect(Collectors.toList());
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader())) {
            Class<?> nativeLibrary = loader.loadClass(NativeLibrary.class.getName());
            assertThat(nativeLibrary).isNotSameAs(NativeLibrary.class);
            return nativeLibrary.getMethod("load").invoke(null).toString();
        }
    }
}
