package dev.streamfusion.iceberg.internal;

import org.apache.flink.annotation.Internal;

import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The files of an Iceberg table that the native reader and writer do not open themselves (every
 * location other than a local path), reached through the table's own {@link FileIO}: any scheme
 * Iceberg Java reads and writes ({@code s3://}, {@code gs://}, {@code abfs://}, {@code hdfs://},
 * ...), with the catalog's settings and credentials. The native side calls {@link #open}, {@link
 * #length}, {@link #exists}, {@link #create}, {@link #write}, {@link #finish} and {@link #delete};
 * local files never come here. The
 * catalog and its {@code FileIO} are built at the first such call, so a table on local disk costs
 * nothing.
 *
 * <p>{@link #release()} closes the streams opened since the last release (a native reader or
 * writer is done with them); {@link #close()} also closes the catalog.
 */
@Internal
public final class TableFiles implements Closeable {

    /** Heap bytes copied between a stream and native memory at a time. */
    private static final int COPY = 64 * 1024;

    private final IcebergTableRef table;
    private Catalog catalog;
    private FileIO io;
    private final List<Closeable> open = new ArrayList<>();

    public TableFiles(IcebergTableRef table) {
        this.table = table;
    }

    /** The table's {@code FileIO}, built at the first call. */
    synchronized FileIO io() {
        if (io == null) {
            catalog = table.catalog();
            io = table.loadFrom(catalog).io();
        }
        return io;
    }

    private synchronized <T extends Closeable> T track(T stream) {
        open.add(stream);
        return stream;
    }

    /** The file at {@code location}, for range reads; called natively. */
    public Object open(String location) {
        return track(new Ranges(io().newInputFile(location)));
    }

    /** The length of the file at {@code location}; called natively. */
    public long length(String location) {
        return io().newInputFile(location).getLength();
    }

    /** Whether a file is at {@code location}; called natively. */
    public boolean exists(String location) {
        return io().newInputFile(location).exists();
    }

    /** A new file at {@code location}, replacing any; called natively. */
    public Object create(String location) {
        return track(new Output(location, io().newOutputFile(location).createOrOverwrite()));
    }

    /**
     * Appends the bytes of {@code source} (a direct buffer over native memory) to {@code output}, an
     * object {@link #create} returned; called natively.
     */
    public void write(Object output, ByteBuffer source) throws IOException {
        ((Output) output).write(source);
    }

    /** Completes {@code output}, an object {@link #create} returned; called natively. */
    public void finish(Object output) throws IOException {
        ((Output) output).close();
    }

    /** Deletes the file at {@code location}; called natively. */
    public void delete(String location) {
        io().deleteFile(location);
    }

    /** Closes the streams opened since the last call. */
    public synchronized void release() throws IOException {
        IOException failed = null;
        for (Closeable stream : open) {
            try {
                stream.close();
            } catch (IOException e) {
                if (failed == null) {
                    failed = e;
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        open.clear();
        if (failed != null) {
            throw failed;
        }
    }

    @Override
    public synchronized void close() throws IOException {
        try {
            release();
        } finally {
            if (catalog != null) {
                IcebergTableRef.close(catalog);
                catalog = null;
                io = null;
            }
        }
    }

    /** Byte ranges of one file: the stream is opened at the first read and kept open. */
    static final class Ranges implements Closeable {
        private final InputFile file;
        private SeekableInputStream in;
        private byte[] copy;

        Ranges(InputFile file) {
            this.file = file;
        }

        /**
         * Reads {@code target.remaining()} bytes from {@code position} into {@code target} (a
         * direct buffer over native memory); called natively.
         *
         * @throws EOFException naming the file when it ends first
         */
        public synchronized void read(long position, ByteBuffer target) throws IOException {
            if (in == null) {
                in = file.newStream();
                copy = new byte[COPY];
            }
            long at = position;
            if (in instanceof RangeReadable) {
                RangeReadable ranges = (RangeReadable) in;
                while (target.hasRemaining()) {
                    int n = Math.min(copy.length, target.remaining());
                    try {
                        ranges.readFully(at, copy, 0, n);
                    } catch (EOFException e) {
                        throw ended(position, e);
                    }
                    target.put(copy, 0, n);
                    at += n;
                }
                return;
            }
            in.seek(position);
            while (target.hasRemaining()) {
                int n = in.read(copy, 0, Math.min(copy.length, target.remaining()));
                if (n < 0) {
                    throw ended(at, null);
                }
                target.put(copy, 0, n);
                at += n;
            }
        }

        private EOFException ended(long at, EOFException cause) {
            EOFException e = new EOFException(file.location() + ": ends before byte " + at + " of the range asked for");
            if (cause != null) {
                e.initCause(cause);
            }
            return e;
        }

        @Override
        public synchronized void close() throws IOException {
            if (in != null) {
                in.close();
                in = null;
            }
        }
    }

    /** One file being written from its start. */
    static final class Output implements Closeable {
        private final String location;
        private final PositionOutputStream out;
        private final byte[] copy = new byte[COPY];
        private boolean closed;

        Output(String location, PositionOutputStream out) {
            this.location = location;
            this.out = out;
        }

        synchronized void write(ByteBuffer source) throws IOException {
            if (closed) {
                throw new IOException(location + " is already closed");
            }
            while (source.hasRemaining()) {
                int n = Math.min(copy.length, source.remaining());
                source.get(copy, 0, n);
                out.write(copy, 0, n);
            }
        }

        /** Completes the file (by the writer, or by a release for a file left open). */
        @Override
        public synchronized void close() throws IOException {
            if (!closed) {
                closed = true;
                out.close();
            }
        }
    }
}
