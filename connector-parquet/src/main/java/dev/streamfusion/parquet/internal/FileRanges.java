package dev.streamfusion.parquet.internal;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Byte ranges of one file, read through Flink's {@link FileSystem}, for the native reader of files
 * it cannot open itself (any scheme Flink supports: {@code s3://}, {@code hdfs://}, ...). The
 * native reader calls {@link #read} for the footer and for each column chunk it decodes, with a
 * direct buffer over native memory; the stream is opened at the first read and kept open.
 */
@Internal
public final class FileRanges implements Closeable {

    /** Heap bytes copied into the native buffer at a time. */
    private static final int COPY = 64 * 1024;

    private final Path path;
    private final FileSystem fs;
    private final long length;
    private FSDataInputStream in;
    private byte[] copy;
    /** Bytes read so far. */
    private long bytesRead;

    private FileRanges(Path path, FileSystem fs, long length) {
        this.path = path;
        this.fs = fs;
        this.length = length;
    }

    /** Whether {@code location} is a file the native reader opens itself (a local path). */
    public static boolean isLocal(String location) {
        String scheme = new Path(location).toUri().getScheme();
        return scheme == null || "file".equals(scheme);
    }

    /** The path of a local {@code location}, as the native reader opens it. */
    public static String localPath(String location) {
        return new Path(location).toUri().getPath();
    }

    /**
     * The ranges of the file at {@code location} (a path or URI Flink's file systems know), whose
     * length, known from its listing, is {@code length}: nothing is asked of the file system until
     * the first read.
     */
    public static FileRanges open(String location, long length) throws IOException {
        Path path = new Path(location);
        return new FileRanges(path, path.getFileSystem(), length);
    }

    /** The file's length in bytes; called natively. */
    public long length() {
        return length;
    }

    /**
     * Reads {@code target.remaining()} bytes from {@code position} into {@code target}; called
     * natively.
     *
     * @throws EOFException naming the file when it ends first
     */
    public void read(long position, ByteBuffer target) throws IOException {
        if (in == null) {
            in = fs.open(path);
            copy = new byte[COPY];
        }
        in.seek(position);
        long at = position;
        while (target.hasRemaining()) {
            int n = in.read(copy, 0, Math.min(copy.length, target.remaining()));
            if (n < 0) {
                throw new EOFException(path + ": ends at byte " + at + ", before the range asked for");
            }
            target.put(copy, 0, n);
            at += n;
            bytesRead += n;
        }
    }

    /** The bytes read so far, by every range asked for. */
    public long bytesRead() {
        return bytesRead;
    }

    @Override
    public void close() throws IOException {
        if (in != null) {
            in.close();
            in = null;
        }
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
