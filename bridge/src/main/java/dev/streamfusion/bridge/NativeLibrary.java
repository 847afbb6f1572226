package dev.streamfusion.bridge;

import org.apache.flink.annotation.PublicEvolving;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads StreamFusion's native library once per class loader and says what was loaded.
 *
 * <p>The library comes from the file named by the system property {@value #LIBRARY_PROPERTY} when
 * it is set, otherwise from the jar ({@code /native/<os>-<arch>/libstreamfusion.so}). A JVM binds
 * one library file to one class loader, and Flink loads a job's jars in a fresh class loader per
 * job, so the jar's copy is extracted to a new temporary file for every class loader that loads
 * this class; the file is deleted as soon as it is loaded (the mapping stays valid). A configured
 * file is loaded where it is by the first class loader, and copied the same way for the others.
 *
 * @since 0.1
 */
@PublicEvolving
public final class NativeLibrary {

    /** System property naming a library file to load instead of the jar's copy. */
    public static final String LIBRARY_PROPERTY = "streamfusion.native.library";

    private static final Logger LOG = LoggerFactory.getLogger(NativeLibrary.class);
    private static final String LIBRARY_FILE = "libstreamfusion.so";

    private static volatile Loaded loaded;

    private NativeLibrary() {}

    /** What was loaded: where from, and how it was built. */
    public static final class Loaded {
        private final String location;
        private final String profile;
        private final String version;

        Loaded(String location, String profile, String version) {
            this.location = location;
            this.profile = profile;
            this.version = version;
        }

        /** The file loaded, or the jar resource it was extracted from. */
        public String location() {
            return location;
        }

        /** The cargo profile of the build: {@code debug} or {@code release}. */
        public String profile() {
            return profile;
        }

        public String version() {
            return version;
        }

        public boolean isRelease() {
            return "release".equals(profile);
        }

        @Override
        public String toString() {
            return "StreamFusion native " + version + " (" + profile + ") from " + location;
        }
    }

    /** Loads the library if this class loader has not yet, and returns what was loaded. */
    public static Loaded load() {
        Loaded current = loaded;
        if (current != null) {
            return current;
        }
        synchronized (NativeLibrary.class) {
            if (loaded == null) {
                String location = loadLibraryFile();
                loaded = new Loaded(location, buildProfile(), version());
                LOG.info("Loaded {}", loaded);
            }
            return loaded;
        }
    }

    /**
     * Fails unless a release build is loaded: figures from a debug build measure nothing a user
     * would run.
     */
    public static Loaded requireRelease(String purpose) {
        Loaded current = load();
        if (!current.isRelease()) {
            throw new IllegalStateException(
                    purpose
                            + " needs a release build of the native library, but "
                            + current
                            + " is loaded; build with 'mvn -Prelease' or point -D"
                            + LIBRARY_PROPERTY
                            + " at a release build");
        }
        return current;
    }

    /** Bytes the native library has allocated and not yet freed. */
    public static long nativeAllocatedBytes() {
        load();
        return allocatedBytes();
    }

    private static String loadLibraryFile() {
        String configured = System.getProperty(LIBRARY_PROPERTY);
        if (configured != null && !configured.isEmpty()) {
            Path file = Paths.get(configured).toAbsolutePath();
            if (!Files.isRegularFile(file)) {
                throw new NativeConfigException(
                        "-D" + LIBRARY_PROPERTY + " names " + file + ", which is not a file");
            }
            try {
                System.load(file.toString());
                return file.toString();
            } catch (UnsatisfiedLinkError e) {
                // The file is bound to another class loader (an earlier job's): this one binds a
                // copy of its own.
                if (e.getMessage() == null || !e.getMessage().contains("already loaded in another classloader")) {
                    throw e;
                }
            }
            try (InputStream in = Files.newInputStream(file)) {
                loadCopy(in);
                return file + " (copied for class loader " + classLoaderName() + ")";
            } catch (IOException e) {
                throw new NativeException("could not copy the native library " + file, e);
            }
        }
        String resource = "/native/" + platform() + "/" + LIBRARY_FILE;
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new NativeConfigException(
                        "no native library for "
                                + platform()
                                + " in the StreamFusion jar (looked for "
                                + resource
                                + "); set -D"
                                + LIBRARY_PROPERTY
                                + " to a library built for this machine");
            }
            loadCopy(in);
            return "jar:" + resource + " (extracted for class loader " + classLoaderName() + ")";
        } catch (IOException e) {
            throw new NativeException("could not extract the native library " + resource, e);
        }
    }

    /** Loads the library {@code in} holds from a temporary file, deleted once loaded. */
    private static void loadCopy(InputStream in) throws IOException {
        Path file = Files.createTempFile("streamfusion-", ".so");
        try {
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            System.load(file.toString());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String osName = os.contains("linux") ? "linux" : os.contains("mac") ? "darwin" : os;
        String archName =
                arch.equals("amd64") || arch.equals("x86_64")
                        ? "x86_64"
                        : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : arch;
        return osName + "-" + archName;
    }

    private static String classLoaderName() {
        ClassLoader loader = NativeLibrary.class.getClassLoader();
        return loader == null ? "bootstrap" : loader.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(loader));
    }

    private static native String buildProfile();

    private static native String version();

    private static native long allocatedBytes();
}
