package dev.streamfusion.parquet.sink;

import dev.streamfusion.parquet.internal.MemoryLimit;

import org.apache.flink.annotation.Internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The part files one subtask writes at once (one per open bucket or partition), held under a
 * {@link MemoryLimit}: when together they hold more, the row groups holding the most are closed
 * early (smaller row groups, the same rows), and only when every one is closed and they still hold
 * more does the write fail. Flink's file sink calls one subtask's writers from one thread; a writer
 * abandoned by a failed job leaves from the cleaner's.
 */
@Internal
final class WriterMemory {

    /** A part file's writer as the limit sees it. */
    interface Part {
        /** Bytes held outside the Java heap. */
        long memoryBytes();

        /** Closes the row group in progress and hands its bytes to the part file. */
        void closeRowGroup() throws IOException;
    }

    private final MemoryLimit limit;
    private final String table;
    private final Set<Part> open = new LinkedHashSet<>();

    WriterMemory(MemoryLimit limit, String table) {
        this.limit = limit;
        this.table = table;
    }

    synchronized void opened(Part part) {
        open.add(part);
    }

    synchronized void closed(Part part) {
        open.remove(part);
    }

    /** Keeps the open part files under the limit after one of them took rows. */
    synchronized void written() throws IOException {
        if (!limit.bounded()) {
            return;
        }
        long held = 0;
        List<long[]> sizes = new ArrayList<>();
        List<Part> parts = new ArrayList<>(open);
        for (int i = 0; i < parts.size(); i++) {
            long bytes = parts.get(i).memoryBytes();
            held += bytes;
            sizes.add(new long[] {bytes, i});
        }
        if (!limit.exceededBy(held)) {
            return;
        }
        sizes.sort(Comparator.comparingLong((long[] size) -> size[0]).reversed());
        for (long[] size : sizes) {
            Part part = parts.get((int) size[1]);
            part.closeRowGroup();
            held += part.memoryBytes() - size[0];
            if (!limit.exceededBy(held)) {
                return;
            }
        }
        limit.check(
                held,
                "Writing table " + table + " (" + parts.size()
                        + " Parquet part files open in this subtask, every row group closed)",
                "write fewer partitions at once");
    }
}
