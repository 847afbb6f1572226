package dev.streamfusion.bridge;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Deliberate native failures that prove the error mapping end to end: a panic and each kind of
 * typed error arrive as the matching Java exception and the JVM keeps running. Useful as a health
 * check of a deployment's native library.
 *
 * @since 0.1
 */
@PublicEvolving
public final class NativeDiagnostics {

    /** The kinds of typed native error. */
    public enum ErrorKind {
        CONFIG,
        DECODE,
        IO,
        ARROW
    }

    private NativeDiagnostics() {}

    /** Panics in native code; arrives as {@link NativePanicException} carrying {@code message}. */
    public static void panic(String message) {
        NativeLibrary.load();
        nativePanic(message);
    }

    /** Returns a typed native error of the given kind; arrives as its Java exception. */
    public static void fail(ErrorKind kind, String message, long position) {
        NativeLibrary.load();
        nativeFail(kind.ordinal(), message, position);
    }

    private static native void nativePanic(String message);

    private static native void nativeFail(int kind, String message, long position);
}
