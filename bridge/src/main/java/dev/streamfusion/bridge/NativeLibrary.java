package dev.streamfusion.bridge;

import org.apache.flink.annotation.PublicEvolving;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Loads StreamFusion's native library once per class loader and says what was loaded.
 *
 * <p>The library comes from the file named by the system property {@value #LIBRARY_PROPERTY} when
 * it is set, otherwise from the jar ({@code /native/<os>-<arch>/libstreamfusion.so}, beside it
 * its SHA-256). The jar's library is extracted once per machine and user into a file named by its
 * hash, checked against it (in {@value #CACHE_PROPERTY}, by default {@code
 * <java.io.tmpdir>/streamfusion-native-<user>}), and loaded from there; other builds' libraries
 * not loaded for an hour are deleted when a new one is extracted. A JVM binds a library file to
 * one class loader, and Flink loads each job's jars in a class loader of its own, so a second class
 * loader in the same JVM loads a copy of the cached file (a file copy, not an extraction), deleted
 * as soon as it is loaded. A configured file is loaded where it is by the first class loader, and
 * copied the same way for the others.
 *
 * <p>Only {@value #SUPPORTED_PLATFORMS} is built; on any other platform {@link
 * #unavailableReason()} says so, and connectors that can fall back to Flink's own code do.
 *
 * @since 0.1
 */
@PublicEvolving
public final class NativeLibrary {

    /** System property naming a library file to load instead of the jar's copy. */
    public static final String LIBRARY_PROPERTY = "streamfusion.native.library";

    /** System property naming the directory the jar's library is extracted into, once per hash. */
    public static final String CACHE_PROPERTY = "streamfusion.native.cache-dir";

    /** The platforms the jar carries a library for. */
    public static final String SUPPORTED_PLATFORMS = "linux-x86_64";

    /** The JVM option Arrow Java needs to reach direct buffers' memory. */
    public static final String REQUIRED_JVM_OPTION = "--add-opens=java.base/java.nio=ALL-UNNAMED";

    private static final Logger LOG = LoggerFactory.getLogger(NativeLibrary.class);
    private static final String LIBRARY_FILE = "libstreamfusion.so";
    /**
     * How long a cached library of another build stays after it was last loaded. Deleting one is
     * safe at any time (a JVM that loaded it keeps its mapping, one that needs it extracts it
     * again), so the cache keeps little more than the builds in use.
     */
    private static final Duration CACHE_RETENTION = Duration.ofHours(1);

    private static volatile Loaded loaded;
    /** Why the library cannot be loaded here, once a load failed for that reason. */
    private static volatile String unavailable;

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

    /**
     * Loads the library if this class loader has not yet, and returns what was loaded.
     *
     * @throws NativeConfigException if the JVM lacks {@value #REQUIRED_JVM_OPTION}, there is no
     *     library for this platform, or the library cannot be linked here; the message says which
     *     and what to do
     */
    public static Loaded load() {
        Loaded current = loaded;
        if (current != null) {
            return current;
        }
        checkJvmOptions();
        synchronized (NativeLibrary.class) {
            if (loaded == null) {
                if (unavailable != null) {
                    throw new NativeConfigException(unavailable);
                }
                long started = System.nanoTime();
                String location;
                try {
                    location = loadLibraryFile();
                } catch (UnsatisfiedLinkError e) {
                    unavailable =
                            "StreamFusion's native library cannot be linked on this machine ("
                                    + platform()
                                    + "; built for "
                                    + SUPPORTED_PLATFORMS
                                    + " with glibc): "
                                    + e.getMessage();
                    throw new NativeConfigException(unavailable);
                }
                loaded = new Loaded(location, buildProfile(), version());
                LOG.info("Loaded {} in {} ms", loaded, (System.nanoTime() - started) / 1_000_000);
            }
            return loaded;
        }
    }

    /**
     * Why the native library cannot be used on this machine (no library for its platform, or one
     * that does not link here), or {@code null} when it loads. Connectors with a stock fallback
     * ask this at planning.
     */
    public static String unavailableReason() {
        if (loaded != null) {
            return null;
        }
        try {
            load();
            return null;
        } catch (NativeConfigException e) {
            if (unavailable == null) {
                throw e;
            }
            return unavailable;
        }
    }

    /**
     * Fails, naming the option, when Arrow Java cannot reach direct buffers' memory: without it,
     * the first batch would fail deep inside a task with Arrow's own error. {@link #load()} checks
     * it; connectors that use Arrow without the native library check it at planning.
     *
     * @throws NativeConfigException naming {@value #REQUIRED_JVM_OPTION} and where it goes
     */
    public static void checkJvmOptions() {
        Module nio = java.nio.ByteBuffer.class.getModule();
        if (!nio.isOpen("java.nio", NativeLibrary.class.getModule())) {
            throw new NativeConfigException(
                    "StreamFusion needs the JVM option "
                            + REQUIRED_JVM_OPTION
                            + " (Arrow Java reads direct buffers through java.nio internals). Flink's launch scripts"
                            + " pass it from env.java.opts.all in the Flink configuration; add it there or to the"
                            + " java command line of a JVM started otherwise (an IDE, a test, an embedded cluster).");
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
                return loadFileOrCopy(file) ? file + " (copied for class loader " + classLoaderName() + ")" : file.toString();
            } catch (IOException e) {
                throw new NativeException("could not copy the native library " + file, e);
            }
        }
        String resource = "/native/" + platform() + "/" + LIBRARY_FILE;
        URL library = NativeLibrary.class.getResource(resource);
        if (library == null) {
            unavailable =
                    "StreamFusion's native library is built for "
                            + SUPPORTED_PLATFORMS
                            + " only, and this JVM runs on "
                            + platform()
                            + " (the jar has no "
                            + resource
                            + "); set -D"
                            + LIBRARY_PROPERTY
                            + " to a library built for this machine (cargo build --release in native/)";
            throw new NativeConfigException(unavailable);
        }
        try {
            String hash = readHash(resource + ".sha256");
            Path cached = hash == null ? null : cachedCopy(library, hash);
            if (cached == null) {
                try (InputStream in = library.openStream()) {
                    loadCopy(in);
                }
                return "jar:" + resource + " (extracted for class loader " + classLoaderName() + ")";
            }
            return "jar:" + resource + " (cached at " + cached
                    + (loadFileOrCopy(cached) ? ", copied for class loader " + classLoaderName() : "") + ")";
        } catch (IOException e) {
            throw new NativeException("could not extract the native library " + resource, e);
        }
    }

    /**
     * Loads {@code file}, or, when another class loader (an earlier job's) has it bound, a copy
     * of it for this one; returns whether a copy was loaded.
     */
    private static boolean loadFileOrCopy(Path file) throws IOException {
        try {
            System.load(file.toString());
            return false;
        } catch (UnsatisfiedLinkError e) {
            if (e.getMessage() == null || !e.getMessage().contains("already loaded in another classloader")) {
                throw e;
            }
        }
        try (InputStream in = Files.newInputStream(file)) {
            loadCopy(in);
        }
        return true;
    }

    /** The SHA-256 the jar carries beside the library, or {@code null} for a jar without one. */
    private static String readHash(String resource) throws IOException {
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            String hash = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
            return hash.matches("[0-9a-f]{64}") ? hash : null;
        }
    }

    /**
     * The cache's file for the library with {@code hash}, extracted from {@code library} unless
     * a file with that hash is there already; {@code null} when the cache directory cannot be used
     * (the library is then extracted per class loader, as without a cache).
     */
    private static Path cachedCopy(URL library, String hash) throws IOException {
        Path directory = cacheDirectory();
        if (directory == null) {
            return null;
        }
        Path file = directory.resolve(hash + "-" + LIBRARY_FILE);
        // A file gets this name only by a rename after its hash was checked, in a directory only
        // this user can write: a file of the jar's size there holds these bytes.
        if (Files.isRegularFile(file) && Files.size(file) == library.openConnection().getContentLengthLong()) {
            // Marks it as in use for the pruning below.
            Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis()));
            return file;
        }
        pruneCache(directory);
        Path partial = Files.createTempFile(directory, "extracting-", ".so");
        try {
            try (InputStream in = library.openStream()) {
                Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
            }
            String extracted = sha256(partial);
            if (!hash.equals(extracted)) {
                throw new NativeException(
                        "the native library in the jar has SHA-256 " + extracted + ", not the " + hash + " the jar lists");
            }
            // Another JVM may have moved the same bytes there meanwhile: replacing them is harmless
            // (a new file; a loaded library keeps its mapping).
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return file;
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    /**
     * Deletes the libraries of other builds that no JVM has loaded for {@link #CACHE_RETENTION}
     * (a JVM that has one loaded keeps its mapping), so that upgrades do not pile up.
     */
    private static void pruneCache(Path directory) {
        long before = System.currentTimeMillis() - CACHE_RETENTION.toMillis();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*-" + LIBRARY_FILE)) {
            for (Path old : files) {
                if (Files.getLastModifiedTime(old).toMillis() < before) {
                    Files.deleteIfExists(old);
                }
            }
        } catch (IOException e) {
            LOG.warn("Could not prune old native libraries in {}: {}", directory, e.toString());
        }
    }

    /**
     * The configured cache directory, or this user's under the temporary directory: created
     * readable by its owner only, and used only when this user owns it.
     */
    private static Path cacheDirectory() {
        String configured = System.getProperty(CACHE_PROPERTY);
        Path directory =
                configured != null && !configured.isEmpty()
                        ? Paths.get(configured)
                        : Paths.get(
                                System.getProperty("java.io.tmpdir"),
                                "streamfusion-native-" + System.getProperty("user.name", "user"));
        try {
            if (!Files.isDirectory(directory)) {
                Files.createDirectories(directory);
                if (directory.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                    Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx------"));
                }
            }
            if (!Files.getOwner(directory).getName().equals(System.getProperty("user.name"))) {
                LOG.warn("Not caching the native library in {}: another user owns it", directory);
                return null;
            }
            return directory;
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("Not caching the native library in {}: {}", directory, e.toString());
            return null;
        }
    }

    private static String sha256(Path file) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
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
