package dev.streamfusion.parquet.source;

import dev.streamfusion.parquet.ColumnPredicates;
import dev.streamfusion.parquet.NativeParquetReader;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.metrics.MetricGroup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Lists the table's files once (a file, or a directory read recursively; hidden files starting
 * with {@code .} or {@code _} skipped, as Flink's file source skips them), splits each into its row
 * groups from its footer, and hands splits to readers as they ask. Its checkpoint is the splits not
 * handed out yet.
 */
@Internal
final class RowGroupEnumerator implements SplitEnumerator<RowGroupSplit, Collection<RowGroupSplit>> {

    private final SplitEnumeratorContext<RowGroupSplit> context;
    private final ArrayDeque<RowGroupSplit> pending;

    RowGroupEnumerator(SplitEnumeratorContext<RowGroupSplit> context, Collection<RowGroupSplit> pending) {
        this.context = context;
        this.pending = new ArrayDeque<>(pending);
    }

    /**
     * Every row group of every file under {@code path} whose path matches {@code regex} (if set),
     * but those whose statistics rule out {@code predicates}. Counts both in the enumerator's
     * metric group {@code streamfusion}: {@code rowGroups} and {@code prunedRowGroups}.
     */
    static List<RowGroupSplit> listSplits(
            SplitEnumeratorContext<RowGroupSplit> context, String path, String regex, ColumnPredicates predicates) {
        List<RowGroupSplit> splits = new ArrayList<>();
        long total = 0;
        long pruned = 0;
        Pattern pattern = regex == null ? null : Pattern.compile(regex);
        try {
            Path root = new Path(path);
            FileSystem fs = root.getFileSystem();
            List<Path> files = new ArrayList<>();
            collect(fs, fs.getFileStatus(root), files);
            files.sort(Comparator.comparing(Path::toString));
            for (Path file : files) {
                String local = file.toUri().getPath();
                if (pattern != null && !pattern.matcher(local).matches()) {
                    continue;
                }
                long[] rows = NativeParquetReader.rowGroups(local, predicates);
                for (int group = 0; group < rows.length; group++) {
                    total++;
                    if (rows[group] < 0) {
                        pruned++;
                    } else {
                        splits.add(new RowGroupSplit(local, group, rows[group], 0));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the Parquet files of " + path + ": " + e.getMessage(), e);
        }
        MetricGroup metrics = context.metricGroup().addGroup("streamfusion");
        long rowGroups = total;
        long prunedRowGroups = pruned;
        metrics.gauge("rowGroups", () -> rowGroups);
        metrics.gauge("prunedRowGroups", () -> prunedRowGroups);
        return splits;
    }

    private static void collect(FileSystem fs, FileStatus status, List<Path> files) throws IOException {
        String name = status.getPath().getName();
        if (name.startsWith(".") || name.startsWith("_")) {
            return;
        }
        if (!status.isDir()) {
            files.add(status.getPath());
            return;
        }
        for (FileStatus child : fs.listStatus(status.getPath())) {
            collect(fs, child, files);
        }
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtask, String requesterHostname) {
        RowGroupSplit next = pending.poll();
        if (next == null) {
            context.signalNoMoreSplits(subtask);
        } else {
            context.assignSplit(next, subtask);
        }
    }

    @Override
    public void addSplitsBack(List<RowGroupSplit> splits, int subtaskId) {
        splits.forEach(pending::addFirst);
    }

    @Override
    public void addReader(int subtaskId) {}

    @Override
    public Collection<RowGroupSplit> snapshotState(long checkpointId) {
        return new ArrayList<>(pending);
    }

    @Override
    public void close() {}

    /** The enumerator's checkpoint: the splits not handed out. */
    static final class StateSerializer implements SimpleVersionedSerializer<Collection<RowGroupSplit>> {

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Collection<RowGroupSplit> splits) throws IOException {
            DataOutputSerializer out = new DataOutputSerializer(256);
            out.writeInt(splits.size());
            for (RowGroupSplit split : splits) {
                RowGroupSplit.Serializer.write(split, out);
            }
            return out.getCopyOfBuffer();
        }

        @Override
        public Collection<RowGroupSplit> deserialize(int version, byte[] serialized) throws IOException {
            DataInputDeserializer in = new DataInputDeserializer(serialized);
            int count = in.readInt();
            List<RowGroupSplit> splits = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                splits.add(RowGroupSplit.Serializer.read(in));
            }
            return splits;
        }
    }
}
