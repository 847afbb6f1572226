package dev.streamfusion.bridge;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NativeLibraryTest {

    @Test
    void reportsWhatWasLoaded() {
        NativeLibrary.Loaded loaded = NativeLibrary.load();
        String configured = System.getProperty(NativeLibrary.LIBRARY_PROPERTY);
        assertThat(loaded.location()).isEqualTo(Path.of(configured).toAbsolutePath().toString());
        assertThat(loaded.profile()).isIn("debug", "release");
        assertThat(loaded.version()).isEqualTo("0.1.0");
        assertThat(NativeLibrary.load()).isSameAs(loaded);
    }

    @Test
    void benchmarksRefuseADebugBuild() {
        NativeLibrary.Loaded loaded = NativeLibrary.load();
        if (loaded.isRelease()) {
            assertThat(NativeLibrary.requireRelease("a benchmark")).isSameAs(loaded);
        } else {
            assertThatThrownBy(() -> NativeLibrary.requireRelease("a benchmark"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("a benchmark needs a release build");
        }
    }

    /**
     * Flink loads a job's jars in a fresh class loader per job: each must extract and bind its own
     * copy of the library from the jar, and both must work side by side in one JVM.
     */
    @Test
    void eachClassLoaderExtractsItsOwnCopyFromTheJar() throws Exception {
        String configured = System.clearProperty(NativeLibrary.LIBRARY_PROPERTY);
        try (URLClassLoader first = isolatedLoader();
                URLClassLoader second = isolatedLoader()) {
            String firstLocation = loadIn(first);
            String secondLocation = loadIn(second);
            assertThat(firstLocation).startsWith("jar:/native/linux-x86_64/libstreamfusion.so");
            assertThat(secondLocation).startsWith("jar:/native/linux-x86_64/libstreamfusion.so");
            assertThat(firstLocation).isNotEqualTo(secondLocation);
            assertPanicIsCaughtIn(first);
            assertPanicIsCaughtIn(second);
        } finally {
            if (configured != null) {
                System.setProperty(NativeLibrary.LIBRARY_PROPERTY, configured);
            }
        }
    }

    /**
     * With {@code -Dstreamfusion.native.library}, the first class loader binds the file itself;
     * every other (a later job's) binds a copy of its own, and all work side by side.
     */
    @Test
    void eachClassLoaderBindsTheConfiguredFileOrACopyOfIt() throws Exception {
        String configured = System.getProperty(NativeLibrary.LIBRARY_PROPERTY);
        assertThat(configured).isNotEmpty();
        NativeLibrary.load();
        try (URLClassLoader first = isolatedLoader();
                URLClassLoader second = isolatedLoader()) {
            String firstLocation = loadIn(first);
            String secondLocation = loadIn(second);
            String path = Path.of(configured).toAbsolutePath().toString();
            assertThat(firstLocation).startsWith(path + " (copied for class loader ");
            assertThat(secondLocation).startsWith(path + " (copied for class loader ");
            assertThat(firstLocation).isNotEqualTo(secondLocation);
            assertPanicIsCaughtIn(first);
            assertPanicIsCaughtIn(second);
        }
    }

    private static String loadIn(ClassLoader loader) throws Exception {
        Class<?> library = Class.forName(NativeLibrary.class.getName(), true, loader);
        assertThat(library).isNotSameAs(NativeLibrary.class);
        Object loaded = library.getMethod("load").invoke(null);
        return (String) loaded.getClass().getMethod("location").invoke(loaded);
    }

    private static void assertPanicIsCaughtIn(ClassLoader loader) throws Exception {
        Method panic = Class.forName(NativeDiagnostics.class.getName(), true, loader).getMethod("panic", String.class);
        assertThatThrownBy(() -> panic.invoke(null, "from an isolated loader"))
                .isInstanceOf(InvocationTargetException.class)
                .cause()
                .hasMessageContaining("from an isolated loader")
                .extracting(e -> e.getClass().getSimpleName())
                .isEqualTo("NativePanicException");
    }

    /** A child-first copy of the test class path: classes and jar resources of its own. */
    private static URLClassLoader isolatedLoader() throws MalformedURLException {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            urls.add(new File(entry).toURI().toURL());
        }
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }
}
